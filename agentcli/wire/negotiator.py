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
    "call_id_format": "any",
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

        return dialects.declared(name).emulation
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
    """Decide how tools go out, how calls are read and how results come back.

    Each decision is one function below; each says why in `notes` (shown by `agent doctor`)."""
    if api not in APIS:
        raise ValueError(f"unknown api {api!r}; valid: {', '.join(APIS)}")
    n = _Negotiation(api, _Facts(capability, learned), tools_cfg)
    native, dialect, text_dialect, short_dialect = n.definitions()
    return WirePlan(
        api=api,
        native_tools=native,
        dialect=dialect,
        parsers=n.parsers(native, dialect, text_dialect, short_dialect),
        result=n.results(native, dialect),
        strict=n.strict(native),
        tool_choice=n.tool_choice(native),
        parallel=n.parallel(),
        compact=n.compact(native),
        call_ids=n.call_ids(native),
        notes=tuple(n.notes),
    )


class _Negotiation:
    """One negotiation: the inputs, and the notes each decision adds."""

    def __init__(self, api: str, facts: _Facts, tools_cfg: Any) -> None:
        self.api, self.facts, self.cfg = api, facts, tools_cfg
        self.notes: list[str] = []

    def _shorthand(self) -> tuple[str | None, bool, Any]:
        """(dialect, native?) from the `tool_format` shorthand."""
        shorthand = getattr(self.cfg, "tool_format", None)
        if shorthand in (None, "", "auto"):
            return None, False, shorthand
        if shorthand == "native":
            return None, True, shorthand
        if shorthand in SHORTHANDS:
            return SHORTHANDS[shorthand], False, shorthand
        raise _format_error("tool_format", shorthand, ["auto", *SHORTHAND_WORDS])

    def _natural(self) -> tuple[str, str, str | None]:
        """(the dialect to emulate with, why, the model's own text dialect)."""
        facts = self.facts
        text_dialect = facts.get("text_dialect")
        if text_dialect is not None and text_dialect not in DIALECTS:
            self.notes.append(f"text dialect {text_dialect!r} is not a known dialect; ignored")
            text_dialect = None
        style = facts.get("emulation_style") or "json"
        style_dialect = SHORTHANDS.get(style, style if style in DIALECTS else "json_block")
        if facts.learned("emulation_style") and style_dialect in DIALECTS and _is_emulation(style_dialect):
            # learned after another style kept failing: beats the model's own dialect
            return style_dialect, f"{style_dialect} was learned after another emulation style kept failing", text_dialect
        if text_dialect and _is_emulation(text_dialect):
            source = "learned" if facts.learned("text_dialect") else "capability"
            return text_dialect, f"the model writes {text_dialect} ({source})", text_dialect
        return style_dialect, f"the model's emulation style is {style}", text_dialect

    def definitions(self) -> tuple[bool, str | None, str | None, str | None]:
        """(native?, emulation dialect, the model's text dialect, the shorthand's dialect)."""
        api, notes = self.api, self.notes
        short_dialect, short_native, shorthand = self._shorthand()
        natural, why_natural, text_dialect = self._natural()
        definition = getattr(self.cfg, "definition_format", "auto") or "auto"
        cap_native = bool(self.facts.get("native_tools"))
        if definition != "auto" and definition in NATIVE_WORDS:
            note = f"tools sent natively ({api} tools field): definition_format = {definition!r}"
            if definition not in ("native", api):
                note += f" (the provider speaks {api}; its native shape is used)"
            if not cap_native:
                note += "; the model profile says it lacks native tools"
            notes.append(note)
            return True, None, text_dialect, short_dialect
        if definition != "auto":
            dialect = _dialect_of("definition_format", definition, emulation=True)
            notes.append(f"tools described in the system prompt as {dialect}: definition_format = {definition!r}")
            return False, dialect, text_dialect, short_dialect
        if short_native:
            notes.append(f"tools sent natively ({api} tools field): tool_format = 'native'")
            return True, None, text_dialect, short_dialect
        if short_dialect:
            notes.append(f"tools described in the system prompt as {short_dialect}: tool_format = {shorthand!r}")
            return False, short_dialect, text_dialect, short_dialect
        if cap_native:
            notes.append(f"tools sent natively ({api} tools field): the model supports native tool calling")
            return True, None, text_dialect, short_dialect
        source = "learned from an earlier run" if self.facts.learned("native_tools") else "per the model profile"
        notes.append(f"tools described in the system prompt as {natural} (no native tool calling, {source}; "
                     f"{why_natural})")
        return False, natural, text_dialect, short_dialect

    def parsers(self, native: bool, dialect: str | None, text_dialect: str | None,
                short_dialect: str | None) -> tuple[str, ...]:
        """The text dialects tried on a reply, in order."""
        api, notes = self.api, self.notes
        parser = getattr(self.cfg, "call_parser", "auto") or "auto"
        first = f"{api} native fields, then " if native else ""
        if parser == "auto":
            preferred = [d for d in (short_dialect, dialect, text_dialect) if d]
            parsers = tuple(dict.fromkeys([*preferred, *DIALECTS]))
            notes.append(f"calls parsed from {first}text dialects starting with {parsers[0]} "
                         f"({len(parsers)} dialects; call_parser = 'auto')")
            return parsers
        if parser in NATIVE_WORDS and native:
            notes.append(f"calls parsed from {api} native fields only: call_parser = {parser!r}")
            return ()
        if parser in NATIVE_WORDS:
            notes.append(f"call_parser = {parser!r} but tools are emulated: the {dialect} dialect is parsed")
            return (dialect,) if dialect else ()
        only = _dialect_of("call_parser", parser, emulation=False)
        notes.append(f"calls parsed from {first}{only} only: call_parser = {parser!r}")
        return (only,)

    def results(self, native: bool, dialect: str | None) -> str:
        """How tool results go back: "native" or a dialect's text form."""
        api, notes = self.api, self.notes
        result_cfg = getattr(self.cfg, "result_format", "auto") or "auto"
        if result_cfg == "auto":
            notes.append(f"results sent as {'native ' + api + ' tool results' if native else str(dialect) + ' text'}")
            return "native" if native else (dialect or "native")
        if result_cfg in NATIVE_WORDS:
            if native:
                notes.append(f"results sent as native {api} tool results: result_format = {result_cfg!r}")
                return "native"
            notes.append(f"result_format = {result_cfg!r} needs native tools; results sent as {dialect or 'native'} text")
            return dialect or "native"
        wanted = _dialect_of("result_format", result_cfg, emulation=True)
        if native:
            notes.append(f"result_format = {result_cfg!r} ignored: native calls need native results")
            return "native"
        notes.append(f"results sent as {wanted} text: result_format = {result_cfg!r}")
        return wanted

    def strict(self, native: bool) -> bool:
        """Strict schemas: only where the native API takes them, per tool where the schema allows it."""
        strict_cfg = getattr(self.cfg, "strict", None)
        if not (native and native_api(self.api).strict_schemas):
            if strict_cfg:
                self.notes.append("tools.strict ignored: strict schemas exist only for native OpenAI-shape tools")
            return False
        if strict_cfg is not None:
            strict, why = bool(strict_cfg), ": tools.strict"
        elif self.facts.learned("strict"):
            strict, why = bool(self.facts.get("strict")), " (learned from an earlier run)"
        else:
            strict, why = True, " (tools.strict unset)"
        self.notes.append(f"strict schemas {'on where the schema allows it' if strict else 'off'}{why}")
        return strict

    def tool_choice(self, native: bool) -> str:
        choice = getattr(self.cfg, "tool_choice", "auto") or "auto"
        if choice not in CHOICE_WORDS:
            self.notes.append(f"tool_choice forces the tool {choice!r}")
        if choice in ("auto", "none") or not native:
            return choice
        if not native_api(self.api).forces_tool_choice:
            self.notes.append(f"tool_choice {choice!r} cannot be expressed by the {self.api} API; using auto")
            return "auto"
        if not self.facts.get("supports_tool_choice_required"):
            self.notes.append(f"tool_choice {choice!r} unsupported by this model; using auto")
            return "auto"
        return choice

    def parallel(self) -> bool:
        parallel = bool(getattr(self.cfg, "parallel", True))
        if parallel and not self.facts.get("parallel_tools"):
            self.notes.append("parallel tool calls off: the model does not support them")
            return False
        if not parallel:
            self.notes.append("parallel tool calls off: tools.parallel = false")
        return parallel

    def call_ids(self, native: bool) -> str:
        """The form call ids must take in history; only native history carries ids."""
        form = self.facts.get("call_id_format") or "any"
        if native and form != "any":
            self.notes.append(f"call ids sent back as {form} (the model's template requires it)")
        return str(form)

    def compact(self, native: bool) -> bool:
        window = self.facts.get("context_window")
        compact = isinstance(window, int) and 0 < window < COMPACT_BELOW
        if compact and not native:
            self.notes.append(f"compact tool prompt: context window {window} < {COMPACT_BELOW}")
        return compact
