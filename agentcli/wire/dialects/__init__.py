"""Text dialects: how models write tool calls into their text, one module each.

Each module holds one or more `Dialect` instances (see _base.py); the table below
maps a dialect name to "module:ATTRIBUTE" and is the only registry. Modules are
imported on first use: what a dialect declares about its markup (markers, wrappers,
reasoning tags...) is also kept as data (_declared.py, one row per dialect, generated
from the dialects and checked against them by a test), so the parser chain, the string
masking and the stream detector are built without importing a module, and a reply
imports only the dialects the chain reads it with.
"""

from __future__ import annotations

from typing import Any, cast

from agentcli.core.lazy import LazyTable
from agentcli.wire.dialects._base import Declared, Dialect, declaration_of

# name -> module (relative to this package). Order here is the default parse priority:
# specific token/tag forms first, generic JSON last.
DIALECTS: dict[str, str] = {
    # tag / XML forms
    "hermes": "hermes:HERMES",  # <tool_call>{json}</tool_call> (Hermes, Qwen2.5/3)
    "tool_use_tag": "generic_tags:TOOL_USE_TAG",  # <tool_use>{json}</tool_use>
    "function_call_tag": "generic_tags:FUNCTION_CALL_TAG",  # <function_call>{json}</function_call>
    "tools_tag": "generic_tags:TOOLS_TAG",  # <tools>[...]</tools>
    "claude_xml": "claude_xml:CLAUDE_XML",  # <function_calls><invoke name=..><parameter name=..>
    "qwen3_coder": "qwen3_coder:QWEN3_CODER",  # <function=name><parameter=p>..</parameter></function>
    "mistral": "mistral:MISTRAL",  # [TOOL_CALLS] in its three tokenizer layouts
    "llama3_json": "llama3_json:LLAMA3_JSON",  # <|python_tag|> / bare {"name","parameters"}
    # token-delimited and model-specific forms
    "deepseek_v3": "deepseek:DEEPSEEK_V3",
    "deepseek_v31": "deepseek:DEEPSEEK_V31",
    "deepseek_v32": "deepseek:DEEPSEEK_V32",
    "deepseek_v4": "deepseek:DEEPSEEK_V4",
    "deepseek_v41": "deepseek:DEEPSEEK_V41",  # <｜DSML｜ calls> with spaced tag names (DeepSeek-V4.1)
    "kimi_k2": "kimi_k2:KIMI_K2",
    "kimi_k3": "kimi_k3:KIMI_K3",  # <|open|>tools<|sep|><|open|>call tool="f" ...<|close|>call<|sep|>
    "k2_horizon": "k2_horizon:K2_HORIZON",  # <ifm|tool_call>NAME<ifm|arg_key>..<ifm|arg_value>.. (IFM K2-Horizon)
    "glm4_moe": "glm4_moe:GLM4_MOE",
    "minicpm5": "minicpm5:MINICPM5",  # <function name="f"><param name="k">v</param></function> (MiniCPM5)
    "laguna": "laguna:LAGUNA",  # GLM <arg_key> pairs, a name line + JSON, or JSON, in <tool_call> or <user>
    "hunyuan": "hunyuan:HUNYUAN",
    "minimax": "minimax:MINIMAX",
    "minimax_m2": "minimax:MINIMAX_M2",
    "minimax_m3": "minimax_m3:MINIMAX_M3",  # ]<]minimax[>[<tool_call> ... <invoke name=..><param>v</param>
    "dots": "dots:DOTS",  # <dots_function_call> sections: invoke blocks or a JSON call (dots.llm1)
    "phi4_mini": "phi4_mini:PHI4_MINI",
    "firefunction": "firefunction:FIREFUNCTION",
    "functionary": "functionary:FUNCTIONARY",
    "command_r": "command_r:COMMAND_R",
    "lfm2": "lfm2:LFM2",
    "seed_oss": "seed_oss:SEED_OSS",
    "functiongemma": "functiongemma:FUNCTIONGEMMA",
    "gemma4": "gemma4:GEMMA4",  # <|tool_call>call:f{k:<|"|>v<|"|>}<tool_call|>
    "step3": "step3:STEP3",
    "harmony": "harmony:HARMONY",  # gpt-oss
    "internlm2": "internlm2:INTERNLM2",
    "jamba": "jamba:JAMBA",
    "granite": "granite:GRANITE",
    "xlam": "xlam:XLAM",
    "longcat": "longcat:LONGCAT",  # <longcat_tool_call>{json} or NAME + <longcat_arg_key>/<longcat_arg_value> pairs
    "apertus": "apertus:APERTUS",  # <|tools_prefix|>[{name: args}]<|tools_suffix|>
    "olmo3": "olmo3:OLMO3",  # <function_calls>f(x=1)\ng(y=2)</function_calls>
    "nemotron": "generic_tags:NEMOTRON",  # <TOOLCALL>[{json}]</TOOLCALL>
    "gemini_tool_code": "gemini_tool_code:GEMINI_TOOL_CODE",  # ```tool_code print(default_api.f(x=1)) ```
    "gigachat": "gigachat:GIGACHAT",  # <|function_call|>{json} / function call<|role_sep|>{json}
    "gigachat35": "gigachat35:GIGACHAT35",  # <｜GCML｜tool_calls><｜GCML｜invoke name=..><｜GCML｜parameter ..>
    "solar_open2": "solar_open2:SOLAR_OPEN2",  # <|tool_call:start|>f\n<|tool_arg:start|>k<|tool_arg:value|>v..
    "hyperclovax": "hyperclovax:HYPERCLOVAX",  # GLM markup with JSON values / `-> tool/function_call` + JSON
    "inkling": "inkling:INKLING",  # NAME<|content_invoke_tool_json|>{"name": .., "args": ..}<|end_message|> (TML Inkling)
    "cwm": "cwm:CWM",  # <tool: function>\nterminal ls\n</tool> (Meta CWM)
    "rwkv": "rwkv:RWKV",  # **Tool Call:** over a ```json fence (RWKV-7 G1)
    # generic text forms, last
    "tool_xml": "tool_xml:TOOL_XML",  # <read_file><path>..</path></read_file> (Cline / Roo), offered tools only
    "pythonic": "pythonic:PYTHONIC",  # [get_weather(city="Paris")] (Llama 3.2/4 pythonic)
    "json_block": "json_block:JSON_BLOCK",  # ```json fences, bare objects, Action: {...}
}

# `tool_format` shorthands a profile may use -> dialect.
SHORTHANDS: dict[str, str] = {
    "hermes": "hermes",
    "json": "json_block",
    "xml": "claude_xml",
    "pythonic": "pythonic",
    "mistral": "mistral",
    "qwen_xml": "qwen3_coder",
}

_table: LazyTable[Dialect] = LazyTable(__name__, DIALECTS)


def get(name: str) -> Dialect:
    """The dialect called `name` (KeyError if unknown)."""
    return _table.get(name)


def names() -> list[str]:
    return list(DIALECTS)


def emulation_styles() -> list[str]:
    """Dialects we can prompt a model with (they define render_prompt)."""
    return [n for n in DIALECTS if declared(n).emulation]


_ROWS: dict[str, Declared] | None = None


def _row(name: str) -> Declared | None:
    """The declared row of the module the table names for `name` (KeyError if unknown), if any."""
    global _ROWS
    if _ROWS is None:
        from agentcli.wire.dialects._declared import ROWS

        _ROWS = ROWS
    return _ROWS.get(DIALECTS[name])


def declared(name: str) -> Declared:
    """What dialect `name` declares (KeyError if unknown): its row in _declared.py when that row is
    for the module the table names, else read from the loaded dialect (a row added at run time)."""
    row = _row(name)
    return row if row is not None else declaration_of(get(name))


class _Deferred:
    """A dialect standing in until it is used: its declared data answers at once, anything else
    (parse, name, render_*) imports its module once and is read from the loaded dialect at each use
    (so a patch of the dialect's method counts, as it did when the chain held the dialect)."""

    def __init__(self, name: str, row: Declared) -> None:
        self.__dict__.update(row._asdict())
        self.__dict__.pop("split_trigger")
        self.__dict__.pop("split_ref")
        self._dialect_name = name

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._loaded(), attr)

    def _loaded(self) -> Dialect:
        d: Dialect | None = self.__dict__.get("_dialect")
        if d is None:
            d = self.__dict__["_dialect"] = get(self.__dict__["_dialect_name"])
        return d

    def parse(self, text: str) -> Any:
        """A text of whitespace only (or none) is answered here: every dialect reads no call from it
        and returns it as it is (a test asks each one), so a reply that is all calls loads no
        markerless dialect for the line break left after them."""
        if not text or text.isspace():
            return [], text
        return self._loaded().parse(text)

    def __repr__(self) -> str:
        return f"<stand-in for dialect {self._dialect_name!r}>"


def deferred(name: str) -> Dialect:
    """Dialect `name` for the parser chain (KeyError if unknown): its declarations are read without
    importing its module, which is imported the first time the chain parses with it."""
    row = _row(name)
    return get(name) if row is None else cast(Dialect, _Deferred(name, row))
