"""Cold start of `agent run` and `agent doctor`, pinned as work not done rather than milliseconds:
their value types generate no code at import (a record compiles its `__init__` only after
a handful of instances), and the collector does not walk what start-up
loaded (it lives as long as the process; doctor's one-shot report pauses it). `benchmarks/bench_startup.py` reports the counts."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys

import pytest

from agentcli.core.record import COMPILE_AFTER, record

PROBE = """
import contextlib, dataclasses, gc, io, json, runpy, sys
from agentcli.core.record import is_record
sys.argv = ["agent", *sys.argv[1:]]
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    try:
        runpy.run_module("agentcli", run_name="__main__")
    except SystemExit:
        pass
types = [(f"{name}.{value.__qualname__}", value)
         for name, module in list(sys.modules.items()) if name.startswith("agentcli.")
         for value in list(vars(module).values())
         if isinstance(value, type) and value.__module__ == name and dataclasses.is_dataclass(value)]
def compiled(value):
    return getattr(value.__init__, "__code__", None) is not None and value.__init__.__code__.co_filename == "<string>"
generated = sorted(label for label, value in types if not is_record(value) and compiled(value))
records = [compiled(value) for label, value in types if is_record(value)]
print(json.dumps({"frozen": gc.get_freeze_count(), "generated": generated, "collecting": gc.isenabled(),
                  "records": len(records), "records_built": sum(records),
                  "loop": "agentcli.agent.loop" in sys.modules}))
"""

# Dataclasses still made by @dataclass on these paths: modules whose value types are not records yet.
NOT_YET: tuple[str, ...] = ()

COMMANDS = {
    "run": ("run", "list the files", "--profile", "offline"),
    "doctor": ("doctor", "--offline", "--profile", "offline"),
}


def _probe(args: tuple[str, ...], tmp_path) -> dict:
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "data"),
           "XDG_CACHE_HOME": str(tmp_path / "cache")}
    out = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=120,
                         check=True, env=env, cwd=tmp_path, stdin=subprocess.DEVNULL)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("command", list(COMMANDS))
def test_start_up_generates_no_dataclass_code_and_freezes_what_it_loaded(command, tmp_path):
    seen = _probe(COMMANDS[command], tmp_path)
    assert seen["loop"] is (command == "run")  # the probe saw the command run
    assert [c for c in seen["generated"] if not c.startswith(NOT_YET)] == []
    # A record compiles its __init__ only once it has built a handful of instances: few types do.
    assert seen["records_built"] < seen["records"] / 4
    assert seen["frozen"] > 10_000  # the modules and the profile, not walked by each collection
    assert seen["collecting"]  # doctor pauses collection for its report only


def test_the_probe_tells_a_generated_init_from_a_record_s():
    """The pin above holds only if its test (the __init__'s code came from an exec'd string) tells a
    @dataclass from a record, and a record that built many instances from one that built few."""
    compiled = _compiled_predicate()

    @dataclasses.dataclass
    class Plain:
        a: int

    @record
    class Few:
        """A record."""

        a: int

    @record
    class Many:
        """A record."""

        a: int

    for i in range(COMPILE_AFTER + 1):
        Many(i)
    assert compiled(Plain) and not compiled(Few) and compiled(Many)


def _compiled_predicate():
    namespace: dict = {}
    exec(PROBE[PROBE.index("def compiled"):PROBE.index("generated = ")], namespace)
    return namespace["compiled"]
