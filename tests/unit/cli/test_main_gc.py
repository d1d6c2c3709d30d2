"""The entry loads typer and the app without a collection, and leaves what it loaded out of every
collection after (gc.freeze); the collector is on again for the command itself."""

from __future__ import annotations

import json
import os
import subprocess
import sys

PROBE = """
import contextlib, gc, io, json, runpy, sys
seen = []

def watch(phase, info):
    app = sys.modules.get("agentcli.cli.app")
    if phase == "start":
        seen.append("typer" in sys.modules and not hasattr(app, "app_for"))

gc.callbacks.append(watch)
sys.argv = ["agent", "sessions"]
with contextlib.redirect_stdout(io.StringIO()):
    try:
        runpy.run_module("agentcli", run_name="__main__")
    except SystemExit:
        pass
print(json.dumps({"during_load": sum(seen), "frozen": gc.get_freeze_count(), "enabled": gc.isenabled()}))
"""


def test_no_collection_while_the_app_loads_and_it_is_frozen_after(tmp_path):
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "data"),
           "XDG_CACHE_HOME": str(tmp_path / "cache")}
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60, check=True,
                         env=env, cwd=tmp_path, stdin=subprocess.DEVNULL)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["during_load"] == 0 and got["enabled"]
    assert got["frozen"] > 10_000  # typer, click and the app: what loading them allocated
