"""`agent parse`: show the tool calls, text and repairs agentcli finds in a model's raw output.

Input is a provider response body (JSON; the API shape is detected when --provider is not
given), a captured stream (SSE or NDJSON, reassembled into the message it adds up to) or raw
assistant text. `--jsonl` runs a batch: one request per line, one answer per line.
"""

from __future__ import annotations

import sys
from typing import Any

from agentcli.core import jsonsafe
from agentcli.core.errors import UsageError
from agentcli.core.types import ParsedResponse, Tool

_PERMISSIVE = {"type": "object", "properties": {}, "additionalProperties": True}


def _kinds() -> tuple[str, ...]:
    from agentcli.wire.native import names

    return ("text", *names())


def detect_api(body: Any) -> str | None:
    """The API shape of a response body (each native adapter recognises its own). Every API's body
    is a JSON object, so anything else is answered without loading the adapters."""
    if not isinstance(body, dict):
        return None
    from agentcli.wire.native import detect

    return detect(body)


def offered(tools: Any) -> list[Tool]:
    """Tools given by name (comma string or list) or as {"name", "parameters"} dicts."""
    if not tools:
        return []
    if isinstance(tools, str):
        tools = [t for t in (x.strip() for x in tools.split(",")) if t]
    out = []
    for t in tools:
        if isinstance(t, str):
            out.append(Tool(t, "", dict(_PERMISSIVE)))
        elif isinstance(t, dict) and isinstance(t.get("name"), str):
            params = t.get("parameters") or t.get("input_schema") or dict(_PERMISSIVE)
            out.append(Tool(t["name"], t.get("description") or "", params))
        else:
            raise ValueError(f"a tool must be a name or an object with a name, got {t!r}")
    return out


def parse_input(kind: str | None, data: Any, tools: list[Tool], model: str | None = None) -> ParsedResponse:
    """One input (text or a body of `kind`; None = detect) -> ParsedResponse through the full pipeline.
    With `model`, the dialect chain is the one a default profile naming that model would use."""
    from agentcli.wire import context_for, finalize, parse_text

    ctx, all_dialects = context_for(model, tools)
    if kind is None:
        kind = "text"
        if isinstance(data, str):
            try:
                decoded = jsonsafe.loads(data)
            except ValueError:
                decoded = None
            api = detect_api(decoded)
            if api:
                kind, data = api, decoded
            elif (captured := reassemble(data)) is not None:
                return finalize(captured, ctx, all_dialects)
        else:
            kind = detect_api(data) or "text"
    if kind == "text":
        if not isinstance(data, str):
            raise ValueError("kind 'text' needs a string input")
        return parse_text(data, ctx, all_dialects)
    if kind not in _kinds():
        raise ValueError(f"unknown kind {kind!r}; expected one of {', '.join(_kinds())}")
    if isinstance(data, str):
        data = jsonsafe.loads(data)
    if not isinstance(data, dict):
        raise ValueError(f"a {kind} response body must be a JSON object")
    from agentcli.wire import native

    parsed = native.get(kind).parse_body(data)
    return finalize(parsed, ctx, all_dialects)


def _stream_items(raw: str) -> list[tuple[str, Any]]:
    """(event name, decoded data) of a captured SSE or NDJSON stream; [] when it is neither."""
    lines = raw.splitlines(keepends=True)
    sse = any(line.startswith(("data:", "event:")) for line in lines[:20])
    first = next((line.strip() for line in lines if line.strip()), "")
    if not sse and not first.startswith("{"):
        return []  # NDJSON would fail on its first line: answer without starting the stream readers

    from agentcli.providers._sse import BadChunk, ndjson_objects, sse_events

    async def items() -> list[tuple[str, Any]]:
        async def source() -> Any:
            for line in lines:
                yield line

        if sse:
            out = []
            async for ev in sse_events(source()):
                if ev.data.strip() != "[DONE]" and ev.event != "ping":
                    out.append((ev.event, jsonsafe.loads(ev.data)))
            return out
        return [("", obj) async for obj in ndjson_objects(source())]

    try:
        from agentcli.core import aio  # only a stream needs the event loop

        return aio.run(items())
    except (BadChunk, ValueError):
        return []


def reassemble(raw: str) -> Any:
    """A captured stream (SSE or NDJSON, as saved from a server) -> the NativeParse it adds up to, or None."""
    if "\n" not in raw.strip():  # one line is a body, not a stream
        return None
    chunks = [data for _event, data in _stream_items(raw) if isinstance(data, dict)]
    if not chunks:
        return None
    from agentcli.wire import native  # only a stream needs the API adapters
    first = chunks[0]
    # Anthropic's first event wraps a Message; the other APIs' chunks look like their bodies.
    api = "anthropic" if first.get("type") == "message_start" else detect_api(first)
    if api is None:
        return None
    stream = native.get(api).new_stream()
    for chunk in chunks:
        stream.feed(chunk)
    return stream.finish()


def to_json(resp: ParsedResponse) -> dict[str, Any]:
    return {
        "tool_calls": [
            {
                "name": c.name,
                "arguments": c.arguments,
                "dialect": c.dialect,
                "id": c.id,
                **({"unknown": True} if c.unknown else {}),
                **({"error": c.error} if c.error else {}),
            }
            for c in resp.tool_calls
        ],
        "text": resp.text,
        "thinking": resp.thinking,
        "repairs": [{"kind": r.kind, "detail": r.detail, "call_id": r.call_id} for r in resp.repairs],
        "finish_reason": resp.finish_reason,
    }


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None


def _batch(path: str) -> int:
    """One output line per input line, in order; a bad line answers with an `error` key."""
    src = sys.stdin if path == "-" else None
    try:
        lines = src.read().splitlines() if src else open(path, encoding="utf-8", errors="replace").read().splitlines()
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    out = sys.stdout
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        rid: Any = None
        try:
            req = jsonsafe.loads(line)
            if not isinstance(req, dict):
                raise ValueError("each line must be a JSON object")
            rid = req.get("id")
            kind = req.get("kind", "text")
            resp = parse_input(kind, req.get("input", ""), offered(req.get("tools")), req.get("model"))
            row = to_json(resp)
            answer = {"id": rid, "tool_calls": row["tool_calls"], "text": row["text"], "repairs": row["repairs"]}
        except Exception as exc:  # noqa: BLE001 - one bad line never stops the batch
            answer = {"id": rid, "tool_calls": [], "text": "", "repairs": [], "error": f"line {n}: {exc}"}
        out.write(jsonsafe.dumps(answer, ensure_ascii=False) + "\n")
    out.flush()
    return 0


DISPLAY_LIMIT = 2000  # characters of one argument list, thinking or text shown on the terminal


def clip(text: str, limit: int = DISPLAY_LIMIT) -> str:
    """The head of `text` for display: laying out a megabyte argument costs seconds and shows nothing
    a person reads. --json prints everything."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit} more characters; --json shows all)"


def _show(resp: ParsedResponse) -> None:
    from rich.table import Table

    from agentcli.core.escape import styled
    from agentcli.ui.console import make_console

    console = make_console()
    if resp.tool_calls:
        table = Table(title=f"{len(resp.tool_calls)} tool call(s)", title_justify="left")
        for col in ("#", "name", "arguments", "dialect", "note"):
            table.add_column(col, overflow="fold")
        for i, c in enumerate(resp.tool_calls):
            note = c.error or ("not an offered tool" if c.unknown else "")
            args = jsonsafe.dumps(c.arguments, ensure_ascii=False, default=str)
            table.add_row(str(i), styled(clip(c.name, 200)), styled(clip(args)), styled(str(c.dialect or "")),
                          styled(clip(note, 500)))
        console.print(table)
    else:
        console.print("no tool calls")
    if resp.thinking:
        console.print(styled(("thinking", "bold")))
        console.print(styled(clip(resp.thinking)))
    console.print(styled(("text", "bold"), "" if resp.text else " (none)"))
    if resp.text:
        console.print(styled(clip(resp.text)))
    if resp.repairs:
        console.print(styled(("repairs", "bold")))
        for r in resp.repairs:
            console.print(styled(f"- {r.kind}: {r.detail}"))


def execute(
    file: str | None = None, provider: str | None = None, tools: str | None = None, json_out: bool = False,
    jsonl: str | None = None, debug: bool = False, model: str | None = None,
) -> int:
    """Parse one input (FILE, '-' or stdin) or a --jsonl batch and print what was found."""
    try:
        return _execute(file, provider, tools, json_out, jsonl, model)
    finally:
        if debug:
            _report_failures()


def _report_failures() -> None:
    """--debug: the parser exceptions that were caught (and so degraded to text), on stderr."""
    from agentcli.wire import failure_counts, recent_failures

    counts = failure_counts()
    sys.stderr.write(f"parser failures: {sum(counts.values())}\n")
    for where, n in sorted(counts.items()):
        sys.stderr.write(f"  {where}: {n}\n")
    for f in recent_failures():
        sys.stderr.write(f"  last in {f.where}: {f.error}\n".encode("utf-8", "backslashreplace").decode("utf-8"))


def _execute(
    file: str | None, provider: str | None, tools: str | None, json_out: bool, jsonl: str | None, model: str | None
) -> int:
    if jsonl is not None:
        return _batch(jsonl)
    if provider is not None and provider not in _kinds():
        raise UsageError(f"unknown provider shape {provider!r}", hint=f"Use one of: {', '.join(_kinds())}.")
    raw = _read(file or "-")
    try:
        resp = parse_input(provider, raw, offered(tools), model)
    except ValueError as exc:
        raise UsageError(f"cannot parse the input: {exc}") from None
    if json_out:
        sys.stdout.write(jsonsafe.dumps(to_json(resp), ensure_ascii=False, indent=2) + "\n")
    else:
        _show(resp)
    return 0
