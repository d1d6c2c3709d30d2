"""Going back across a folder's sessions: for random histories of requests spread over several
sessions (some changing files, some not), `--to N` puts every file back as it was before point N,
byte for byte, and leaves each session's conversation ending before its first undone request."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from agentcli.agent.checkpoints import BlobStore, Recorder, blob_dir
from agentcli.agent.rewind import go_back, points
from agentcli.agent.store import Transcript, load_session, sessions_dir
from agentcli.core.types import Message

NAMES = ["a.txt", "b.txt", "sub/c.txt", "sub/deep/d.bin"]


def _state(root: Path) -> dict[str, bytes]:
    return {n: (root / n).read_bytes() for n in NAMES if (root / n).exists()}


def _request(rng: random.Random, root: Path, sid: str, history_len: int, changes: bool) -> int:
    """One request in session `sid`: recorded as the loop records it; returns the new history length."""
    t = Transcript(sessions_dir() / f"{sid}.jsonl")
    if history_len == 0:
        t.write("session", id=sid, workspace=str(root), goal="g")
    t.write("exchange", keep=history_len)
    t.message(Message.user(f"request in {sid}"))
    if changes:
        rec = Recorder(root, BlobStore(blob_dir(t.path)))
        touched = rng.sample(NAMES, rng.randint(1, len(NAMES)))
        before = rec.snapshot(touched)
        for name in touched:
            if rng.random() < 0.25 and (root / name).exists():
                (root / name).unlink()
            else:
                (root / name).parent.mkdir(parents=True, exist_ok=True)
                (root / name).write_bytes(rng.randbytes(rng.randint(0, 40)) + f"#{rng.random()}".encode())
        for c in rec.changes(before, rec.snapshot(touched), history_len, "write_file"):
            t.write("file", **c.to_record())
    t.message(Message.user("answer"))  # stands for the assistant's turn: one more message
    t.close()
    return history_len + 2


@pytest.mark.parametrize("seed", range(8))
def test_going_back_n_points_restores_the_state_before_them(tmp_path, seed):
    rng = random.Random(seed)
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_bytes(b"original a")
    sessions = [f"2026010{seed}-00000{i}-abcdef" for i in range(3)]
    lengths = dict.fromkeys(sessions, 0)
    states = [_state(root)]  # before each point, newest last
    first_undone: list[tuple[str, int]] = []
    for _ in range(rng.randint(2, 7)):
        sid = rng.choice(sessions)
        changes = rng.random() < 0.7
        if changes:
            states.append(_state(root))
            first_undone.append((sid, lengths[sid]))
        lengths[sid] = _request(rng, root, sid, lengths[sid], changes)
    found = points(root)
    assert len(found) == len(first_undone)  # one point per request that changed files, newest first
    if not found:
        return
    n = rng.randint(1, len(found))
    back = go_back(root, found[:n])
    assert _state(root) == states[len(states) - n]
    for sid, keep in back.kept.items():
        want = min(k for s, k in first_undone[len(first_undone) - n:] if s == sid)
        assert keep == want
        saved = load_session(sessions_dir() / f"{sid}.jsonl")
        assert len(saved.history) >= keep
