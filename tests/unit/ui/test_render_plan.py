"""The model's plan (todo) rendered live in the terminal and as a `plan` record in --json."""

from __future__ import annotations

import io
import json

from agentcli.core.events import PlanUpdated
from agentcli.ui.render import JsonRenderer, TerminalRenderer

ITEMS = [{"content": "read [red]x[/red]", "status": "done"}, {"content": "fix", "status": "in_progress"},
         {"content": "test", "status": "pending"}]


def test_json_prints_the_plan_as_one_record():
    out = io.StringIO()
    JsonRenderer(out)(PlanUpdated(ITEMS))
    record = json.loads(out.getvalue())
    assert record == {"event": "plan", "items": ITEMS}


def test_the_terminal_shows_a_checklist_and_never_markup():
    r = TerminalRenderer()
    buf = io.StringIO()
    r.err.file = buf
    r(PlanUpdated(ITEMS))
    shown = buf.getvalue()
    assert "plan 1/3 done" in shown and "◐ fix" in shown and "○ test" in shown
    assert "[red]x[/red]" in shown  # the model's text is printed as text
