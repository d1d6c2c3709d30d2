"""Rewrites the generated rows of _declared.py from the loaded dialects:
`python -m agentcli.wire.dialects._declared_gen` after a dialect's declarations change."""

from __future__ import annotations

import json
from pathlib import Path

from agentcli.wire import dialects
from agentcli.wire.dialects._base import Declared, declaration_of

BEGIN, END = "# BEGIN ROWS (generated)\n", "# END ROWS\n"


def render() -> str:
    """The ROWS block for the current registry, read from the loaded dialects."""
    lines = ["ROWS: dict[str, D] = {"]
    for name in dialects.names():
        ref = dialects.DIALECTS[name]
        row = declaration_of(dialects.get(name))
        fields = [f"{k}={_literal(v)}" for k, v in row._asdict().items() if v != Declared._field_defaults[k]]
        one = f"    {_literal(ref)}: D({', '.join(fields)}),"
        if len(one) <= 120:
            lines.append(one)
            continue
        lines.append(f"    {_literal(ref)}: D(")
        for field in fields:
            lines.append(f"        {field},")
        lines.append("    ),")
    lines.append("}")
    return "\n".join(lines)


def _literal(value: object) -> str:
    """`value` (str, bool, None or nested tuples of them) as Python source, strings double-quoted."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, tuple):
        items = [_literal(v) for v in value]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    return repr(value)


def rewritten(text: str) -> str:
    """The text of _declared.py with its generated block replaced by `render()`."""
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}{render()}\n{END}{tail}"


def _rewrite() -> None:
    path = Path(__file__).with_name("_declared.py")
    path.write_text(rewritten(path.read_text(encoding="utf-8")), encoding="utf-8")


if __name__ == "__main__":
    _rewrite()
