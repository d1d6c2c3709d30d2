"""File checkpoints: every change a tool makes is recorded, replayed from the transcript, and undone
byte for byte; an undo never overwrites a file that changed since."""

from __future__ import annotations

import json

import pytest

from agentcli.agent.approval import PolicyApprover
from agentcli.agent.build import open_session
from agentcli.agent.checkpoints import BlobStore, Ledger, blob_dir, undo, unified
from agentcli.agent.loop import Agent
from agentcli.agent.store import load_session
from agentcli.config import load_profile
from agentcli.core.errors import UsageError
from agentcli.providers.scripted import ScriptedProvider
from agentcli.testing import openai_body


def _call(name, args, cid):
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


def _session(tmp_path, turns, **tools):
    prof = tmp_path / "p.toml"
    extra = "".join(f'{k} = "{v}"\n' for k, v in tools.items())
    prof.write_text('[profiles.p]\nprovider = "openai"\nmodel = "gpt-4o"\nurl = "http://127.0.0.1:9/v1"\n'
                    'api_key_env = "K_FOR_TEST"\n[profiles.p.tools]\nstart_tier = "run"\n' + extra)
    profile = load_profile(str(prof)).profile
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    provider = ScriptedProvider.from_turns([{"openai": t} for t in turns], api="openai", profile=profile)
    return open_session(profile, ws, provider=provider)


async def _run(session, goal):
    return [ev async for ev in Agent(session, PolicyApprover(approve_all=True)).run(goal)]


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.setenv("K_FOR_TEST", "sk-test-0000000000000000")


ODD = b"line one\r\n\xff\xfe not utf-8 \x00\x01\r\nno newline at the end"


async def test_edits_are_recorded_and_undone_byte_for_byte_request_by_request(tmp_path):
    s = _session(tmp_path, [
        openai_body("", tool_calls=[_call("write_file", {"path": "new/made.txt", "content": "fresh",
                                                          "create_directories": True}, "a")]),
        openai_body("made"),
        openai_body("", tool_calls=[_call("write_file", {"path": "odd.bin", "content": "replaced"}, "b"),
                                    _call("write_file", {"path": "odd.bin", "content": "twice"}, "c")]),
        openai_body("replaced"),
    ])
    (s.workspace / "odd.bin").write_bytes(ODD)
    await _run(s, "make a file")
    await _run(s, "replace odd.bin")
    assert (s.workspace / "odd.bin").read_text() == "twice"
    saved = load_session(s.transcript.path)
    assert saved.ledger.exchanges == s.ledger.exchanges and len(saved.ledger.exchanges) == 2
    assert [c.path for c in saved.ledger.changes] == ["new/made.txt", "odd.bin", "odd.bin"]
    blobs = BlobStore(blob_dir(saved.path))
    diff = unified(s.workspace, blobs, saved.ledger.changes)
    assert "+fresh" in diff and "Binary file odd.bin changed" in diff

    report = undo(s.workspace, blobs, saved.ledger)  # the second request: odd.bin back, byte for byte
    assert report.restored == ["odd.bin"] and report.keep == saved.ledger.exchanges[-1]
    assert (s.workspace / "odd.bin").read_bytes() == ODD
    saved.ledger.truncate(report.keep)
    report = undo(s.workspace, blobs, saved.ledger)  # the first: the created file goes away
    assert report.removed == ["new/made.txt"] and not (s.workspace / "new/made.txt").exists()


async def test_undo_refuses_and_changes_nothing_when_a_file_changed_since(tmp_path):
    s = _session(tmp_path, [
        openai_body("", tool_calls=[_call("write_file", {"path": "a.txt", "content": "agent A"}, "1"),
                                    _call("write_file", {"path": "b.txt", "content": "agent B"}, "2")]),
        openai_body("done"),
    ])
    (s.workspace / "a.txt").write_text("mine A")
    (s.workspace / "b.txt").write_text("mine B")
    await _run(s, "write both")
    (s.workspace / "b.txt").write_text("edited by hand")
    with pytest.raises(UsageError, match="b.txt changed since"):
        undo(s.workspace, s.recorder.blobs, s.ledger)
    assert (s.workspace / "a.txt").read_text() == "agent A"  # not half-undone
    assert (s.workspace / "b.txt").read_text() == "edited by hand"


async def test_shell_commands_are_recorded_by_a_workspace_snapshot(tmp_path):
    s = _session(tmp_path, [
        openai_body("", tool_calls=[_call("bash", {"command": "printf new > made.txt && rm gone.txt && "
                                                               "printf changed > kept.txt"}, "1")]),
        openai_body("done"),
    ])
    (s.workspace / "gone.txt").write_text("was here")
    (s.workspace / "kept.txt").write_text("original")
    events = await _run(s, "shuffle files")
    assert events[-1].stop == "answered", events[-1]
    changed = {c.path: (c.before is None, c.after is None) for c in s.ledger.changes}
    assert changed == {"made.txt": (True, False), "gone.txt": (False, True), "kept.txt": (False, False)}
    undo(s.workspace, s.recorder.blobs, s.ledger)
    assert not (s.workspace / "made.txt").exists()
    assert (s.workspace / "gone.txt").read_text() == "was here" and (s.workspace / "kept.txt").read_text() == "original"


def test_ledger_follows_truncation_and_compaction():
    from agentcli.agent.checkpoints import FileChange

    led = Ledger([0, 4, 9], [FileChange("a", None, "h", 0), FileChange("b", None, "h", 4), FileChange("c", None, "h", 9)])
    led.compact(folded=6, head=2)  # messages 0..5 became 2: the request at 9 is now at 5
    assert led.exchanges == [5] and [(c.path, c.exchange) for c in led.changes] == [("c", 5)]
    led.truncate(5)
    assert led.exchanges == [] and led.changes == [] and led.last_exchange() is None


def test_a_record_cannot_name_a_path_outside_the_blob_store(tmp_path):
    blobs = BlobStore(tmp_path / "blobs")
    (tmp_path / "secret").write_text("x")
    assert blobs.get("../secret") is None and blobs.get("0" * 64) is None
    assert blobs.get(blobs.put(b"data")) == b"data"


async def test_a_file_holding_a_secret_is_never_copied_and_cannot_be_undone(tmp_path, monkeypatch):
    monkeypatch.setenv("ACME_API_KEY", "acme-live-0123456789abcdefXYZ")
    s = _session(tmp_path, [
        openai_body("", tool_calls=[_call("write_file", {"path": ".env", "content": "KEY=changed"}, "1")]),
        openai_body("done"),
    ])
    (s.workspace / ".env").write_text("KEY=acme-live-0123456789abcdefXYZ\n")
    await _run(s, "edit .env")
    assert [(c.path, c.skipped != "") for c in s.ledger.changes] == [(".env", True)]
    blobs = list(blob_dir(s.transcript.path).glob("*")) if blob_dir(s.transcript.path).exists() else []
    assert not any(b"acme-live" in b.read_bytes() for b in blobs)
    with pytest.raises(UsageError, match="not kept"):
        undo(s.workspace, s.recorder.blobs, s.ledger)
