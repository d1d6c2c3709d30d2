"""`agent sessions` decodes what it shows, not every record of a transcript's tail: the first record,
the last whole one, and only the lines after it that could be the last `end` record; and it works
out the real path of each folder named once per listing, however many transcripts name it."""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcli.agent import catalog
from agentcli.core import jsonsafe


def _write(sid: str, records: list[dict | str]) -> None:
    d = catalog.sessions_dir()
    d.mkdir(parents=True, exist_ok=True)
    lines = [r if isinstance(r, str) else json.dumps(r) for r in records]
    (d / f"{sid}.jsonl").write_text("".join(line + "\n" for line in lines))


@pytest.fixture
def decoded(monkeypatch):
    seen: list[str] = []
    real = jsonsafe.loads

    def counting(text, *a, **k):
        seen.append(text)
        return real(text, *a, **k)

    monkeypatch.setattr(jsonsafe, "loads", counting)
    return seen


def _head(sid: str, ws: str = "/w") -> dict:
    return {"type": "session", "t": 1.0, "id": sid, "workspace": ws, "goal": "g", "model": "m"}


def test_a_finished_transcript_costs_two_decodes(decoded):
    sid = "20260101-000000-aaaaaa"
    _write(sid, [_head(sid), *({"type": "message", "t": 2.0 + i, "n": i} for i in range(50)),
                 {"type": "end", "t": 60.0, "stop": "answered"}])
    [entry] = catalog.list_sessions()
    assert (entry.end or {}).get("stop") == "answered" and entry.updated == 60.0
    assert len(decoded) == 2  # the first record and the last


def test_records_after_the_end_are_skipped_unless_they_could_be_one(decoded):
    sid = "20260101-000000-bbbbbb"
    after = [{"type": "message", "t": 10.0 + i, "text": "plain"} for i in range(20)]
    _write(sid, [_head(sid), {"type": "end", "t": 5.0, "stop": "first"}, {"type": "end", "t": 6.0, "stop": "second"},
                 *after, {"type": "message", "t": 40.0, "text": "the word \"end\" and a \\ escape"}, '{"type": "mess'])
    [entry] = catalog.list_sessions()
    assert (entry.end or {}).get("stop") == "second" and entry.updated == 40.0
    # first record, the torn line, the last whole record, then the end: the 20 plain lines never
    assert len(decoded) == 4


def test_an_escaped_end_record_is_still_found(decoded):
    sid = "20260101-000000-cccccc"
    _write(sid, [_head(sid), '{"type": "\\u0065nd", "t": 3.0, "stop": "escaped"}', {"type": "message", "t": 4.0}])
    [entry] = catalog.list_sessions()
    assert (entry.end or {}).get("stop") == "escaped" and entry.updated == 4.0


def test_each_folder_is_resolved_once_per_listing(monkeypatch, tmp_path):
    for i in range(5):
        sid = f"20260101-00000{i}-dddddd"
        _write(sid, [_head(sid, str(tmp_path if i % 2 else tmp_path / "other")), {"type": "end", "t": 9.0}])
    resolved: list[str] = []
    real = os.path.realpath

    def counting(path, *a, **k):
        resolved.append(str(path))
        return real(path, *a, **k)

    monkeypatch.setattr(catalog.os.path, "realpath", counting)
    assert len(catalog.list_sessions(tmp_path)) == 2
    assert sorted(resolved) == sorted([str(tmp_path), str(tmp_path), str(tmp_path / "other")])


record = st.one_of(
    st.fixed_dictionaries({"type": st.sampled_from(["message", "end", "result"]), "t": st.floats(1, 1e9),
                           "stop": st.text(alphabet="ab\\\"end", max_size=8)}).map(json.dumps),
    st.sampled_from(['{"type": "\\u0065nd", "t": 7.0}', '{"type": "mess', "[1, 2]", "", '"end"', "{}"]),
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(record, max_size=12))
def test_the_last_and_end_records_are_those_of_a_full_read(lines):
    """Against decoding every line: the same last whole record and the same last end record."""
    whole = []
    for line in lines:
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if isinstance(rec, dict):
            whole.append(rec)
    want = None if not whole else (whole[-1], next((r for r in reversed(whole) if r.get("type") == "end"), None))
    assert catalog._last_records("\n".join(lines).encode(), cut=False) == want
