"""The scripted model's brain: what a well-behaved model would do next, read from the conversation.

A scenario's policy sees a `View` (goal, past calls and their results, the step it is on and
how many tries that step took) and returns an `Action`. Nothing is stored between requests:
the step and attempt are recomputed from the messages each time, so the model reacts to what
really happened (a validation error makes it resend the call cleanly, as a good model would).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import field
from typing import Any

from agentcli.core.record import record
from agentcli.providers.scripted.view import Exchange, View, is_validation, read_view

__all__ = ["NEUTRAL", "Action", "Call", "Exchange", "Policy", "Step", "View", "linear", "read_view"]


@record(frozen=True)
class Call:
    """One intended call: what the model means, before any fault or wire shape."""

    name: str
    args: dict[str, Any] = field(default_factory=dict)

    def key(self) -> tuple[str, str]:
        """Identity of the call; optional arguments given at their default value do not count."""
        args = {k: v for k, v in self.args.items() if NEUTRAL.get(k, _UNSET) != v}
        return self.name, json.dumps(args, sort_keys=True, default=str)


_UNSET = object()
# Optional arguments whose default a model may spell out without changing the call.
NEUTRAL: dict[str, Any] = {"start_line": 1, "recursive": False}


@record
class Action:
    """The model's next turn. `fault` names a deliberate mistake (see noisy.FAULTS); `first_try`
    replaces the calls on the first attempt (a different, wrong approach); `noisable` lets the
    noisy model inject its random faults."""

    calls: list[Call] = field(default_factory=list)
    text: str = ""
    fault: str | None = None
    noisable: bool = True
    dialect: str | None = None  # write the calls as text in this dialect (the demo shows several)
    turn: dict[str, Any] | None = None  # a raw scripted turn (a provider fault) instead of a reply


Calls = list[Call] | Callable[[View], list[Call]]
Text = str | Callable[[View], str]


@record
class Step:
    """One step of a linear plan: calls (or an answer when there are none)."""

    calls: Calls = field(default_factory=list)
    answer: Text = ""
    fault: str | None = None  # deliberate fault on the first attempt
    first_try: Calls | None = None  # deliberate wrong calls on the first attempt
    first_answer: str | None = None  # what the first attempt at an answer says ("" = empty final)
    text: str = ""  # prose before the calls
    dialect: str | None = None

    def intended(self, view: View) -> list[Call]:
        return self.calls(view) if callable(self.calls) else list(self.calls)


Policy = Callable[[View], Action]


def _succeeded(ex: Exchange) -> set[tuple[str, str]]:
    """Keys of the calls in this exchange that were not refused as the model's own mistake."""
    bad = {r.call_id for r in ex.results if is_validation(r)}
    return {Call(c.name, c.arguments).key() for c in ex.calls if c.id not in bad}


def linear(steps: list[Step]) -> Policy:
    """A policy that walks `steps` in order. A step is done when each of its calls has gone through;
    after its own mistake the model resends only the calls still missing, cleanly."""

    def policy(view: View) -> Action:
        step = attempt = 0
        got: set[tuple[str, str]] = set()
        partial = View(view.goal, [], "", 0, 0)
        for ex in view.exchanges:
            wanted = {c.key() for c in steps[step].intended(partial)} if step < len(steps) else set()
            got |= _succeeded(ex) & wanted
            if wanted and wanted <= got:
                step, attempt, got = step + 1, 0, set()
            else:
                attempt += 1
            partial.exchanges.append(ex)
        view.step, view.attempt = step, attempt
        s = steps[min(step, len(steps) - 1)]
        first = attempt == 0
        calls = [c for c in s.intended(view) if c.key() not in got]
        if not calls:
            if first and s.first_answer is not None:
                return Action(text=s.first_answer, noisable=False)
            return Action(text=s.answer(view) if callable(s.answer) else s.answer, noisable=False)
        if first and s.first_try is not None:
            wrong = s.first_try(view) if callable(s.first_try) else list(s.first_try)
            return Action(wrong, s.text, noisable=False, dialect=s.dialect)
        if first and s.fault:
            return Action(calls, s.text, fault=s.fault, noisable=False, dialect=s.dialect)
        return Action(calls, s.text, noisable=first, dialect=s.dialect)

    return policy
