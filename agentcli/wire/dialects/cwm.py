"""Meta CWM tool calls: a `<tool: LABEL>` block whose body is the call, closed by `</tool>`.

<tool: function>
terminal find . -name "*.py"
</tool>
With the label `function` the body's first word is the tool and the rest its input; any other label
is itself the tool (`<tool: bash>` + a command). The input is the arguments when it is a JSON object,
else the one argument `command`. A block cut off before `</tool>` is not a call.
"""

from __future__ import annotations

from agentcli.wire.dialects._block import BlockDialect, BlockRead
from agentcli.wire.dialects._scan import Block, decode_json_at
from agentcli.wire.types import Candidate

BEGIN, END = "<tool:", "</tool>"
_GENERIC = "function"


def _is_name(word: str) -> bool:
    return bool(word) and len(word) <= 128 and all(c.isalnum() or c in "_-." for c in word)


def _call(block: str) -> tuple[str, dict[str, object]] | None:
    """(name, arguments) of a block's text after `<tool:` (label `>` body), or None."""
    gt = block.find(">")
    if gt == -1:
        return None
    label = block[:gt].strip().lower()
    if not _is_name(label):
        return None
    body = block[gt + 1 :].strip()
    if label == _GENERIC:
        head, _, rest = body.partition("\n")
        name, _, inline = head.strip().partition(" ")
        rest = "\n".join(p for p in (inline.strip(), rest.strip()) if p)
    else:
        name, rest = label, body
    if not _is_name(name):
        return None
    if rest.startswith("{"):
        got = decode_json_at(rest, 0)
        if got is not None and isinstance(got[0], dict) and got[1] == len(rest):
            return name, got[0]
    return name, {"command": rest}


class _Cwm(BlockDialect):
    name = "cwm"
    markers = (BEGIN,)
    owns = ("<tool: ",)
    call_wrappers = ((BEGIN, END),)  # a reasoning tag in the command is the command's text
    begin, end = BEGIN, END

    def read_block(self, text: str, blk: Block) -> BlockRead | None:
        if not blk.closed:
            return None
        got = _call(text[blk.body_start : blk.body_end])
        if got is None:
            return None
        return [Candidate(name=got[0], arguments=got[1], raw=text[blk.start : blk.end], dialect=self.name)], blk.end


CWM = _Cwm()
