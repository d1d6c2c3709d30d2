"""The parse benchmark's own code, on tiny inputs, so it cannot rot between `make bench` runs.

No timings are asserted: the timer is a stand-in that runs the parse once and returns a fixed
figure, and memory is checked for what must hold whatever the machine (a bigger reply allocates
more, a verdict follows its target)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH))

import bench_parse_memory as memory  # noqa: E402
import bench_parse_vllm as vllm_side  # noqa: E402
import parse_sizes as sizes  # noqa: E402

from agentcli.wire.pipeline import parse_text  # noqa: E402

GROWN = ("hermes", "mistral", "kimi_k2", "qwen3_coder", "pythonic", "glm4_moe")


def once(fn, arg) -> float:
    """Stand-in timer: run the measured call once (so the code path is exercised), report 1 µs."""
    fn(arg)
    return 1e-6


@settings(max_examples=25, deadline=None)
@given(dialect=st.sampled_from(GROWN), size=st.integers(min_value=0, max_value=3000))
def test_a_grown_reply_reads_as_its_call_with_arguments_of_the_asked_size(dialect, size):
    (found,) = sizes.candidates(dialect, (size,), most=1)
    (s,) = found
    resp = parse_text(s.text, sizes.context(s), (dialect,))
    assert [(c.name, c.arguments) for c in resp.tool_calls] == [(s.name, s.arguments)]
    assert not resp.repairs
    encoded = len(json.dumps(s.arguments))
    assert encoded >= size
    if encoded > size:  # only when the fixture's own arguments were already longer than asked
        assert s.text in {c["text"] for c in json.loads((sizes.FIXTURES / f"{dialect}.json").read_text())["cases"]}


def test_the_size_table_has_a_row_per_dialect_and_size_and_says_why_vllm_is_missing():
    inputs, missing = sizes.sized_inputs((256, 1024), only=("hermes", "json_block", "nemotron"))
    assert set(inputs) == {"hermes", "json_block"} and missing == ["nemotron"]
    vllm = {"hermes": {"case": inputs["hermes"][0][0].case, "seconds": {"256": 0.5e-6, "1024": 5e-6}}}
    rows = sizes.measure(inputs, once, vllm)
    assert [(r.dialect, r.size) for r in rows] == [(d, n) for d in ("hermes", "json_block") for n in (256, 1024)]
    hermes_small, hermes_big, block_small, _ = rows
    # forced 1 µs vs vLLM 0.5 µs + loads 1 µs: within; json_block has no vLLM parser: 3 x loads.
    assert hermes_small.verdict() == "ok" and hermes_big.verdict() == "ok"
    assert block_small.vllm is None and "no parser" in block_small.note and block_small.anchor() == pytest.approx(3e-6)
    lines, ok = sizes.report(rows, "vLLM 0, CPU only", missing)
    assert ok
    text = "\n".join(lines)
    assert "2 of 4 rows" in text and "json_block: vLLM has no parser for this format" in text
    assert "(left out): nemotron" in text


def test_a_size_vllm_did_not_run_is_judged_against_its_lower_bound_and_marked():
    inputs, _ = sizes.sized_inputs((256,), only=("hermes",))
    vllm = {"hermes": {"case": inputs["hermes"][0][0].case, "seconds": {}, "at_least": {"256": 9.0},
                       "notes": {"256": "vLLM not run at 0K"}}}
    (row,) = sizes.measure(inputs, once, vllm)
    assert row.vllm_at_least and row.vllm == 9.0 and row.verdict() == "ok"
    lines, _ = sizes.report([row], "", [])
    assert ">=9000000.0" in lines[1] and "0 of 1 rows measured" in "\n".join(lines)
    assert any("hermes: vLLM not run at 0K" in line for line in lines)


def test_a_slow_row_fails_the_table():
    fast = sizes.Row("hermes", 1024, forced=1e-6, auto=2e-6, loads=1e-6, vllm=1e-6)
    slow = sizes.Row("hermes", 1024, forced=5e-6, auto=5e-6, loads=1e-6, vllm=1e-6)
    chain = sizes.Row("hermes", 1024, forced=1e-6, auto=1e-3, loads=1e-6, vllm=1e-6)
    assert sizes.report([fast], "", [])[1]
    assert slow.verdict() == "SLOW" and not sizes.report([fast, slow], "", [])[1]
    assert chain.auto_verdict() == "SLOW" and not sizes.report([chain], "", [])[1]


def test_without_a_vllm_venv_the_bench_says_so(monkeypatch, tmp_path):
    monkeypatch.setenv(sizes.VLLM_PYTHON_ENV, str(tmp_path / "no-such-python"))
    inputs, _ = sizes.sized_inputs((256,), only=("hermes",))
    got, why = sizes.run_vllm(inputs, quick=True)
    assert got == {} and "make bench-vllm" in why
    lines, _ = sizes.report(sizes.measure(inputs, once, got), why, [])
    assert any(line.startswith("vLLM was not measured: no vLLM venv") for line in lines)


def test_the_stand_in_vocabulary_has_every_token_with_a_stable_id():
    tok = vllm_side.StandInTokenizer()
    vocab = tok.get_vocab()
    first = vocab.get("<tool_call>")
    assert isinstance(first, int) and vocab.get("<tool_call>") == first and "</tool_call>" in vocab
    assert vocab["</tool_call>"] != first and tok.convert_tokens_to_ids(["<tool_call>"]) == [first]


def test_the_parse_peak_grows_with_the_reply():
    small = memory.shapes(2 << 10)["hermes call, one big argument"]
    big = memory.shapes(256 << 10)["hermes call, one big argument"]
    with memory._reply_file(small) as a, memory._reply_file(big) as b:
        assert memory.traced_peak(b, json_out=True) > memory.traced_peak(a, json_out=True) + (256 << 10)


def test_the_memory_table_runs_agent_parse_and_judges_against_its_target():
    replies = {k: v for k, v in memory.shapes(4 << 10).items() if k in ("prose", "qwen xml call")}
    assert all(abs(len(t.encode()) - (4 << 10)) < 512 for t in replies.values())
    rows = memory.measure(replies)
    floor = {"agent parse (tiny reply)": min(r.rss_kb for r in rows)}
    assert [r.label for r in rows] == list(replies) and all(r.rss_kb > 0 and r.traced > 0 for r in rows)
    lines, ok = memory.report(rows, floor, target_mb=1e6)
    assert ok and sum(label in line for line in lines for label in replies) == len(replies)
    assert not memory.report(rows, floor, target_mb=1.0)[1]  # no Python process fits in 1 MB
