"""Cold start of every command that needs no network, each against the floor of the libraries it
needs, and the heavy modules each one imports.

Run: python benchmarks/bench_startup.py [runs]
Targets: each command's CPU time within a ratio of its floor, the same libraries imported by a bare
`python -c` (typer alone for help and sessions; + a rich table for the listing commands; + a
pydantic model for doctor and run). No command can start faster than what it must import, so the
ratio is the part that is agentcli's own. `llm --help` (simonw/llm, a CLI of the same kind) is shown
for scale when it is installed (`pip install llm`); its time grows with the venv it loads plugins
from, so it is no target. Commands run interleaved, so a busy machine slows them alike, and the
medians are of user+system CPU time, which other processes on the machine barely change.
`agent run` is also measured to its first output: the CPU time the agent process (all its threads)
has used when its first byte reaches stdout or stderr, whichever comes first (the header a person
sees first goes to stderr), read from /proc/<pid>/task/*/schedstat (nanoseconds) the moment the
byte arrives. It is the cost of what the person waits for before anything shows; it can only
overcount (the process runs on for the instant the reading takes), and CPU of any process the
agent started before that byte is not in it (the offline run starts none before its header).
Linux only: elsewhere the row is left out. Its floor is the same libraries' whole import.
CPU medians on a shared machine move by up to 0.2x between runs, so where valgrind is installed each
command is also run once under callgrind and its instructions are counted: the same count on every
run (to about 0.1 %), of the agent process alone (a child it starts, such as doctor's sandbox probe,
is in the CPU figure only). The verdict is the instruction ratio's where it was measured, else CPU's.
Bytecode caching is on for the runs (PYTHONDONTWRITEBYTECODE is dropped, and the warm-up run writes
the caches): an installed package starts from compiled bytecode, as `llm` does from site-packages.
"""

from __future__ import annotations

import os
import resource
import selectors
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HEAVY = ("httpx", "pydantic", "prompt_toolkit", "jsonschema", "json_repair", "rich", "typer")
REPLY = '<tool_call>{"name": "read_file", "arguments": {"path": "a.txt"}}</tool_call>'
_PYDANTIC = "from pydantic import BaseModel\nclass M(BaseModel):\n    x: int = 1\nM()\n"
FLOORS = {
    "python -c pass": "pass",
    "floor: typer": "import typer",
    "floor: typer + rich": "import typer, rich.console, rich.table\nrich.table.Table('a')",
    "floor: typer + rich + pydantic": "import typer, rich.console, rich.table\n" + _PYDANTIC,
}


def commands(reply: Path) -> dict[str, tuple[list[str], str, float]]:
    """Label -> (agent arguments, its floor, target ratio): every command that needs no network."""
    return {
        "agent --version": (["--version"], "floor: typer", 1.1),
        "agent --help": (["--help"], "floor: typer", 1.1),
        "agent run --help": (["run", "--help"], "floor: typer", 1.1),
        "agent sessions": (["sessions"], "floor: typer", 1.1),
        "agent tools": (["tools"], "floor: typer + rich", 1.3),
        "agent profiles list": (["profiles", "list"], "floor: typer + rich", 1.3),
        "agent parse (one reply)": (["parse", str(reply)], "floor: typer + rich", 1.3),
        "agent doctor --offline": (["doctor", "--offline", "--profile", "offline"],
                                   "floor: typer + rich + pydantic", 1.25),
        "agent run (offline, to the end)": (["run", "list the files", "--profile", "offline"],
                                            "floor: typer + rich + pydantic", 1.5),
    }


def _agent() -> list[str]:
    exe = Path(sys.executable).with_name("agent")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "agentcli"]


def _llm() -> list[str] | None:
    exe = Path(sys.executable).with_name("llm")
    found = str(exe) if exe.exists() else shutil.which("llm")
    return [found, "--help"] if found else None


def _distributions(script: str, env: dict[str, str]) -> str:
    """How many distributions the interpreter that runs `script` sees (from its #! line)."""
    try:
        first = Path(script).read_bytes()[:512].split(b"\n", 1)[0].decode()
    except (OSError, UnicodeDecodeError):
        return "?"
    python = first[2:].strip().split()[0] if first.startswith("#!") else sys.executable
    code = "import importlib.metadata as m; print(sum(1 for _ in m.distributions()))"
    res = subprocess.run([python, "-c", code], capture_output=True, text=True, env=env, check=False)
    return res.stdout.strip() or "?"


def instructions(argv: list[str], env: dict[str, str], cwd: str) -> float | None:
    """Millions of instructions one run executes in its own process (callgrind's count), or None
    without valgrind. Deterministic, unlike CPU time: the figure a verdict can stand on."""
    valgrind = shutil.which("valgrind")
    if not valgrind:
        return None
    res = subprocess.run([valgrind, "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=env, cwd=cwd,
                         text=True, check=False)
    counts = [ln.rsplit(":", 1)[1].replace(",", "").strip() for ln in res.stderr.splitlines() if "Collected :" in ln]
    return int(counts[-1]) / 1e6 if counts and counts[-1].isdigit() else None


def once(argv: list[str], env: dict[str, str], cwd: str) -> tuple[float, float]:
    """(CPU ms, wall ms) of one run, children included."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=env,
                   cwd=cwd, check=False)
    wall = (time.perf_counter() - t0) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return cpu, wall


FIRST = "agent run (offline, to first output)"
FIRST_PLAN = (["run", "list the files", "--profile", "offline"], "floor: typer + rich + pydantic", 1.2)


def _cpu_of(pid: int) -> float | None:
    """CPU ms the live process `pid` has used so far, all threads (None where /proc cannot say)."""
    total = 0
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                total += int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return total / 1e6


def first_output(argv: list[str], env: dict[str, str], cwd: str) -> tuple[float, float] | None:
    """(CPU ms, wall ms) of one run up to its first byte on stdout or stderr; then it runs to the end."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=env,
                            cwd=cwd)
    assert proc.stdout is not None and proc.stderr is not None
    sel = selectors.DefaultSelector()
    for stream in (proc.stdout, proc.stderr):
        sel.register(stream, selectors.EVENT_READ)
    sel.select()  # blocks until a byte (or the end) is there to read
    wall = (time.perf_counter() - t0) * 1000
    cpu = _cpu_of(proc.pid)
    sel.close()
    proc.communicate()
    return None if cpu is None else (cpu, wall)


def heavy_imports(args: list[str], env: dict[str, str], cwd: str) -> list[str]:
    code = ("import sys, runpy\nsys.argv = ['agent', *sys.argv[1:]]\n"
            "try:\n    runpy.run_module('agentcli', run_name='__main__')\nexcept SystemExit:\n    pass\n"
            f"sys.stderr.write('\\nHEAVY:' + ','.join(m for m in {HEAVY!r} if m in sys.modules) + '\\n')")
    res = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, cwd=cwd,
                         stdin=subprocess.DEVNULL, check=False)
    line = next((ln for ln in reversed(res.stderr.splitlines()) if ln.startswith("HEAVY:")), "HEAVY:")
    return [m for m in line[6:].split(",") if m]


def main() -> int:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    with tempfile.TemporaryDirectory() as tmp:
        inherited = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env = {**inherited, "XDG_CONFIG_HOME": f"{tmp}/config", "XDG_DATA_HOME": f"{tmp}/data",
               "XDG_CACHE_HOME": f"{tmp}/cache", "NO_COLOR": "1"}
        reply = Path(tmp) / "reply.txt"
        reply.write_text(REPLY)
        plan = commands(reply)
        table = {label: _agent() + args for label, (args, _, _) in plan.items()}
        # The floors every command stands on: no command can start faster than the libraries it must
        # import, so each ratio says how much of a figure is agentcli's own.
        for label, code in FLOORS.items():
            table[label] = [sys.executable, "-c", code]
        llm = _llm()
        if llm:
            table["llm --help"] = llm
        samples: dict[str, list[tuple[float, float]]] = {k: [] for k in table}
        first_argv = _agent() + FIRST_PLAN[0]
        measured_first = first_output(first_argv, env, tmp) is not None
        if measured_first:
            plan[FIRST] = FIRST_PLAN
            samples[FIRST] = []
        for argv in table.values():
            once(argv, env, tmp)  # warm the file cache and write the bytecode caches
        for _ in range(runs):
            for label, argv in table.items():
                samples[label].append(once(argv, env, tmp))
            if measured_first and (got := first_output(first_argv, env, tmp)) is not None:
                samples[FIRST].append(got)
        cpu = {k: statistics.median(c for c, _ in v) for k, v in samples.items()}
        wall = {k: statistics.median(w for _, w in v) for k, v in samples.items()}
        instr = {k: instructions(argv, env, tmp) for k, argv in table.items()}
        counted = all(v is not None for v in instr.values())
        print(f"median of {runs} interleaved runs; ratio = CPU time / CPU time of the command's floor")
        if counted:
            print("instr = millions of instructions of the agent process (callgrind, one run); i-ratio = against the "
                  "floor's; the verdict is the i-ratio's")
        else:
            print("instructions not counted (no valgrind): the verdict is the CPU ratio's")
        if measured_first:
            print("'to first output': CPU the agent process used until its first byte on stdout or stderr "
                  "(/proc schedstat), against its floor's whole run")
        print("the agent pauses the cyclic collector while its start-up loads and then freezes what it loaded "
              "(core.heap); a floor is a plain import, collector and all")
        print(f"{'command':<38}{'cpu ms':>8}{'wall ms':>9}{'ratio':>7}{'instr':>8}{'i-ratio':>8}{'target':>8}{'':>6}"
              "  floor; heavy modules imported")
        missed = []
        for label in [*plan, *(k for k in samples if k not in plan)]:
            if label in plan:
                args, floor, target = plan[label]
                ratio = cpu[label] / cpu[floor]
                count, base = instr.get(label), instr.get(floor)
                iratio = count / base if count is not None and base else None
                verdict = "ok" if (iratio if counted and iratio is not None else ratio) <= target else "SLOW"
                if verdict == "SLOW":
                    missed.append(label)
                heavy = ", ".join(heavy_imports(args, env, tmp)) or "none"
                counts = f"{count:>8.0f}{iratio:>7.2f}x" if count is not None and iratio is not None else f"{'-':>8}{'-':>8}"
                print(f"{label:<38}{cpu[label]:>8.1f}{wall[label]:>9.1f}{ratio:>6.2f}x{counts}{target:>7.2f}x{verdict:>6}"
                      f"  {floor[7:]}; {heavy}")
            else:
                count = instr.get(label)
                print(f"{label:<38}{cpu[label]:>8.1f}{wall[label]:>9.1f}{'':>7}" + (f"{count:>8.0f}" if count else ""))
        if llm:
            # llm loads plugins through every installed distribution's entry points, so its time
            # grows with the venv: say which llm and how big a venv.
            version = subprocess.run([llm[0], "--version"], capture_output=True, text=True, env=env, check=False)
            print(f"for scale: {version.stdout.strip() or 'llm'}, in an environment of {_distributions(llm[0], env)} "
                  "installed distributions")
        if missed:
            print(f"over target: {', '.join(missed)}")
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
