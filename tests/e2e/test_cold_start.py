"""Cold start, pinned as imports rather than milliseconds: a command that needs no network must not
load the HTTP stack, and none but those that read profiles may load pydantic (typer 0.29 validates
every option through pydantic, hence its pin). `make bench` reports the times."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("httpx", "pydantic", "prompt_toolkit", "jsonschema", "json_repair")
PROBE = """
import contextlib, io, json, runpy, sys
sys.argv = ["agent", *sys.argv[1:]]
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    try:
        runpy.run_module("agentcli", run_name="__main__")
    except SystemExit:
        pass
print(json.dumps(sorted(m for m in HEAVY if m in sys.modules)))
""".replace("HEAVY", repr(HEAVY))

# command -> heavy modules it may load (reading a profile needs the pydantic schema)
ALLOWED = {
    ("--version",): set(),
    ("--help",): set(),
    ("run", "--help"): set(),
    ("eval", "--help"): set(),
    ("parse", "{reply}"): set(),
    ("tools",): set(),
    ("sessions",): set(),
    ("profiles", "list"): {"pydantic"},
    ("doctor", "--offline", "--profile", "offline"): {"pydantic"},
}


@pytest.mark.parametrize("args", list(ALLOWED), ids=" ".join)
def test_no_network_command_loads_only_what_it_needs(args, tmp_path):
    reply = tmp_path / "reply.txt"
    reply.write_text('<tool_call>{"name": "read_file", "arguments": {"path": "a.txt"}}</tool_call>')
    argv = [a.format(reply=reply) for a in args]
    out = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, timeout=120, check=True)
    loaded = set(json.loads(out.stdout.strip().splitlines()[-1]))
    assert loaded <= ALLOWED[args], f"agent {' '.join(args)} loaded {sorted(loaded - ALLOWED[args])}"
    assert "httpx" not in loaded


@pytest.mark.parametrize("module", ["agentcli.core.errors", "agentcli.core.jsonsafe", "agentcli.core.redact"])
def test_core_submodule_does_not_load_the_whole_protocol(module):
    """The package re-exports its names lazily: a command that needs one error class or the JSON
    helpers must not pay for every type and event."""
    code = f"import sys, {module}; print(sorted(m for m in ('agentcli.core.types', 'agentcli.core.events') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "[]"


def test_core_package_still_exports_every_name():
    import agentcli.core as core

    assert all(getattr(core, name) is not None for name in core.__all__)
    assert callable(core.redact)
