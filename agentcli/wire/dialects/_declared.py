"""What each registered dialect declares about its markup, as data: one row per registry row, keyed
by its "module:ATTRIBUTE". The parser chain's marker index, the string masking, the reasoning split
and the stream detector are built from these rows, so a reply imports only the dialects the chain
reads it with (a Hermes reply loads no DeepSeek module).

The dialects stay the place their markup is declared (Dialect's fields): this table is rewritten from
them by `python -m agentcli.wire.dialects._declared_gen`, and a test fails when a row differs from its
dialect or a registry row has none (a row missing here is still served, read from the loaded dialect).
"""

from __future__ import annotations

from agentcli.wire.dialects._base import Declared as D

# BEGIN ROWS (generated)
ROWS: dict[str, D] = {
    "hermes:HERMES": D(
        markers=("<tool_call>",),
        empty_lists=(("<tool_call>", "</tool_call>"),),
        emulation=True,
        call_wrappers=(("<tool_call>", "</tool_call>"),),
        section_openers=("<tool_call>",),
        lane_tokens=("<tool_call>", "</tool_call>"),
    ),
    "generic_tags:TOOL_USE_TAG": D(
        markers=("<tool_use>",),
        empty_lists=(("<tool_use>", "</tool_use>"),),
        lane_tokens=("<tool_use>", "</tool_use>"),
    ),
    "generic_tags:FUNCTION_CALL_TAG": D(
        markers=("<function_call>",),
        owns=("<function_call>",),
        empty_lists=(("<function_call>", "</function_call>"),),
        lane_tokens=("<function_call>", "</function_call>"),
    ),
    "generic_tags:TOOLS_TAG": D(
        markers=("<tools>",),
        empty_lists=(("<tools>", "</tools>"),),
        lane_tokens=("<tools>", "</tools>"),
    ),
    "claude_xml:CLAUDE_XML": D(
        markers=("invoke name=", "function_calls>"),
        emulation=True,
        call_wrappers=(("<invoke", "</invoke>"),),
    ),
    "qwen3_coder:QWEN3_CODER": D(
        markers=("<function=",),
        emulation=True,
        call_wrappers=(("<function=", "</function>"),),
    ),
    "mistral:MISTRAL": D(
        markers=("[TOOL_CALLS]",),
        empty_lists=(("[TOOL_CALLS]", ""), ("[TOOL_CALLS]", "[/TOOL_CALLS]")),
        emulation=True,
        reasoning_tags=(("[THINK]", "[/THINK]"),),
    ),
    "llama3_json:LLAMA3_JSON": D(stream_markers=("<|python_tag|>", "<|python_start|>")),
    "deepseek:DEEPSEEK_V3": D(
        markers=("<｜tool▁calls▁begin｜>", "<｜tool▁call▁begin｜>", "<|tool▁calls▁begin|>", "<|tool▁call▁begin|>", "<｜tool▁outputs▁begin｜>", "<｜tool▁outputs▁end｜>", "<｜tool▁output▁begin｜>", "<｜tool▁output▁end｜>"),
        owns=("<｜tool▁calls▁begin｜>", "<｜tool▁call▁begin｜>", "<|tool▁calls▁begin|>", "<|tool▁call▁begin|>", "<｜tool▁outputs▁begin｜>", "<｜tool▁outputs▁end｜>", "<｜tool▁output▁begin｜>", "<｜tool▁output▁end｜>"),
        empty_lists=(("<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"), ("<|tool▁calls▁begin|>", "<|tool▁calls▁end|>")),
        call_wrappers=(("<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>"), ("<|tool▁call▁begin|>", "<|tool▁call▁end|>")),
        section_openers=("<｜tool▁calls▁begin｜>",),
    ),
    "deepseek:DEEPSEEK_V31": D(
        markers=("<｜tool▁calls▁begin｜>", "<｜tool▁call▁begin｜>", "<|tool▁calls▁begin|>", "<|tool▁call▁begin|>", "<｜tool▁outputs▁begin｜>", "<｜tool▁outputs▁end｜>", "<｜tool▁output▁begin｜>", "<｜tool▁output▁end｜>"),
        owns=("<｜tool▁calls▁begin｜>", "<｜tool▁call▁begin｜>", "<|tool▁calls▁begin|>", "<|tool▁call▁begin|>", "<｜tool▁outputs▁begin｜>", "<｜tool▁outputs▁end｜>", "<｜tool▁output▁begin｜>", "<｜tool▁output▁end｜>"),
        empty_lists=(("<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"), ("<|tool▁calls▁begin|>", "<|tool▁calls▁end|>")),
        call_wrappers=(("<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>"), ("<|tool▁call▁begin|>", "<|tool▁call▁end|>")),
        section_openers=("<｜tool▁calls▁begin｜>",),
    ),
    "deepseek:DEEPSEEK_V32": D(
        markers=("<｜DSML｜function_calls>", "<｜DSML｜invoke"),
        owns=("<｜DSML｜function_calls>",),
        call_wrappers=(("<｜DSML｜invoke", "</｜DSML｜invoke>"),),
        section_openers=("<｜DSML｜function_calls>",),
    ),
    "deepseek:DEEPSEEK_V4": D(
        markers=("<｜DSML｜tool_calls>", "<｜DSML｜invoke"),
        owns=("<｜DSML｜tool_calls>",),
        call_wrappers=(("<｜DSML｜invoke", "</｜DSML｜invoke>"),),
        section_openers=("<｜DSML｜tool_calls>",),
    ),
    "deepseek:DEEPSEEK_V41": D(
        markers=("<｜DSML｜ calls>", "<｜DSML｜ invoke"),
        owns=("<｜DSML｜ calls>",),
        call_wrappers=(("<｜DSML｜ invoke", "</｜DSML｜ invoke>"),),
        section_openers=("<｜DSML｜ calls>",),
    ),
    "kimi_k2:KIMI_K2": D(
        markers=("<|tool_calls_section_begin|>", "<|tool_call_section_begin|>", "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_calls_section_end|>", "<|tool_call_section_end|>", "<|tool_call_end|>"),
        owns=("<|tool_calls_section_begin|>", "<|tool_call_section_begin|>", "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_calls_section_end|>", "<|tool_call_section_end|>", "<|tool_call_end|>"),
        reasoning_tags=(("◁think▷", "◁/think▷"),),
        call_wrappers=(("<|tool_call_begin|>", "<|tool_call_end|>"),),
        section_openers=("<|tool_calls_section_begin|>", "<|tool_call_section_begin|>", "<|tool_call_begin|>"),
    ),
    "kimi_k3:KIMI_K3": D(
        markers=("<|open|>tools<|sep|>", "<|open|>call", "<|open|>response<|sep|>", "<|close|>response<|sep|>", "<|close|>message<|sep|>", "<|open|>", "<|close|>"),
        owns=("<|open|>tools<|sep|>", "<|open|>call", "<|open|>response<|sep|>", "<|close|>response<|sep|>", "<|close|>message<|sep|>", "<|open|>", "<|close|>"),
        reasoning_tags=(("<|open|>think<|sep|>", "<|close|>think<|sep|>"),),
        call_wrappers=(("<|open|>call", "<|close|>call<|sep|>"),),
        lane_tokens=("<|open|>response<|sep|>", "<|close|>response<|sep|>", "<|open|>tools<|sep|>", "<|close|>tools<|sep|>", "<|close|>message<|sep|>", "<|open|>call", "<|close|>call<|sep|>", "<|open|>argument", "<|close|>argument<|sep|>", "<|sep|>"),
    ),
    "k2_horizon:K2_HORIZON": D(
        markers=("<ifm|tool_call>",),
        owns=("<ifm|tool_call>", "<ifm|tool_calls>"),
        call_wrappers=(("<ifm|tool_call>", "</ifm|tool_call>"),),
    ),
    "glm4_moe:GLM4_MOE": D(markers=("<tool_call>",), owns=("<arg_key>",)),
    "minicpm5:MINICPM5": D(markers=("<function name=",), call_wrappers=(("<function name=", "</function>"),)),
    "laguna:LAGUNA": D(markers=("<tool_call>", "<user>")),
    "hunyuan:HUNYUAN": D(
        markers=("<tool_calls",),
        owns=("<tool_sep>", "<tool_calls:"),
        lane_tokens=("<tool_calls>", "</tool_calls>"),
    ),
    "minimax:MINIMAX": D(markers=("<tool_calls>",), empty_lists=(("<tool_calls>", "</tool_calls>"),)),
    "minimax:MINIMAX_M2": D(
        markers=("<minimax:tool_call>",),
        owns=("<minimax:tool_call>",),
        call_wrappers=(("<minimax:tool_call>", "</minimax:tool_call>"),),
    ),
    "minimax_m3:MINIMAX_M3": D(markers=("]<]minimax[>[<tool_call>",), owns=("]<]minimax[>[",)),
    "dots:DOTS": D(
        markers=("<dots_function_call>", "</dots_function_call>"),
        owns=("<dots_function_call>", "</dots_function_call>"),
    ),
    "phi4_mini:PHI4_MINI": D(markers=("functools",)),
    "firefunction:FIREFUNCTION": D(markers=("functools[",), empty_lists=(("functools", ""),)),
    "functionary:FUNCTIONARY": D(markers=(">>>", "<function=", "<|python_tag|>", "\n{", "all\n")),
    "command_r:COMMAND_R": D(
        markers=("<|START_ACTION|>", "Action:", "<|START_RESPONSE|>", "<|END_RESPONSE|>", "<|START_TEXT|>", "<|END_TEXT|>", "<|CHATBOT_TOKEN|>", "<|END_OF_TURN_TOKEN|>"),
        owns=("<|START_ACTION|>", "<|START_RESPONSE|>", "<|END_RESPONSE|>", "<|START_TEXT|>", "<|END_TEXT|>", "<|CHATBOT_TOKEN|>", "<|END_OF_TURN_TOKEN|>"),
        reasoning_tags=(("<|START_THINKING|>", "<|END_THINKING|>"),),
    ),
    "lfm2:LFM2": D(
        markers=("<|tool_call_start|>",),
        owns=("<|tool_call_start|>",),
        call_wrappers=(("<|tool_call_start|>", "<|tool_call_end|>"),),
    ),
    "seed_oss:SEED_OSS": D(
        markers=("<seed:tool_call>",),
        owns=("<seed:tool_call>",),
        reasoning_tags=(("<seed:think>", "</seed:think>"),),
    ),
    "functiongemma:FUNCTIONGEMMA": D(
        markers=("<start_function_call>",),
        owns=("<start_function_call>",),
        call_wrappers=(("<start_function_call>", "<end_function_call>"),),
    ),
    "gemma4:GEMMA4": D(
        markers=("<|tool_call>", "call:", "<call>"),
        owns=("<|tool_call>",),
        reasoning_tags=(("<|channel>", "<channel|>"),),
        call_wrappers=(("<|tool_call>", "<tool_call|>"),),
    ),
    "step3:STEP3": D(
        markers=("<｜tool_calls_begin｜>",),
        owns=("<｜tool_calls_begin｜>", "<steptml:invoke"),
        call_wrappers=(("<steptml:invoke", "</steptml:invoke>"),),
    ),
    "harmony:HARMONY": D(
        markers=("<|channel|>", "<|message|>", "to=functions."),
        owns=("<|channel|>", "<|start|>"),
        split_trigger="<|message|>",
        split_ref="harmony:split_analysis",
    ),
    "internlm2:INTERNLM2": D(markers=("<|action_start|>",), owns=("<|action_start|>",)),
    "jamba:JAMBA": D(
        markers=("<tool_calls>",),
        empty_lists=(("<tool_calls>", "</tool_calls>"),),
        lane_tokens=("<tool_calls>", "</tool_calls>"),
    ),
    "granite:GRANITE": D(
        markers=("<|tool_call|>", "<tool_call>", "<function_call>", "<response>"),
        empty_lists=(("<|tool_call|>", ""),),
        answer_tags=("<response>",),
    ),
    "xlam:XLAM": D(markers=("\"name\"",), name_strict=True, lane_tokens=("[{\"name\"",)),
    "longcat:LONGCAT": D(
        markers=("<longcat_tool_call>",),
        owns=("<longcat_tool_call>",),
        empty_lists=(("<longcat_tool_call>", "</longcat_tool_call>"),),
        lane_tokens=("<longcat_tool_call>", "</longcat_tool_call>"),
    ),
    "apertus:APERTUS": D(
        markers=("<|tools_prefix|>",),
        owns=("<|tools_prefix|>",),
        empty_lists=(("<|tools_prefix|>", "<|tools_suffix|>"),),
        reasoning_tags=(("<|inner_prefix|>", "<|inner_suffix|>"),),
        section_openers=("<|tools_prefix|>",),
    ),
    "olmo3:OLMO3": D(markers=("<function_calls>",), empty_lists=(("<function_calls>", "</function_calls>"),)),
    "generic_tags:NEMOTRON": D(
        markers=("<TOOLCALL>",),
        owns=("<TOOLCALL>",),
        empty_lists=(("<TOOLCALL>", "</TOOLCALL>"),),
        call_wrappers=(("<TOOLCALL>", "</TOOLCALL>"),),
        lane_tokens=("<TOOLCALL>", "</TOOLCALL>"),
    ),
    "gemini_tool_code:GEMINI_TOOL_CODE": D(markers=("```tool_code",), owns=("```tool_code",), name_strict=True),
    "gigachat:GIGACHAT": D(
        markers=("<|function_call|>", "<|role_sep|>"),
        owns=("<|function_call|>", "<|role_sep|>"),
        stream_markers=("<|message_sep|>",),
    ),
    "gigachat35:GIGACHAT35": D(
        markers=("<｜GCML｜tool_calls>",),
        owns=("<｜GCML｜tool_calls>",),
        call_wrappers=(("<｜GCML｜invoke", "</｜GCML｜invoke>"),),
    ),
    "solar_open2:SOLAR_OPEN2": D(
        markers=("<|tool_call:start|>",),
        owns=("<|tool_call:start|>", "<|tool_arg:start|>"),
        reasoning_tags=(("<|think:start|>", "<|think:end|>"),),
        call_wrappers=(("<|tool_call:start|>", "<|tool_call:end|>"),),
    ),
    "hyperclovax:HYPERCLOVAX": D(
        markers=("<tool_call>", "-> tool/function_call"),
        owns=("-> tool/function_call", "<arg_key>"),
    ),
    "inkling:INKLING": D(
        markers=("<|content_invoke_tool_json|>",),
        owns=("<|content_invoke_tool_json|>",),
        stream_markers=("<|message_model|>",),
    ),
    "cwm:CWM": D(markers=("<tool:",), owns=("<tool: ",), call_wrappers=(("<tool:", "</tool>"),)),
    "rwkv:RWKV": D(markers=("**Tool Call:**",), owns=("**Tool Call:**",)),
    "tool_xml:TOOL_XML": D(offered_only=True),
    "pythonic:PYTHONIC": D(stream_markers=("<|python_start|>",), emulation=True),
    "json_block:JSON_BLOCK": D(name_strict=True, emulation=True),
}
# END ROWS

