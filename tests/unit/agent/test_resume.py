"""Resuming opens the saved session through open_session: same id, history and ledger, and the tier
it had reached (every raise replayed in order), never above this run's cap."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcli.agent.build import open_session
from agentcli.agent.resume import ResumeRequest, carried
from agentcli.agent.store import load_session
from agentcli.config import load_profile
from agentcli.core.errors import UsageError
from agentcli.core.types import Message, Role, Tier
from agentcli.providers.scripted import ScriptedProvider

TIERS = [Tier.CRAWL, Tier.WALK, Tier.RUN]


def _profile(tmp_path: Path, start: str = "crawl", cap: str = "run"):
    path = tmp_path / "p.toml"
    path.write_text('[profiles.p]\nprovider = "openai"\nmodel = "gpt-4o"\nurl = "http://127.0.0.1:9/v1"\n'
                    f'api_key_env = ""\n[profiles.p.tools]\nstart_tier = "{start}"\nmax_tier = "{cap}"\n')
    return load_profile(str(path)).profile


def _open(profile, ws: Path, **kw):
    return open_session(profile, ws, provider=ScriptedProvider.from_turns([], api="openai", profile=profile), **kw)


def _saved_after(profile, ws: Path, raises: list[Tier], **kw):
    session = _open(profile, ws, goal="the goal", **kw)
    session.begin_exchange("the goal")
    session.add(Message(Role.ASSISTANT, "done"))
    for tier in raises:
        session.set_tier(tier)
    assert session.transcript is not None
    session.transcript.close()
    return session, load_session(session.transcript.path)


def test_a_resumed_session_keeps_its_id_history_goal_and_raised_tier(tmp_path: Path) -> None:
    profile = _profile(tmp_path)
    first, saved = _saved_after(profile, tmp_path, [Tier.WALK])
    assert saved.tier == "walk"
    again = _open(profile, tmp_path, resume=saved)
    assert again.id == first.id and again.history == first.history
    assert again.ledger.exchanges == first.ledger.exchanges
    assert again.tier is Tier.WALK  # not back at the start tier
    assert again.tier_grant().preapproved >= Tier.WALK  # granted once: no second question
    assert again.transcript is not None
    again.transcript.close()
    reloaded = load_session(again.transcript.path)
    assert reloaded.meta["goal"] == "the goal" and reloaded.tier == "walk"


def test_the_cap_of_the_resuming_run_bounds_the_replayed_tier(tmp_path: Path) -> None:
    profile = _profile(tmp_path)
    _, saved = _saved_after(profile, tmp_path, [Tier.WALK, Tier.RUN])
    assert _open(profile, tmp_path, resume=saved, cap="walk").tier is Tier.WALK
    (tmp_path / "low").mkdir()
    lower = _profile(tmp_path / "low", cap="crawl")
    assert _open(lower, tmp_path, resume=saved).tier is Tier.CRAWL  # the profile's cap too, and no error


def test_an_explicit_start_tier_wins_and_an_unreadable_one_is_the_start_tier(tmp_path: Path) -> None:
    profile = _profile(tmp_path)
    _, saved = _saved_after(profile, tmp_path, [Tier.RUN])
    assert _open(profile, tmp_path, resume=saved, tier="crawl").tier is Tier.CRAWL  # chat --tier
    saved.tier = "sprint"  # a transcript line someone edited
    assert _open(profile, tmp_path, resume=saved).tier is Tier.CRAWL


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raises=st.lists(st.sampled_from(TIERS), max_size=4), cap=st.sampled_from(TIERS),
       again=st.lists(st.sampled_from(TIERS), max_size=2))
def test_the_last_tier_reached_is_replayed_across_resumes(tmp_path_factory: pytest.TempPathFactory,
                                                          raises: list[Tier], cap: Tier, again: list[Tier]) -> None:
    ws = tmp_path_factory.mktemp("ws")
    profile = _profile(ws)
    _, saved = _saved_after(profile, ws, raises)
    resumed = _open(profile, ws, resume=saved, cap=cap.label)
    expected = min(raises[-1] if raises else Tier.CRAWL, cap)
    assert resumed.tier is expected
    for tier in again:
        resumed.set_tier(tier)
    assert resumed.transcript is not None
    resumed.transcript.close()
    twice = _open(profile, ws, resume=load_session(resumed.transcript.path))
    assert twice.tier is (min(again[-1], cap) if again else expected)


def test_the_request_the_flags_make() -> None:
    assert ResumeRequest.of(None, False) is None
    assert ResumeRequest.of(None, True) == ResumeRequest(None, latest=True)
    assert ResumeRequest.of("last", False) == ResumeRequest(None, latest=True)
    assert ResumeRequest.of("2026", False) == ResumeRequest("2026")
    with pytest.raises(UsageError, match="both name a session"):
        ResumeRequest.of("2026", True)


def test_the_flags_win_over_what_the_session_carries(tmp_path: Path) -> None:
    profile = _profile(tmp_path)
    _, saved = _saved_after(profile, tmp_path, [])
    kept = carried(saved, None, None, None)
    assert kept.model == "gpt-4o" and kept.workspace == tmp_path.resolve() and kept.profile
    assert carried(saved, "other", tmp_path / "w", "m") == ("other", tmp_path / "w", "m")


def test_run_continue_starts_where_the_session_had_got_to(tmp_path: Path) -> None:
    """Through the real command: a raise the transcript recorded is where `run -c` starts, and `--tier`
    still caps it."""
    import json

    from typer.testing import CliRunner

    from agentcli.agent.store import Transcript, find_session
    from agentcli.cli.main import app

    def start(*args: str) -> dict:
        res = CliRunner().invoke(app, ["run", *args, "--profile", "offline", "-w", str(tmp_path), "--json"],
                                 catch_exceptions=False)
        return json.loads(res.stdout.splitlines()[0])

    first = start("hello")
    assert first["tier"] == "crawl" and first["max_tier"] == "walk"
    transcript = Transcript(find_session(first["session_id"]))
    transcript.write("tier", tier="walk")  # what Session.set_tier records when a raise is granted
    transcript.close()
    assert start("-c", "again")["tier"] == "walk"
    assert start("-c", "again", "--tier", "crawl")["tier"] == "crawl"


def test_resuming_a_session_killed_before_its_first_record_says_so(tmp_path: Path) -> None:
    """An empty transcript (killed between creating the file and writing to it): exit 2 naming why,
    not an internal error; with a goal it runs."""
    from typer.testing import CliRunner

    from agentcli.agent.store import sessions_dir
    from agentcli.cli.main import app

    sessions_dir().mkdir(parents=True, exist_ok=True)
    (sessions_dir() / "20260101-000000-abcdef.jsonl").write_text("")
    args = ["run", "--resume", "20260101-000000-abcdef", "--profile", "offline", "-w", str(tmp_path), "-q"]
    res = CliRunner().invoke(app, args, catch_exceptions=False)
    assert res.exit_code == 2 and "stopped before it began" in res.output
    res = CliRunner().invoke(app, [*args, "hello"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
