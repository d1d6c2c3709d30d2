"""The Provider interface and the request/stream loop every HTTP protocol shares.

A protocol module only says where to POST, which headers carry the key, how its
stream is framed and where its in-band errors hide; sending, retrying, stream
assembly and error mapping happen here, once.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from agentcli import __version__
from agentcli.config.providers import default_api_key_env
from agentcli.config.providers import default_url as default_base_url
from agentcli.core import jsonsafe
from agentcli.core.errors import ProviderError
from agentcli.core.errors import ProviderErrorCode as Code
from agentcli.core.record import record
from agentcli.core.redaction import header_secrets, mark_secret_values
from agentcli.providers._http import (
    DEFAULT_CONTEXT_ADVICE,
    RetryPolicy,
    Sleep,
    Target,
    dropped_before_reply,
    error_from_exception,
    error_from_inband,
    error_from_status,
    first_turn_overflow_hint,
    hint_for,
    overtime,
    run_with_retries,
    summarize_body,
    trim,
    unreadable,
)
from agentcli.providers.transforms import apply_overrides, check_overrides, pipeline

if TYPE_CHECKING:
    import logging

    import httpx  # imported where a request is made: offline commands never load it

    from agentcli.config.schema import Profile
    from agentcli.core.types import Message, ParsedResponse, Tool
    from agentcli.providers._body import Body, Budget
    from agentcli.wire.types import ParseContext, RequestSettings, WirePlan

OnEvent = Callable[[Any], None]
Chunk = tuple[dict[str, Any] | None, bool]  # (chunk to feed the assembler, the API said the message ended)

USER_AGENT = f"agentcli/{__version__}"
# A hosted API's context is what it is: only sending less helps.
HOSTED_CONTEXT_ADVICE = ("send less: a shorter system_prompt, fewer tools (tools.max_tier, tools.deny), "
                         "or pick a model with a larger context window")

# AGENTCLI_DEBUG=1 attaches a private, scrubbing file handler (agentcli.cli.logging_setup).
def _log() -> logging.Logger:
    """The HTTP log, loaded with the first request (a command that sends none never imports logging)."""
    import logging

    return logging.getLogger("agentcli.http")
_FORCED_FAILURES = (400, 422, 500)  # statuses a server answers a tool_choice it cannot honour with


def _body_bytes(body: Any) -> int:
    return len(jsonsafe.dumps(body, ensure_ascii=False, default=str).encode())


_JSON = {"Content-Type": "application/json"}  # bodies are encoded by jsonsafe.body (any string survives)


def resolve_key(profile: Profile, provider: str, url: str, api_key: str | None) -> tuple[str | None, str | None]:
    """(key, variable name). A key is required when the profile names a variable or the URL is the hosted default."""
    default_url, default_env = default_base_url(provider) or "", default_api_key_env(provider)
    if profile.api_key_env == "":  # the profile says: send no key (a local server)
        return api_key, None
    env = profile.api_key_env or default_env
    if api_key is not None:
        return api_key, env
    value = os.environ.get(env) if env else None
    if value:
        return value, env
    required = profile.api_key_env is not None or (default_env is not None and url == default_url.rstrip("/"))
    if required and env:
        raise ProviderError(
            Code.AUTH,
            f"no API key for {provider}: ${env} is not set",
            url=url,
            model=profile.model,
            hint=f"export {env}=<your key> (profiles name the variable, never the key itself)",
        )
    return None, env


class _Dropped(Exception):
    """A request whose connection closed before any byte of its reply (carries the error to raise)."""

    def __init__(self, error: ProviderError) -> None:
        super().__init__(error.message)
        self.error = error


@record
class _Attempt:
    emitted: bool = False  # stream events went out (a retry must tell the UI to drop them)
    headers_in: bool = False  # the server had begun to answer


def _deadline(seconds: float) -> Any:
    """asyncio.timeout, imported when a request is made (creating a provider must stay cheap)."""
    import asyncio

    return asyncio.timeout(seconds)


@record(frozen=True)
class ReplyCall:
    """A native tool call in a reply the scripted provider writes (the API's own form numbers its ids)."""

    name: str
    args: dict[str, Any]
    raw: str  # the argument text exactly as written (may be broken JSON)


class Provider:
    """One model endpoint. The agent loop calls `complete`; `agent doctor` calls `list_models`/`model_info`."""

    name: str = ""  # "": the profile's provider (one class speaks its API shape for every row of that shape)
    api: str = "openai"
    start_hint: str = ""  # said when the server cannot be reached
    url_shape: str = ""  # how a base URL for this API looks, said when a request finds nothing there
    context_advice: str = DEFAULT_CONTEXT_ADVICE  # what makes room when the very first prompt overflows
    stream_format: str = "sse"  # sse | ndjson

    def __init__(
        self,
        profile: Profile,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        api_key: str | None = None,
        sleep: Sleep | None = None,
    ) -> None:
        self.profile = profile
        self.name = type(self).name or profile.provider
        self.url = (profile.url or default_base_url(self.name) or "").rstrip("/")
        self._key, self.key_env = resolve_key(profile, self.name, self.url, api_key)
        if self._key:  # scrubbed everywhere from now on, even when it came from no variable
            mark_secret_values(self._key)
        self._transport = transport
        self._client: httpx.AsyncClient | None = None
        self.policy = RetryPolicy.from_limits(profile.limits, sleep)
        self.pipeline = pipeline(profile.transforms)
        self._unstreamed: set[str] = set()  # stream URLs that failed before a byte: asked whole from then on

    # -- what a protocol module fills in -------------------------------------------------

    @staticmethod
    def reply_body(text: str) -> dict[str, Any]:
        """A plain assistant-text reply in this API's shape (what its server answers)."""
        raise NotImplementedError

    @staticmethod
    def reply(text: str, calls: list[ReplyCall], usage: tuple[int, int]) -> dict[str, Any]:
        """A reply in this API's shape with native tool calls and (input, output) token usage."""
        raise NotImplementedError

    raw_arguments = False  # native call arguments are JSON text here, so broken JSON can go out natively

    @staticmethod
    def reply_chunks(body: dict[str, Any], size: int) -> list[dict[str, Any]]:
        """The stream chunks this API's server sends for reply `body`, text and arguments cut in
        pieces of `size` characters the way real servers split them (framing is not included)."""
        raise NotImplementedError

    def auth_headers(self) -> dict[str, str]:
        return {}

    def endpoint(self, settings: RequestSettings) -> str:
        raise NotImplementedError

    def adjust_body(self, body: dict[str, Any], settings: RequestSettings) -> dict[str, Any]:
        """Protocol rules the wire body may not know (stream flags, required fields)."""
        return body

    @staticmethod
    def refine_error(status: int, detail: str) -> Code | None:
        """A sharper code from an error body (tools unsupported, model missing); None keeps the status's."""
        return None

    def stream_item(self, event: str, data: dict[str, Any] | str) -> Chunk:
        """One decoded stream item -> (chunk for the assembler, ended); raise ProviderError on in-band errors."""
        raise NotImplementedError

    def body_error(self, body: dict[str, Any]) -> Any:
        """An error object hidden in a 200 body, or None."""
        return body.get("error") if isinstance(body, dict) else None

    # -- shared machinery -----------------------------------------------------------------

    def target(self, model: str | None = None) -> Target:
        secrets = ((self._key,) if self._key else ()) + tuple(header_secrets(self.profile.headers))
        return Target(self.name, self.url, model or self.profile.model, self.key_env, self.start_hint, secrets,
                      url_shape=self.url_shape, context_advice=self.context_advice)

    @property
    def credential_headers(self) -> frozenset[str]:
        """Header names whose values are secrets: the known ones, this protocol's auth headers, the profile's own."""
        from agentcli.providers._credentials import secret_names

        return secret_names(self.auth_headers(), self.profile.headers)

    @property
    def client(self) -> httpx.AsyncClient:
        if self._client is None:
            import httpx

            from agentcli.providers._body import ACCEPT_ENCODING
            from agentcli.providers._credentials import origin_guard

            limits = self.profile.limits
            # Only the codings _body decodes: httpx would also offer br/zstd when their packages happen to be installed.
            headers = {"user-agent": USER_AGENT, "accept-encoding": ACCEPT_ENCODING, **self.profile.headers,
                       **self.auth_headers()}
            self._client = httpx.AsyncClient(
                transport=self._transport,
                headers=headers,
                timeout=httpx.Timeout(limits.request_timeout, connect=limits.connect_timeout),
                follow_redirects=True,
                event_hooks={"request": [origin_guard(self.url, self.credential_headers)]},
            )
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    def prepare(
        self, messages: list[Message], tools: list[Tool], plan: WirePlan, settings: RequestSettings
    ) -> dict[str, Any]:
        """The body to send: wire body -> request transforms -> [request] overrides -> protocol rules."""
        from agentcli import wire

        check_overrides({**self.profile.request, **settings.overrides})  # a clear profile error before wire sees them
        body = wire.build_request(plan, messages, tools, settings)  # merges settings.overrides
        if self.profile.request:
            body = apply_overrides(body, self.profile.request)
        body = self.pipeline.on_request(body)
        return self.adjust_body(body, settings)

    async def complete(
        self,
        messages: list[Message],
        tools: list[Tool],
        plan: WirePlan,
        settings: RequestSettings,
        ctx: ParseContext,
        on_event: OnEvent | None = None,
    ) -> ParsedResponse:
        """One assistant turn; streams when settings.stream (and this endpoint streams), retrying per the policy."""
        body = self.prepare(messages, tools, plan, settings)
        target = self.target(settings.model)
        url = self.endpoint(settings)
        if settings.stream and url in self._unstreamed:  # this endpoint failed streams before: ask it whole
            url, body = self.unstreamed(body, settings)
            settings = replace(settings, stream=False)
        if _log().isEnabledFor(10):  # logging.DEBUG
            from agentcli.providers._credentials import masked

            _log().debug("request POST %s model=%s stream=%s body_bytes=%d headers=%s", url, settings.model,
                      settings.stream, _body_bytes(body), masked(self.client.headers, self.credential_headers),
                      extra={"secrets": target.secrets})
        try:
            if not settings.stream:
                return await run_with_retries(
                    lambda: self._forced(self._post(url, body, plan, ctx, target), body), self.policy, target, on_event)
            state = _Attempt()
            emit = on_event or (lambda _e: None)
            return await run_with_retries(
                lambda: self._forced(self._stream(url, body, settings, plan, ctx, target, emit, state), body),
                self.policy, target, on_event, partial_output=lambda: state.emitted,
            )
        except ProviderError as err:
            if err.code is Code.CONTEXT_LENGTH and not any(m.role == "assistant" for m in messages):
                err.hint = first_turn_overflow_hint(target)  # nothing to drop yet: the prompt itself is too big
            raise

    def forces_call(self, body: dict[str, Any]) -> bool:
        """The body forces some tool call (OpenAI's tool_choice "required")."""
        return False

    async def _forced(self, attempt: Awaitable[ParsedResponse], body: dict[str, Any]) -> ParsedResponse:
        """A request forcing a call that the server fails (vLLM refuses it; llama-cpp-python's
        chatml-function-calling answers an empty HTTP 500) is not retried: the session learns that
        forcing does not work here and asks again with "auto"."""
        try:
            return await attempt
        except ProviderError as err:
            if err.status in _FORCED_FAILURES and err.code in (Code.BAD_REQUEST, Code.SERVER) and self.forces_call(body):
                err.code, err.retryable = Code.TOOL_CHOICE_UNSUPPORTED, False
                err.hint = hint_for(Code.TOOL_CHOICE_UNSUPPORTED, self.target(err.model or None))
            raise

    async def _fetch(self, method: str, url: str, target: Target, json_body: Any = None, *,
                     again_if_dropped: bool = False) -> Body:
        """One request whose whole reply is read here: within request_timeout and the byte budget, decoded once.

        Every path that reads a whole body (replies, error bodies, doctor's probes) comes through here.
        `again_if_dropped`: a connection closed before any byte of the reply is tried once more on a
        new one (the fallback after a failed stream: the pool may hand back the connection that stream
        left, which the server has closed).
        """
        try:
            return await self._fetch_once(method, url, target, json_body)
        except _Dropped as dropped:
            if not again_if_dropped:
                raise dropped.error from None
            _log().debug("%s %s: the connection was closed before a reply (%s); once more on a new one",
                      method, url, dropped.error.message, extra={"secrets": target.secrets})
        try:
            return await self._fetch_once(method, url, target, json_body)
        except _Dropped as dropped:
            raise dropped.error from None

    async def _fetch_once(self, method: str, url: str, target: Target, json_body: Any) -> Body:
        import httpx

        from agentcli.providers._body import Budget, read_whole
        from agentcli.providers._sse import BadChunk, ResponseTooLarge, ResponseTooSlow, too_much

        t0 = time.monotonic()
        limits = self.profile.limits
        content = None if json_body is None else jsonsafe.body(json_body)
        state = _Attempt()
        try:
            async with _deadline(limits.request_timeout), self.client.stream(
                method, url, content=content, headers=None if json_body is None else _JSON
            ) as resp:
                state.headers_in = True
                reply = await read_whole(resp, Budget(limits.max_response_bytes, limits.max_response_seconds))
        except (ResponseTooLarge, ResponseTooSlow) as exc:
            raise too_much(exc, target) from None
        except BadChunk as exc:  # a body that does not decode: asking again gets the same bytes
            raise unreadable(exc, target) from None
        except TimeoutError:  # the whole-request bound
            raise overtime(target, limits.request_timeout, mid_stream=state.headers_in) from None
        except httpx.HTTPError as exc:
            _log().debug("%s %s failed after %.0f ms: %s", method, url, (time.monotonic() - t0) * 1000,
                      type(exc).__name__, extra={"secrets": target.secrets})
            error = error_from_exception(exc, target, timeout=limits.request_timeout)
            if not state.headers_in and dropped_before_reply(exc):
                raise _Dropped(error) from None
            raise error from None
        _log().debug("response %s %s status=%d bytes=%d %.0f ms", method, url, reply.status, len(reply.content),
                  (time.monotonic() - t0) * 1000, extra={"secrets": target.secrets})
        return reply

    async def _post(self, url: str, body: dict[str, Any], plan: WirePlan, ctx: ParseContext, target: Target,
                    *, again_if_dropped: bool = False) -> ParsedResponse:
        reply = await self._fetch("POST", url, target, body, again_if_dropped=again_if_dropped)
        return self._parse_whole(reply, plan, ctx, target)

    def _parse_whole(self, reply: Body, plan: WirePlan, ctx: ParseContext, target: Target) -> ParsedResponse:
        """A whole (non-streamed) JSON reply -> ParsedResponse; errors in it raise."""
        from agentcli import wire

        data = self._json_or_raise(reply, target)
        if (err := self.body_error(data)) is not None:
            raise error_from_inband(err, target, self.refine_error)
        return wire.parse_response(plan, self.pipeline.on_response(data), ctx)

    def unstreamed(self, body: dict[str, Any], settings: RequestSettings) -> tuple[str, dict[str, Any]]:
        """The same request without streaming: (url, body).

        Used when a stream fails before its first byte or answers HTTP 200 with no data at all:
        llama-cpp-python does both when the prompt overflows the context (or a forced tool_choice
        fails), and only the non-streamed request says why.
        """
        plain = replace(settings, stream=False)
        return self.endpoint(plain), self.adjust_body(dict(body), plain)

    async def _ask_whole(
        self, body: dict[str, Any], settings: RequestSettings, plan: WirePlan, ctx: ParseContext,
        target: Target, emit: OnEvent, why: str,
    ) -> ParsedResponse:
        """Ask once without streaming, to get the answer or the real cause; remembered for this endpoint
        once the server has answered that way (a fallback costs a request every turn otherwise)."""
        stream_url = self.endpoint(settings)
        url, plain = self.unstreamed(body, settings)
        _log().debug("%s from %s; asking again without streaming", why, stream_url, extra={"secrets": target.secrets})
        try:
            parsed = await self._post(url, plain, plan, ctx, target, again_if_dropped=True)
        except ProviderError as err:
            if err.status is not None:  # the server answers whole requests: it is its streams that fail
                self._remember_unstreamed(stream_url, why, emit)
            raise
        self._remember_unstreamed(stream_url, why, emit)
        return parsed

    def _remember_unstreamed(self, url: str, why: str, emit: OnEvent) -> None:
        if url not in self._unstreamed:
            self._unstreamed.add(url)
            from agentcli.core.events import Notice

            emit(Notice("warning", f"{why}; asking this server without streaming from now on", code="stream_off"))

    def _json_or_raise(self, reply: Body, target: Target) -> dict[str, Any]:
        if reply.status >= 400:
            _log().debug("error body (%d): %s", reply.status, trim(reply.text), extra={"secrets": target.secrets})
            raise error_from_status(reply.status, reply.text, reply.headers, target, self.refine_error)
        try:
            data = jsonsafe.loads(reply.content)
        except ValueError:
            data = None
        if not isinstance(data, dict):
            raise ProviderError(
                Code.SERVER,
                f"{target.url} answered HTTP {reply.status} with a body that is not a JSON object: "
                f"{summarize_body(reply.text, reply.media_type, 120)!r}",
                url=target.url, model=target.model, status=reply.status, retryable=True,
                hint=hint_for(Code.NOT_FOUND, target),
            )
        return data

    async def _stream(
        self, url: str, body: dict[str, Any], settings: RequestSettings, plan: WirePlan, ctx: ParseContext,
        target: Target, emit: OnEvent, state: _Attempt,
    ) -> ParsedResponse:
        """One streamed attempt, bounded as a whole by request_timeout (a stream that never ends, or
        trickles, ends at that bound); a stream that fails before its first byte, or sends nothing,
        is asked once whole."""
        limits = self.profile.limits
        state.emitted = state.headers_in = False
        try:
            async with _deadline(limits.request_timeout):
                outcome = await self._stream_once(url, body, plan, ctx, target, emit, state)
        except TimeoutError:  # the whole-request bound (stalls and slow connects were mapped inside)
            raise overtime(target, limits.request_timeout, mid_stream=state.headers_in) from None
        if isinstance(outcome, str):
            return await self._ask_whole(body, settings, plan, ctx, target, emit, outcome)
        return outcome

    async def _stream_once(
        self, url: str, body: dict[str, Any], plan: WirePlan, ctx: ParseContext,
        target: Target, emit: OnEvent, state: _Attempt,
    ) -> ParsedResponse | str:
        """The parsed reply, or why it must be asked whole (a string) when the stream gave no byte."""
        import httpx

        from agentcli import wire
        from agentcli.providers._body import Budget, read_whole
        from agentcli.providers._sse import BadChunk, ResponseTooLarge, ResponseTooSlow, StreamStalled, too_much

        assembler = wire.new_stream(plan, ctx)  # fresh per attempt: a retried turn never half-applies
        ended = got_items = False
        t0 = time.monotonic()
        limits = self.profile.limits
        budget = Budget(limits.max_response_bytes, limits.max_response_seconds)
        try:
            async with self.client.stream("POST", url, content=jsonsafe.body(body), headers=_JSON) as resp:
                _log().debug("response POST %s status=%d (stream) %.0f ms to headers", url, resp.status_code,
                          (time.monotonic() - t0) * 1000, extra={"secrets": target.secrets})
                if resp.status_code >= 400:
                    reply = await read_whole(resp, budget)
                    _log().debug("error body (%d): %s", reply.status, trim(reply.text), extra={"secrets": target.secrets})
                    raise error_from_status(reply.status, reply.text, reply.headers, target, self.refine_error)
                state.headers_in = True
                if _media_type(resp) == "application/json":  # a whole body though a stream was asked for
                    return self._parse_whole(await read_whole(resp, budget), plan, ctx, target)
                async with contextlib.aclosing(self._items(resp, budget)) as items:
                    async for chunk, end in items:
                        got_items = True
                        if chunk is not None:
                            for event in assembler.feed(self.pipeline.on_chunk(chunk)):
                                state.emitted = True
                                emit(event)
                        if end:
                            ended = True
                            break
        except ProviderError:
            raise
        except (ResponseTooLarge, ResponseTooSlow) as exc:
            raise too_much(exc, target) from None
        except (httpx.HTTPError, StreamStalled, BadChunk) as exc:
            _log().debug("stream from %s failed after %.0f ms: %s", url, (time.monotonic() - t0) * 1000,
                      type(exc).__name__, extra={"secrets": target.secrets})
            if not got_items and dropped_before_reply(exc):  # closed before any of the reply: no network fault
                return "the server closed the stream before its first byte"
            timeout = limits.stream_idle_timeout if isinstance(exc, StreamStalled) else limits.request_timeout
            raise error_from_exception(exc, target, mid_stream=state.headers_in, timeout=timeout) from None
        if not got_items:
            return "the server answered HTTP 200 with an empty stream"
        if not (ended or getattr(assembler, "complete", False)):
            raise ProviderError(
                Code.STREAM_BROKEN,
                f"the stream from {target.url} ended before the message was complete",
                url=target.url, model=target.model, retryable=True, hint=hint_for(Code.STREAM_BROKEN, target),
            )
        events, parsed = assembler.finish()
        _log().debug("stream from %s done in %.0f ms: %d chars of text, %d tool call(s)", url,
                  (time.monotonic() - t0) * 1000, len(parsed.text or ""), len(parsed.tool_calls),
                  extra={"secrets": target.secrets})
        for event in events:
            emit(event)
        return parsed

    async def _items(self, resp: httpx.Response, budget: Budget) -> AsyncGenerator[Chunk, None]:
        from agentcli.providers._body import decoded_text
        from agentcli.providers._sse import idle_lines, ndjson_objects, split_lines, sse_events

        limits = self.profile.limits
        lines = idle_lines(split_lines(decoded_text(resp, budget)), limits.stream_idle_timeout)
        if self.stream_format == "ndjson":
            async for obj in ndjson_objects(lines):
                yield self.stream_item("", obj)
            return
        async for ev in sse_events(lines):
            if ev.event == "ping":
                continue
            yield self.stream_item(ev.event, ev.data)

    # -- discovery (agent doctor) -------------------------------------------------------------

    async def _get_json(self, path: str, *, method: str = "GET", json_body: Any = None) -> dict[str, Any]:
        target = self.target()

        async def once() -> dict[str, Any]:
            return self._json_or_raise(await self._fetch(method, f"{self.url}{path}", target, json_body), target)

        return await run_with_retries(once, self.policy, target)

    async def list_models(self) -> list[str]:
        """Model ids the server offers."""
        raise NotImplementedError

    async def model_info(self, model: str) -> dict[str, Any] | None:
        """What the server says about one model (capabilities), where the API has such a call."""
        return None

    def __repr__(self) -> str:  # never shows the key
        return f"<{type(self).__name__} {self.url} model={self.profile.model!r}>"


def _media_type(resp: httpx.Response) -> str:
    return resp.headers.get("content-type", "").split(";")[0].strip().lower()


def sse_json(data: dict[str, Any] | str) -> dict[str, Any]:
    """Decode an SSE data field (protocol modules call this in stream_item)."""
    from agentcli.providers._sse import decode_json

    return data if isinstance(data, dict) else decode_json(data)


def pieces(text: str, size: int) -> list[str]:
    """`text` in slices of `size` characters (at least one slice for a non-empty text)."""
    size = max(1, size)
    return [text[i : i + size] for i in range(0, len(text), size)]
