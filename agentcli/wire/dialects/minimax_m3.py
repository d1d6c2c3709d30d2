"""MiniMax M3 tool calls: M2's invoke blocks with every tag behind a namespace token, parameters
written as tags named after them, and structure written as nested tags.

]<]minimax[>[<tool_call>
]<]minimax[>[<invoke name="create_order">]<]minimax[>[<user_id>42]<]minimax[>[</user_id>
]<]minimax[>[<shipping>]<]minimax[>[<city>Singapore]<]minimax[>[</city>]<]minimax[>[</shipping>
]<]minimax[>[<items>]<]minimax[>[<item>...]<]minimax[>[</item>]<]minimax[>[</items>
]<]minimax[>[</invoke>
]<]minimax[>[</tool_call>

Only a tag behind the token is markup: `<div>` in a value is text. A tag holding tags is an
object, `<item>` children make a list, and a name written twice collects its values in a list.
Leaf values are text (typed by the schema later). A call cut off before its `</invoke>` is
reported as truncated; a wrapper that is only begun (`]<]minimax[>[<tool_ca`) stays text.
"""

from __future__ import annotations

from typing import Any

from agentcli.wire.dialects._base import MAX_CALLS, Dialect
from agentcli.wire.dialects._scan import ParseResult, attr_value, total
from agentcli.wire.types import Candidate

NS = "]<]minimax[>["
BEGIN, END = NS + "<tool_call>", NS + "</tool_call>"
INVOKE = NS + "<invoke "
INVOKE_END = NS + "</invoke>"
_MAX_DEPTH = 32  # nested tags deeper than this are not a call's arguments


class _MiniMaxM3(Dialect):
    name = "minimax_m3"
    markers = (BEGIN,)
    owns = (NS,)

    @total
    def parse(self, text: str) -> ParseResult:
        cands: list[Candidate] = []
        kept: list[str] = []
        pos = 0
        while len(cands) <= MAX_CALLS:
            start = text.find(BEGIN, pos)
            if start == -1:
                break
            end = text.find(END, start)
            stop = len(text) if end == -1 else end
            found = self._invokes(text, start + len(BEGIN), stop)
            if not found:
                kept.append(text[pos : stop if end == -1 else end + len(END)])
                pos = stop if end == -1 else end + len(END)
                continue
            cands.extend(found)
            kept.append(text[pos:start])
            pos = stop if end == -1 else end + len(END)
        kept.append(text[pos:])
        return cands, "".join(kept)

    def _invokes(self, text: str, pos: int, stop: int) -> list[Candidate]:
        out: list[Candidate] = []
        while len(out) <= MAX_CALLS:
            start = text.find(INVOKE, pos, stop)
            if start == -1:
                return out
            gt = text.find(">", start + len(INVOKE), stop)
            name = attr_value(text[start:gt], "name") if gt != -1 else None
            close = text.find(INVOKE_END, gt, stop) if gt != -1 else -1
            if not name or close == -1:
                out.append(Candidate(name=(name or "").strip(), arguments=None, raw=text[start:stop], dialect=self.name,
                                     error="truncated tool call (output ended inside it)"))
                return out
            args = _elements(text, gt + 1, close)
            raw = text[start : close + len(INVOKE_END)]
            if isinstance(args, dict):
                out.append(Candidate(name=name.strip(), arguments=args, raw=raw, dialect=self.name, text_values=True))
            else:
                out.append(Candidate(name=name.strip(), arguments=None, raw=raw, dialect=self.name,
                                     error="malformed tool call (its parameter tags do not nest)"))
            pos = close + len(INVOKE_END)
        return out


def _elements(text: str, pos: int, stop: int) -> dict[str, Any] | None:
    """The parameters in text[pos:stop] as a dict; None when the tags do not nest."""
    stack: list[tuple[str, dict[str, Any], int]] = []  # (tag, children so far, where its text began)
    top: dict[str, Any] = {}
    children = top
    while True:
        at = text.find(NS + "<", pos, stop)
        if at == -1:
            return {k: list(v) if isinstance(v, _Repeated) else v for k, v in top.items()} if not stack else None
        gt = text.find(">", at + len(NS) + 1, stop)
        if gt == -1:
            return None
        tag = text[at + len(NS) + 1 : gt]
        if tag.startswith("/"):
            if not stack or stack[-1][0] != tag[1:]:
                return None
            name, mine, began = stack.pop()
            value: Any = _as_value(mine) if mine else text[began:at]
            children = stack[-1][1] if stack else top
            _put(children, name, value)
        else:
            if not tag or len(stack) >= _MAX_DEPTH:
                return None
            stack.append((tag.strip(), {}, gt + 1))
            children = stack[-1][1]
        pos = gt + 1


def _put(children: dict[str, Any], name: str, value: Any) -> None:
    if name in children:  # written twice: the values collect in a list
        prev = children[name]
        children[name] = [*prev, value] if isinstance(prev, _Repeated) else _Repeated([prev, value])
    else:
        children[name] = value


class _Repeated(list[Any]):
    """Values of a tag written more than once (told apart from a list value written as JSON text)."""


def _as_value(children: dict[str, Any]) -> Any:
    """An element holding tags: a list when they are all `<item>`, else an object."""
    if list(children) == ["item"]:
        items = children["item"]
        return list(items) if isinstance(items, _Repeated) else [items]
    return {k: list(v) if isinstance(v, _Repeated) else v for k, v in children.items()}


MINIMAX_M3 = _MiniMaxM3()
