"""vLLM's tool parsers on the replies bench_parse.py writes: seconds per extract_tool_calls, per input.

Runs in vLLM's own venv (`make bench-vllm`), never in the project's: vLLM pins torch and a long
list of libraries that clash with ours, and nothing here imports agentcli. CPU only: the tool
parsers are text code (regexes and json), and a GPU is never touched.

Input: a JSON list of {dialect, parser, cases: [[{case, size, text, name, arguments, schema}, ...
one per size], ...]}; output: {version, results: [{dialect, case, seconds: {size: s}, at_least: {size: s},
notes: {size: why}, note}]} (at_least: a size not run because it would take minutes, with the
linear lower bound of its time); `--passes N` times the table N times, each figure its least. Per dialect the first candidate case vLLM reads as the expected call is timed (the
bench then times ours on that case); a parser that cannot be built or reads every candidate as
something else gets no seconds and a note saying what happened, so the table compares only like
with like.

A tokenizer is needed to build a parser, and none can be downloaded here: a stand-in gives every
token string an id (the parsers look their markers up in the vocabulary when built and use only
the text to extract a finished reply). That stand-in is the one thing not vLLM's own.

Run: <vllm venv>/bin/python benchmarks/bench_parse_vllm.py IN.json OUT.json [--quick]
"""

from __future__ import annotations

import json
import logging
import os
import sys
import warnings
from typing import Any

from cpu_timing import per_call  # beside this script: the standard library only

os.environ.setdefault("VLLM_LOGGING_LEVEL", "ERROR")
os.environ.setdefault("TORCH_CPP_LOG_LEVEL", "ERROR")

BUDGET_S = 10.0  # a larger size is not run when the smaller one says it would take longer than this
SLOW_S = 1.0  # a call this slow is timed once


class AnyVocab(dict):  # type: ignore[type-arg]
    """Every token string has an id: the parsers only check their markers exist."""

    def __missing__(self, key: str) -> int:
        self[key] = len(self) + 1000
        return self[key]

    def get(self, key: Any, default: Any = None) -> Any:
        return self[key]

    def __contains__(self, key: object) -> bool:
        return True


class StandInTokenizer:
    """What a parser's constructor asks of a tokenizer, without a model's files."""

    def __init__(self) -> None:
        self.vocab = AnyVocab()

    def get_vocab(self) -> dict[str, int]:
        return self.vocab

    def encode(self, text: str, add_special_tokens: bool = False, **_: Any) -> list[int]:
        return [self.vocab[text]]

    def decode(self, ids: Any, **_: Any) -> str:
        return ""

    def convert_tokens_to_ids(self, tokens: Any) -> Any:
        return [self.vocab[t] for t in tokens] if isinstance(tokens, list) else self.vocab[tokens]


def _decoded(arguments: Any) -> Any:
    if isinstance(arguments, str):
        try:
            return json.loads(arguments)
        except ValueError:
            return arguments
    return arguments


def _request(item: dict[str, Any]) -> Any:
    """A chat request offering the call's tool, as a served request would."""
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest

    tool = {"type": "function", "function": {"name": item["name"], "parameters": item["schema"]}}
    return ChatCompletionRequest(model="bench", messages=[{"role": "user", "content": "hi"}], tools=[tool])


def _reads(parser_name: str, item: dict[str, Any]) -> tuple[Any, Any, str]:
    """(parser, request, "") when vLLM reads the item as its expected call, else (None, None, why)."""
    from vllm.tool_parsers import ToolParserManager

    try:
        parser = ToolParserManager.get_tool_parser(parser_name)(StandInTokenizer())
        request = _request(item)
        got = parser.extract_tool_calls(item["text"], request)
    except Exception as exc:  # noqa: BLE001 - one parser that cannot run is a note, not the end
        return None, None, f"vLLM {parser_name} could not run: {type(exc).__name__}: {str(exc)[:120]}"
    calls = [(c.function.name, _decoded(c.function.arguments)) for c in got.tool_calls]
    if calls != [(item["name"], item["arguments"])]:
        return None, None, f"vLLM {parser_name} reads it differently: {[(n, str(a)[:40]) for n, a in calls]}"
    return parser, request, ""


def one(job: dict[str, Any], min_time: float) -> dict[str, Any]:
    """The first candidate case vLLM reads (at its smallest size), timed at every size."""
    row: dict[str, Any] = {"dialect": job["dialect"], "case": None, "seconds": {}, "at_least": {}, "notes": {},
                           "note": ""}
    first_why = ""
    for grown in job["cases"]:
        parser, _, why = _reads(job["parser"], grown[0])
        if parser is None:
            first_why = first_why or why
            continue
        row["case"] = grown[0]["case"]
        last: tuple[int, float] | None = None
        for item in grown:
            size = str(item["size"])
            if last and last[1] * (item["size"] / last[0]) ** 2 > BUDGET_S:
                # Not run; at least linear growth is certain, so that bound stands in for the figure.
                row["at_least"][size] = last[1] * item["size"] / last[0]
                row["notes"][size] = (f"vLLM not run at {item['size'] // 1024}K: {last[1]:.2f} s at "
                                      f"{last[0] // 1024}K, growing with the square of the size; its figure there "
                                      "is the linear lower bound")
                continue
            parser, request, why = _reads(job["parser"], item)
            if parser is None:
                row["notes"][size] = why
                continue
            row["seconds"][size] = per_call(lambda t, p=parser, r=request: p.extract_tool_calls(t, r),
                                            item["text"], min_time, SLOW_S)
            last = (item["size"], row["seconds"][size])
        return row
    row["note"] = first_why
    return row


def main(argv: list[str]) -> int:
    warnings.simplefilter("ignore")
    logging.disable(logging.WARNING)
    src, dst = argv[0], argv[1]
    min_time = 0.005 if "--quick" in argv else 0.02
    jobs = json.loads(open(src, encoding="utf-8").read())
    import vllm

    # As many passes over the whole table as ours (`--passes N`, parse_sizes.PASSES), each figure the
    # least of them: a spell of load lands on different rows in each pass, for vLLM's figures as for ours.
    passes = int(argv[argv.index("--passes") + 1]) if "--passes" in argv else 1
    results = [one(job, min_time) for job in jobs]
    for _ in range(passes - 1):
        for row, again in zip(results, [one(job, min_time) for job in jobs]):
            if again["case"] == row["case"]:
                for size, s in again["seconds"].items():
                    row["seconds"][size] = min(s, row["seconds"].get(size, s))
    with open(dst, "w", encoding="utf-8") as f:
        json.dump({"version": f"vLLM {vllm.__version__}, CPU only", "results": results}, f)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
