"""JSON calls wrapped in an XML-ish tag: <tool_use>, <function_call>, <tools>, <TOOLCALL>.

The frame (and Hermes' <tool_call>, LongCat's tag) is _tagged.TaggedJsonDialect; <tool_use> also
takes XML children.
"""

from __future__ import annotations

from agentcli.wire.dialects._callscan import is_tool_name
from agentcli.wire.dialects._tagged import TaggedJsonDialect
from agentcli.wire.types import Candidate


class ToolUseTagDialect(TaggedJsonDialect):
    """<tool_use> with a JSON body, or with XML children: <name>f</name><arguments>{json}</arguments>."""

    def _parse_body(self, body: str, raw: str, closed: bool) -> list[Candidate] | None:
        src = body.strip()
        if not src.startswith("<name>"):
            return super()._parse_body(body, raw, closed)
        name_end = src.find("</name>")
        name = src[len("<name>") : name_end].strip() if name_end > 0 else ""
        if not is_tool_name(name):
            return None
        rest = src[name_end + len("</name>") :].strip()
        for key in ("arguments", "parameters", "input"):
            open_tag, close_tag = f"<{key}>", f"</{key}>"
            if rest.startswith(open_tag):
                end = rest.rfind(close_tag)
                if end < 0 and closed:
                    return None
                args = rest[len(open_tag) : end if end >= 0 else len(rest)].strip()
                return [Candidate(name, args or "{}", raw, self.name)]
        return [Candidate(name, "{}", raw, self.name)] if not rest else None


TOOL_USE_TAG = ToolUseTagDialect("tool_use_tag", "tool_use")
FUNCTION_CALL_TAG = TaggedJsonDialect("function_call_tag", "function_call")
# `<function_call>` is this form's alone (Granite-20B-FunctionCalling writes it unclosed, one per line):
# read first, so a generic JSON dialect never takes the object and leaves the tag on screen.
FUNCTION_CALL_TAG.owns = FUNCTION_CALL_TAG.markers
TOOLS_TAG = TaggedJsonDialect("tools_tag", "tools")
# NVIDIA Nemotron (Llama-Nemotron, Nemotron Nano): <TOOLCALL>[{"name": .., "arguments": ..}]</TOOLCALL>
NEMOTRON = TaggedJsonDialect("nemotron", "TOOLCALL")
NEMOTRON.owns = NEMOTRON.markers
NEMOTRON.call_wrappers = ((NEMOTRON.open, NEMOTRON.close),)
