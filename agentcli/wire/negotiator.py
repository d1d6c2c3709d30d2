"""The Negotiator: one WirePlan per (API, model capability, profile tools settings, learned facts).

Precedence, highest first: an explicit per-field setting (definition_format, call_parser,
result_format), the `tool_format` shorthand, facts learned from earlier runs, the model's
capability, the API's defaults. Each decision leaves one human line in `notes`.

EMULATION_LADDER is the order emulation styles are tried in when a model keeps failing the one
it was prompted with; the session learns the next style as `emulation_style`.
"""

from __future__ import annotations

from typing import Any

from agentcli.wire.dialects import DIALECTS, SHORTHANDS
from agentcli.wire.native import APIS
from agentcli.wire.native import get as native_api
from agentcli.wire.types import WirePlan

COMPACT_BELOW = 16_384  # context windows under 16k get the compact emulation prompt
NATIVE_WORDS = ("native", *APIS)
SHORTHAND_WORDS = ("native", *SHORTHANDS)
CHOICE_WORDS = ("auto", "none", "required")
# APIs that can force a tool call at all (Ollama's /api/chat has no tool_choice).

# Emulation styles in the order the fallback ladder tries them (dialect names).
EMULATION_LADDER: tuple[str, ...] = ("hermes", "json_block", "claude_xml", "pythonic")

_DEFAULTS: dict[str, Any] = {
    "native_tools": True,
    "parallel_tools": True,
    "supports_tool_choice_required": True,
    "strict": True,
    "context_window": None,
    "emulation_style": "json",
    "text_dialect": None,
}


class _Facts:
    """Capability fields with learned facts laid over them."""

    def __init__(self, capability: Any, learned: dict[str, Any] | None) -> None:
        self._cap = capability
        self._learned = dict(learned or {})

    def get(self, name: str) -> Any:
        if name in self._learned:
            return self._learned[name]
        return getattr(self._cap, name, _DEFAULTS[name])

    def learned(self, name: str) -> bool:
        return name in self._learned


def _emulation_dialects() -> set[str]:
    return set(SHORTHANDS.values())


def _is_emulation(name: str) -> bool:
    if name in _emulation_dialects():
        return True
    if name not in DIALECTS:
        return False
    try:
        from agentcli.wire import dialects

        return bool(dialects.get(name).emulation)
    except (ImportError, AttributeError):
        return False


def next_emulation_style(current: str | None) -> str | None:
    """The style to prompt with after `current` kept failing: the next ladder rung, the first rung
    for a style off the ladder (qwen_xml, mistral...), None when the ladder is used up."""
    current = SHORTHANDS.get(current or "", current)
    if current in EMULATION_LADDER:
        i = EMULATION_LADDER.index(current)
        return EMULATION_LADDER[i + 1] if i + 1 < len(EMULATION_LADDER) else None
    return EMULATION_LADDER[0]


def style_is_pinned(tools_cfg: Any) -> bool:
    """The profile names the emulation style itself (definition_format / tool_format): learned
    styles never override it."""
    definition = getattr(tools_cfg, "definition_format", "auto") or "auto"
    shorthand = getattr(tools_cfg, "tool_format", None)
    return definition != "auto" or shorthand not in (None, "", "auto")


def _format_error(field: str, value: str, valid: list[str]) -> ValueError:
    return ValueError(f"unknown tools.{field} {value!r}; valid: {', '.join(valid)}")


def _dialect_of(field: str, value: str, *, emulation: bool) -> str:
    """A shorthand or dialect name -> dialect; raises ValueError listing the valid names."""
    name = SHORTHANDS.get(value, value)
    if name in DIALECTS and (not emulation or _is_emulation(name)):
        return name
    valid = ["auto", *NATIVE_WORDS, *SHORTHANDS]
    valid += sorted(d for d in DIALECTS if not emulation or d in _emulation_dialects())
    if name in DIALECTS:
        raise ValueError(f"tools.{field} {value!r} is a parse-only dialect and cannot describe tools; "
                         f"valid: {', '.join(dict.fromkeys(valid))}")
    raise _format_error(field, value, list(dict.fromkeys(valid)))


def negotiate(*, api: str, capability: Any, tools_cfg: Any, learned: dict[str, Any] | None = None) -> WirePlan:
    """Decide how tools go out, how calls are read and how results come back."""
    if api not in APIS:
        raise ValueError(f"unknown api {api!r}; valid: {', '.join(APIS)}")
    facts = _Facts(capability, learned)
    notes: list[str] = []

    # -- tool_format shorthand
    shorthand = getattr(tools_cfg, "tool_format", None)
    short_dialect: str | None = None
    short_native = False
    if shorthand not in (None, "", "auto"):
        if shorthand == "native":
            short_native = True
        elif shorthand in SHORTHANDS:
            short_dialect = SHORTHANDS[shorthand]
        else:
            raise _format_error("tool_format", shorthand, ["auto", *SHORTHAND_WORDS])

    # -- preferred text dialect of the model
    text_dialect = facts.get("text_dialect")
    if text_dialect is not None and text_dialect not in DIALECTS:
        notes.append(f"text dialect {text_dialect!r} is not a known dialect; ignored")
        text_dialect = None
    style = facts.get("emulation_style") or "json"
    style_dialect = SHORTHANDS.get(style, style if style in DIALECTS else "json_block")
    if facts.learned("emulation_style") and style_dialect in DIALECTS and _is_emulation(style_dialect):
        natural = style_dialect  # learned after another style kept failing: beats the model's own dialect
        why_natural = f"{style_dialect} was learned after another emulation style kept failing"
    elif text_dialect and _is_emulation(text_dialect):
        natural = text_dialect
        why_natural = f"the model writes {text_dialect} ({'learned' if facts.learned('text_dialect') else 'capability'})"
    else:
        natural = style_dialect
        why_natural = f"the model's emulation style is {style}"

    # -- definitions: native or emulated
    definition = getattr(tools_cfg, "definition_format", "auto") or "auto"
    cap_native = bool(facts.get("native_tools"))
    dialect: str | None = None
    if definition != "auto":
        if definition in NATIVE_WORDS:
            native = True
            note = f"tools sent natively ({api} tools field): definition_format = {definition!r}"
            if definition not in ("native", api):
                note += f" (the provider speaks {api}; its native shape is used)"
            if not cap_native:
                note += "; the model profile says it lacks native tools"
            notes.append(note)
        else:
            native = False
            dialect = _dialect_of("definition_format", definition, emulation=True)
            notes.append(f"tools described in the system prompt as {dialect}: definition_format = {definition!r}")
    elif short_native:
        native = True
        notes.append(f"tools sent natively ({api} tools field): tool_format = 'native'")
    elif short_dialect:
        native = False
        dialect = short_dialect
        notes.append(f"tools described in the system prompt as {dialect}: tool_format = {shorthand!r}")
    elif cap_native:
        native = True
        notes.append(f"tools sent natively ({api} tools field): the model supports native tool calling")
    else:
        native = False
        dialect = natural
        source = "learned from an earlier run" if facts.learned("native_tools") else "per the model profile"
        notes.append(f"tools described in the system prompt as {dialect} (no native tool calling, {source}; "
                     f"{why_natural})")

    # -- call parser chain
    parser = getattr(tools_cfg, "call_parser", "auto") or "auto"
    if parser == "auto":
        preferred = [d for d in (short_dialect, dialect, text_dialect) if d]
        parsers = tuple(dict.fromkeys([*preferred, *DIALECTS]))
        first = f"{api} native fields, then " if native else ""
        notes.append(f"calls parsed from {first}text dialects starting with {parsers[0]} "
                     f"({len(parsers)} dialects; call_parser = 'auto')")
    elif parser in NATIVE_WORDS:
        if native:
            parsers = ()
            notes.append(f"calls parsed from {api} native fields only: call_parser = {parser!r}")
        else:
            parsers = (dialect,) if dialect else ()
            notes.append(f"call_parser = {parser!r} but tools are emulated: the {dialect} dialect is parsed")
    else:
        only = _dialect_of("call_parser", parser, emulation=False)
        parsers = (only,)
        first = f"{api} native fields, then " if native else ""
        notes.append(f"calls parsed from {first}{only} only: call_parser = {parser!r}")

    # -- results
    result_cfg = getattr(tools_cfg, "result_format", "auto") or "auto"
    if result_cfg == "auto":
        result = "native" if native else (dialect or "native")
        notes.append(f"results sent as {'native ' + api + ' tool results' if native else dialect + ' text'}")
    elif result_cfg in NATIVE_WORDS:
        if native:
            result = "native"
            notes.append(f"results sent as native {api} tool results: result_format = {result_cfg!r}")
        else:
            result = dialect or "native"
            notes.append(f"result_format = {result_cfg!r} needs native tools; results sent as {result} text")
    else:
        wanted = _dialect_of("result_format", result_cfg, emulation=True)
        if native:
            result = "native"
            notes.append(f"result_format = {result_cfg!r} ignored: native calls need native results")
        else:
            result = wanted
            notes.append(f"results sent as {wanted} text: result_format = {result_cfg!r}")

    # -- strict schemas (OpenAI shape only; per tool, only where the schema allows it)
    strict_cfg = getattr(tools_cfg, "strict", None)
    strict = False
    if native and native_api(api).strict_schemas:
        if strict_cfg is not None:
            strict = bool(strict_cfg)
            notes.append(f"strict schemas {'on where the schema allows it' if strict else 'off'}: tools.strict")
        elif facts.learned("strict"):
            strict = bool(facts.get("strict"))
            notes.append(f"strict schemas {'on where the schema allows it' if strict else 'off'} "
                         "(learned from an earlier run)")
        else:
            strict = True
            notes.append("strict schemas on where the schema allows it (tools.strict unset)")
    elif strict_cfg:
        notes.append("tools.strict ignored: strict schemas exist only for native OpenAI-shape tools")

    # -- tool_choice
    choice = getattr(tools_cfg, "tool_choice", "auto") or "auto"
    if choice not in CHOICE_WORDS:
        notes.append(f"tool_choice forces the tool {choice!r}")
    if choice not in ("auto", "none"):
        if native and not native_api(api).forces_tool_choice:
            notes.append(f"tool_choice {choice!r} cannot be expressed by the {api} API; using auto")
            choice = "auto"
        elif native and not facts.get("supports_tool_choice_required"):
            notes.append(f"tool_choice {choice!r} unsupported by this model; using auto")
            choice = "auto"

    # -- parallel calls
    parallel = bool(getattr(tools_cfg, "parallel", True))
    if parallel and not facts.get("parallel_tools"):
        parallel = False
        notes.append("parallel tool calls off: the model does not support them")
    elif not parallel:
        notes.append("parallel tool calls off: tools.parallel = false")

    # -- compact prompt
    window = facts.get("context_window")
    compact = isinstance(window, int) and 0 < window < COMPACT_BELOW
    if compact and not native:
        notes.append(f"compact tool prompt: context window {window} < {COMPACT_BELOW}")

    return WirePlan(
        api=api,
        native_tools=native,
        dialect=dialect,
        parsers=parsers,
        result=result,
        strict=strict,
        tool_choice=choice,
        parallel=parallel,
        compact=compact,
        notes=tuple(notes),
    )
