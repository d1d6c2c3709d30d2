"""The tier request: the model asks, a person (or a pre-approval) decides, nothing passes the cap,
and each refusal names the flag that would allow it, never one that would not."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from loop_helpers import Recorder, no_sleep

from agentcli.agent.approval import Decision, PolicyApprover, TierGrant, rule
from agentcli.agent.build import open_session
from agentcli.agent.loop import Agent
from agentcli.config import load_profile
from agentcli.core.events import CheckpointKind, Done, ToolFinished
from agentcli.core.types import Tier, Tool
from agentcli.providers.scripted import ScriptedProvider
from agentcli.tools.base import Judgement


def _call(name: str, args: dict[str, Any], cid: str = "c1") -> dict[str, Any]:
    fn = {"name": name, "arguments": json.dumps(args)}
    msg = {"role": "assistant", "content": None, "tool_calls": [{"id": cid, "type": "function", "function": fn}]}
    return {"openai": {"choices": [{"index": 0, "message": msg, "finish_reason": "tool_calls"}]}}


def _session(tmp_path: Path, turns: list[dict[str, Any]], *, max_tier: str = "run", cap: str | None = None,
             mode: str = "ask"):
    prof = tmp_path / "p.toml"
    prof.write_text('[profiles.p]\nprovider = "openai"\nmodel = "gpt-4o"\nurl = "http://127.0.0.1:9/v1"\n'
                    f'api_key_env = ""\n[profiles.p.tools]\nmax_tier = "{max_tier}"\n')
    profile = load_profile(str(prof)).profile
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    (ws / "a.txt").write_text("old\n")
    provider = ScriptedProvider.from_turns(turns, api="openai", profile=profile, sleep=no_sleep)
    return open_session(profile, ws, cap=cap, approve_mode=mode, interactive=True, provider=provider,
                        record=False), provider


async def _run(session, approver) -> list[Any]:
    return [ev async for ev in Agent(session, approver).run("change a.txt")]


REQUEST = {"tier": "walk", "reason": "change a.txt"}
WRITE = {"path": "a.txt", "content": "new\n"}


def _offered(provider, index: int) -> set[str]:
    return {t.name for t in provider.requests[index].tools}


async def test_an_approved_request_raises_the_tier_and_offers_the_new_tools_next_turn(tmp_path):
    s, provider = _session(tmp_path, [_call("request_tier", REQUEST), _call("write_file", WRITE, "c2"),
                                      {"text": "done"}])
    approver = Recorder(Decision("yes"), Decision("yes"))
    events = await _run(s, approver)
    assert [cp.kind for cp in approver.seen] == [CheckpointKind.TIER_ESCALATION, CheckpointKind.APPROVE_TOOL]
    assert "change a.txt" in approver.seen[0].preview  # the model's reason is what the person sees
    assert s.tier is Tier.WALK and (s.workspace / "a.txt").read_text() == "new\n"
    assert "request_tier" in _offered(provider, 0) and "write_file" not in _offered(provider, 0)
    assert "write_file" in _offered(provider, 1)
    assert events[-1].stop == "answered"


async def test_a_declined_request_goes_back_to_the_model_and_the_tier_stays(tmp_path):
    s, _ = _session(tmp_path, [_call("request_tier", REQUEST), {"text": "I cannot change it."}])
    events = await _run(s, Recorder(Decision("no")))
    result = next(e.result for e in events if isinstance(e, ToolFinished))
    assert not result.ok and "not approved" in result.content and s.tier is Tier.CRAWL


async def test_approve_edits_preapproves_walk_but_run_still_asks(tmp_path):
    turns = [_call("request_tier", REQUEST), _call("request_tier", {"tier": "run", "reason": "tests"}, "c2"),
             {"text": "ok"}]
    s, _ = _session(tmp_path, turns, mode="edits")
    approver = Recorder(Decision("no"))
    await _run(s, approver)
    assert [cp.kind for cp in approver.seen] == [CheckpointKind.TIER_ESCALATION]  # only the run request asked
    assert s.tier is Tier.WALK


async def test_yes_preapproves_up_to_the_cap_and_never_past_it(tmp_path):
    turns = [_call("request_tier", {"tier": "run", "reason": "tests"}), {"text": "ok"}]
    s, _ = _session(tmp_path, turns, cap="walk", mode="all")
    events = await _run(s, Recorder())
    result = next(e.result for e in events if isinstance(e, ToolFinished))
    assert s.tier is Tier.CRAWL and not result.ok
    assert "--tier run" in result.content  # the profile allows run: the flag that would allow it


async def test_over_the_profile_cap_no_flag_is_suggested(tmp_path):
    turns = [_call("bash", {"command": "true"}), {"text": "ok"}]
    s, _ = _session(tmp_path, turns, max_tier="walk", mode="all")
    events = await _run(s, Recorder())
    result = next(e.result for e in events if isinstance(e, ToolFinished))
    assert not result.ok and "max_tier" in result.content and "--tier" not in result.content
    assert "--yes" not in result.content


@pytest.mark.parametrize(("tier", "flag"), [("walk", "--approve edits"), ("run", "--yes")])
async def test_with_nobody_to_ask_the_refusal_names_the_flag_that_preapproves(tmp_path, tier, flag):
    turns = [_call("request_tier", {"tier": tier, "reason": "x"}), {"text": "never"}]
    s, _ = _session(tmp_path, turns)
    events = await _run(s, PolicyApprover(approve_all=False))
    done = events[-1]
    assert isinstance(done, Done) and done.stop == "refused" and flag in (done.error or "")


async def test_a_tool_it_was_not_offered_is_still_the_tier_checkpoint(tmp_path):
    s, _ = _session(tmp_path, [_call("write_file", WRITE), {"text": "done"}])
    approver = Recorder(Decision("yes"))
    await _run(s, approver)
    assert [cp.kind for cp in approver.seen] == [CheckpointKind.TIER_ESCALATION]  # asked once, not twice
    assert (s.workspace / "a.txt").read_text() == "new\n"


def test_the_grant_follows_the_flags():
    assert TierGrant.of("ask", Tier.CRAWL, Tier.RUN, "profile", Tier.RUN).preapproved is Tier.CRAWL
    assert TierGrant.of("edits", Tier.CRAWL, Tier.RUN, "profile", Tier.RUN).preapproved is Tier.WALK
    assert TierGrant.of("edits", Tier.CRAWL, Tier.CRAWL, "--tier", Tier.RUN).preapproved is Tier.CRAWL
    assert TierGrant.of("all", Tier.CRAWL, Tier.WALK, "--tier", Tier.RUN).preapproved is Tier.WALK


def _spec(**kw: Any) -> Tool:
    return Tool(name="t", description="d", **kw)


def test_the_rule_applies_grants_on_top_of_the_tools_judgement():
    ask, allow, refuse = Judgement.ask("p"), Judgement.allow(), Judgement.refuse("no")
    edit = _spec(tier=Tier.WALK, read_only=False, needs_approval=True)
    shell = _spec(tier=Tier.RUN, read_only=False, needs_approval=True, sandboxed=True)
    fetch = _spec(tier=Tier.CRAWL, read_only=True, needs_approval=True)
    kw = {"name": "t", "always": set(), "contained": True}
    assert rule(refuse, edit, mode="all", **kw) == "refuse"  # no grant passes a refusal
    assert rule(ask, edit, mode="edits", **kw) == "run"
    assert rule(ask, shell, mode="edits", **kw) == "ask"
    assert rule(ask, fetch, mode="edits", **kw) == "ask"  # a network read is not an edit
    assert rule(ask, shell, mode="all", **kw) == "run"
    assert rule(allow, shell, mode="ask", **{**kw, "contained": False}) == "ask"  # no sandbox: a person sees it
    assert rule(ask, edit, mode="ask", **{**kw, "always": {"t"}}) == "run"


async def test_a_preapproved_rise_never_skips_the_person_for_an_uncontained_command(tmp_path, monkeypatch):
    import agentcli.agent.decide as decide_module

    monkeypatch.setattr(decide_module, "contained", lambda: False)
    s, _ = _session(tmp_path, [_call("bash", {"command": "touch x"}), {"text": "ok"}], mode="all")
    approver = Recorder(Decision("no"))
    await _run(s, approver)
    assert [(cp.kind, cp.uncontained) for cp in approver.seen] == [(CheckpointKind.APPROVE_TOOL, True)]
    assert not (s.workspace / "x").exists()


async def test_a_declined_tier_is_not_asked_again_in_the_same_run(tmp_path):
    turns = [_call("request_tier", REQUEST), _call("request_tier", REQUEST, "c2"), _call("write_file", WRITE, "c3"),
             {"text": "I could not change it."}]
    s, _ = _session(tmp_path, turns)
    approver = Recorder(Decision("no"))
    events = await _run(s, approver)
    assert len(approver.seen) == 1  # asked once; the repeat and the direct call are refused unasked
    results = [e.result for e in events if isinstance(e, ToolFinished)]
    assert [r.ok for r in results] == [False, False, False] and "already declined" in results[1].content
    assert (s.workspace / "a.txt").read_text() == "old\n"
