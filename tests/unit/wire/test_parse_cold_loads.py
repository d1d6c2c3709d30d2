"""What a cold `agent parse` of one Hermes reply loads: the Hermes module and the dialects every
reply is read with, no other family's module, and no pattern of theirs (counted, not timed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from agentcli.wire import dialects

_PROBE = """
import json, re, sys
compiled = []
real = re._compile
def counting(pattern, flags):
    if not isinstance(pattern, re.Pattern) and (type(pattern), pattern, flags) not in re._cache:
        f = sys._getframe(1)
        while f is not None and f.f_globals.get("__name__", "").startswith(("re", "functools", "agentcli.core.lazy")):
            f = f.f_back
        compiled.append(f.f_globals.get("__name__", "") if f is not None else "")
    return real(pattern, flags)
re._compile = counting
sys.argv = ["agent", "parse", sys.argv[1]]
from agentcli.cli.main import main
try:
    main()
except SystemExit:
    pass
sys.stdout.flush()
sys.stderr.write(json.dumps({
    "modules": sorted(m for m in sys.modules if m.startswith("agentcli.wire.dialects.")),
    "compiled_in": sorted(set(compiled)),
    "hashlib": "hashlib" in sys.modules,
    "logging": "logging" in sys.modules,
    "plan_types": "agentcli.wire._plan" in sys.modules,
}) + "\\n")
"""


def _always_read_modules() -> set[str]:
    """Modules of the dialects read with every reply (no marker) and of those declaring a
    reasoning split, whose function the markup collects."""
    names = [n for n in dialects.names()
             if (not dialects.declared(n).markers and not dialects.declared(n).offered_only)
             or (dialects.declared(n).split_trigger is not None and dialects.declared(n).split_ref is None)]
    return {"agentcli.wire.dialects." + dialects.DIALECTS[n].split(":")[0] for n in names}


def _cold_parse(tmp_path) -> dict:  # noqa: ANN001
    reply = tmp_path / "reply.txt"
    reply.write_text('<tool_call>{"name": "read_file", "arguments": {"path": "a.txt"}}</tool_call>', encoding="utf-8")
    env = {**os.environ, "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "config"),
           "XDG_DATA_HOME": str(tmp_path / "data"), "NO_COLOR": "1"}
    proc = subprocess.run([sys.executable, "-c", _PROBE, str(reply)], capture_output=True, text=True, env=env,
                          cwd=tmp_path, check=True)
    assert "read_file" in proc.stdout
    return json.loads(proc.stderr.strip().splitlines()[-1])


def test_a_cold_parse_of_a_hermes_reply_loads_no_other_family(tmp_path):
    got = _cold_parse(tmp_path)
    public = {m for m in got["modules"] if not m.rsplit(".", 1)[1].startswith("_")}
    assert "agentcli.wire.dialects.hermes" in public
    assert public <= {"agentcli.wire.dialects.hermes"} | _always_read_modules()
    every = {"agentcli.wire.dialects." + ref.split(":")[0] for ref in dialects.DIALECTS.values()}
    assert len(public) < len(every) // 5
    # no pattern of an unloaded family is compiled, and no module-level one of theirs
    theirs = {m for m in got["compiled_in"] if m.startswith("agentcli.wire.dialects.")}
    assert theirs  # the probe sees where patterns are compiled
    assert theirs <= set(got["modules"])
    assert not got["hashlib"]  # a call's id needs blake2b only, not OpenSSL's hashes
    assert not got["logging"]  # parser failures load it when one is recorded
    assert not got["plan_types"]  # WirePlan and RequestSettings are a request's, not a parse's


def test_the_request_types_are_still_read_from_wire_types():
    from dataclasses import fields

    from agentcli.wire import types

    assert types.WirePlan(api="openai").native_tools is True
    assert [f.name for f in fields(types.RequestSettings)][:2] == ["model", "stream"]
    with pytest.raises(AttributeError):
        types.NoSuchType  # noqa: B018
