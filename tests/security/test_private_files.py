"""Issue 8 §5: every file agentcli writes under the user config/data/cache dirs is 0600, every dir 0700.

A run (transcript, debug log, a learned fact from a native-tools fallback), a crash report,
`agent profiles new` and `agent trust`, under the common umask 022. Then a walk of the three
agentcli dirs: "0 of N" files or dirs with wider bits.
"""

from __future__ import annotations

import os
import stat

import pytest
from sec_helpers import openai_call, run_cli, user_dirs, write_profile

from agentcli.testing import OpenAIServer, openai_body


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def _walk(*roots):
    """(files, dirs) under the roots, the roots included."""
    files, dirs = [], []
    for root in roots:
        if not root.exists():
            continue
        dirs.append(root)
        for base, dnames, fnames in os.walk(root):
            dirs += [os.path.join(base, d) for d in dnames]
            files += [os.path.join(base, f) for f in fnames]
    return files, dirs


@pytest.mark.parametrize("debug", [False, True], ids=["plain", "debug-log"])
def test_user_files_are_private(tmp_path, monkeypatch, umask_022, debug):
    monkeypatch.setenv("ACME_GATEWAY_KEY", "not-a-real-key-0000")
    if debug:
        monkeypatch.setenv("AGENTCLI_DEBUG", "1")
    ws = tmp_path / "ws"
    (ws / ".agent" / "profiles").mkdir(parents=True)
    (ws / ".agent" / "profiles" / "team.toml").write_text('[profiles.team]\nprovider = "ollama"\nmodel = "m"\n')
    with OpenAIServer() as srv:
        # The server rejects native tools: agentcli falls back to emulation and records a learned fact.
        srv.queue_error(400, {"error": {"message": "this model does not support tools"}})
        srv.queue(openai_body("I will write it.\n<tool_call>\n" + '{"name": "write_file", "arguments": '
                              '{"path": "out.txt", "content": "hi"}}\n</tool_call>'))
        srv.queue(openai_body("done"))
        profile = write_profile(tmp_path / "p.toml", "openai", srv.url, "gpt-4o", api_key_env="ACME_GATEWAY_KEY")
        res = run_cli("run", "write out.txt", "--profile", str(profile), "--workspace", str(ws), "--yes")
        assert res.exit_code == 0, res.output

        async def crash(self, call):
            raise RuntimeError("forced")

        with monkeypatch.context() as m:
            m.setattr("agentcli.agent.session.Session.execute", crash)
            srv.queue(openai_body("", tool_calls=[openai_call("read_file", {"path": "out.txt"}, "c1")]))
            res = run_cli("run", "read out.txt", "--profile", str(profile), "--workspace", str(ws), "--yes")
            assert res.exit_code == 1 and "internal error" in res.stderr
    assert (ws / "out.txt").read_text() == "hi"
    res = run_cli("profiles", "new", "mine", "--provider", "openai", "--model", "gpt-4o")
    assert res.exit_code == 0, res.output
    res = run_cli("trust", "--workspace", str(ws))
    assert res.exit_code == 0, res.output

    config, data, cache = user_dirs()
    files, dirs = _walk(config, data, cache)
    names = {os.path.relpath(f, tmp_path.parent) for f in files}
    expected = ["sessions", ".files/", "crashes", "profiles", "trusted", "learned"] + (["agentcli.log"] if debug else [])
    for part in expected:
        assert any(part in n for n in names), f"no {part} file was written; the walk would prove nothing: {names}"
    wide_files = [f"{oct(stat.S_IMODE(os.stat(f).st_mode))} {f}" for f in files if stat.S_IMODE(os.stat(f).st_mode) != 0o600]
    wide_dirs = [f"{oct(stat.S_IMODE(os.stat(d).st_mode))} {d}" for d in dirs if stat.S_IMODE(os.stat(d).st_mode) != 0o700]
    print(f"\nprivate files: {len(wide_files)} of {len(files)} files not 0600, {len(wide_dirs)} of {len(dirs)} dirs not 0700")
    assert not wide_files and not wide_dirs, wide_files + wide_dirs
