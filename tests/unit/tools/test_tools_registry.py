"""Registry tiers and lists, the executor's contract, the description audit, and `agent tools`."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest
from _toolbox import Box

from agentcli.core.errors import ErrorCode, ToolFailure
from agentcli.core.types import Tier, Tool, ToolCall
from agentcli.tools.base import BuiltinTool
from agentcli.tools.executor import execute
from agentcli.tools.registry import BUILTINS, ToolRegistry, default_registry

CRAWL = {"read_file", "list_files", "search", "think", "submit", "ask_user", "git", "todo", "fetch_url"}
WALK = CRAWL | {"write_file", "edit_file", "git_write", "move", "copy", "delete", "make_dir"}
RUN = WALK | {"bash", "background"}


def test_tiers_nest_and_hide_what_is_above():
    reg = ToolRegistry()
    assert {t.name for t in reg.visible(Tier.CRAWL, None, [])} == CRAWL
    assert {t.name for t in reg.visible("walk", None, [])} == WALK
    assert {t.name for t in reg.visible(Tier.RUN, None, [])} == RUN == set(BUILTINS) - {"request_tier"}
    assert reg.tier_of("bash") is Tier.RUN and reg.tier_of("nope") is None


def test_below_the_cap_the_tier_request_is_offered_with_what_each_tier_adds():
    reg = ToolRegistry()
    shown = {t.name: t for t in reg.visible(Tier.CRAWL, None, [], cap=Tier.WALK)}
    request = shown.pop("request_tier")
    assert set(shown) == CRAWL
    assert request.parameters["properties"]["tier"]["enum"] == ["walk"]
    assert "write_file" in request.description and "bash" not in request.description
    full = {t.name: t for t in reg.visible(Tier.CRAWL, None, ["edit_file"], cap=Tier.RUN)}["request_tier"]
    assert full.parameters["properties"]["tier"]["enum"] == ["walk", "run"]
    assert "bash" in full.description and "edit_file" not in full.description  # denied tools are not promised
    assert "request_tier" not in {t.name for t in reg.visible(Tier.WALK, None, [], cap=Tier.WALK)}
    assert "request_tier" not in {t.name for t in reg.visible(Tier.WALK, None, ["bash", "background"], cap=Tier.RUN)}


def test_read_only_flag_matches_the_tier_design():
    reg = default_registry()
    for spec in reg.all():
        if spec.read_only:
            assert spec.tier is Tier.CRAWL, spec.name
        else:
            assert spec.needs_approval, spec.name  # whatever changes something is judged before it runs
        if spec.tier > Tier.CRAWL:
            assert not spec.read_only and spec.needs_approval, spec.name


def test_allow_and_deny_apply_to_sending_and_running():
    reg = ToolRegistry()
    vis = {t.name for t in reg.visible(Tier.RUN, ["read_file", "bash"], ["bash"])}
    assert vis == {"read_file"}
    err = reg.check("bash", Tier.RUN, ["read_file", "bash"], ["bash"])
    assert err.code is ErrorCode.PERMISSION and "deny" in err.message
    err = reg.check("search", Tier.RUN, ["read_file"], [])
    assert err.code is ErrorCode.PERMISSION and "allow" in err.message
    err = reg.check("bash", Tier.WALK, None, [])
    assert err.code is ErrorCode.PERMISSION and "needs tier run" in err.message and "current tier is walk" in err.message
    err = reg.check("rm_everything", Tier.RUN, None, [])
    assert err.code is ErrorCode.NOT_FOUND and "read_file" in err.suggested_fix
    assert reg.check("read_file", Tier.CRAWL, None, []) is None


def test_every_builtin_is_registered_and_tested():
    """A new entry in BUILTINS must come with its own module and a test that mentions it."""
    reg = default_registry()
    text = "".join(p.read_text() for p in Path(__file__).parent.glob("test_*.py"))
    for name in BUILTINS:
        tool = reg.get(name)
        assert isinstance(tool, BuiltinTool) and tool.spec.name == name
        assert f'"{name}"' in text.replace(f'"{name}": ', "")


# ----- the description audit (seed 000 §8) ----------------------------------------------------

@pytest.mark.parametrize("name", list(BUILTINS))
def test_descriptions_are_written_for_models(name):
    spec: Tool = default_registry().get(name).spec
    desc = spec.description
    assert re.search(r"^Use it when:", desc, re.M), f"{name}: no when-to-use line"
    assert re.search(r"^Do not use it", desc, re.M), f"{name}: no when-not-to-use line"
    assert "Edge case" in desc or "Do not use it" in desc
    m = re.search(r"^Example: (\{.*\})$", desc, re.M)
    assert m, f"{name}: no example"
    example = json.loads(m.group(1))
    params = spec.parameters
    assert params["type"] == "object" and params.get("additionalProperties") is False
    props = params["properties"]
    assert set(example) <= set(props), f"{name}: example uses unknown parameters"
    assert set(params["required"]) <= set(example), f"{name}: example misses a required parameter"
    assert set(params["required"]) <= set(props)
    for pname, schema in props.items():
        assert len(schema.get("description", "")) >= 15, f"{name}.{pname} has no real description"
        assert "type" in schema
    assert len(desc) < 1400  # descriptions cost tokens on every request


def test_required_lists():
    reg = default_registry()
    want = {"read_file": ["path"], "list_files": [], "search": ["pattern"], "write_file": ["path", "content"],
            "edit_file": ["path", "old_content", "new_content"], "bash": ["command"], "think": ["thought"],
            "submit": ["answer"], "ask_user": ["question"], "request_tier": ["tier", "reason"], "git": ["action"],
            "git_write": ["action"], "todo": ["items"], "fetch_url": ["url"],
            "move": ["source", "destination"], "copy": ["source", "destination"], "delete": ["path"],
            "make_dir": ["path"], "background": ["action"]}
    assert {n: reg.get(n).spec.parameters["required"] for n in want} == want


# ----- executor -------------------------------------------------------------------------------

class _Probe(BuiltinTool):
    spec = Tool(name="probe", description="test double", tier=Tier.CRAWL)

    def __init__(self, behaviour):
        self.behaviour = behaviour

    async def run(self, args, ctx):
        return await self.behaviour(args)


def _reg(behaviour) -> ToolRegistry:
    return ToolRegistry(table={}, extra=[_Probe(behaviour)])


async def test_executor_converts_every_failure(box: Box):
    async def fail(args):
        raise ToolFailure.of(ErrorCode.NOT_FOUND, "no such thing", "look elsewhere")

    async def crash(args):
        raise KeyError("boom")

    async def slow(args):
        await asyncio.sleep(5)
        return "late"

    async def big(args):
        return "x" * (box.ctx.max_output_bytes + 1)

    async def secret(args):
        return "token: sk-ant-api03-abcdefghijklmnopqrstuvwx"

    r = await execute(ToolCall("probe"), _reg(fail), box.ctx)
    assert not r.ok and r.error.code is ErrorCode.NOT_FOUND and r.content == r.error.render()
    r = await execute(ToolCall("probe"), _reg(crash), box.ctx)
    assert not r.ok and r.error.code is ErrorCode.EXECUTION and "KeyError" in r.content
    r = await execute(ToolCall("probe"), _reg(slow), box.ctx, timeout=0.1)
    assert not r.ok and r.error.code is ErrorCode.TIMEOUT
    r = await execute(ToolCall("probe"), _reg(big), box.ctx)
    assert not r.ok and r.error.code is ErrorCode.EXECUTION
    assert r.error.message.startswith("TOOL_OUTPUT_TOO_LARGE") and "Narrow" in r.error.suggested_fix
    r = await execute(ToolCall("probe"), _reg(secret), box.ctx)
    assert r.ok and "sk-ant-api03" not in r.content and "[REDACTED]" in r.content
    r = await execute(ToolCall("missing_tool"), _reg(fail), box.ctx)
    assert not r.ok and r.error.code is ErrorCode.NOT_FOUND
    r = await execute(ToolCall("read_file", {"path": 7}), default_registry(), box.ctx)
    assert not r.ok and r.error.code is ErrorCode.VALIDATION


async def test_executor_keeps_call_identity(box: Box):
    call = ToolCall("think", {"thought": "x"})
    r = await execute(call, default_registry(), box.ctx)
    assert (r.call_id, r.tool_name, r.ok) == (call.id, "think", True)


# ----- agent tools ----------------------------------------------------------------------------

def test_agent_tools_json(capsys):
    from agentcli.cli.commands import tools as cmd

    assert cmd.execute(tier="walk", json_out=True) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["tier"] == "walk" and doc["profile"] is None
    vis = {t["name"]: t["visible"] for t in doc["tools"]}
    assert vis["write_file"] and not vis["bash"]
    bash = next(t for t in doc["tools"] if t["name"] == "bash")
    assert bash["tier"] == "run" and not bash["read_only"] and "needs tier run" in bash["hidden_because"]
    assert [t["tier"] for t in doc["tools"]] == sorted((t["tier"] for t in doc["tools"]), key=["crawl", "walk", "run"].index)


def test_agent_tools_table_and_bad_tier(capsys):
    from agentcli.cli.commands import tools as cmd
    from agentcli.core.errors import UsageError

    assert cmd.execute() == 0
    out = capsys.readouterr().out
    assert "read_file" in out and "bash" in out
    with pytest.raises(UsageError):
        cmd.execute(tier="sprint")


def test_agent_tools_with_profile_limits(monkeypatch, capsys):
    import types

    from agentcli.cli.commands import tools as cmd
    from agentcli.config.schema import Profile

    prof = Profile(name="p", model="m", tools={"max_tier": "walk", "deny": ["search"]})
    fake = types.SimpleNamespace(load_profile=lambda ref, **kw: types.SimpleNamespace(profile=prof))
    monkeypatch.setitem(__import__("sys").modules, "agentcli.config", fake)
    assert cmd.execute(profile="p", tier="run", json_out=True) == 0
    doc = json.loads(capsys.readouterr().out)
    vis = {t["name"]: t["visible"] for t in doc["tools"]}
    assert doc["tier"] == "walk" and doc["max_tier"] == "walk"
    assert not vis["bash"] and not vis["search"] and vis["edit_file"]


@pytest.mark.parametrize("name", sorted(p.stem for p in (Path(__file__).parents[3] / "agentcli/config/profiles").glob("*.toml")))
def test_agent_tools_lists_the_edit_tool_a_session_of_the_profile_offers(name, tmp_path, capsys, monkeypatch):
    """`agent tools --profile P` shows the tools a run with P would hold: its model's edit tool, and not
    the trained forms it hides behind aliases (a listing of the default set named edit_file for Claude)."""
    from agentcli.agent.build import open_session
    from agentcli.cli.commands import tools as cmd
    from agentcli.config import load_profile
    from agentcli.tools.edit_choice import EDIT_FORMS

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    from agentcli.config.providers import PROVIDERS

    for facts in PROVIDERS.values():  # a session is built, never used: any key will do
        if facts.api_key_env:
            monkeypatch.setenv(facts.api_key_env, "test-key")
    assert cmd.execute(profile=name, tier="walk", json_out=True) == 0
    listed = {t["name"]: t["visible"] for t in json.loads(capsys.readouterr().out)["tools"]}
    edit_forms = {tool for tool, _ in EDIT_FORMS.values()}
    profile = load_profile(name).profile
    session = open_session(profile, tmp_path, cap="walk")
    session.set_tier(Tier.WALK)
    offered = {t.name for t in session.visible_tools()} & edit_forms
    assert len(offered) == 1
    assert {n for n in listed if n in edit_forms} == offered and all(listed[n] for n in offered)
