"""How the scripted model writes a turn: native call fields per API, or calls as text per dialect.

Two tables: NATIVE (api -> body builder) and TEXT (dialect -> call renderer). The emulation
dialects' own `render_call` is used where the arguments are well formed, so the model writes
exactly what the prompt asked for; the raw-JSON forms below exist to carry broken arguments.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentcli.wire.types import WirePlan


@dataclass(slots=True)
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


def _openai(text: str, outs: list[Out], usage: tuple[int, int]) -> dict[str, Any]:
    from agentcli.providers.openai import openai_body

    calls = [{"id": f"call_{i}", "type": "function", "function": {"name": o.name, "arguments": _raw(o)}}
             for i, o in enumerate(outs)]
    body = openai_body(text, tool_calls=calls or None)
    if calls and not text:
        body["choices"][0]["message"]["content"] = None
    body["usage"] = {"prompt_tokens": usage[0], "completion_tokens": usage[1], "total_tokens": sum(usage)}
    return body


def _anthropic(text: str, outs: list[Out], usage: tuple[int, int]) -> dict[str, Any]:
    from agentcli.providers.anthropic import anthropic_body

    uses = [{"type": "tool_use", "id": f"toolu_{i:02d}", "name": o.name, "input": o.args} for i, o in enumerate(outs)]
    body = anthropic_body(text, tool_uses=uses or None)
    body["usage"] = {"input_tokens": usage[0], "output_tokens": usage[1]}
    return body


def _ollama(text: str, outs: list[Out], usage: tuple[int, int]) -> dict[str, Any]:
    from agentcli.providers.ollama import ollama_body

    body = ollama_body(text, tool_calls=[{"function": {"name": o.name, "arguments": o.args}} for o in outs] or None)
    body["prompt_eval_count"], body["eval_count"] = usage
    return body


def _gemini(text: str, outs: list[Out], usage: tuple[int, int]) -> dict[str, Any]:
    from agentcli.providers.gemini import gemini_body

    body = gemini_body(text, calls=[{"name": o.name, "args": o.args} for o in outs] or None)
    body["usageMetadata"] = {"promptTokenCount": usage[0], "candidatesTokenCount": usage[1],
                             "totalTokenCount": sum(usage)}
    return body


# api -> (body builder, native arguments are raw JSON text)
NATIVE: dict[str, tuple[Callable[[str, list[Out], tuple[int, int]], dict[str, Any]], bool]] = {
    "openai": (_openai, True),
    "anthropic": (_anthropic, False),
    "ollama": (_ollama, False),
    "gemini": (_gemini, False),
}


def write_turn(plan: WirePlan, text: str, outs: list[Out], usage: tuple[int, int] = (0, 0)) -> dict[str, Any]:
    """One scripted turn ({api: body}) for the plan: native calls where the plan is native and the
    call fits the API's fields; every other call goes into the text in its dialect."""
    api = plan.api if plan.api in NATIVE else "openai"
    build, raw_native = NATIVE[api]
    native: list[Out] = []
    texts: list[str] = [text] if text else []
    for o in outs:
        if plan.native_tools and o.dialect is None and (o.raw is None or raw_native):
            native.append(o)
        else:
            texts.append(text_call(o, o.dialect or plan.dialect or RAW_FALLBACK))
    out_tokens = max(1, sum(len(t) for t in texts) // 4 + sum(len(_raw(o)) // 4 + 4 for o in native))
    return {api: build("\n\n".join(texts), native, (usage[0], out_tokens))}
