"""Hostile content never crashes, hangs or misleads: each case from the field, as a test.

Deep nesting, lone surrogates, emoji split across chunks, catastrophic regexes, endless
streams, undecodable file names, a closed stdout, cancelled chat turns, and dialect
exceptions that used to vanish without a trace.
"""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from agentcli.agent.approval import Decision
from agentcli.agent.build import open_session
from agentcli.agent.loop import Agent
from agentcli.config import load_profile
from agentcli.core import jsonsafe
from agentcli.core.events import Done, StreamEvent, StreamKind
from agentcli.core.types import Role
from agentcli.providers.scripted import ScriptedProvider

DEEP = "[" * 5000 + "]" * 5000  # about 10 kB


class _Yes:
    async def decide(self, cp):  # noqa: ANN001, ANN201
        return Decision("yes")


async def _no_sleep(_):  # noqa: ANN001, ANN202
    return None


def _profile(tmp_path: Path, extra: str = ""):  # noqa: ANN202
    prof = tmp_path / "p.toml"
    prof.write_text('[profiles.p]\nprovider = "openai"\nmodel = "gpt-4o"\nurl = "http://127.0.0.1:9/v1"\n'
                    'api_key_env = "K_FOR_TEST"\nstream = true\n[profiles.p.limits]\nmax_retries = 0\n' + extra)
    return load_profile(str(prof)).profile


def _session(tmp_path: Path, turns: list, **kw):  # noqa: ANN202
    profile = _profile(tmp_path)
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    provider = ScriptedProvider.from_turns(turns, api="openai", profile=profile, sleep=_no_sleep)
    return open_session(profile, ws, provider=provider, approve_mode="all", **kw)


def _native(name: str, raw_args: str, call_id: str = "c1") -> dict:
    return {"openai": {"choices": [{"message": {"role": "assistant", "content": None, "tool_calls": [
        {"id": call_id, "type": "function", "function": {"name": name, "arguments": raw_args}}]},
        "finish_reason": "tool_calls"}]}}


async def _run(session, goal="go"):  # noqa: ANN001, ANN202
    return [ev async for ev in Agent(session, _Yes()).run(goal)]


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.setenv("K_FOR_TEST", "sk-test-0000000000000000")


# -- deep nesting ----------------------------------------------------------------------------------

def test_bounded_decode_refuses_deep_json_without_recursing():
    with pytest.raises(jsonsafe.TooDeep):
        jsonsafe.loads(DEEP)
    with pytest.raises(ValueError):  # a ValueError: every caller that handles bad JSON handles this
        jsonsafe.loads(DEEP)
    assert jsonsafe.loads('{"a": "[[[[[[", "b": [[1]]}') == {"a": "[[[[[[", "b": [[1]]}
    assert jsonsafe.depth('"\\"[[[" [[ ]]') == 2
    assert jsonsafe.depth('"' + '\\"' * 1000) == 0  # an unterminated string ends the scan


async def test_deep_arguments_reach_the_model_as_a_structured_error(tmp_path):
    s = _session(tmp_path, [_native("list_files", '{"path": ' + DEEP + "}"), {"text": "ok then"}])
    events = await _run(s)
    done = events[-1]
    assert isinstance(done, Done) and done.stop == "answered"
    tool_msgs = [m for m in s.history if m.role is Role.TOOL]
    assert tool_msgs and "nested deeper than" in tool_msgs[0].tool_results[0].content


def test_agent_parse_on_deep_input(tmp_path):
    from typer.testing import CliRunner

    from agentcli.cli.main import app

    raw = tmp_path / "deep.txt"
    raw.write_text('<tool_call>{"name": "read_file", "arguments": ' + DEEP + "}</tool_call> [/nope]")
    res = CliRunner().invoke(app, ["parse", str(raw)], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert "nested deeper than" in res.output and "[/nope]" in res.output
    res = CliRunner().invoke(app, ["parse", "--json", str(raw)], catch_exceptions=False)
    assert res.exit_code == 0


# -- Unicode end to end ----------------------------------------------------------------------------

async def test_lone_surrogates_in_arguments_and_text_reach_the_transcript(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    (tmp_path / "ws").mkdir()
    s = _session(tmp_path, [_native("read_file", json.dumps({"path": "x\ud800y"})), {"text": "done \udcff [/x]"}],
                 goal="go")
    events = await _run(s)
    assert isinstance(events[-1], Done) and events[-1].stop == "answered"
    s.transcript.close()
    from agentcli.agent.store import load_session

    saved = load_session(s.transcript.path)
    assert saved.history[-1].text == "done \udcff [/x]"  # escaped on the way out, the same string back
    s.transcript.path.read_bytes().decode("utf-8")


def test_json_output_accepts_any_string():
    import io

    from agentcli.ui.render import JsonRenderer

    out = io.StringIO()
    r = JsonRenderer(out)
    r(StreamEvent(StreamKind.TEXT, text="a\ud800b"))
    r(Done("answered", answer="\udcff"))
    lines = out.getvalue().encode("utf-8").decode("utf-8").splitlines()
    assert [json.loads(x).get("text", json.loads(x).get("answer")) for x in lines] == ["a\ud800b", "\udcff"]


def test_emoji_sent_as_two_escaped_halves_in_two_chunks_stays_whole(tmp_path):
    from agentcli.wire import new_stream

    s = _session(tmp_path, [], record=False)
    asm = new_stream(s.plan, s.parse_context())
    texts = []
    for piece in ('"a \\ud83d"', '"\\ude00 b"'):  # the JSON a server sends: one escaped half per chunk
        chunk = json.loads('{"choices": [{"index": 0, "delta": {"content": ' + piece + "}}]}")
        texts += [e.text for e in asm.feed(chunk) if e.kind is StreamKind.TEXT]
    asm.feed({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    events, parsed = asm.finish()
    texts += [e.text for e in events if e.kind is StreamKind.TEXT]
    assert "".join(texts) == "a 😀 b"
    assert parsed.text == "a 😀 b"


async def test_multibyte_characters_split_across_network_chunks(tmp_path):
    from agentcli.testing.streams import frame_sse

    body = json.dumps({"choices": [{"index": 0, "delta": {"content": "héllo 😀 世界"}}]}, ensure_ascii=False)
    raw = frame_sse(json.loads(body)) + frame_sse({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    raw += b"data: [DONE]\n\n"

    class OneByteAtATime(httpx.AsyncByteStream):
        async def __aiter__(self):  # noqa: ANN204
            for i in range(len(raw)):
                yield raw[i:i + 1]

    transport = httpx.MockTransport(lambda req: httpx.Response(200, stream=OneByteAtATime(),
                                                               headers={"content-type": "text/event-stream"}))
    s = open_session(_profile(tmp_path), tmp_path, transport=transport, record=False)
    events = await _run(s)
    assert isinstance(events[-1], Done) and events[-1].answer == "héllo 😀 世界"


# -- bounded responses -----------------------------------------------------------------------------

@pytest.mark.parametrize("stream", ["true", "false"])
async def test_an_endless_response_is_cut_at_the_byte_budget(tmp_path, stream):
    served = [0]

    class Endless(httpx.AsyncByteStream):
        async def __aiter__(self):  # noqa: ANN204
            yield b'data: {"choices": [{"index": 0, "delta": {"content": "'
            while True:  # one line that never ends
                served[0] += 1
                yield b"x" * 512

    transport = httpx.MockTransport(lambda req: httpx.Response(200, stream=Endless()))
    profile = _profile(tmp_path, "max_response_bytes = 4096\n")
    profile.stream = stream == "true"
    s = open_session(profile, tmp_path, transport=transport, record=False, approve_mode="all")
    events = await _run(s)
    done = events[-1]
    assert isinstance(done, Done) and done.stop == "error"
    assert "4096 bytes" in (done.error or "")
    assert served[0] <= 4096 // 512 + 2  # stopped reading at the budget, and no retry


# -- regular expressions ---------------------------------------------------------------------------

async def _tool(name: str, args: dict, root: Path) -> str:
    from agentcli.core.types import ToolCall

    s = open_session(_profile(root), root, record=False)
    result = await s.execute(ToolCall(name=name, arguments=args))
    return result.content if result.ok else "ERROR " + result.error.message + " " + (result.error.suggested_fix or "")


async def test_catastrophic_pattern_runs_in_linear_time(tmp_path):
    (tmp_path / "a.txt").write_text(("a" * 41 + "b\n") * 2000)
    out = await asyncio.wait_for(_tool("search", {"pattern": "^(a+)+$", "type": "regex"}, tmp_path), 120)
    assert out.startswith("No matches")


async def test_unsupported_pattern_is_a_clear_error(tmp_path):
    out = await _tool("search", {"pattern": r"(a)\1", "type": "regex"}, tmp_path)
    assert out.startswith("ERROR invalid or unsupported regular expression") and "backreferences" in out


def test_a_stopped_search_scans_nothing_more(tmp_path):
    from agentcli.tools.builtin.search import _Job, compile_pattern

    for i in range(50):
        (tmp_path / f"f{i}.txt").write_text("needle\n")
    s = open_session(_profile(tmp_path), tmp_path, record=False)
    job = _Job(pattern="needle", rx=compile_pattern("needle", literal=True, case_sensitive=True), path=".",
               include=None, exclude=None, max_results=50, context=0, ctx=s.tool_ctx)
    job.stop.set()  # what cancelling the call (Ctrl-C) does
    assert job.run().startswith("No matches") and job.total == 0


# -- undecodable names -----------------------------------------------------------------------------

async def test_undecodable_names_are_listed_escaped_and_the_rest_still_shown(tmp_path):
    root = os.fsencode(tmp_path)
    open(os.path.join(root, b"bad\xff\xfe.txt"), "wb").write(b"needle\n")
    open(os.path.join(root, b"ctl\x1b[31m.txt"), "wb").write(b"needle\n")
    (tmp_path / "good.txt").write_text("needle\n")
    out = await _tool("list_files", {}, tmp_path)
    assert "bad\\xff\\xfe.txt" in out and "good.txt" in out and "ctl\\x1b[31m.txt" in out
    assert "not valid UTF-8" in out
    out.encode("utf-8")
    found = await _tool("search", {"pattern": "needle"}, tmp_path)
    assert "bad\\xff\\xfe.txt" in found and "good.txt" in found
    found.encode("utf-8")


# -- closed stdout ---------------------------------------------------------------------------------

def test_closed_stdout_ends_quietly(tmp_path):
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"api": "openai", "turns": [{"text": "\n".join(f"line {i}" for i in range(50000))}]}))
    (tmp_path / "p.toml").write_text(f'[profiles.h]\nprovider = "scripted"\nmodel = "m"\nscript = "{script}"\n')
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data")}
    ws = tmp_path / "ws"  # the profile stays outside the (untrusted) workspace
    ws.mkdir()
    for extra in ([], ["--json"]):
        proc = subprocess.Popen([sys.executable, "-m", "agentcli.cli.main", "run", "go", "-p", f"{tmp_path}/p.toml#h",
                                 "-w", str(ws), *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.readline()
        proc.stdout.close()  # what `| head -1` does
        err = proc.stderr.read().decode()
        assert proc.wait(timeout=120) == 141
        assert "internal error" not in err and "Traceback" not in err and "BrokenPipe" not in err
    assert not (tmp_path / "data" / "agentcli" / "crashes").exists()


# -- cancelled chat turns --------------------------------------------------------------------------

def test_cancelled_turns_leave_no_pending_tasks(tmp_path, caplog):
    from agentcli.core import aio

    s = _session(tmp_path, [{"text": "never"}], record=False)

    async def hang(*_a, on_event=None, **_k):  # noqa: ANN001, ANN202
        on_event(StreamEvent(StreamKind.TEXT, text="partial"))
        await asyncio.Event().wait()

    s.provider.complete = hang
    loop = aio.loop()  # the chat's loop
    seen: list = []

    async def turn() -> None:
        import contextlib

        async with contextlib.aclosing(Agent(s, _Yes()).run("hi")) as events:
            async for ev in events:
                seen.append(ev)

    with caplog.at_level(logging.ERROR, logger="asyncio"):
        for _ in range(3):  # three cancelled turns, as Ctrl-C in chat does
            task = loop.create_task(turn())
            loop.run_until_complete(asyncio.sleep(0.05))
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                loop.run_until_complete(task)
        aio.close()  # what the chat does when it ends
        del task
        gc.collect()
    assert any(isinstance(e, StreamEvent) for e in seen)
    assert not [r for r in caplog.records if "destroyed" in r.getMessage()]


# -- parser failures are counted -------------------------------------------------------------------

def test_a_dialect_that_raises_is_counted_and_shown(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from agentcli.cli.main import app
    from agentcli.wire import dialects, failures

    hermes = type(dialects.get("hermes"))

    def broken(self, text):  # noqa: ANN001, ANN202
        raise KeyError("a parser bug")

    monkeypatch.setattr(hermes, "parse", broken)
    monkeypatch.setattr(hermes, "lane", broken)  # the usual reply's own reading too
    failures.reset()
    raw = tmp_path / "t.txt"
    raw.write_text('<tool_call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call>')
    res = CliRunner().invoke(app, ["parse", str(raw), "--debug"], catch_exceptions=False)
    assert res.exit_code == 0
    assert failures.total() >= 1 and any("hermes" in k for k in failures.counts())
    assert "parser failures: " in res.output and "a parser bug" in res.output
    failures.reset()
