"""The scripted provider: replays assistant turns from a file or a function, no network.

It powers offline runs, demos, tests and `agent eval`. Turns go through the same wire
parsers and stream assemblers as live ones, faults through the same retry policy:

    {"api": "openai", "turns": [
        {"openai": {...chat.completion body...}},
        {"text": "<tool_call>{...}</tool_call>"},      # raw assistant text
        {"fault": {"status": 429, "retry_after": 1}},  # an HTTP error
        {"fault": "reset"}                             # a dropped connection
    ]}

Each API's reply bodies and stream chunks come from the provider class that speaks it
(`reply_body`, `reply`, `reply_chunks`), so a scripted turn is exactly what that API's server sends.
The package also holds the scripted model that writes turns from the conversation (`model`,
`writers`) and the built-in models a profile names as `builtin:NAME` (`builtin`, `demo_model`,
the offline profile's demo): they are part of a real offline provider, not test doubles.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentcli.config.providers import api_kinds
from agentcli.core import jsonsafe
from agentcli.core.errors import ConfigError, ProviderError
from agentcli.core.errors import ProviderErrorCode as Code
from agentcli.core.record import record
from agentcli.providers._http import error_from_status, hint_for, run_with_retries
from agentcli.providers.base import Provider, _Attempt

if TYPE_CHECKING:
    from agentcli.config.schema import Profile
    from agentcli.core.types import Message, ParsedResponse, Tool
    from agentcli.wire.types import ParseContext, RequestSettings, WirePlan

Turn = dict[str, Any]
TurnFn = Callable[[list["Message"], list["Tool"], "WirePlan"], Turn]

API_KINDS = api_kinds()  # every API shape some provider speaks
TURN_KINDS = (*API_KINDS, "text", "fault")
FAULTS = ("reset", "cut")  # string faults; a dict fault is an HTTP error


@record
class ScriptedRequest:
    """What the provider was asked for one attempt (a retried turn records a second request)."""

    messages: list[Message]
    tools: list[Tool]
    plan: WirePlan
    settings: RequestSettings


def check_turn(turn: Any, where: str = "turn") -> Turn:
    """A turn is a dict with exactly one known key."""
    if not isinstance(turn, dict) or len(turn) != 1 or next(iter(turn)) not in TURN_KINDS:
        raise ValueError(f"{where}: expected one of {', '.join(TURN_KINDS)} as the only key, got {turn!r:.120}")
    kind, value = next(iter(turn.items()))
    if kind == "fault" and not (value in FAULTS or (isinstance(value, dict) and isinstance(value.get("status"), int))):
        raise ValueError(f"{where}: fault must be {' or '.join(map(repr, FAULTS))} or {{\"status\": int, ...}}")
    if kind == "text" and not isinstance(value, str):
        raise ValueError(f"{where}: text must be a string")
    if kind in API_KINDS and not isinstance(value, dict):
        raise ValueError(f"{where}: {kind} must be a response body object")
    return turn


def load_script(path: Path) -> tuple[str, list[Turn]]:
    """(api, turns) from a script file; problems are ConfigErrors naming the file."""
    try:
        data = jsonsafe.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read script: {exc.strerror}", file=str(path), key="script") from None
    except ValueError as exc:
        raise ConfigError(f"script is not valid JSON: {exc}", file=str(path), key="script") from None
    if isinstance(data, list):
        data = {"turns": data}
    if not isinstance(data, dict) or not isinstance(data.get("turns"), list):
        raise ConfigError('script must be {"api": ..., "turns": [...]}', file=str(path), key="script")
    api = data.get("api", "openai")
    if api not in API_KINDS:
        raise ConfigError(f"script api {api!r} is not one of {', '.join(API_KINDS)}", file=str(path), key="script")
    try:
        turns = [check_turn(t, f"turn {i + 1}") for i, t in enumerate(data["turns"])]
    except ValueError as exc:
        raise ConfigError(str(exc), file=str(path), key="script") from None
    return api, turns


def _default_profile(api: str) -> Profile:
    from agentcli.config.schema import Profile

    return Profile(name="scripted", provider="scripted", model=f"scripted-{api}")


class ScriptedProvider(Provider):
    """Replays turns; `.requests` records every request, `assert_complete()` checks none are left."""

    name = "scripted"
    api = "openai"

    def __init__(
        self,
        profile: Profile | None = None,
        *,
        transport: Any = None,
        api_key: str | None = None,
        sleep: Any = None,
        turns: list[Turn] | None = None,
        fn: TurnFn | None = None,
        api: str | None = None,
        chunk_size: int = 6,
    ) -> None:
        profile = profile or _default_profile(api or "openai")
        super().__init__(profile, api_key=api_key, sleep=sleep)
        self.chunk_size = chunk_size
        self._fn = fn
        self.requests: list[ScriptedRequest] = []
        if turns is None and fn is None:
            if not profile.script:
                raise ConfigError("the scripted provider needs `script` (a file of turns)", profile=profile.name, key="script")
            if profile.script.startswith("builtin:"):  # a named built-in model (the offline profile's demo)
                from agentcli.providers.scripted.builtin import load_builtin

                try:
                    file_api, self._fn = load_builtin(profile.script)
                except KeyError as exc:
                    raise ConfigError(str(exc.args[0]), profile=profile.name, key="script") from None
                api = api or file_api
                self.url = "scripted://" + profile.script.replace(":", "/", 1)
            else:
                path = Path(profile.script).expanduser()
                if not path.is_absolute() and profile.source is not None:
                    path = Path(profile.source).parent / path
                file_api, turns = load_script(path)
                api = api or file_api
                self.url = f"scripted://{path.name}"
        else:
            self.url = "scripted://inline" if fn is None else "scripted://function"
        self._turns = [check_turn(t, f"turn {i + 1}") for i, t in enumerate(turns or [])]
        self._played = 0
        self.api = api or "openai"

    @classmethod
    def from_turns(cls, turns: list[Turn], *, api: str = "openai", profile: Profile | None = None, **kw: Any) -> ScriptedProvider:
        return cls(profile, turns=list(turns), api=api, **kw)

    @classmethod
    def from_function(cls, fn: TurnFn, *, api: str = "openai", profile: Profile | None = None, **kw: Any) -> ScriptedProvider:
        """fn(messages, tools, plan) -> turn, called once per request (unbounded)."""
        return cls(profile, fn=fn, api=api, **kw)

    @property
    def remaining(self) -> int:
        return 0 if self._fn is not None else len(self._turns) - self._played

    def assert_complete(self) -> None:
        """Raise AssertionError if scripted turns were never asked for."""
        if self.remaining:
            raise AssertionError(f"scripted provider: {self.remaining} of {len(self._turns)} turns were never played")

    async def complete(
        self,
        messages: list[Message],
        tools: list[Tool],
        plan: WirePlan,
        settings: RequestSettings,
        ctx: ParseContext,
        on_event: Callable[[Any], None] | None = None,
    ) -> ParsedResponse:
        state = _Attempt()
        emit = on_event or (lambda _e: None)
        target = self.target(settings.model)

        async def attempt() -> ParsedResponse:
            self.requests.append(ScriptedRequest(list(messages), list(tools), plan, settings))
            state.emitted = False
            return self._play(self._next(messages, tools, plan), plan, settings, ctx, emit, state)

        return await run_with_retries(attempt, self.policy, target, on_event, partial_output=lambda: state.emitted)

    def _next(self, messages: list[Message], tools: list[Tool], plan: WirePlan) -> Turn:
        if self._fn is not None:
            return check_turn(self._fn(messages, tools, plan), "function turn")
        if self._played >= len(self._turns):
            raise ProviderError(
                Code.SERVER,
                f"scripted provider ran out of turns after {len(self._turns)}",
                url=self.url, model=self.profile.model, retryable=False,
                hint="the run asked for more model turns than the script holds; add turns or lower limits.max_turns",
            )
        turn = self._turns[self._played]
        self._played += 1
        return turn

    def _play(
        self, turn: Turn, plan: WirePlan, settings: RequestSettings, ctx: ParseContext,
        emit: Callable[[Any], None], state: _Attempt,
    ) -> ParsedResponse:
        from agentcli import wire
        from agentcli.providers import SPEAKERS, speaker

        kind, value = next(iter(turn.items()))
        target = self.target(settings.model)
        if kind == "fault":
            if value == "reset":
                raise ProviderError(Code.NETWORK, f"connection reset: {self.url}", url=self.url, model=target.model,
                                    retryable=True, hint=hint_for(Code.NETWORK, target))
            if value == "cut":
                raise ProviderError(Code.STREAM_BROKEN, f"the stream from {self.url} broke off", url=self.url,
                                    model=target.model, retryable=True, hint=hint_for(Code.STREAM_BROKEN, target))
            headers = {k: str(value[k2]) for k, k2 in (("retry-after", "retry_after"), ("retry-after-ms", "retry_after_ms")) if k2 in value}
            headers.update(value.get("headers") or {})
            body = value.get("body", "")
            text = body if isinstance(body, str) else json.dumps(body)
            refine = speaker(self.api).refine_error
            raise error_from_status(value["status"], text, headers, target, refine)
        if kind == "text":
            api = plan.api if plan.api in SPEAKERS else self.api
            body = speaker(api).reply_body(value)
        else:
            api, body = kind, copy.deepcopy(value)
        wplan = plan if plan.api == api else dataclasses.replace(plan, api=api)
        if not settings.stream:
            return wire.parse_response(wplan, self.pipeline.on_response(body), ctx)
        assembler = wire.new_stream(wplan, ctx)
        for chunk in speaker(api).reply_chunks(body, self.chunk_size):
            for event in assembler.feed(self.pipeline.on_chunk(chunk)):
                state.emitted = True
                emit(event)
        events, parsed = assembler.finish()
        for event in events:
            emit(event)
        return parsed

    async def list_models(self) -> list[str]:
        return [self.profile.model]

    async def aclose(self) -> None:
        return None
