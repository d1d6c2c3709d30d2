"""How the scripted model writes a turn: native call fields per API, or calls as text per dialect.

Native calls are written by the provider class that speaks the plan's API (`Provider.reply`);
TEXT (dialect -> call renderer) writes them into the text. The emulation dialects' own
`render_call` is used where the arguments are well formed, so the model writes exactly what the
prompt asked for; the raw-JSON forms below exist to carry broken arguments.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agentcli.config.providers import api_kinds
from agentcli.core.record import record

if TYPE_CHECKING:
    from agentcli.wire.types import WirePlan


@record
class Out:
    """One call as it will be written. `raw` is the argument text exactly as written (broken JSON,
    double encoding); `dialect` forces the call into the text in that dialect."""

    name: str
    args: dict[str, Any]
    raw: str | None = None
    dialect: str | None = None


def _raw(o: Out) -> str:
    return o.raw if o.raw is not None else json.dumps(o.args, ensure_ascii=False)


def _rendered(dialect: str) -> Callable[[Out], str]:
    def render(o: Out) -> str:
        from agentcli.core.types import ToolCall
        from agentcli.wire import dialects

        return dialects.get(dialect).render_call(ToolCall(o.name, dict(o.args)))

    return render


def _qwen_bare(o: Out) -> str:
    # qwen3-coder's known slip: everything but the opening <tool_call> (ollama/ollama#16686).
    return _rendered("qwen3_coder")(o).replace("<tool_call>\n", "", 1)


# dialect -> (renderer, carries raw argument text)
TEXT: dict[str, tuple[Callable[[Out], str], bool]] = {
    "hermes": (lambda o: f'<tool_call>\n{{"name": "{o.name}", "arguments": {_raw(o)}}}\n</tool_call>', True),
    "json_block": (lambda o: f'```json\n{{"name": "{o.name}", "arguments": {_raw(o)}}}\n```', True),
    "mistral": (lambda o: f'[TOOL_CALLS][{{"name": "{o.name}", "arguments": {_raw(o)}}}]', True),
    "llama3_json": (lambda o: f'{{"name": "{o.name}", "parameters": {_raw(o)}}}', True),
    "kimi_k2": (
        lambda o: "<|tool_calls_section_begin|><|tool_call_begin|>functions."
        f"{o.name}:0<|tool_call_argument_begin|>{_raw(o)}<|tool_call_end|><|tool_calls_section_end|>",
        True,
    ),
    "claude_xml": (_rendered("claude_xml"), False),
    "qwen3_coder": (_rendered("qwen3_coder"), False),
    "qwen3_coder_bare": (_qwen_bare, False),
    "pythonic": (_rendered("pythonic"), False),
}
RAW_FALLBACK = "hermes"  # where broken JSON goes when the chosen form cannot carry it


def text_call(o: Out, dialect: str) -> str:
    render, raw_ok = TEXT.get(dialect, TEXT[RAW_FALLBACK])
    if o.raw is not None and not raw_ok:
        render = TEXT[RAW_FALLBACK][0]
    return render(o)


@functools.cache
def _native(api: str) -> tuple[Callable[[str, list[Out], tuple[int, int]], dict[str, Any]], bool]:
    """(body builder, native arguments are raw JSON text) for `api`: the reply its provider class writes."""
    from agentcli.providers import speaker
    from agentcli.providers.base import ReplyCall

    cls = speaker(api)

    def build(text: str, outs: list[Out], usage: tuple[int, int]) -> dict[str, Any]:
        return cls.reply(text, [ReplyCall(o.name, o.args, _raw(o)) for o in outs], usage)

    return build, cls.raw_arguments


NATIVE: tuple[str, ...] = api_kinds()  # the API shapes the model writes native calls in: every one a provider speaks


def write_turn(plan: WirePlan, text: str, outs: list[Out], usage: tuple[int, int] = (0, 0)) -> dict[str, Any]:
    """One scripted turn ({api: body}) for the plan: native calls where the plan is native and the
    call fits the API's fields; every other call goes into the text in its dialect."""
    api = plan.api if plan.api in NATIVE else "openai"
    build, raw_native = _native(api)
    native: list[Out] = []
    texts: list[str] = [text] if text else []
    for o in outs:
        if plan.native_tools and o.dialect is None and (o.raw is None or raw_native):
            native.append(o)
        else:
            texts.append(text_call(o, o.dialect or plan.dialect or RAW_FALLBACK))
    out_tokens = max(1, sum(len(t) for t in texts) // 4 + sum(len(_raw(o)) // 4 + 4 for o in native))
    return {api: build("\n\n".join(texts), native, (usage[0], out_tokens))}
