"""A run over a workspace of hostile files ends normally, and shows nothing it should not.

Markup, bidi and control characters in contents and names, deep JSON, a 2 MB line, names that
are not UTF-8 and a FIFO, read and listed by a model that touches every one of them, in the
terminal and in --json mode.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentcli.cli.main import app
from agentcli.core.escape import visible

FILES: dict[bytes, bytes] = {
    b"README.md": b"[//]: # (badges)\n[link=https://evil.example]click[/link] [bold]x[/nope]\n",
    b"regex.py": b"PAT = r'[/\\\\]'\n",
    b"[brackets] [x] [link=y].txt": b"[/]\n",
    b"bidi.txt": "access = 'user\u202e \u2066// admin\u2069\u2066'\n".encode(),
    b"ctrl.txt": b"\x1b[2J\x1b]8;;https://evil.example\x07link\x1b]8;;\x07\x00\x07\x08\r\n",
    b"deep.json": b"[" * 5000 + b"]" * 5000,
    b"huge.txt": b"y" * 2_000_000,
    b"caf\xe9 \xff.txt": b"latin-1 name\n",
    b"bad-bytes.txt": b"ok \xed\xa0\x80 \xff\xfe end\n",
    b"tags\xf3\xa0\x81\x81.txt": "tag \U000e0041 hangul \u3164 arabic \u061c\n".encode(),
}


def _workspace(root: Path) -> list[str]:
    raw = os.fsencode(root)
    for name, content in FILES.items():
        with open(os.path.join(raw, name), "wb") as f:
            f.write(content)
    os.mkfifo(os.path.join(raw, b"pipe"))
    return [os.fsdecode(n) for n in FILES] + ["pipe"]


def _call(i: int, name: str, args: dict) -> dict:
    return {"id": f"c{i}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


def _script(names: list[str]) -> dict:
    reads = [_call(i, "read_file", {"path": n}) for i, n in enumerate(names)]
    turns = [
        {"openai": {"choices": [{"message": {"role": "assistant", "content": "[bold]listing[/bold] \u202e",
                                             "tool_calls": [_call(100, "list_files", {"recursive": True}),
                                                            _call(101, "list_files", {"pattern": "*[*"})]},
                                 "finish_reason": "tool_calls"}]}},
        {"openai": {"choices": [{"message": {"role": "assistant", "content": None, "tool_calls": reads},
                                 "finish_reason": "tool_calls"}]}},
        {"openai": {"choices": [{"message": {"role": "assistant", "content": None, "tool_calls": [
            _call(200, "search", {"pattern": "^(y+)+$", "type": "regex"}),
            _call(201, "search", {"pattern": "[/"}),
            _call(202, "search", {"pattern": "admin|click", "type": "regex"})]},
            "finish_reason": "tool_calls"}]}},
        {"text": "Read them all: [/x] [link=https://evil.example]x[/link] \x1b[31m red \u202e done \ud800"},
    ]
    return {"api": "openai", "turns": turns}


@pytest.mark.parametrize("mode", ["terminal", "json"])
def test_hostile_workspace_run_ends_normally(tmp_path, monkeypatch, mode):
    ws = tmp_path / "ws"
    ws.mkdir()
    names = _workspace(ws)
    script = tmp_path / "script.json"
    script.write_text(json.dumps(_script(names)))
    profile = tmp_path / "p.toml"
    profile.write_text(f'[profiles.h]\nprovider = "scripted"\nmodel = "m"\nscript = "{script}"\nstream = true\n'
                       '[profiles.h.capabilities]\nnative_tools = true\n[profiles.h.limits]\nmax_turns = 8\n')
    args = ["run", "read and list everything", "-p", f"{profile}#h", "-w", str(ws), "--yes"]
    res = CliRunner().invoke(app, args + (["--json"] if mode == "json" else []), catch_exceptions=False)
    out = res.stdout + res.stderr
    assert res.exit_code == 0, out[-2000:]
    assert "internal error" not in out
    if mode == "json":
        records = [json.loads(line) for line in res.stdout.splitlines()]
        done = records[-1]
        assert done["event"] == "done" and done["stop"] == "answered" and done["tools_run"] == 5 + len(names)
        results = [r for r in records if r["event"] == "tool_result"]
        assert len(results) == 5 + len(names)
        listing = results[0]["result"]["content"]
        assert "caf\\xe9 \\xff.txt" in listing and "pipe|" in listing and "[brackets] [x] [link=y].txt" in listing
        by_path = {r["call"]["arguments"].get("path"): r["result"] for r in results if r["call"]["name"] == "read_file"}
        assert by_path["README.md"]["ok"] and "[link=https://evil.example]" in by_path["README.md"]["content"]
        assert by_path["deep.json"]["ok"] and by_path["huge.txt"]["ok"]
        assert by_path[os.fsdecode(b"caf\xe9 \xff.txt")]["ok"]
        assert not by_path["pipe"]["ok"]  # a FIFO is refused, never opened for a blocking read
    else:
        assert visible(out) == out  # no escape, bidi, tag or control character reached the terminal
        assert "[link=https://evil.example]x[/link]" in res.stdout and "\\x1b[31m" in res.stdout
        assert "answered" in res.stderr


def _bash_script(tmp_path: Path, name: str, command: str) -> Path:
    script = tmp_path / f"{name}.json"
    script.write_text(json.dumps({"api": "openai", "turns": [
        {"openai": {"choices": [{"message": {"role": "assistant", "content": None,
                                             "tool_calls": [_call(1, "bash", {"command": command})]},
                                 "finish_reason": "tool_calls"}]}},
        {"text": "done"}]}))
    profile = tmp_path / f"{name}.toml"
    profile.write_text(f'[profiles.{name}]\nprovider = "scripted"\nmodel = "m"\nscript = "{script}"\n'
                       f'[profiles.{name}.capabilities]\nnative_tools = true\n')
    return profile


@pytest.mark.parametrize("swap", ["ln -s {outside} d", "mv d/f d/g && ln -s {outside}/f d/f",
                                  "ln -s {outside} d.tmp && mv -T d.tmp d"])
def test_undo_through_the_real_cli_never_follows_a_link_the_model_swapped_in(tmp_path, swap):
    """A file made in one session, its folder or name then swapped for a link to a folder outside
    holding the same content: `agent undo` (latest, --to, or by session) refuses and touches
    nothing outside; `agent diff` lists the link."""
    ws, outside = tmp_path / "ws", tmp_path / "home"
    ws.mkdir()
    outside.mkdir()
    (outside / "f").write_text("x")  # what a naive undo would delete

    def run(name: str, command: str) -> dict:
        res = CliRunner().invoke(app, ["run", "go", "-p", str(_bash_script(tmp_path, name, command)), "-w", str(ws),
                                       "--tier", "run", "--yes", "--json"], catch_exceptions=False)
        assert res.exit_code == 0, res.output[-2000:]
        return json.loads(res.stdout.splitlines()[0])

    first = run("make", "mkdir -p d && printf x > d/f")
    run("swap", ("rm -rf d && " if swap.startswith("ln -s {outside} d.") else "")
        + ("mv d d.bak && " if swap == "ln -s {outside} d" else "") + swap.format(outside=outside))
    for args in (["undo"], ["undo", "--to", "2"], ["undo", first["session_id"]]):
        res = CliRunner().invoke(app, [*args, "-w", str(ws)] if args[-1] != first["session_id"] else args,
                                 catch_exceptions=False)
        assert res.exit_code == 2 and "cannot undo" in res.output, res.output
        assert "internal error" not in res.output
        assert (outside / "f").read_text() == "x"
    res = CliRunner().invoke(app, ["diff", "-w", str(ws), "--files"], catch_exceptions=False)
    assert res.exit_code == 0 and "?" in res.stdout, res.output
