import os
import stat

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
