"""Cold start, pinned as imports rather than milliseconds: a command that needs no network must not
load the HTTP stack or start an event loop, a listing command must not load the run machinery, and
none but those that read a profile may load pydantic. `benchmarks/bench_startup.py` reports the times."""

from __future__ import annotations

import json
import os
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
print(json.dumps(sorted(sys.modules)))
"""

# command -> heavy modules it may load (reading a profile needs the pydantic schema)
ALLOWED = {
    ("--version",): set(),
    ("-V",): set(),
    ("--help",): set(),
    ("run", "--help"): set(),
    ("eval", "--help"): set(),
    ("parse", "{reply}"): set(),
    ("tools",): set(),
    ("sessions",): set(),
    ("profiles", "list"): set(),
    ("doctor", "--offline", "--profile", "offline"): {"pydantic"},
}

# Never loaded by a command that answers without the network: the event loop, the agent loop and
# its event renderer (a module named here also stands for everything under it).
NEVER = {"asyncio", "ssl", "agentcli.core.aio", "agentcli.agent.loop", "agentcli.agent.session",
         "agentcli.agent.build", "agentcli.ui.render", "agentcli.ui.repl"}
LISTING = {"agentcli.core.events", "agentcli.config.schema", "secrets"}
# command -> what else it must not load: each listing command reads only what it lists.
ALSO_NEVER = {
    ("--version",): {"typer", "typing", "agentcli.cli.app", "rich", "agentcli.core.types", "agentcli.cli.commands"} | LISTING,
    ("-V",): {"typer", "agentcli.cli.app", "rich", "agentcli.core.types", "agentcli.cli.commands"} | LISTING,
    ("--help",): {"rich", "agentcli.core.types", "agentcli.cli.commands"} | LISTING,
    ("run", "--help"): {"rich", "agentcli.core.types", "agentcli.cli.commands"} | LISTING,
    ("eval", "--help"): {"rich", "agentcli.core.types", "agentcli.cli.commands"} | LISTING,
    ("parse", "{reply}"): {"agentcli.providers", "agentcli.agent", "agentcli.config.schema", "secrets", "html"},
    ("tools",): {"agentcli.tools.shell_rules", "agentcli.tools.bwrap", "agentcli.tools.isolation",
                 "agentcli.tools.sandbox_env", "agentcli.config", "agentcli.agent", "socket",
                 "rich", "agentcli.core.escape",  # into a pipe: the plain table (ui.plain_table), as rich would draw it
                 "agentcli.cli.logging_setup"} | LISTING,
    # none saved yet: the one-line answer needs no console
    ("sessions",): {"rich", "agentcli.core.types", "agentcli.core.errors", "agentcli.agent.store",
                    "agentcli.cli.logging_setup",  # AGENTCLI_DEBUG is unset
                    "agentcli.agent.checkpoints", "agentcli.agent.serialize", "dataclasses"} | LISTING,
    ("profiles", "list"): {"agentcli.core.types", "agentcli.agent", "agentcli.tools"} | LISTING,
    ("doctor", "--offline", "--profile", "offline"): {"agentcli.agent.store", "agentcli.tools.registry",
                                                      "agentcli.tools.shell_rules",
                                                      "agentcli.config.model_routes",  # the profile names its provider
                                                      "agentcli.config.mcp_schema",  # it has no MCP servers
                                                      # it describes the provider: no reply is read, no turn written
                                                      "agentcli.providers._body", "agentcli.providers._sse",
                                                      "agentcli.providers._credentials",
                                                      "agentcli.providers.scripted.model",
                                                      "agentcli.providers.scripted.demo_model"},
}


def _loaded(args: tuple[str, ...], tmp_path) -> set[str]:
    reply = tmp_path / "reply.txt"
    reply.write_text('<tool_call>{"name": "read_file", "arguments": {"path": "a.txt"}}</tool_call>')
    argv = [a.format(reply=reply) for a in args]
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "data"),
           "XDG_CACHE_HOME": str(tmp_path / "cache")}
    out = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, timeout=120,
                         check=True, env={**os.environ, **env}, cwd=tmp_path, stdin=subprocess.DEVNULL)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def _under(modules: set[str], names: set[str]) -> list[str]:
    """The pinned names that were loaded, themselves or through any module under them."""
    return sorted(n for n in names if any(m == n or m.startswith(n + ".") for m in modules))


@pytest.mark.parametrize("args", list(ALLOWED), ids=" ".join)
def test_no_network_command_loads_only_what_it_needs(args, tmp_path):
    modules = _loaded(args, tmp_path)
    heavy = {m for m in HEAVY if m in modules}
    assert heavy <= ALLOWED[args], f"agent {' '.join(args)} loaded {sorted(heavy - ALLOWED[args])}"
    assert "httpx" not in modules
    extra = _under(modules, NEVER | ALSO_NEVER[args])
    assert not extra, f"agent {' '.join(args)} loaded {extra}"


# An offline run to its end (the scripted demo: no network, no MCP server, a new session) loads none
# of what only a request over HTTP, an MCP server or a resumed session needs.
RUN_NEVER = {"httpx", "jsonschema", "prompt_toolkit", "agentcli.config.mcp_schema", "agentcli.config.mcp",
             "agentcli.tools.mcp", "agentcli.tools.deferred", "agentcli.providers._body", "agentcli.providers._sse",
             "agentcli.providers._credentials", "agentcli.agent.resume", "agentcli.ui.repl",
             "agentcli.providers.scripted.model"}  # the demo reads its view; the scenario policies are eval's


def test_an_offline_run_to_the_end_loads_no_network_mcp_or_resume_machinery(tmp_path):
    modules = _loaded(("run", "list the files", "--profile", "offline"), tmp_path)
    assert "agentcli.agent.loop" in modules and "agentcli.tools.builtin.list_files" in modules  # it ran
    extra = _under(modules, RUN_NEVER)
    assert not extra, f"agent run (offline) loaded {extra}"


def test_the_probe_sees_what_a_command_imports(tmp_path):
    """The pins above hold only if the probe really reports the command's imports."""
    modules = _loaded(("sessions",), tmp_path)
    assert "agentcli.agent.catalog" in modules and "agentcli.cli.commands.sessions" in modules


def test_the_debug_switch_is_the_one_the_log_reads():
    from agentcli.cli import errors, logging_setup

    assert errors.DEBUG_ENV == logging_setup.ENV


@pytest.mark.parametrize("module", ["agentcli.core.errors", "agentcli.core.jsonsafe", "agentcli.core.redaction"])
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


def test_listing_saved_sessions_into_a_pipe_loads_no_console(tmp_path):
    """Saved sessions listed into a pipe (no styles to write) are plain lines: neither rich nor the
    transcript loader is loaded, and the listing still names the session."""
    sessions = tmp_path / "data" / "agentcli" / "sessions"
    sessions.mkdir(parents=True)
    record = {"type": "session", "t": 1.0, "id": "20260101-000000-abcdef", "workspace": str(tmp_path.resolve()),
              "goal": "list the files", "model": "m"}
    (sessions / "20260101-000000-abcdef.jsonl").write_text(json.dumps(record) + "\n" + json.dumps(
        {"type": "end", "t": 2.0, "stop": "answered"}) + "\n")
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "data"),
           "XDG_CACHE_HOME": str(tmp_path / "cache"), "COLUMNS": "80"}
    code = PROBE.replace("contextlib.redirect_stdout(io.StringIO()), ", "")
    out = subprocess.run([sys.executable, "-c", code, "sessions"], capture_output=True, text=True, timeout=120,
                         check=True, env=env, cwd=tmp_path)
    *listing, last = out.stdout.strip().splitlines()
    assert listing[0].startswith("20260101-000000-abcdef") and "answered · list the files" in listing[1]
    assert not _under(set(json.loads(last)), ALSO_NEVER[("sessions",)])


@pytest.mark.parametrize("columns", ["40", "80", "200"])
def test_listing_the_tools_into_a_pipe_loads_no_console(columns, tmp_path):
    """The tool table into a pipe (no styles to write) is drawn without rich, at any usual width."""
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "data"),
           "XDG_CACHE_HOME": str(tmp_path / "cache"), "COLUMNS": columns}
    env.pop("FORCE_COLOR", None)
    env.pop("TTY_COMPATIBLE", None)
    code = PROBE.replace("contextlib.redirect_stdout(io.StringIO()), ", "")
    out = subprocess.run([sys.executable, "-c", code, "tools"], capture_output=True, text=True, timeout=120,
                         check=True, env=env, cwd=tmp_path)
    *listing, last = out.stdout.strip().splitlines()
    assert listing[0] == "Tools at tier run" and listing[1][0] == "┏" and listing[-1][0] == "└"
    assert max(map(len, listing)) <= int(columns)
    assert "rich" not in json.loads(last)


FIRST_WRITE = """
import json, runpy, sys
seen = []
class Watch:
    def __init__(self, f):
        self._f = f
    def write(self, text):
        if text and not seen:
            seen.append(sorted(sys.modules))
        return self._f.write(text)
    def __getattr__(self, name):
        return getattr(self._f, name)
sys.stdout, sys.stderr = Watch(sys.stdout), Watch(sys.stderr)
sys.argv = ["agent", *sys.argv[1:]]
try:
    runpy.run_module("agentcli", run_name="__main__")
except SystemExit:
    pass
sys.__stdout__.write("\\n" + json.dumps(seen[0] if seen else []) + "\\n")
"""


def test_an_offline_run_shows_its_header_before_loading_the_event_loop(tmp_path):
    """What a person waits for before the first line: the header needs the profile and the plan,
    not the event loop, the agent loop, the HTTP stack or the JSON repairer."""
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "data"),
           "XDG_CACHE_HOME": str(tmp_path / "cache")}
    out = subprocess.run([sys.executable, "-c", FIRST_WRITE, "run", "list the files", "--profile", "offline"],
                         capture_output=True, text=True, timeout=120, check=True, env=env, cwd=tmp_path,
                         stdin=subprocess.DEVNULL)
    before = set(json.loads(out.stdout.strip().splitlines()[-1]))
    assert "agentcli.cli.commands.run" in before and "agentcli.config.schema" in before  # the probe saw the run
    assert not _under(before, {"asyncio", "ssl", "httpx", "json_repair", "agentcli.core.aio", "agentcli.agent.loop"})
