"""The offline demo model (`script = "builtin:demo"`): a scripted model that adapts to the goal.

It lists the workspace, reads the file the goal names (or the first text file), and when the
goal asks for a fix and the file holds a common typo, edits it, first asking for the walk tier
(`request_tier`) when file edits are not offered yet, as a well-behaved model would. Each step is written in a
different wire form (a native call with a trailing comma the repair layer fixes, a hermes
<tool_call>, a Claude XML invoke) so one session shows the whole parsing stack at work.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from agentcli.providers.scripted.view import View, read_view
from agentcli.providers.scripted.writers import Out, write_turn

if TYPE_CHECKING:
    from agentcli.core.types import Message, Tool
    from agentcli.wire.types import WirePlan

# Misspellings the demo knows how to fix, as whole words (lower case -> fix).
TYPOS = {"helo": "hello", "wrold": "world", "teh": "the", "recieve": "receive", "seperate": "separate",
         "occured": "occurred", "definately": "definitely", "adress": "address", "untill": "until"}
_FIX_WORDS = re.compile(r"\b(fix|typo|correct|spelling)\b", re.IGNORECASE)
_TEXT_EXT = (".py", ".txt", ".md", ".toml", ".json", ".cfg", ".ini", ".js", ".ts", ".rs", ".go", ".yaml", ".yml")


def _listing(view: View) -> list[str]:
    """The files list_files showed: one entry a line; folders end in '/', notes are bracketed, and an
    empty folder is one sentence ("No entries in ..."), none of which is a file."""
    text = view.ok_text("list_files")
    if text.startswith("No entries"):
        return []
    rows = (ln.strip() for ln in text.splitlines())
    return [r for r in rows if r and not r.endswith("/") and not r.startswith("[")]


def _target(view: View) -> str | None:
    files = _listing(view)
    for name in re.findall(r"[\w./-]+\.\w+", view.goal):
        if name in files:
            return name
    return next((f for f in files if f.endswith(_TEXT_EXT)), None)


def _find_typo(text: str) -> tuple[str, str, int] | None:
    """(wrong word as written, fixed word, line number) for the first known typo."""
    for n, line in enumerate(text.splitlines(), 1):
        body = line.split("\t", 1)[-1]  # read_file numbers its lines
        for word in re.findall(r"[A-Za-z]+", body):
            fix = TYPOS.get(word.lower())
            if fix:
                return word, fix.capitalize() if word[0].isupper() else fix, n
    return None


def demo_turn(messages: list[Message], tools: list[Tool], plan: WirePlan) -> dict[str, Any]:
    """fn(messages, tools, plan) -> one scripted turn."""
    view = read_view(messages)
    done = [c.name for e in view.exchanges for c in e.calls]
    usage = (sum(len(m.text) for m in messages) // 4, 0)
    if "list_files" not in done:
        # Native call, arguments with a trailing comma: the repair layer reports and fixes it.
        return write_turn(plan, "I'll start by looking at the workspace.",
                          [Out("list_files", {"path": "."}, raw='{"path": ".",}')], usage)
    target = _target(view)
    if target and "read_file" not in done:
        return write_turn(plan, f"Let me read {target}.", [Out("read_file", {"path": target}, dialect="hermes")], usage)
    typo = _find_typo(view.ok_text("read_file")) if target else None
    if typo and _FIX_WORDS.search(view.goal) and "edit_file" not in done:
        wrong, right, _line = typo
        offered = {t.name for t in tools}
        if "edit_file" not in offered:
            if "request_tier" in offered and "request_tier" not in done:
                # Below the walk tier: ask for it, with the reason; a person decides.
                return write_turn(plan, f"'{wrong}' is a typo for '{right}'. Editing needs the walk tier; asking.",
                                  [Out("request_tier", {"tier": "walk", "reason": f"fix the typo '{wrong}' in {target}"})],
                                  usage)
            return write_turn(plan, _answer(view, target, typo), [], usage)
        return write_turn(plan, f"'{wrong}' is a typo for '{right}'. Fixing it.",
                          [Out("edit_file", {"path": target, "old_content": wrong, "new_content": right},
                               dialect="claude_xml")], usage)
    return write_turn(plan, _answer(view, target, typo), [], usage)


def _answer(view: View, target: str | None, typo: tuple[str, str, int] | None) -> str:
    edits = [r for r in view.results("edit_file")]
    if edits and edits[-1].ok and typo:
        wrong, right, line = typo
        return f"I fixed the typo in {target}: line {line} said '{wrong}', it now says '{right}'. Nothing else changed."
    if edits:
        return f"I tried to fix {target} but the edit did not go through: {edits[-1].content.splitlines()[0]}"
    asked = view.results("request_tier")
    if asked and not asked[-1].ok and typo:
        return (f"{target} has a typo on line {typo[2]} ('{typo[0]}' should be '{typo[1]}'), but I could not fix it: "
                f"{asked[-1].content.splitlines()[0]}")
    files = _listing(view)
    head = "I am the offline demo model (no real LLM is involved), so I can only look around. "
    seen = (f"The workspace holds {len(files)} file(s): {', '.join(files[:10])}{' ...' if len(files) > 10 else ''}."
            if files else "The workspace holds no files.")
    if target and typo:
        return head + seen + f" {target} has a typo on line {typo[2]} ('{typo[0]}'); ask me to fix it."
    return head + seen + (f" I read {target}." if target else "")
