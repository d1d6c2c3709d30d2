"""Parser conformance against the field: the peers' own parser tests as data, judged and tabled.

Each case file (`<peer>__<family>.json`) is a list of model outputs taken from another project's
parser tests (vLLM, SGLang, llama.cpp, Ollama, SDK recordings), with the calls and visible text
that project expects. A case is parsed the way a run would parse it: the case's model is resolved
and negotiated into a plan (see wire.model_parse), and the tools the case offers are the tools.

    python -m agentcli.evals.conformance                 # print the per-family table
    python -m agentcli.evals.conformance --write docs/parser-conformance.md

A case is right when the ordered calls (name, arguments) equal the expected ones, and its text is
right when the visible text equals the expected text after whitespace is normalised (when the peer
checks it). Calls reported with an error are never executed: they are left out of the comparison
and are not counted as false calls, but a case expecting such a call to be dropped must say so.

A recorded provider response (`sdk__<wire>.json`: bodies and SSE streams recorded in the official
SDKs' own tests) is a case with `wire` (a native API: openai, openai_responses, anthropic, gemini,
ollama) and either `body` (the JSON body) or `sse` (the stream bytes as text) instead of `output`.
It is read through that API's native parser, or stream reader, and then the same parser chain a
run uses, so quoted examples in a text block beside a native call are judged too. Such a case may
also give `expected.thinking`, the reasoning the response carries, checked like the text.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentcli.core.types import ParsedResponse, Tool

DEFAULT_CASES = Path("tests/conformance/cases")
_WS = re.compile(r"\s+")
_PERMISSIVE: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": True}


class CaseError(ValueError):
    """A case file that does not have the documented shape."""


@dataclass(frozen=True, slots=True)
class Case:
    """One model output from a peer's test, with what that peer expects of it."""

    id: str
    source: dict[str, str]
    family: str
    model: str
    tools: list[dict[str, Any]] | None
    output: str
    calls: list[dict[str, Any]]
    text: str | None
    convention: str | None = None
    wire: str | None = None  # a native API when the case is a recorded provider response
    body: dict[str, Any] | None = None
    sse: str | None = None
    thinking: str | None = None

    def offered(self) -> list[Tool]:
        return [Tool(t["name"], t.get("description") or "", t.get("parameters") or dict(_PERMISSIVE))
                for t in self.tools or ()]


@dataclass(slots=True)
class Outcome:
    """How one case came out: whether its calls and its text are right, and what was found."""

    case: Case
    calls_right: bool
    text_right: bool | None  # None when the peer does not check the text
    false_call: bool  # a call was read from an output that holds none
    got_calls: list[dict[str, Any]] = field(default_factory=list)
    got_text: str = ""
    got_thinking: str = ""

    @property
    def right(self) -> bool:
        return self.calls_right and self.text_right is not False and not self.false_call

    def explain(self) -> str:
        """What differed, for a failing test's message."""
        lines = [f"{self.case.id} ({self.case.family}, {self.case.model})"]
        if not self.calls_right or self.false_call:
            lines.append(f"  calls expected: {json.dumps(self.case.calls, ensure_ascii=False)}")
            lines.append(f"  calls got:      {json.dumps(self.got_calls, ensure_ascii=False)}")
        if self.text_right is False:
            lines.append(f"  text expected: {self.case.text!r}")
            lines.append(f"  text got:      {self.got_text!r}")
            if self.case.thinking is not None:
                lines.append(f"  thinking expected: {self.case.thinking!r}")
                lines.append(f"  thinking got:      {self.got_thinking!r}")
        return "\n".join(lines)


def _check_native(raw: dict[str, Any], where: str) -> None:
    from agentcli.wire import native

    if raw["wire"] not in native.names():
        raise CaseError(f"{where}: unknown wire {raw['wire']!r}; expected one of {', '.join(native.names())}")
    body, sse = raw.get("body"), raw.get("sse")
    if (body is None) == (sse is None) or not isinstance(body if sse is None else sse, dict if sse is None else str):
        raise CaseError(f"{where}: a recorded response needs exactly one of body (an object) or sse (a string)")


def _case(raw: Any, where: str) -> Case:
    if not isinstance(raw, dict):
        raise CaseError(f"{where}: a case must be an object")
    try:
        expected = raw["expected"]
        calls = expected["calls"]
        if raw.get("wire") is not None:
            _check_native(raw, where)
        elif not isinstance(raw["output"], str):
            raise CaseError(f"{where}: output must be a string")
        if not isinstance(calls, list):
            raise CaseError(f"{where}: expected.calls must be a list")
        for c in calls:
            if not isinstance(c, dict) or not isinstance(c.get("name"), str) or not isinstance(c.get("arguments"), dict):
                raise CaseError(f"{where}: every expected call needs a name and an arguments object")
        return Case(
            id=str(raw["id"]), source=dict(raw["source"]), family=str(raw["family"]), model=str(raw["model"]),
            tools=raw.get("tools"), output=raw.get("output") or "", calls=calls, text=expected.get("text"),
            convention=raw.get("convention"), wire=raw.get("wire"), body=raw.get("body"), sse=raw.get("sse"),
            thinking=expected.get("thinking"),
        )
    except (KeyError, TypeError) as exc:
        raise CaseError(f"{where}: missing or malformed field {exc}") from None


def load_cases(directory: Path = DEFAULT_CASES) -> list[Case]:
    """Every case under `directory`, file by file in name order; ids must be unique."""
    cases: list[Case] = []
    seen: set[str] = set()
    for path in sorted(directory.glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as exc:
            raise CaseError(f"{path.name}: not JSON ({exc})") from None
        if not isinstance(data, list):
            raise CaseError(f"{path.name}: a case file is a list of cases")
        for i, raw in enumerate(data):
            case = _case(raw, f"{path.name}[{i}]")
            if case.id in seen:
                raise CaseError(f"{path.name}[{i}]: duplicate case id {case.id!r}")
            seen.add(case.id)
            cases.append(case)
    return cases


def normalise_text(text: str) -> str:
    """Whitespace runs as one space, ends stripped: layout differences are not text differences."""
    return _WS.sub(" ", text).strip()


def _canon(value: Any) -> Any:
    # Numbers compare by value (1 == 1.0), everything else by JSON identity.
    return json.loads(json.dumps(value, ensure_ascii=False, sort_keys=True))


def judge(case: Case, resp: ParsedResponse) -> Outcome:
    """Compare one parse with what the peer expects."""
    got = [{"name": c.name, "arguments": c.arguments} for c in resp.tool_calls if not c.error]
    calls_right = len(got) == len(case.calls) and all(
        g["name"] == e["name"] and _canon(g["arguments"]) == _canon(e["arguments"]) for g, e in zip(got, case.calls)
    )
    text_right = None if case.text is None else normalise_text(resp.text) == normalise_text(case.text)
    if case.thinking is not None:  # reasoning counts as text: it must not leak, nor be lost
        thinking_right = normalise_text(resp.thinking or "") == normalise_text(case.thinking)
        text_right = thinking_right and text_right is not False
    false_call = not case.calls and bool(got)
    return Outcome(case, calls_right, text_right, false_call, got, resp.text, resp.thinking or "")


def _sse_chunks(raw: str) -> list[dict[str, Any]]:
    """The JSON data of each event of a recorded SSE stream, without pings and the [DONE] marker."""
    from agentcli.core import aio, jsonsafe
    from agentcli.providers._sse import sse_events

    async def collect() -> list[dict[str, Any]]:
        async def lines() -> Any:
            for line in raw.splitlines(keepends=True):
                yield line

        out: list[dict[str, Any]] = []
        async for ev in sse_events(lines()):
            if ev.data.strip() != "[DONE]" and ev.event != "ping":
                data = jsonsafe.loads(ev.data)
                if isinstance(data, dict):
                    out.append(data)
        return out

    return aio.run(collect())


def _parse_native(case: Case) -> ParsedResponse:
    """A recorded response through its API's native reader, then the run's parser chain."""
    from agentcli.wire import context_for, finalize, native

    assert case.wire is not None
    api = native.get(case.wire)
    ctx, parsers = context_for(case.model, case.offered(), api=case.wire)
    if case.body is not None:
        parsed = api.parse_body(case.body)
    else:
        stream = api.new_stream()
        for chunk in _sse_chunks(case.sse or ""):
            stream.feed(chunk)
        parsed = stream.finish()
    return finalize(parsed, ctx, parsers)


def run_case(case: Case) -> Outcome:
    """Parse the case's output as a run with its model and tools would, then judge it."""
    from agentcli.wire import parse_for

    if case.wire is not None:
        return judge(case, _parse_native(case))
    return judge(case, parse_for(case.output, case.model, case.offered()))


@dataclass(slots=True)
class FamilyScore:
    """One row of the table."""

    family: str
    cases: int = 0
    calls_right: int = 0
    text_checked: int = 0
    text_right: int = 0
    negatives: int = 0
    false_calls: int = 0

    def add(self, o: Outcome) -> None:
        self.cases += 1
        self.calls_right += o.calls_right
        if o.text_right is not None:
            self.text_checked += 1
            self.text_right += o.text_right
        if not o.case.calls:
            self.negatives += 1
            self.false_calls += o.false_call


def score(outcomes: Iterable[Outcome]) -> list[FamilyScore]:
    """Per-family scores in family order, then the total as a row named 'all'."""
    rows: dict[str, FamilyScore] = {}
    total = FamilyScore("all")
    for o in outcomes:
        rows.setdefault(o.case.family, FamilyScore(o.case.family)).add(o)
        total.add(o)
    return [*(rows[k] for k in sorted(rows)), total]


def _pct(n: int, d: int) -> str:
    return f"{n}/{d} ({100 * n / d:.1f} %)" if d else "–"


def table(rows: Sequence[FamilyScore]) -> str:
    """The scores as a Markdown table."""
    out = ["| family | cases | calls right | text right | false calls |", "|---|---:|---:|---:|---:|"]
    for r in rows:
        name = f"**{r.family}**" if r.family == "all" else r.family
        out.append(f"| {name} | {r.cases} | {_pct(r.calls_right, r.cases)} | {_pct(r.text_right, r.text_checked)} "
                   f"| {r.false_calls} of {r.negatives} |")
    return "\n".join(out)


def _sources(cases: Sequence[Case]) -> str:
    counts: dict[tuple[str, str], int] = {}
    for c in cases:
        key = (c.source.get("repo", "?"), c.source.get("path", "?"))
        counts[key] = counts.get(key, 0) + 1
    return "\n".join(f"- `{repo}` `{path}`: {n}" for (repo, path), n in sorted(counts.items()))


def report(cases: Sequence[Case], outcomes: Sequence[Outcome]) -> str:
    """The whole Markdown page: how it is made and judged, the table, the failing cases, the sources."""
    failing = [o for o in outcomes if not o.right]
    conventions = [c for c in cases if c.convention]
    parts = [
        "# Parser conformance against the field",
        "",
        "Model outputs and expected calls taken from other projects' own parser tests, run through the",
        "same path `agent parse --model` uses (the case's model planned as a default profile would, its",
        "tools offered). Generated by `python -m agentcli.evals.conformance --write docs/parser-conformance.md`;",
        "the data is in `tests/conformance/cases/` and `make test` runs every case.",
        "",
        "A case's calls are right when the ordered calls and their arguments (typed by the offered",
        "schema) equal the expected ones; its text is right when the visible text equals the expected",
        "text with whitespace normalised (only where the peer checks the text). A false call is a call",
        "read from an output that holds none.",
        "",
        table(score(outcomes)),
        "",
        f"Cases judged by our own convention on purpose (each says why in its `convention` field): {len(conventions)}.",
        "",
        f"## Cases still failing ({len(failing)})",
        "",
        *(f"- `{o.case.id}` ({o.case.family})" for o in failing),
        *([] if failing else ["None."]),
        "",
        "## Sources",
        "",
        _sources(cases),
        "",
    ]
    return "\n".join(parts)


def main(argv: Sequence[str] | None = None) -> int:
    """Run every case; print the table, or write the full page with --write."""
    ap = argparse.ArgumentParser(prog="python -m agentcli.evals.conformance", description=__doc__.split("\n")[0])
    ap.add_argument("--cases", type=Path, default=DEFAULT_CASES, help="directory of case files")
    ap.add_argument("--write", type=Path, default=None, help="write the Markdown page to this file")
    ap.add_argument("--failing", action="store_true", help="also print what differed in each failing case")
    ns = ap.parse_args(argv)
    try:
        cases = load_cases(ns.cases)
    except (CaseError, OSError) as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 2
    outcomes = [run_case(c) for c in cases]
    if ns.write:
        ns.write.write_text(report(cases, outcomes), encoding="utf-8")
    sys.stdout.write(table(score(outcomes)) + "\n")
    if ns.failing:
        for o in outcomes:
            if not o.right:
                sys.stdout.write(o.explain() + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
