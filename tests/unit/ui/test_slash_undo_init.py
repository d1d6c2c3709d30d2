"""Chat `/undo` puts the last request's files back (and drops it); `/init` writes a starter AGENTS.md."""

from __future__ import annotations

import io
import json

from rich.console import Console

from agentcli.agent.approval import PolicyApprover
from agentcli.agent.build import open_session
from agentcli.agent.loop import Agent
from agentcli.config import load_profile
from agentcli.core.types import Role
from agentcli.providers.scripted import ScriptedProvider
from agentcli.testing import openai_body
from agentcli.ui.slash import Repl, dispatch


def _repl(tmp_path, turns):
    prof = tmp_path / "p.toml"
    prof.write_text('[profiles.p]\nprovider = "scripted"\nmodel = "m"\n[profiles.p.tools]\nstart_tier = "walk"\n')
    profile = load_profile(str(prof)).profile
    ws = tmp_path / "ws"
    ws.mkdir()
    provider = ScriptedProvider.from_turns([{"openai": t} for t in turns], api="openai", profile=profile)
    out = io.StringIO()
    return Repl(open_session(profile, ws, provider=provider), Console(file=out, width=100, no_color=True)), out


async def test_undo_restores_the_file_and_drops_the_request(tmp_path):
    call = {"id": "w", "type": "function",
            "function": {"name": "write_file", "arguments": json.dumps({"path": "a.txt", "content": "new"})}}
    r, out = _repl(tmp_path, [openai_body("", tool_calls=[call]), openai_body("wrote it")])
    (r.session.workspace / "a.txt").write_bytes(b"old\r\n")
    async for _ in Agent(r.session, PolicyApprover(approve_all=True)).run("write a.txt"):
        pass
    assert (r.session.workspace / "a.txt").read_text() == "new"
    dispatch(r, "/undo")
    assert (r.session.workspace / "a.txt").read_bytes() == b"old\r\n"
    assert not [m for m in r.session.history if m.role is Role.USER]
    assert "restored a.txt" in out.getvalue()
    dispatch(r, "/undo")
    assert "nothing to undo" in out.getvalue()


def test_init_writes_a_starter_agents_md_once(tmp_path):
    r, out = _repl(tmp_path, [])
    (r.session.workspace / "package.json").write_text("{}")
    dispatch(r, "/init")
    text = (r.session.workspace / "AGENTS.md").read_text()
    assert "npm test" in text and "AGENTS.md" in r.session.request_messages()[0].text
    dispatch(r, "/init")
    assert "already exists" in out.getvalue()


async def test_rewind_lists_the_points_and_goes_back_to_before_the_one_chosen(tmp_path):
    def write(path: str, content: str, cid: str) -> dict:
        return {"id": cid, "type": "function",
                "function": {"name": "write_file", "arguments": json.dumps({"path": path, "content": content})}}

    turns = []
    for i in range(3):
        turns += [openai_body("", tool_calls=[write("a.txt", f"v{i + 1}", f"w{i}")]), openai_body(f"wrote v{i + 1}")]
    r, out = _repl(tmp_path, turns)
    a = r.session.workspace / "a.txt"
    a.write_text("v0")
    for i in range(3):
        async for _ in Agent(r.session, PolicyApprover(approve_all=True)).run(f"request {i + 1}"):
            pass
    assert a.read_text() == "v3"
    dispatch(r, "/rewind")
    listing = out.getvalue()
    assert listing.index("request 3") < listing.index("request 2") < listing.index("request 1")  # newest first
    dispatch(r, "/rewind 2")  # back to before the second request: the third is undone too
    assert a.read_text() == "v1"
    assert [m.text for m in r.session.history if m.role is Role.USER] == ["request 1"]
    dispatch(r, "/rewind 5")
    assert "no point '5'" in out.getvalue()
