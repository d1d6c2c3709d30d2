import os
import stat

import pytest

from agentcli.agent.store import Transcript, find_session, list_sessions, load_session, sessions_dir
from agentcli.core.errors import ErrorCode, ToolError, UsageError
from agentcli.core.types import Message, ParsedResponse, Role, ToolCall, ToolResult


def _write_session(sid: str, *, finish_first: bool, torn: bool) -> tuple[str, ToolCall, ToolCall]:
    t = Transcript(sessions_dir() / f"{sid}.jsonl")
    t.write("session", id=sid, goal="g", profile="offline", model="m")
    t.message(Message.user("do it"))
    a, b = ToolCall("read_file", {"path": "a"}), ToolCall("write_file", {"path": "b", "content": "x"})
    t.message(Message.assistant(ParsedResponse(tool_calls=[a, b])))
    if finish_first:
        t.result(ToolResult(a.id, "read_file", True, "A"))
    t.close()
    if torn:
        with open(sessions_dir() / f"{sid}.jsonl", "a") as f:
            f.write('{"type": "result", "result": {"call_id": "')
    return sid, a, b


def test_resume_reuses_finished_results_and_never_reruns_pending_calls():
    sid, a, b = _write_session("s1", finish_first=True, torn=True)
    s = load_session(sessions_dir() / f"{sid}.jsonl")
    assert s.skipped_lines == 1
    assert [m.role for m in s.history] == [Role.USER, Role.ASSISTANT, Role.TOOL]
    ra, rb = s.history[-1].tool_results
    assert ra.ok and ra.content == "A"
    assert not rb.ok and rb.call_id == b.id and isinstance(rb.error, ToolError)
    assert rb.error.code is ErrorCode.EXECUTION and "interrupted" in rb.content


def test_transcript_is_private_and_scrubbed(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-canary-abcdefghijklmnopqrstuvwxyz")
    t = Transcript(sessions_dir() / "s2.jsonl")
    t.message(Message.user("my key is sk-canary-abcdefghijklmnopqrstuvwxyz"))
    t.close()
    path = sessions_dir() / "s2.jsonl"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert "sk-canary" not in path.read_text()


def test_find_session_by_prefix_and_last():
    _write_session("20260101-000000-aaaaaa", finish_first=False, torn=False)
    assert find_session("20260101").name.startswith("20260101")
    assert find_session(None).suffix == ".jsonl"
    assert len(list_sessions()) == 1
    try:
        find_session("nope")
    except UsageError as e:
        assert "no session matches" in e.message
    else:
        raise AssertionError


def test_truncate_and_compact_records_replay():
    t = Transcript(sessions_dir() / "s3.jsonl")
    for i in range(4):
        t.message(Message.user(f"u{i}"))
    t.write("truncate", keep=2)
    t.write("compact", folded=1, head=[{"role": "user", "text": "summary"}])
    t.close()
    s = load_session(sessions_dir() / "s3.jsonl")
    assert [m.text for m in s.history] == ["summary", "u1"]


@pytest.mark.parametrize("seed", range(6))
def test_listing_reads_each_transcript_at_its_head_and_tail_and_agrees_with_a_full_read(monkeypatch, seed):
    """Whatever the transcript's length and wherever its records fall against the tail window,
    the listing names the same folder, last end and last time as reading it through; the middle
    is never parsed (a torn or non-UTF-8 middle changes nothing)."""
    import random

    from agentcli.agent import catalog

    rng = random.Random(seed)
    monkeypatch.setattr(catalog, "TAIL_BYTES", rng.choice([200, 900, 4096]))
    want: dict[str, tuple[str, str | None, float]] = {}
    for n in range(4):
        sid = f"2026010{seed}-00000{n}-abcdef"
        t = Transcript(sessions_dir() / f"{sid}.jsonl")
        t.write("session", id=sid, workspace=f"/w/{n % 2}", goal="g" * rng.randint(0, 300), model="m")
        stop = None
        for i in range(rng.randint(0, 40)):
            if rng.random() < 0.2:
                stop = f"stop{i}"
                t.write("end", stop=stop)
            else:
                t.message(Message.user("x" * rng.randint(0, 200)))
        t.close()
        with open(sessions_dir() / f"{sid}.jsonl", "ab") as f:
            if rng.random() < 0.5:
                f.write(b'{"type": "message", "mess')  # torn last line
        records, _ = catalog.read_records(sessions_dir() / f"{sid}.jsonl")
        tail = catalog._head_and_tail(sessions_dir() / f"{sid}.jsonl")[1]
        if stop is not None and (tail is None or tail[1] is None or tail[1].get("stop") != stop):
            stop = None  # the run's end fell before the window: the listing shows a run still open
        want[sid] = (f"/w/{n % 2}", stop, float(records[-1]["t"]))
    monkeypatch.setattr(catalog, "read_records", lambda *_: (_ for _ in ()).throw(AssertionError("read through")))
    got = {s.id: (s.workspace, (s.end or {}).get("stop"), s.updated) for s in list_sessions()}
    assert got == want
    assert {s.id for s in list_sessions("/w/1")} == {k for k, v in want.items() if v[0] == "/w/1"}


def test_listing_a_folder_reads_other_folders_transcripts_to_their_first_record_only(monkeypatch, tmp_path):
    """`agent sessions` and `run -c` filter by folder on the first record: a long transcript of
    another folder costs one line read, and one of this folder its head and tail, never its middle."""
    from agentcli.agent import catalog

    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir()
    there.mkdir()
    middle = b"".join(b'{"type": "message", "pad": "' + b"x" * 1000 + b'"}\n' for _ in range(4000))  # ~4 MB
    for sid, ws in (("20260101-000000-aaaaaa", there), ("20260101-000001-bbbbbb", here)):
        t = Transcript(sessions_dir() / f"{sid}.jsonl")
        t.write("session", id=sid, workspace=str(ws), goal="g", model="m")
        t.close()
        with open(sessions_dir() / f"{sid}.jsonl", "ab") as f:
            f.write(middle + b'{"type": "end", "t": 5.0, "stop": "answered"}\n')
    read: dict[str, int] = {}

    class Counted:
        def __init__(self, path, mode="r", *args, **kwargs):
            self._f, self._name = open(path, mode, *args, **kwargs), os.path.basename(path)  # noqa: SIM115

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self._f.close()

        def _count(self, data):
            read[self._name] = read.get(self._name, 0) + len(data)
            return data

        def readline(self, *a):
            return self._count(self._f.readline(*a))

        def read(self, *a):
            return self._count(self._f.read(*a))

        def __getattr__(self, name):
            return getattr(self._f, name)

    monkeypatch.setattr(catalog, "open", Counted, raising=False)
    monkeypatch.chdir(here)
    assert [s.id for s in list_sessions(here)] == ["20260101-000001-bbbbbb"]
    assert [s.end for s in list_sessions(here)] == [{"type": "end", "t": 5.0, "stop": "answered"}]
    assert find_session("last", here).name == "20260101-000001-bbbbbb.jsonl"
    first_line = len((sessions_dir() / "20260101-000000-aaaaaa.jsonl").read_bytes().split(b"\n", 1)[0]) + 1
    assert read["20260101-000000-aaaaaa.jsonl"] == 3 * first_line  # three listings, one line each
    assert read["20260101-000001-bbbbbb.jsonl"] <= 3 * (first_line + catalog.TAIL_BYTES + 1) < len(middle)
