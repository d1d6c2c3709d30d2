"""The reliability layers between a model and the tools, each switchable on its own.

A real session runs with every layer on. `agent eval` turns them off one at a time (and all
together) on the same loop with the same retry budget, so each layer's share of the outcome
is measured instead of assumed. The table below is the one place a layer is named.
"""

from __future__ import annotations

import dataclasses

from agentcli.core.record import record


@record(frozen=True)
class Layers:
    """Which layers a session uses; all on by default."""

    repair: bool = True  # malformed or double-encoded JSON, wrapped arguments, dialect fixes
    names: bool = True  # forgiving tool names: functions.read_file, READ_FILE, read-file
    coercion: bool = True  # argument values coerced to the schema's types ("3" -> 3)
    messages: bool = True  # errors that say what was wrong and how to call again
    fallback: bool = True  # calls read from text forms the plan did not ask for; native -> emulation; style ladder
    repeat_guard: bool = True  # identical calls noted, then refused, then stuck

    def without(self, *names: str) -> Layers:
        unknown = set(names) - set(LAYERS)
        if unknown:
            raise KeyError(f"unknown layer(s) {sorted(unknown)}; known: {', '.join(LAYERS)}")
        return dataclasses.replace(self, **{n: False for n in names})

    @property
    def off(self) -> tuple[str, ...]:
        return tuple(n for n in LAYERS if not getattr(self, n))


# name -> what turning it off leaves the model with (shown by `agent eval` and its docs).
LAYERS: dict[str, str] = {
    "repair": "malformed JSON arguments are refused as unreadable instead of repaired",
    "names": "a tool name must match exactly (no prefix, case or separator fixes)",
    "coercion": "argument values are validated as sent (\"3\" is not an integer)",
    "messages": "errors only say that the call was invalid, not what was wrong or how to fix it",
    "fallback": "calls are read only from the form the plan asked for; no switch to emulation or to another style",
    "repeat_guard": "identical repeated calls keep running",
}

ALL_ON = Layers()
ALL_OFF = Layers().without(*LAYERS)


def variants(names: tuple[str, ...] | None = None) -> dict[str, Layers]:
    """Label -> Layers: "on", one "no-<layer>" per layer (all when `names` is None), and "off"."""
    picked = tuple(LAYERS) if names is None else names
    return {"on": ALL_ON, **{f"no-{n}": ALL_ON.without(n) for n in picked}, "off": ALL_OFF}
