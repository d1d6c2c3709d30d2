"""The Provider interface and the request/stream loop every HTTP protocol shares.

A protocol module only says where to POST, which headers carry the key, how its
stream is framed and where its in-band errors hide; sending, retrying, stream
assembly and error mapping happen here, once.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agentcli import __version__
from agentcli.config.providers import default_api_key_env
from agentcli.config.providers import default_url as default_base_url
from agentcli.core import jsonsafe
from agentcli.core.errors import ProviderError
from agentcli.core.errors import ProviderErrorCode as Code
from agentcli.providers._http import (
    RetryPolicy,
    Sleep,
    Target,
    error_from_exception,
    error_from_inband,
    error_from_status,
    hint_for,
    run_with_retries,
    trim,
)
from agentcli.providers._sse import (
    BadChunk,
    ResponseTooLarge,
    ResponseTooSlow,
    StreamStalled,
    bounded_lines,
    decode_json,
    idle_lines,
    ndjson_objects,
    read_body,
    sse_events,
    too_much,
)
from agentcli.providers.transforms import apply_overrides, check_overrides, pipeline

if TYPE_CHECKING:
    import httpx  # imported where a request is made: offline commands never load it

    from agentcli.config.schema import Profile
    from agentcli.core.types import Message, ParsedResponse, Tool
    from agentcli.wire.types import ParseContext, RequestSettings, WirePlan

OnEvent = Callable[[Any], None]
Chunk = tuple[dict[str, Any] | None, bool]  # (chunk to feed the assembler, the API said the message ended)

USER_AGENT = f"agentcli/{__version__}"

# AGENTCLI_DEBUG=1 attaches a private, scrubbing file handler (agentcli.cli.logging_setup).
log = logging.getLogger("agentcli.http")
_FORCED_FAILURES = (400, 422, 500)  # statuses a server answers a tool_choice it cannot honour with
_SECRET_HEADERS = frozenset({"authorization", "proxy-authorization", "x-api-key", "api-key", "x-goog-api-key", "cookie"})


def masked_headers(headers: Any) -> dict[str, str]:
    """Request headers for the debug log: credential-carrying ones masked by name."""
    return {k: ("[REDACTED]" if k.lower() in _SECRET_HEADERS else v) for k, v in headers.items()}


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


@dataclass(slots=True)
class _Attempt:
    emitted: bool = False


class Provider:
    """One model endpoint. The agent loop calls `complete`; `agent doctor` calls `list_models`/`model_info`."""

    name: str = ""
    api: str = "openai"
    start_hint: str = ""  # said when the server cannot be reached
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
        self.url = (profile.url or default_base_url(self.name) or "").rstrip("/")
        self._key, self.key_env = resolve_key(profile, self.name, self.url, api_key)
        self._transport = transport
        self._client: httpx.AsyncClient | None = None
        self.policy = RetryPolicy.from_limits(profile.limits, sleep)
        self.pipeline = pipeline(profile.transforms)

    # -- what a protocol module fills in -------------------------------------------------

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
        return Target(
            self.name, self.url, model or self.profile.model, self.key_env, self.start_hint,
            (self._key,) if self._key else (),
        )

    @property
    def client(self) -> httpx.AsyncClient:
        if self._client is None:
            import httpx

            limits = self.profile.limits
            headers = {"user-agent": USER_AGENT, **self.profile.headers, **self.auth_headers()}
            self._client = httpx.AsyncClient(
                transport=self._transport,
                headers=headers,
                timeout=httpx.Timeout(limits.request_timeout, connect=limits.connect_timeout),
                follow_redirects=True,
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
        """One assistant turn; streams when settings.stream, retrying per the policy."""
        body = self.prepare(messages, tools, plan, settings)
        target = self.target(settings.model)
        url = self.endpoint(settings)
        if log.isEnabledFor(logging.DEBUG):
            log.debug("request POST %s model=%s stream=%s body_bytes=%d headers=%s", url, settings.model,
                      settings.stream, _body_bytes(body), masked_headers(self.client.headers),
                      extra={"secrets": target.secrets})
        if not settings.stream:
            return await run_with_retries(
                lambda: self._forced(self._post(url, body, plan, ctx, target), body), self.policy, target, on_event)
        state = _Attempt()
        emit = on_event or (lambda _e: None)
        return await run_with_retries(
            lambda: self._forced(self._stream(url, body, plan, ctx, target, emit, state), body),
            self.policy, target, on_event, partial_output=lambda: state.emitted,
        )

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

    async def _post(self, url: str, body: dict[str, Any], plan: WirePlan, ctx: ParseContext, target: Target) -> ParsedResponse:
        import httpx

        t0 = time.monotonic()
        limits = self.profile.limits
        try:
            async with self.client.stream("POST", url, content=jsonsafe.body(body), headers=_JSON) as streamed:
                content = await read_body(streamed.aiter_bytes(), max_bytes=limits.max_response_bytes,
                                          max_seconds=limits.max_response_seconds)
                resp = httpx.Response(streamed.status_code, headers=streamed.headers, content=content,
                                      request=streamed.request)
        except (ResponseTooLarge, ResponseTooSlow) as exc:
            raise too_much(exc, target) from None
        except httpx.HTTPError as exc:
            log.debug("POST %s failed after %.0f ms: %s", url, (time.monotonic() - t0) * 1000, type(exc).__name__,
                      extra={"secrets": target.secrets})
            raise error_from_exception(exc, target, timeout=self.profile.limits.request_timeout) from None
        log.debug("response POST %s status=%d bytes=%d %.0f ms", url, resp.status_code, len(resp.content),
                  (time.monotonic() - t0) * 1000, extra={"secrets": target.secrets})
        return self._parse_whole(resp, plan, ctx, target)

    def _parse_whole(self, resp: httpx.Response, plan: WirePlan, ctx: ParseContext, target: Target) -> ParsedResponse:
        """A whole (non-streamed) JSON reply -> ParsedResponse; errors in it raise."""
        from agentcli import wire

        data = self._json_or_raise(resp, target)
        if (err := self.body_error(data)) is not None:
            raise error_from_inband(err, target, self.refine_error)
        return wire.parse_response(plan, self.pipeline.on_response(data), ctx)

    def unstreamed(self, url: str, body: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
        """The same request without streaming, where the protocol allows it (None: it does not).

        Used once when a server answers a stream with HTTP 200 and no data at all: llama-cpp-python
        does that when the prompt overflows the context or a forced tool_choice fails, and only
        the non-streamed request says why.
        """
        return None

    async def _empty_stream(
        self, url: str, body: dict[str, Any], plan: WirePlan, ctx: ParseContext, target: Target,
    ) -> ParsedResponse:
        """Ask once without streaming to learn the real cause (or get the answer); never retry the stream."""
        plain = self.unstreamed(url, body)
        if plain is None:
            raise ProviderError(
                Code.SERVER,
                f"{target.url} answered HTTP 200 with an empty stream (model {target.model})",
                url=target.url, model=target.model, status=200, retryable=False,
                hint="the server failed after it began to answer; its own log says why (often the context window)",
            )
        log.debug("empty stream from %s; asking again without streaming", url, extra={"secrets": target.secrets})
        return await self._post(plain[0], plain[1], plan, ctx, target)

    def _json_or_raise(self, resp: httpx.Response, target: Target) -> dict[str, Any]:
        if resp.status_code >= 400:
            log.debug("error body (%d): %s", resp.status_code, trim(resp.text), extra={"secrets": target.secrets})
            raise error_from_status(resp.status_code, resp.text, resp.headers, target, self.refine_error)
        try:
            data = jsonsafe.loads(resp.content)
        except ValueError:
            data = None
        if not isinstance(data, dict):
            raise ProviderError(
                Code.SERVER,
                f"{target.url} answered HTTP {resp.status_code} with a body that is not a JSON object: {trim(resp.text, 120)!r}",
                url=target.url, model=target.model, status=resp.status_code, retryable=True,
                hint=hint_for(Code.NOT_FOUND, target),
            )
        return data

    async def _stream(
        self, url: str, body: dict[str, Any], plan: WirePlan, ctx: ParseContext,
        target: Target, emit: OnEvent, state: _Attempt,
    ) -> ParsedResponse:
        import httpx

        from agentcli import wire

        state.emitted = False
        assembler = wire.new_stream(plan, ctx)  # fresh per attempt: a retried turn never half-applies
        ended = got_items = False
        headers_in = False
        t0 = time.monotonic()
        try:
            async with self.client.stream("POST", url, content=jsonsafe.body(body), headers=_JSON) as resp:
                log.debug("response POST %s status=%d (stream) %.0f ms to headers", url, resp.status_code,
                          (time.monotonic() - t0) * 1000, extra={"secrets": target.secrets})
                if resp.status_code >= 400:
                    text = (await resp.aread()).decode("utf-8", "replace")
                    log.debug("error body (%d): %s", resp.status_code, trim(text), extra={"secrets": target.secrets})
                    raise error_from_status(resp.status_code, text, resp.headers, target, self.refine_error)
                headers_in = True
                if _media_type(resp) == "application/json":  # a whole body though a stream was asked for
                    await resp.aread()
                    return self._parse_whole(resp, plan, ctx, target)
                async with contextlib.aclosing(self._items(resp)) as items:
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
            log.debug("stream from %s failed after %.0f ms: %s", url, (time.monotonic() - t0) * 1000,
                      type(exc).__name__, extra={"secrets": target.secrets})
            limits = self.profile.limits
            timeout = limits.stream_idle_timeout if isinstance(exc, StreamStalled) else limits.request_timeout
            raise error_from_exception(exc, target, mid_stream=headers_in, timeout=timeout) from None
        if not got_items:
            return await self._empty_stream(url, body, plan, ctx, target)
        if not (ended or getattr(assembler, "complete", False)):
            raise ProviderError(
                Code.STREAM_BROKEN,
                f"the stream from {target.url} ended before the message was complete",
                url=target.url, model=target.model, retryable=True, hint=hint_for(Code.STREAM_BROKEN, target),
            )
        events, parsed = assembler.finish()
        log.debug("stream from %s done in %.0f ms: %d chars of text, %d tool call(s)", url,
                  (time.monotonic() - t0) * 1000, len(parsed.text or ""), len(parsed.tool_calls),
                  extra={"secrets": target.secrets})
        for event in events:
            emit(event)
        return parsed

    async def _items(self, resp: httpx.Response) -> AsyncGenerator[Chunk, None]:
        limits = self.profile.limits
        lines = bounded_lines(idle_lines(resp.aiter_text(), limits.stream_idle_timeout),
                              max_bytes=limits.max_response_bytes, max_seconds=limits.max_response_seconds)
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
            import httpx

            try:
                resp = await self.client.request(method, f"{self.url}{path}", content=None if json_body is None else jsonsafe.body(json_body),
                                                 headers=None if json_body is None else _JSON)
            except httpx.HTTPError as exc:
                raise error_from_exception(exc, target, timeout=self.profile.limits.request_timeout) from None
            return self._json_or_raise(resp, target)

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
    return data if isinstance(data, dict) else decode_json(data)
