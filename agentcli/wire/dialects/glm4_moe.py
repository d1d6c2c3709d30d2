"""GLM-4.5 / 4.6 / 4.7 tool calls: a name line and <arg_key>/<arg_value> pairs in <tool_call>.

<tool_call>get_weather
<arg_key>city</arg_key>
<arg_value>Beijing</arg_value>
</tool_call>
Values are written as text (JSON for non-strings), so candidates carry text_values.
A `<tool_call>` whose body starts with `{` is Hermes JSON, not this dialect. A whole call whose
pairs do not pair up (a key with no value) is reported malformed: its markup is not prose.
A call the output ended inside is truncated (never run) unless it was cut only after a whole
pair or right after its name; one cut inside its first key's tag had arguments still to come.
"""

from __future__ import annotations

from agentcli.wire.dialects._block import BlockDialect, BlockRead
from agentcli.wire.dialects._pairs import KEY_CLOSE, KEY_OPEN, VAL_CLOSE, VAL_OPEN, parse_pairs, split_name
from agentcli.wire.dialects._scan import Block
from agentcli.wire.types import Candidate

BEGIN, END = "<tool_call>", "</tool_call>"


class _Glm4Moe(BlockDialect):
    name = "glm4_moe"
    markers = (BEGIN,)
    owns = ("<arg_key>",)
    begin, end = BEGIN, END

    def read_block(self, text: str, blk: Block) -> BlockRead | None:
        cut = not blk.closed
        if cut and blk.body_end < len(text):
            return None  # no </tool_call> before the next call: more pairs may have been coming
        body = text[blk.body_start : blk.body_end]
        if cut:
            body = _without_cut_close(body)
        parts = split_name(body)
        if parts is None:
            return None
        name, rest = parts
        args = parse_pairs(rest, strict=cut)
        if args is None:
            if cut:  # cut off mid-value: not a call, and its markup is not prose either
                return [Candidate(name=name, arguments=None, raw=text[blk.start :], dialect=self.name,
                                  error="truncated tool call (output ended inside it)")], len(text)
            # a whole call with a key that has no value: reported malformed, never run
            return [Candidate(name=name, arguments=None, raw=text[blk.start : blk.end],
                              dialect=self.name, error="malformed tool call (a key without its value)")], blk.end
        tail = ""
        if not args:  # what is left of the body past the name matters only when no pair was read
            leftover = rest  # (five copies of a 100 KB argument's body, else)
            for tag in (KEY_OPEN, KEY_CLOSE, VAL_OPEN, VAL_CLOSE):
                leftover = leftover.replace(tag, "")
            tail = leftover.replace("\\n", "").strip()
        if cut and not args and tail and KEY_OPEN.startswith(tail):
            # cut off inside the first key's tag: its arguments were still to come, so it is no
            # call, and its markup is not prose either
            return [Candidate(name=name, arguments=None, raw=text[blk.start :], dialect=self.name,
                              error="truncated tool call (output ended inside it)")], len(text)
        if not args and tail:
            return None  # a name line followed by prose, not a call
        # Cut off after a whole pair (the close tag never came): Ollama's rule, a call only when
        # it names an offered tool with its required arguments (the pipeline checks).
        return [Candidate(name=name, arguments=args, raw=text[blk.start : blk.end],
                          dialect=self.name, text_values=True, cut_off=cut)], blk.end


def _without_cut_close(body: str) -> str:
    """`body` without a close tag cut off at its very end (`</tool_`)."""
    at = body.rfind("</")
    if at != -1 and END.startswith(body[at:]):
        return body[:at]
    return body


GLM4_MOE = _Glm4Moe()
