"""Peak memory of `agent parse` on large replies: the process's max RSS and the parse's own Python peak.

Issue target: `agent parse` of a 1 MB reply peaks under 40 MB. Two honest readings, both reported:

- absolute: the max RSS of a real `agent parse FILE` child (interpreter, libraries and the parse
  together), which the child reads from its own VmHWM as it exits, next to the same command on a
  tiny reply (the floor every `agent parse` pays) and the increase over that floor;
- the parse itself: the tracemalloc peak of the command's body (read the file, parse, render)
  in this process, after a tiny warm-up call has loaded every module the path imports, so the
  figure is what the reply costs and not what importing costs.

The verdict is the strict one (absolute max RSS < 40 MB); the tracemalloc peak is the figure that
says where a regression came from.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
import tracemalloc
from dataclasses import dataclass
from pathlib import Path

MB = 1 << 20
TARGET_MB = 40.0
TINY = '<tool_call>{"name": "read_file", "arguments": {"path": "a.txt"}}</tool_call>'


def shapes(size: int = MB) -> dict[str, str]:
    """Replies of about `size` characters in the shapes that stress different parse paths."""
    para = "The quick brown fox jumps over the lazy dog; see f(x) and [notes] for {details}. "
    prose = (para * (size // len(para) + 1))[:size]
    block = "```python\ndef f(a):\n    return {'k': [a, {'n': a}]}\n```\n"
    code = (block * (size // len(block) + 1))[:size]
    line = "line of file content with \"quotes\" and \\ backslashes\n"
    big_arg = line * max(1, (size - 200) // (len(line) + 4))  # JSON escaping grows each line by 3
    hermes = ("<tool_call>\n" + json.dumps({"name": "write_file", "arguments": {"path": "big.txt", "content": big_arg}})
              + "\n</tool_call>")
    xml_arg = line * max(1, (size - 200) // len(line))
    qwen = f"<tool_call>\n<function=write_file>\n<parameter=content>\n{xml_arg}</parameter>\n</function>\n</tool_call>"
    wide = "Résumé naïve — 東京の天気は晴れ。 "  # non-ASCII: a str of these holds 2 bytes a character
    return {
        "prose": prose,
        "hermes call, one big argument": hermes,
        "code fences": code,
        "qwen xml call": qwen,
        "non-ASCII prose": (wide * (size // len(wide) + 1))[: size * len(wide) // len(wide.encode())],
    }


@dataclass(frozen=True)
class Peak:
    label: str
    size: int  # bytes of the reply as UTF-8
    rss_kb: int  # max RSS of the `agent parse` child
    traced: int  # tracemalloc peak of the command body, bytes


# Run inside each measured child: record the process's own high-water RSS as it exits. VmHWM belongs
# to the address space that exec made, so unlike the rusage a parent reads (Linux carries the
# forked parent's pages into a child's ru_maxrss), it is this process's figure alone.
_HWM = """
import atexit, resource, runpy, sys
out = sys.argv.pop(1)
def _record():
    try:
        with open('/proc/self/status') as f:
            kb = next(int(l.split()[1]) for l in f if l.startswith('VmHWM:'))
    except (OSError, StopIteration):
        kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with open(out, 'w') as f:
        f.write(str(kb))
atexit.register(_record)
if len(sys.argv) > 1:
    sys.argv[0] = 'agent'
    runpy.run_module('agentcli.cli.main', run_name='__main__', alter_sys=True)
"""


def peak_rss_kb(args: list[str], prelude: str = "") -> int:
    """Max RSS (KiB) of one fresh process: `agent ARGS`, or only `prelude` (Python code) when ARGS is empty."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(_root()), os.environ.get("PYTHONPATH")])))
    fd, out = tempfile.mkstemp(prefix="agentcli-bench-rss-")
    os.close(fd)
    try:
        res = subprocess.run([sys.executable, "-c", prelude + _HWM, out, *args], stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, env=env, check=False)
        if res.returncode != 0:
            raise RuntimeError(f"agent {' '.join(args[:1])} exited {res.returncode}: "
                               f"{res.stderr.decode(errors='replace')[-500:]}")
        return int(Path(out).read_text())
    finally:
        os.unlink(out)


def child_rss_kb(path: str, json_out: bool) -> int:
    """Max RSS (KiB) of one `agent parse PATH` process."""
    return peak_rss_kb(["parse", path, *(["--json"] if json_out else [])])


def floor_rss_kb() -> dict[str, int]:
    """What every run pays: the interpreter alone, importing the CLI package, and `agent parse` of a tiny reply."""
    out = {"python -c pass": peak_rss_kb([]), "import agentcli.cli": peak_rss_kb([], "import agentcli.cli\n")}
    with _reply_file(TINY) as path:
        out["agent parse (tiny reply)"] = min(child_rss_kb(path, False), child_rss_kb(path, True))
    return out


def traced_peak(path: str, json_out: bool) -> int:
    """tracemalloc peak (bytes) of `agent parse PATH`'s body in this process; output goes to /dev/null."""
    from agentcli.cli.commands import parse as command

    with open(os.devnull, "w", encoding="utf-8") as sink, contextlib.redirect_stdout(sink):
        with _reply_file(TINY) as tiny:  # load every lazily imported module first
            command.execute(file=tiny, json_out=json_out)
        tracemalloc.start()
        try:
            command.execute(file=path, json_out=json_out)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()


def measure(replies: dict[str, str], json_out: bool = False) -> list[Peak]:
    rows = []
    for label, text in replies.items():
        with _reply_file(text) as path:
            rows.append(Peak(label, len(text.encode()), child_rss_kb(path, json_out), traced_peak(path, json_out)))
    return rows


def report(rows: list[Peak], floor: dict[str, int], target_mb: float = TARGET_MB) -> tuple[list[str], bool]:
    """Lines of the peak-memory table and whether every absolute peak is under the target."""
    base = floor["agent parse (tiny reply)"]
    lines = [f"{'reply':<32}{'size MB':>8}{'max RSS MB':>12}{'over floor':>12}{'parse peak MB':>15}"
             f"  target: max RSS < {target_mb:.0f} MB"]
    ok = True
    for r in rows:
        good = r.rss_kb / 1024 < target_mb
        ok &= good
        lines.append(f"{r.label:<32}{r.size / MB:>8.2f}{r.rss_kb / 1024:>12.1f}{(r.rss_kb - base) / 1024:>+12.1f}"
                     f"{r.traced / MB:>15.2f}  {'ok' if good else 'OVER'}")
    lines.append("max RSS: the whole `agent parse` process (its VmHWM at exit); over floor: minus `agent parse` of a tiny "
                 "reply; parse peak: tracemalloc peak of the command body (read, parse, render) after a warm-up")
    return lines, ok


@contextlib.contextmanager
def _reply_file(text: str):
    fd, path = tempfile.mkstemp(suffix=".txt", prefix="agentcli-bench-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        yield path
    finally:
        os.unlink(path)


def _root() -> Path:
    return Path(__file__).resolve().parents[1]


def main(argv: list[str]) -> int:
    size = MB // 16 if "--quick" in argv else MB
    floor = floor_rss_kb()
    print("floor (max RSS): " + ", ".join(f"{k} {v / 1024:.1f} MB" for k, v in floor.items()))
    ok = True
    for json_out in (False, True):
        print(f"\n`agent parse FILE{' --json' if json_out else ''}` on {size / MB:g} MB replies")
        lines, good = report(measure(shapes(size), json_out), floor)
        ok &= good
        print("\n".join(lines))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.path.insert(0, str(_root()))
    raise SystemExit(main(sys.argv[1:]))
