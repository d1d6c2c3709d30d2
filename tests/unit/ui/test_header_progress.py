"""The run header's facts and lines, and the spinner's seconds and countdown (fake clock)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console
from rich.text import Text

from agentcli.ui.header import header_lines, risky_workspace
from agentcli.ui.progress import Progress, waiting_label


def test_root_and_home_workspaces_warn(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    assert "home directory" in risky_workspace(tmp_path)
    assert "whole filesystem" in risky_workspace(Path("/"))
    (tmp_path / "proj").mkdir()
    assert risky_workspace(tmp_path / "proj") is None


def _facts(**kw):
    base = {"session_id": "s", "resumed": False, "profile": "p", "provider": "openai", "model": "m",
            "wire": "native (openai)", "tier": "crawl", "max_tier": "run", "workspace": "/w", "sandbox": "no shell",
            "instructions": [], "warning": None}
    return {**base, **kw}


def test_header_lines_are_text_and_never_markup():
    lines = header_lines(_facts(model="[red]x[/red]\x1b[2J", instructions=["AGENTS.md"], warning="careful"))
    out = io.StringIO()
    console = Console(file=out, width=60, no_color=True)
    for line in lines:
        assert isinstance(line, Text)
        console.print(line)
    shown = out.getvalue()
    assert "[red]x[/red]" in shown and "\x1b" not in shown and "\\x1b" in shown
    assert "tier crawl (rises on your yes; cap run," in shown and "instructions AGENTS.md" in shown
    assert "! careful" in shown


@pytest.mark.parametrize(("extra", "said"), [
    ({}, "rises on your yes; cap run, profile"),
    ({"preapproved": "walk"}, "walk unasked, run on your yes; cap run, profile"),
    ({"preapproved": "run", "cap_from": "--tier"}, "rises unasked; cap run, --tier"),
    ({"tier": "walk", "max_tier": "walk", "preapproved": "walk", "cap_from": "--tier"}, "(cap walk, --tier)"),
])
def test_the_tier_line_says_how_the_tier_may_rise_and_what_caps_it(extra, said):
    shown = "".join(line.plain for line in header_lines(_facts(**extra)))
    assert said in shown


def test_spinner_counts_seconds_and_counts_down_on_a_fake_clock():
    now = [100.0]
    p = Progress(Console(file=io.StringIO()), clock=lambda: now[0])
    assert not p.enabled  # not a terminal: nothing is drawn
    p.show(waiting_label("gpt-4o"))
    now[0] += 7.2
    assert p.ticker.text().plain == "waiting for gpt-4o · 7 s"
    p.show(Text("rate limited"), countdown_s=5)
    now[0] += 2
    assert p.ticker.text().plain == "rate limited · retrying in 3 s"
    now[0] += 4
    assert "retried, waiting 1 s" in p.ticker.text().plain
    p.stop()
    assert not p.active
