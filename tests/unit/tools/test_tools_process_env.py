"""The shell cannot read the agent's keys from its parent's /proc entry.

Each check runs in a fresh Python process whose start-up environment holds a canary key (a
variable set later with putenv never reaches /proc/PID/environ, so an in-process canary would
prove nothing). That process first reads its own /proc entry from a plain child shell (the
control: the key is there), then runs the bash tool through the executor with a command the
shell rules cannot see through, and reports what the model would have been shown.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from agentcli.config.schema import BashConfig
from agentcli.tools import bwrap
from agentcli.tools.shell_rules import judge

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/PID/environ is Linux's"),
    pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed"),
]

# `cd` into the parent's /proc directory by a pid computed at run time: no word names environ,
# $PPID or a /proc/PID path, so the rules can only ask (a model with --yes would run it).
EVASIVE = "cd /proc && cd \"$(awk '{print $4}' $$/stat)\" && tr '\\0' '\\n' < env?ron"
MEM_OPEN = "cd /proc && cd \"$(awk '{print $4}' $$/stat)\" && exec 3<mem && echo MEM-OPENED"
PLAIN = "tr '\\0' '\\n' < /proc/$PPID/environ"

_CHILD = textwrap.dedent("""
    import ctypes, json, os, subprocess, sys
    sys.path.insert(0, sys.argv[2])
    from pathlib import Path
    from _toolbox import Box
    from agentcli.tools import isolation
    out = {}
    out["control"] = subprocess.run(["bash", "-c", sys.argv[3]], capture_output=True).stdout.decode("utf-8", "replace")
    if sys.argv[5] == "extra":
        out["blanked"] = isolation.protect_process_environment(["PLAIN_CANARY"])
    box = Box(Path(sys.argv[1]))
    r = box.run("bash", command=sys.argv[3])
    out["tool"] = r.content
    out["mem"] = box.run("bash", command=sys.argv[4]).content
    out["self"] = open("/proc/self/environ", "rb").read().decode("utf-8", "replace")
    out["os_environ"] = os.environ.get("AGENTCLI_TEST_API_KEY", "")
    out["inherited"] = subprocess.run(["printenv", "AGENTCLI_TEST_API_KEY"], capture_output=True, text=True).stdout
    out["plain"] = subprocess.run(["printenv", "PLAIN_CANARY"], capture_output=True, text=True).stdout
    out["dumpable"] = ctypes.CDLL(None).prctl(3, 0, 0, 0, 0)
    print(json.dumps(out))
""")


def _run_child(tmp_path: Path, mode: str = "") -> tuple[dict, str, str]:
    key, plain = "cnry" + secrets.token_hex(8), "plain" + secrets.token_hex(8)
    env = {**os.environ, "AGENTCLI_TEST_API_KEY": key, "PLAIN_CANARY": plain}
    done = subprocess.run([sys.executable, "-c", _CHILD, str(tmp_path), str(Path(__file__).parent), EVASIVE, MEM_OPEN,
                           mode], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1]), key, plain


def test_the_probe_gets_past_the_rules():
    rules = BashConfig(allow=["cd", "tr", "awk"])
    assert judge(EVASIVE, rules).decision == "ask"  # only the runtime defence stands in the way
    assert judge(PLAIN, rules).decision == "deny"


def test_shell_cannot_read_the_agents_start_up_environment(tmp_path):
    out, key, _ = _run_child(tmp_path)
    assert key in out["control"]  # unprotected, a child shell reads the key from /proc/$PPID/environ
    # The probe ran and read the file; as root, the sandbox's uid may not even open it (its init is root's).
    assert ("exit code: 0" in out["tool"] and "PATH=" in out["tool"]) or (
        os.geteuid() == 0 and "environ: Permission denied" in out["tool"]), out["tool"]
    # In the sandbox the parent the shell sees is the sandbox's own init, whose environment is the
    # allow-listed one; outside it, the agent's start-up block has the value blanked. Either way: no key.
    assert key not in out["tool"] and key not in out["self"]
    assert out["os_environ"] == key and out["inherited"].strip() == key  # the agent and its children keep it
    assert out["dumpable"] == 0


def test_extra_names_are_blanked_too(tmp_path):
    out, key, plain = _run_child(tmp_path, "extra")
    assert plain in out["control"]
    assert "PLAIN_CANARY" in out["blanked"] and "AGENTCLI_TEST_API_KEY" in out["blanked"]
    assert plain not in out["tool"] and key not in out["tool"]
    assert out["plain"].strip() == plain


def test_shell_cannot_open_the_agents_memory(tmp_path):
    out, key, _ = _run_child(tmp_path)
    if bwrap.status().available:  # the pid namespace: the "parent" reached is the sandbox's init, never the agent
        assert key not in out["mem"]
    else:
        assert "MEM-OPENED" not in out["mem"], out["mem"]
        assert key not in out["mem"]
