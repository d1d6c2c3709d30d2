"""GLM's call body: a name line, then `<arg_key>k</arg_key><arg_value>v</arg_value>` pairs.

GLM-4.5+ writes it in <tool_call>; Hunyuan, HyperCLOVA X, Laguna and LongCat (under its own tag names)
write the same body in their own wrappers, so the reading lives here, shared, and none of those
dialects imports another.
"""

from __future__ import annotations

from agentcli.wire.dialects._scan import skip_ws

KEY_OPEN, KEY_CLOSE = "<arg_key>", "</arg_key>"
VAL_OPEN, VAL_CLOSE = "<arg_value>", "</arg_value>"


def parse_pairs(body: str, *, strict: bool = False, tags: tuple[str, str, str, str] | None = None) -> dict[str, str] | None:
    """`<arg_key>k</arg_key><arg_value>v</arg_value>` pairs; None when a pair is malformed.

    GLM-4.6 sometimes drops a value's open or close tag (Ollama repairs the same slips): a value
    left open ends at the next `<arg_key>` or the end of the call, and one whose open tag is missing
    starts right after its key when its close tag comes before the next key. With `strict` (a call
    cut off at the end of the output) every value must be closed. `tags` names the four tags when a
    family writes them under its own names (LongCat's `<longcat_arg_key>`).
    """
    key_open, key_close, val_open, val_close = tags or (KEY_OPEN, KEY_CLOSE, VAL_OPEN, VAL_CLOSE)
    args: dict[str, str] = {}
    pos = 0
    n = len(body)
    while True:
        k = body.find(key_open, pos)
        if k == -1:
            return args
        ke = body.find(key_close, k)
        if ke == -1:
            return None
        key = body[k + len(key_open) : ke].strip()
        if not key or "\n" in key or key_open in key:
            return None
        start = _skip_layout(body, ke + len(key_close))
        nxt = body.find(key_open, start)
        stop = n if nxt == -1 else nxt
        close = body.find(val_close, start, stop)
        if body.startswith(val_open, start):
            start += len(val_open)
            if close == -1:
                if strict:
                    return None
                args[key] = body[start:stop].rstrip()  # left open: ends at the next key
                pos = stop
                continue
        elif close == -1:
            return None  # neither tag: prose after a key, not a value
        args[key] = body[start:close]
        pos = close + len(val_close)


def _skip_layout(body: str, pos: int) -> int:
    """Past the whitespace (and literal `\\n`) templates put between a key and its value."""
    while True:
        q = skip_ws(body, pos)
        if body.startswith("\\n", q):
            pos = q + 2
            continue
        return q


def split_name(body: str) -> tuple[str, str] | None:
    """(name, rest) of a call body: the name ends at a newline, a literal `\\n` or the first tag."""
    stripped = body.lstrip()
    if not stripped or stripped[0] in "{[<\"":
        return None
    cut = len(stripped)
    for stop in ("\n", "\\n", "<"):
        i = stripped.find(stop)
        if i != -1 and i < cut:
            cut = i
    name = stripped[:cut].strip()
    if not name or any(c.isspace() for c in name) or any(c in name for c in '{}"\'=>'):
        return None
    if not stripped[cut:].strip() and "\n" not in body and body != body.strip():
        return None  # ` and ` between the two tags: prose naming the markup, not a call with no arguments
    return name, stripped[cut:]
