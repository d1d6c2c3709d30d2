"""The noisy scripted model: a well-behaved policy plus the mistakes real models make.

`FAULTS` is the table of mistakes (each turns one intended call into what a sloppy model
writes). A scenario can ask for one on purpose; `NoiseConfig` injects them at random, with a
seeded RNG so a run is reproducible. After a mistake the policy sees the error in the
conversation and sends the clean call, as a good model would.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from agentcli.providers.scripted.model import NEUTRAL, Call, Policy, read_view
from agentcli.providers.scripted.writers import Out, write_turn

if TYPE_CHECKING:
    from agentcli.core.types import Message, Tool
    from agentcli.wire.types import WirePlan

Fault = Callable[[Call, "Tool | None", random.Random, str], "Out | None"]

# Key names models use instead of ours (seen across agents: file_path, old_string, cmd, ...).
KEY_ALIASES = {
    "path": "file_path", "content": "text", "command": "cmd", "pattern": "query",
    "old_content": "old_string", "new_content": "new_string", "answer": "result",
}
# Tool names models invent from habits learned elsewhere.
HALLUCINATED = {
    "read_file": "open_file", "write_file": "create_file", "edit_file": "str_replace_editor",
    "list_files": "ls", "search": "grep", "submit": "final_answer", "bash": "execute_command",
}


def _required(tool: Tool | None) -> list[str]:
    return list((tool.parameters.get("required") or ()) if tool else ())


def malformed_json(c: Call, tool: Tool | None, rng: random.Random, leak: str) -> Out | None:
    if not c.args:
        return None
    s = json.dumps(c.args, ensure_ascii=False)
    forms = [s[:-1] + ",}", re.sub(r'"(\w+)":', r"\1:", s), s[:-1]]  # trailing comma, bare keys, unclosed
    if "'" not in s and "\\" not in s:
        forms.append(s.replace('"', "'"))  # Python-style quotes
    return Out(c.name, c.args, raw=rng.choice(forms))


def wrong_key(c: Call, tool: Tool | None, rng: random.Random, leak: str) -> Out | None:
    keys = [k for k in _required(tool) if k in c.args and k in KEY_ALIASES]
    if not keys:
        return None
    k = rng.choice(keys)
    return Out(c.name, {(KEY_ALIASES[k] if key == k else key): v for key, v in c.args.items()})


def drop_required(c: Call, tool: Tool | None, rng: random.Random, leak: str) -> Out | None:
    keys = [k for k in _required(tool) if k in c.args]
    if not keys:
        return None
    k = rng.choice(keys)
    return Out(c.name, {key: v for key, v in c.args.items() if key != k})


def wrong_type(c: Call, tool: Tool | None, rng: random.Random, leak: str) -> Out | None:
    """Numbers and booleans sent as strings; with none in the call, an optional one spelled out ("1")."""
    args = dict(c.args)
    if not any(isinstance(v, (int, float, bool)) for v in args.values()):
        props = (tool.parameters.get("properties") or {}) if tool else {}
        extra = next((k for k in NEUTRAL if k in props and k not in args), None)
        if extra is None:
            return None
        args[extra] = NEUTRAL[extra]
    return Out(c.name, {k: (json.dumps(v) if isinstance(v, (int, float, bool)) else v) for k, v in args.items()})


def text_call(c: Call, tool: Tool | None, rng: random.Random, leak: str) -> Out | None:
    return Out(c.name, c.args, dialect=leak)


def unknown_name(c: Call, tool: Tool | None, rng: random.Random, leak: str) -> Out | None:
    alias = HALLUCINATED.get(c.name)
    return Out(alias, c.args) if alias else None


def name_variant(c: Call, tool: Tool | None, rng: random.Random, leak: str) -> Out | None:
    return Out(rng.choice([f"functions.{c.name}", c.name.upper(), f"default_api.{c.name}"]), c.args)


def wrap_args(c: Call, tool: Tool | None, rng: random.Random, leak: str) -> Out | None:
    props = (tool.parameters.get("properties") or {}) if tool else {}
    return None if "arguments" in props or not c.args else Out(c.name, {"arguments": c.args})


def double_encoded(c: Call, tool: Tool | None, rng: random.Random, leak: str) -> Out | None:
    return Out(c.name, c.args, raw=json.dumps(json.dumps(c.args, ensure_ascii=False))) if c.args else None


FAULTS: dict[str, Fault] = {
    "malformed_json": malformed_json,
    "wrong_key": wrong_key,
    "drop_required": drop_required,
    "wrong_type": wrong_type,
    "text_call": text_call,
    "unknown_name": unknown_name,
    "name_variant": name_variant,
    "wrap_args": wrap_args,
    "double_encoded": double_encoded,
    "repeat": lambda c, tool, rng, leak: None,  # turn-level: handled by the model
}

DEFAULT_WEIGHTS: dict[str, float] = {
    "malformed_json": 2, "wrong_type": 2, "text_call": 2, "wrong_key": 1, "drop_required": 1,
    "unknown_name": 1, "name_variant": 1, "wrap_args": 1, "double_encoded": 1, "repeat": 1,
}


@dataclass(frozen=True, slots=True)
class NoiseConfig:
    """How often the model errs (per turn that makes calls) and which mistakes, by weight."""

    rate: float = 0.3
    weights: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_WEIGHTS))

    def __post_init__(self) -> None:
        unknown = set(self.weights) - set(FAULTS)
        if unknown or not 0.0 <= self.rate <= 1.0:
            raise ValueError(f"bad noise config: rate {self.rate}, unknown faults {sorted(unknown)}")


@lru_cache(maxsize=1)
def _registry() -> Any:
    from agentcli.tools.registry import default_registry

    return default_registry()


def tool_spec(name: str) -> Tool | None:
    t = _registry().get(name)
    return t.spec if t is not None else None


class ScriptedModel:
    """fn(messages, tools, plan) -> turn, for ScriptedProvider.from_function.

    `leak` is the dialect this model slips into when it writes a call as text; `preludes` are
    raw turns (provider faults) served before the first real answer; `rejects_native_tools`
    plays a server that refuses requests carrying native tools (as Ollama and llama.cpp do
    for some models), on the APIs where servers really say so.

    After a mistake the model corrects only what the error told it: an error that does not name
    the right tool, the argument it got wrong or the broken JSON leaves it repeating the mistake."""

    def __init__(
        self, policy: Policy, *, noise: NoiseConfig | None = None, seed: int = 0, leak: str = "hermes",
        preludes: list[dict[str, Any]] | None = None, rejects_native_tools: bool = False,
    ) -> None:
        self.policy = policy
        self.noise = noise
        self.rng = random.Random(seed)
        self.leak = leak
        self.preludes = list(preludes or ())
        self.requests = 0
        self.faults: list[str] = []  # every fault written, in order (for reports and tests)
        self.rejects_native_tools = rejects_native_tools
        self.slip: tuple[str, Call, Out] | None = None  # the last mistake: (fault, meant, written)

    def __call__(self, messages: list[Message], tools: list[Tool], plan: WirePlan) -> dict[str, Any]:
        self.requests += 1
        if self.preludes:
            return self.preludes.pop(0)
        if self.rejects_native_tools and plan.native_tools and tools and plan.api in REJECTS_TOOLS:
            return {"fault": REJECTS_TOOLS[plan.api]}
        view = read_view(messages)
        action = self.policy(view)
        if action.turn is not None:
            return action.turn
        outs = [Out(c.name, dict(c.args), dialect=action.dialect) for c in action.calls]
        if self._repeat_slip(view, action.calls, outs):
            return write_turn(plan, action.text, outs, (_estimate(messages), 0))
        fault = action.fault
        if fault is None and action.noisable and outs and self.noise and self.rng.random() < self.noise.rate:
            fault = self._pick(action.calls, view)
        if fault == "repeat":
            prev = next((e for e in reversed(view.exchanges) if e.calls and not e.model_fault), None)
            if prev is not None:
                outs = [Out(c.name, dict(c.arguments)) for c in prev.calls]
                self.faults.append(fault)
        elif fault:
            i = self.rng.randrange(len(outs))
            bad = FAULTS[fault](action.calls[i], tool_spec(action.calls[i].name), self.rng, self.leak)
            if bad is not None:
                bad.dialect = bad.dialect or outs[i].dialect
                outs[i] = bad
                self.faults.append(fault)
                self.slip = (fault, action.calls[i], bad)
        return write_turn(plan, action.text, outs, (_estimate(messages), 0))

    def _repeat_slip(self, view: Any, calls: list[Call], outs: list[Out]) -> bool:
        """After a refused mistake the error did not explain, write the same mistake again."""
        slip, self.slip = self.slip, None
        last = view.exchanges[-1] if view.exchanges else None
        if slip is None or last is None or not last.model_fault:
            return False
        fault, meant, wrote = slip
        errors = "\n".join(r.content for r in last.results if not r.ok)
        if wrote.name != meant.name:
            errors = errors.replace(wrote.name, "")  # its own wrong name echoed back teaches nothing
        if any(re.search(rf"\b{re.escape(word)}\b", errors) for word in lesson(meant, wrote)):
            return False
        for i, c in enumerate(calls):
            if c.key() == meant.key():
                outs[i] = Out(wrote.name, dict(wrote.args), raw=wrote.raw, dialect=wrote.dialect or outs[i].dialect)
                self.faults.append(fault)
                self.slip = slip
                return True
        return False

    def _pick(self, calls: list[Call], view: Any) -> str | None:
        assert self.noise is not None
        usable = []
        for kind, weight in self.noise.weights.items():
            if weight <= 0:
                continue
            if kind == "repeat":
                ok = any(e.calls and not e.model_fault for e in view.exchanges)
            else:
                ok = any(FAULTS[kind](c, tool_spec(c.name), random.Random(0), self.leak) is not None for c in calls)
            if ok:
                usable.append((kind, weight))
        if not usable:
            return None
        return self.rng.choices([k for k, _ in usable], weights=[w for _, w in usable])[0]


# What a server answers when a request carries native tools the model cannot take (the markers
# the providers recognise: Ollama's 400, llama.cpp without --jinja). Other APIs never refuse tools.
REJECTS_TOOLS: dict[str, dict[str, Any]] = {
    "openai": {"status": 500, "body": {"error": {"message": "tools param requires --jinja flag", "type": "server_error"}}},
    "ollama": {"status": 400, "body": {"error": "registry.ollama.ai/library/model does not support tools"}},
}


def lesson(meant: Call, wrote: Out) -> set[str]:
    """What an error must name for the model to fix this mistake: the right tool, the arguments it
    got wrong, or that the JSON was broken."""
    if wrote.name != meant.name:
        return {meant.name}
    if wrote.raw is not None:
        return {"JSON"}
    wrong = {k for k, v in meant.args.items() if wrote.args.get(k, _MISSING) != v}
    return wrong or {k for k in wrote.args if k not in meant.args}


_MISSING = object()


def _estimate(messages: list[Message]) -> int:
    from agentcli.agent.context import estimate_tokens

    return estimate_tokens(messages)
