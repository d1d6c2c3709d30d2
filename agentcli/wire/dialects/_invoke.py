"""MiniMax-M2's invoke block, `<invoke name="f"><parameter name="k">v</parameter></invoke>`, read
the same wherever a family wraps it (MiniMax-M2's <minimax:tool_call>, dots.llm1's <dots_function_call>).

Every value is text, so candidates carry text_values. An invoke's end closes a last parameter left
without </parameter>: the model finished the call, only a close tag is missing.
"""

from __future__ import annotations

from agentcli.wire.dialects._scan import Block, attr_value, tag_params
from agentcli.wire.types import Candidate

INVOKE_BEGIN, INVOKE_END = "<invoke name=", "</invoke>"
PARAM_BEGIN = '<parameter name="'


def read_invoke(text: str, blk: Block, dialect: str, wrapper_end: str | None) -> Candidate | None:
    """The call of one `<invoke name=..>` block, or None. `wrapper_end` (the family's section end)
    closes an invoke left without </invoke>; the model had finished the call."""
    if not blk.closed and not (wrapper_end and text.startswith(wrapper_end, blk.body_end)):
        return None  # neither </invoke> nor the wrapper's end: parameters may still have been coming
    start, stop = blk.start, blk.body_end
    gt = text.find(">", start, stop)
    if gt == -1:
        return None
    name = name_attr(text[start + len("<invoke ") : gt + 1])
    if not name or not name.strip():
        return None
    body = text[gt + 1 : stop]
    params, complete = tag_params(body, PARAM_BEGIN, '"', "</parameter>", last_close=True)
    if not complete:
        last = _open_param(body)
        if last is None:
            return None
        params.append(last)
    args = {key: value for key, _, value in params if key}
    return Candidate(name=name.strip(), arguments=args, raw="", dialect=dialect, text_values=True)


def name_attr(attrs: str) -> str | None:
    """The invoke's name attribute, in double quotes or, as models sometimes write it, single ones."""
    name = attr_value(attrs, "name")
    if name is not None or "name='" not in attrs:
        return name
    i = attrs.find("name='") + len("name='")
    j = attrs.find("'", i)
    return attrs[i:j] if j != -1 else None


def _open_param(body: str) -> tuple[str, str, str] | None:
    """The last parameter of a closed invoke, left without its </parameter>: the invoke's end (or
    the wrapper's) ends the value, as the model had finished the call."""
    at = body.rfind(PARAM_BEGIN)
    if at == -1:
        return None
    q = body.find('"', at + len(PARAM_BEGIN))
    gt = body.find(">", q) if q != -1 else -1
    if gt == -1:
        return None
    return body[at + len(PARAM_BEGIN) : q].strip(), "", body[gt + 1 :]
