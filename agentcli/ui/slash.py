"""Slash commands of the interactive session: one table, name -> handler."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agentcli.core import jsonsafe
from agentcli.core.errors import AgentCliError, UsageError
from agentcli.core.escape import styled, visible
from agentcli.core.types import Role, Tier

if TYPE_CHECKING:
    import httpx
    from rich.console import Console

    from agentcli.agent.session import Session
    from agentcli.agent.switch import SwitchReport


@dataclass
class Repl:
    session: Session
    console: Console
    transport: httpx.AsyncBaseTransport | None = None
    running: bool = True


def _model(r: Repl, arg: str) -> None:
    from agentcli.agent.switch import switch

    if not arg:
        s = r.session
        r.console.print(styled("model ", (s.profile.model, "bold"), f" via {s.profile.provider} ({s.provider.url}); "
                               f"tools {'native' if s.plan.native_tools else 'emulated: ' + str(s.plan.dialect)}"))
        return
    rep = switch(r.session, arg, transport=r.transport)
    _show_switch(r, rep)


def _show_switch(r: Repl, rep: SwitchReport) -> None:
    spec = rep.spec
    version = ".".join(map(str, spec.get("version") or [])) or "?"
    size = spec.get("size_label") or (f"{spec['size']}B" if spec.get("size") else "?")
    r.console.print(styled("switched to ", (str(rep.model), "bold"), f" via {rep.provider}: family ",
                           (str(spec.get("family")), "cyan"),
                           f" version {version} size {size} provider {spec.get('provider') or rep.provider}"))
    for k, (old, new) in rep.changed.items():
        r.console.print(styled(f"  {k}: {old} → ", (str(new), "bold")))
    r.console.print(styled(f"  wire: {rep.plan}; the conversation carries over"))
    if rep.inherited_from:
        r.console.print(styled((f"  custom model: capabilities inherited from {rep.inherited_from}", "dim")))
    if rep.warning:
        r.console.print(styled((str(rep.warning), "yellow")))


def _profile(r: Repl, arg: str) -> None:
    from agentcli.agent.switch import apply_profile
    from agentcli.config import load_profile

    if not arg:
        r.console.print(styled("profile ", (r.session.profile.name, "bold")))
        return
    loaded = load_profile(arg, workspace=r.session.workspace)
    for w in loaded.warnings:
        r.console.print(styled((f"! {w}", "yellow")))
    _show_switch(r, apply_profile(r.session, loaded.profile, transport=r.transport))


def _tier(r: Repl, arg: str) -> None:
    s = r.session
    if arg:
        tier = Tier.parse(arg)
        if tier > s.max_tier:
            r.console.print(styled((f"{tier.label} is above this profile's max_tier ({s.max_tier.label})", "red")))
            return
        s.set_tier(tier)
    r.console.print(styled("tier ", (s.tier.label, "bold"), f" (profile cap: {s.max_tier.label})"))


def _tools(r: Repl, arg: str) -> None:
    from rich.table import Table

    s = r.session
    visible_now = {t.name for t in s.visible_tools()}
    table = Table("tool", "server", "tier", "read-only", "visible now", box=None)
    for t in sorted(s.registry.all(), key=lambda t: (t.namespace or "", t.tier, t.name)):
        table.add_row(styled(t.name), styled(t.namespace or "built-in"), t.tier.label, "yes" if t.read_only else "",
                      styled(("yes", "green")) if t.name in visible_now else styled(("no", "dim")))
    r.console.print(table)
    for st in s.mcp.status() if s.mcp is not None else ():
        if st.state != "running" or st.error:
            line = f"MCP server {st.name}: {st.state}" + (f" — {st.error}" if st.error else "")
            r.console.print(styled(line))


def _doctor(r: Repl, arg: str) -> None:
    from agentcli.agent.doctor import gather
    from agentcli.ui.doctor import render

    render(gather(r.session.profile, offline=True))


def _history(r: Repl, arg: str) -> None:
    for i, m in enumerate(r.session.history):
        if m.role is Role.TOOL:
            for res in m.tool_results:
                r.console.print(styled((f"{i:3}", "dim"), f" tool {res.tool_name}: {'ok' if res.ok else 'error'} ",
                                       (res.content.splitlines() or [""])[0][:80]))
            continue
        text = (m.text.strip().splitlines() or [""])[0][:100]
        calls = ", ".join(c.name for c in m.tool_calls)
        r.console.print(styled(f"{i:3} {m.role.value}: ", text, (f" [calls: {calls}]" if calls else "", "dim")))


def _undo(r: Repl, arg: str) -> None:
    """Restore the files the last request changed, then drop it from the conversation."""
    from rich.text import Text

    from agentcli.agent.checkpoints import BlobStore, undo

    s = r.session
    if s.ledger.last_exchange() is None:  # a transcript from before requests were marked: messages only
        last_user = max((i for i, m in enumerate(s.history) if m.role is Role.USER), default=None)
        if last_user is None:
            r.console.print("nothing to undo")
            return
        s.ledger.exchanges.append(last_user)
    kept = s.recorder.blobs if s.recorder is not None else None
    # no contents kept (not recorded, or hashes only): undo finds no old content and refuses, saying so
    blobs = kept if kept is not None else BlobStore(s.workspace / ".nonexistent")
    report = undo(s.workspace, blobs, s.ledger)  # refuses (UsageError) when a file changed since
    dropped = len(s.history) - report.keep
    s.truncate(report.keep)
    if s.transcript:
        s.transcript.write("undo", restored=report.restored, removed=report.removed)
    r.console.print(Text(f"dropped the last exchange ({dropped} messages)"))
    for rel in report.restored:
        r.console.print(Text("  restored ") + Text(visible(rel), style="bold"))
    for rel in report.removed:
        r.console.print(Text("  removed ") + Text(visible(rel), style="bold"))
    for rel in report.left:  # inside .git, node_modules...: listed, not copied, so not put back
        r.console.print(Text("  left as it is ", style="yellow") + Text(visible(rel), style="bold"))


def _rewind(r: Repl, arg: str) -> None:
    """Go back to a point of this conversation: the requests that changed files, newest first;
    `/rewind N` undoes the N newest of them (and the exchanges after them), newest first, each
    checked like /undo (a file changed since stops it there)."""
    from rich.text import Text

    s = r.session
    starts = sorted({c.exchange for c in s.ledger.changes}, reverse=True)
    if not starts:
        r.console.print("nothing to rewind: no request in this conversation changed a file")
        return
    if not arg:
        for n, start in enumerate(starts, 1):
            words = s.history[start].text if 0 <= start < len(s.history) else ""
            paths = sorted({c.path for c in s.ledger.changes if c.exchange == start})
            r.console.print(Text(f"{n:3}  ") + Text((words.strip().splitlines() or [""])[0][:70])
                            + Text(f"  ({', '.join(visible(p) for p in paths[:4])}"
                                   f"{' …' if len(paths) > 4 else ''})", style="dim"))
        r.console.print(Text("/rewind N goes back to before point N (undoing every newer one)", style="dim"))
        return
    if not arg.isdigit() or not 1 <= int(arg) <= len(starts):
        raise UsageError(f"no point {arg!r} to go back to", hint=f"/rewind lists them (1 to {len(starts)})")
    target = starts[int(arg) - 1]
    while s.ledger.exchanges and s.ledger.exchanges[-1] >= target:
        _undo(r, "")


def _init(r: Repl, arg: str) -> None:
    """Write a starter AGENTS.md (project instructions) unless one exists."""
    from rich.text import Text

    from agentcli.agent.instructions import FILENAME, Instructions, starter_text
    from agentcli.tools.sandbox import Workspace

    s = r.session
    if (s.workspace / FILENAME).exists():
        r.console.print(Text(f"{FILENAME} already exists in {s.workspace}; edit it by hand"))
        return
    Workspace(s.workspace).write_atomic(FILENAME, starter_text(s.workspace).encode())
    s.instructions = Instructions.load(s.workspace)
    r.console.print(Text(f"wrote {s.workspace / FILENAME}: fill in the project's details; "
                         "the agent reads it from the next request on"))


def _clear(r: Repl, arg: str) -> None:
    r.session.truncate(0)
    r.console.print("conversation cleared")


def _save(r: Repl, arg: str) -> None:
    from agentcli.agent.serialize import message_to_dict
    from agentcli.core.redaction import redact

    path = Path(arg or f"agent-session-{r.session.id}.json").expanduser()
    data = {"id": r.session.id, "model": r.session.profile.model, "provider": r.session.profile.provider,
            "messages": [message_to_dict(m) for m in r.session.history]}
    from agentcli.config.paths import write_private

    write_private(path, redact(jsonsafe.dumps(data, indent=2, ensure_ascii=False)))
    r.console.print(styled(f"saved {len(r.session.history)} messages to ", str(path)))


def _compact(r: Repl, arg: str) -> None:
    folded = r.session.compact(force=True)
    r.console.print(f"folded {folded} older messages into a summary" if folded else "nothing old enough to fold")


def _help(r: Repl, arg: str) -> None:
    for name, (_, text) in COMMANDS.items():
        r.console.print(styled("  ", (f"/{name}", "bold"), f" {text}"))
    r.console.print(styled(("  Enter sends · Esc then Enter (or Alt+Enter) adds a line · Ctrl-C cancels a turn · Ctrl-D exits", "dim")))


def _exit(r: Repl, arg: str) -> None:
    r.running = False


COMMANDS: dict[str, tuple[Callable[[Repl, str], None], str]] = {
    "model": (_model, "ID | provider/ID | PROFILE — switch model or provider, keep the conversation"),
    "profile": (_profile, "NAME — switch to another profile"),
    "tier": (_tier, "[crawl|walk|run] — show or set the tier (within the profile cap)"),
    "tools": (_tools, "— tools by tier, and which the model sees now"),
    "doctor": (_doctor, "— the doctor panel for the current model"),
    "history": (_history, "— the conversation so far"),
    "undo": (_undo, "— restore the files the last request changed, and drop it"),
    "rewind": (_rewind, "[N] — list the points that changed files, or go back to before point N"),
    "init": (_init, "— write a starter AGENTS.md (project instructions) in the workspace"),
    "clear": (_clear, "— start the conversation afresh"),
    "save": (_save, "[FILE] — save the conversation as JSON"),
    "compact": (_compact, "— summarise older turns to free context"),
    "help": (_help, "— this list"),
    "exit": (_exit, "— leave (Ctrl-D works too)"),
}


def dispatch(r: Repl, line: str) -> None:
    name, _, arg = line[1:].partition(" ")
    entry = COMMANDS.get(name.strip().lower())
    if entry is None:
        r.console.print(styled(("unknown command /", "red"), (name, "red"), "; /help lists them"))
        return
    try:
        entry[0](r, arg.strip())
    except AgentCliError as exc:
        r.console.print(styled((exc.message, "red"), (f"\nhint: {exc.hint}" if exc.hint else "", "dim")))
    except ValueError as exc:
        r.console.print(styled((str(exc), "red")))
