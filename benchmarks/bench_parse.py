"""Parse cost per response over the dialect fixture corpus, next to json.loads of a same-size payload.

Targets: the JSON-shaped dialects parse within 3x of the json.loads floor; any 1 MB response
goes through the full chain with p99 < 50 ms; a small reply through the whole auto chain costs at
most 60 µs more than its own dialect forced; per dialect and argument size (1 KB, 10 KB, 100 KB),
ours forced costs no more than vLLM's parser of that format plus one json.loads of the arguments
(parse_sizes.py; vLLM runs in its own venv, `make bench-vllm`). Times are this thread's CPU time,
best of 3 rounds. Run: python benchmarks/bench_parse.py [--quick]

Two ratios per dialect: over every fixture case, and over the clean ones (read without a repair or
an error). Malformed cases pay for json-repair by design, and json.loads could not read them at all,
so the 3x target is judged on the clean cases; the all-cases ratio is shown next to it.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from cpu_timing import per_call  # noqa: E402

from agentcli.wire import dialects  # noqa: E402
from agentcli.wire.pipeline import parse_text  # noqa: E402

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "dialects"
JSON_SHAPED = ("hermes", "tool_use_tag", "function_call_tag", "tools_tag", "mistral", "llama3_json", "json_block")
MB = 1 << 20


def same_size_json(size: int) -> str:
    """A call-shaped JSON document of about `size` characters."""
    pad = max(0, size - 40)
    return json.dumps({"name": "write_file", "arguments": {"content": "x" * pad}})


def corpus() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for name in dialects.names():
        path = FIXTURES / f"{name}.json"
        if path.exists():
            out[name] = [c["text"] for c in json.loads(path.read_text(encoding="utf-8"))["cases"]]
    return out


def clean(text: str, name: str) -> bool:
    """Read by the dialect without a repair or an error call (what json.loads could also read)."""
    resp = parse_text(text, None, (name,))
    return not resp.repairs and not any(c.error for c in resp.tool_calls)


def bench_corpus(quick: bool) -> bool:
    min_time = 0.005 if quick else 0.02
    rows, ok = [], True
    for name, texts in corpus().items():
        d = dialects.get(name)
        parse = [per_call(d.parse, t, min_time) for t in texts]
        full = [per_call(lambda s, n=name: parse_text(s, None, (n,)), t, min_time) for t in texts]
        floor = [per_call(json.loads, same_size_json(len(t)), min_time) for t in texts]
        good = [i for i, t in enumerate(texts) if clean(t, name)] or list(range(len(texts)))
        ratio = sum(parse) / sum(floor)
        clean_ratio = sum(parse[i] for i in good) / sum(floor[i] for i in good)
        shaped = name in JSON_SHAPED
        verdict = ("ok" if clean_ratio <= 3 else "SLOW") if shaped else ""
        ok &= verdict != "SLOW"
        rows.append((name, len(texts), len(good), sum(parse) / len(texts) * 1e6, sum(full) / len(texts) * 1e6,
                     sum(floor) / len(texts) * 1e6, ratio, clean_ratio, verdict))
    print(f"{'dialect':<18}{'cases':>6}{'clean':>6}{'parse us':>10}{'finalize us':>13}{'json.loads us':>15}"
          f"{'ratio':>7}{'clean':>7}  target: clean<=3x")
    for name, n, g, p, f, fl, r, cr, v in rows:
        print(f"{name:<18}{n:>6}{g:>6}{p:>10.1f}{f:>13.1f}{fl:>15.2f}{r:>7.1f}{cr:>7.1f}  {v}")
    return ok


def big_inputs() -> dict[str, str]:
    para = "The quick brown fox jumps over the lazy dog; see f(x) and [notes] for {details}. "
    prose = (para * (MB // len(para) + 1))[:MB]
    code = ("```python\ndef f(a):\n    return {'k': [a, {'n': a}]}\n```\n" * (MB // 50))[:MB]
    big_arg = "line of file content with \"quotes\" and \\ backslashes\n" * (MB // 56)
    hermes = "<tool_call>\n" + json.dumps({"name": "write_file", "arguments": {"path": "big.txt", "content": big_arg}}) + "\n</tool_call>"
    fenced = "Writing it.\n```json\n" + json.dumps({"name": "write_file", "arguments": {"content": big_arg}}) + "\n```\n"
    xml = "<tool_call>\n<function=write_file>\n<parameter=content>\n" + big_arg + "</parameter>\n</function>\n</tool_call>"
    return {"prose 1MB": prose, "code fences 1MB": code, "hermes call 1MB": hermes, "json fence 1MB": fenced, "qwen xml 1MB": xml}


def bench_big(quick: bool) -> bool:
    runs = 10 if quick else 40
    ok = True
    print(f"\n{'input':<18}{'p50 ms':>9}{'p99 ms':>9}{'calls':>7}  target p99<50ms")
    for label, text in big_inputs().items():
        times = []
        for _ in range(runs):
            t = time.perf_counter()
            resp = parse_text(text)
            times.append((time.perf_counter() - t) * 1e3)
        times.sort()
        p50 = statistics.median(times)
        p99 = times[min(len(times) - 1, int(round(0.99 * (len(times) - 1))))]
        verdict = "ok" if p99 < 50 else "SLOW"
        ok &= verdict == "ok"
        print(f"{label:<18}{p50:>9.1f}{p99:>9.1f}{len(resp.tool_calls):>7}  {verdict}")
    return ok


SMALL = {
    "prose, no call": ("Sure: the file holds three functions and a class, and the tests pass.", "hermes"),
    "one Hermes call": ('<tool_call>{"name": "read_file", "arguments": {"path": "a.txt"}}</tool_call>', "hermes"),
    "one pythonic call": ('[read_file(path="a.txt")]', "pythonic"),
    "empty (a native-call turn)": ("", "hermes"),
}
AUTO_OVER_FORCED_US = 60.0  # target: the whole auto chain costs at most this much more than the forced dialect


def bench_auto_chain() -> bool:
    """A small reply through the whole auto chain (every dialect) next to its own dialect forced."""
    print(f"\nsmall replies: auto chain ({len(dialects.DIALECTS)} dialects) vs the dialect forced, µs per reply")
    ok = True
    for label, (reply, forced) in SMALL.items():
        auto = per_call(parse_text, reply) * 1e6
        alone = per_call(lambda r, f=(forced,): parse_text(r, parsers=f), reply) * 1e6
        verdict = "ok" if auto - alone <= AUTO_OVER_FORCED_US else "SLOW"
        ok = ok and verdict == "ok"
        print(f"  {label:<28} auto {auto:7.1f}  forced {alone:7.1f}  +{auto - alone:6.1f}  {verdict}")
    return ok


def bench_sizes(quick: bool) -> bool:
    import parse_sizes

    print("\nper dialect and argument size: ours forced and auto, vLLM's parser, one json.loads of the arguments; "
          "CPU µs per reply")
    return parse_sizes.main(per_call, quick)


def main(argv: list[str]) -> int:
    quick = "--quick" in argv
    a = bench_corpus(quick)
    b = bench_big(quick)
    c = bench_auto_chain()
    d = bench_sizes(quick)
    return 0 if a and b and c and d else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
