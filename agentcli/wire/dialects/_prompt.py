"""Shared pieces of emulation prompts: tool descriptions, example arguments, result blocks.

Each emulation dialect supplies only how one call looks; the instructions around it
(one call, several calls, nothing after the calls) are the same everywhere.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentcli.core.types import Tool, ToolResult


def _type_of(schema: Any) -> str:
    if not isinstance(schema, dict):
        return "any"
    t = schema.get("type")
    if isinstance(t, list):
        return "|".join(str(x) for x in t)
    if t:
        return str(t)
    if "enum" in schema:
        return "enum"
    return "any"


def describe_tools(tools: list[Tool], compact: bool = False) -> str:
    """Tools as text: a full listing, or one line per tool for small context windows."""
    lines: list[str] = []
    for tool in tools:
        params = (tool.parameters or {}).get("properties") or {}
        required = set((tool.parameters or {}).get("required") or ())
        if compact:
            sig = ", ".join(f"{p}{'' if p in required else '?'}: {_type_of(s)}" for p, s in params.items())
            desc = " ".join(tool.description.split())[:80]
            lines.append(f"- {tool.name}({sig}): {desc}")
            continue
        lines.append(f"### {tool.name}")
        if tool.description:
            lines.append(tool.description.strip())
        if params:
            lines.append("Parameters:")
            for p, s in params.items():
                bits = [_type_of(s), "required" if p in required else "optional"]
                if isinstance(s, dict) and s.get("enum"):
                    bits.append("one of " + ", ".join(json.dumps(v) for v in s["enum"]))
                desc = (s.get("description") or "").strip() if isinstance(s, dict) else ""
                lines.append(f"- {p} ({'; '.join(bits)})" + (f": {desc}" if desc else ""))
        else:
            lines.append("Parameters: none")
        lines.append("")
    return "\n".join(lines).rstrip()


def example_args(tool: Tool | None) -> dict[str, Any]:
    """Plausible arguments for an example call: required parameters with placeholder values."""
    if tool is None:
        return {"path": "README.md"}
    params = (tool.parameters or {}).get("properties") or {}
    required = (tool.parameters or {}).get("required") or list(params)[:1]
    out: dict[str, Any] = {}
    for p in required:
        s = params.get(p, {})
        t = _type_of(s)
        if isinstance(s, dict) and s.get("enum"):
            out[p] = s["enum"][0]
        elif t.startswith("integer") or t.startswith("number"):
            out[p] = 1
        elif t.startswith("boolean"):
            out[p] = True
        elif t.startswith("array"):
            out[p] = ["..."]
        elif t.startswith("object"):
            out[p] = {}
        else:
            out[p] = "..."
    return out


def example_calls(tools: list[Tool]) -> tuple[tuple[str, dict[str, Any]], tuple[str, dict[str, Any]]]:
    first = tools[0] if tools else None
    second = tools[1] if len(tools) > 1 else first
    one = (first.name if first else "read_file", example_args(first))
    two = (second.name if second else "read_file", example_args(second))
    return one, two


def instructions(
    tools: list[Tool],
    compact: bool,
    render: Callable[[str, dict[str, Any]], str],
    render_many: Callable[[list[tuple[str, dict[str, Any]]]], str] | None = None,
    listing: str | None = None,
    results_hint: str = "",
) -> str:
    """The full emulation prompt around a dialect's call syntax."""
    one, two = example_calls(tools)
    single = render(*one)
    several = render_many([one, two]) if render_many else render(*one) + "\n" + render(*two)
    listing = listing if listing is not None else describe_tools(tools, compact)
    if compact:
        return (
            "Tools (call one by writing exactly this form, nothing after it):\n"
            f"{single}\n"
            f"{listing}\n"
            "No tool needed? Answer in plain text."
        )
    return (
        "# Tools\n\n"
        "You can call the tools below. Only call tools listed here, with the parameters they define.\n\n"
        f"{listing}\n\n"
        "## How to call a tool\n\n"
        f"To call one tool, write exactly:\n\n{single}\n\n"
        f"To call several tools at once, write the calls one after another:\n\n{several}\n\n"
        "Write nothing after your tool calls: end your message there and wait for the results"
        f"{', which arrive in the next message' + results_hint if results_hint else ''}. "
        "Do not invent results. If no tool is needed, answer in plain text without any tool call."
    )


def result_text(result: ToolResult) -> str:
    """A result's content, with failures clearly marked so the model can react to them."""
    if result.ok:
        return result.content
    code = getattr(result.error, "code", None)
    code = getattr(code, "value", code)
    head = f"ERROR ({code})" if code else "ERROR"
    return f"{head}: {result.content}"


def render_call_args(args: dict[str, Any]) -> str:
    return json.dumps(args, ensure_ascii=False)
