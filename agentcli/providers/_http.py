"""The one retry policy and the one status -> ProviderError table.

Every provider request goes through `run_with_retries`; nothing else in the
program retries a model request. The policy follows the official OpenAI and
Anthropic SDKs and is written out row by row in docs/retry-policy.md.
"""

from __future__ import annotations

import email.utils
import json
import random
import re
import sys
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import field
from typing import Any, TypeVar

from agentcli.core import jsonsafe
from agentcli.core.errors import ProviderError
from agentcli.core.errors import ProviderErrorCode as Code
from agentcli.core.record import record
from agentcli.core.redaction import redact

T = TypeVar("T")
Sleep = Callable[[float], Awaitable[None]]
OnEvent = Callable[[Any], None]

INITIAL_BACKOFF_S = 0.5
MAX_BACKOFF_S = 8.0
MAX_RETRY_AFTER_S = 60.0  # a server asking for longer than this fails the call at once
BODY_LIMIT = 300  # characters of an error body quoted in a message

# Status -> (code, retryable). Anything 5xx not listed is (SERVER, True); any other 4xx is (BAD_REQUEST, False).
STATUS_TABLE: dict[int, tuple[Code, bool]] = {
    400: (Code.BAD_REQUEST, False),
    401: (Code.AUTH, False),
    403: (Code.AUTH, False),
    404: (Code.NOT_FOUND, False),
    408: (Code.TIMEOUT, True),
    409: (Code.SERVER, True),  # lock conflicts on the server side: the SDKs retry them
    413: (Code.CONTEXT_LENGTH, False),
    422: (Code.BAD_REQUEST, False),
    429: (Code.RATE_LIMIT, True),
    503: (Code.OVERLOADED, True),
    529: (Code.OVERLOADED, True),  # Anthropic: overloaded
}

# Phrases in error bodies that say the prompt did not fit, across OpenAI, Anthropic,
# Gemini, Ollama, vLLM and llama.cpp (lower-cased).
CONTEXT_MARKERS = (
    "context_length_exceeded",
    "maximum context length",
    "context length",
    "context window",
    "prompt is too long",
    "too many tokens",
    "exceeds the maximum number of tokens",
    "input token count",
    "exceed_context_size",
)


@record
class Target:
    """What a hint may name: where the request went and with which model (never the key)."""

    provider: str
    url: str
    model: str = ""
    key_env: str | None = None
    start_hint: str = ""  # how to start a local server, e.g. "try `ollama serve`"
    secrets: tuple[str, ...] = field(default=(), repr=False)  # values to scrub besides the environment's
    url_shape: str = ""  # how a base URL looks for the API shape, said when a request finds nothing there
    context_advice: str = ""  # what makes room when the very first prompt overflows (per provider)


DEFAULT_CONTEXT_ADVICE = ("raise the server's context window (llama.cpp: -c / --ctx-size; llama-cpp-python: "
                          "--n_ctx; vLLM: --max-model-len), or send less: a shorter system_prompt, fewer tools "
                          "(tools.max_tier, tools.deny)")


async def _sleep(seconds: float) -> None:
    """asyncio.sleep, imported when a retry waits: creating a provider (doctor --offline, the
    scripted one) must not load the event loop machinery."""
    import asyncio

    await asyncio.sleep(seconds)


@record
class RetryPolicy:
    """Attempts, backoff and the wall budget of one call. `sleep`, `random` and `clock` are test seams."""

    max_retries: int = 2
    budget_s: float = 120.0
    sleep: Sleep = _sleep
    random: Callable[[], float] = random.random
    clock: Callable[[], float] = time.monotonic

    @classmethod
    def from_limits(cls, limits: Any, sleep: Sleep | None = None) -> RetryPolicy:
        return cls(limits.max_retries, limits.retry_budget_s, sleep or _sleep)

    def backoff(self, retries_done: int) -> float:
        """min(0.5 * 2^n, 8) seconds times a jitter in [0.75, 1]."""
        base = min(INITIAL_BACKOFF_S * 2.0**retries_done, MAX_BACKOFF_S)
        return base * (1.0 - 0.25 * self.random())


def parse_retry_after(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """Seconds the server asked us to wait: retry-after-ms, then Retry-After (seconds or HTTP date).

    None when absent, garbage or negative (the caller then uses backoff). May exceed the cap.
    """
    lower = {k.lower(): v for k, v in headers.items()}
    raw_ms = lower.get("retry-after-ms")
    if raw_ms is not None:
        try:
            value = float(raw_ms) / 1000.0
            if value >= 0 and value == value and value != float("inf"):
                return value
        except ValueError:
            pass
    raw = lower.get("retry-after")
    if raw is None:
        return None
    raw = raw.strip()
    try:
        value = float(raw)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(raw)
        except (TypeError, ValueError, IndexError):
            return None
        if when is None:
            return None
        value = when.timestamp() - (time.time() if now is None else now)
        return max(value, 0.0)
    if value != value or value in (float("inf"), float("-inf")) or value < 0:
        return None
    return value


def _should_retry_header(headers: Mapping[str, str]) -> bool | None:
    """The SDKs let a server overrule the status table with `x-should-retry: true|false`."""
    for k, v in headers.items():
        if k.lower() == "x-should-retry":
            if v.strip().lower() == "true":
                return True
            if v.strip().lower() == "false":
                return False
    return None


def body_message(text: str) -> str:
    """The human part of an error body: error.message, error, message or detail; else the raw text."""
    try:
        data = jsonsafe.loads(text)
    except (ValueError, TypeError):
        return text.strip()
    if isinstance(data, list) and data and isinstance(data[0], dict):
        data = data[0]  # Gemini sometimes wraps the error object in a list
    if isinstance(data, dict):
        err = data.get("error")
        if isinstance(err, dict):
            msg = err.get("message") or err.get("type") or err.get("code")
            if msg:
                return str(msg)
        if isinstance(err, str) and err:
            return err
        for key in ("message", "detail"):
            if data.get(key):
                return str(data[key])
    return text.strip()


def trim(text: str, limit: int = BODY_LIMIT) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def hint_for(code: Code, target: Target, *, timeout: float | None = None) -> str:
    """What to check, naming the URL and the model."""
    url, model = target.url, target.model
    match code:
        case Code.AUTH:
            if target.key_env:
                return f"{url} refused the key read from ${target.key_env}; check that variable holds a valid key"
            return f"{url} wants credentials; set api_key_env in the profile to the variable holding the key"
        case Code.MODEL_MISSING:
            return f"{url} does not serve model {model!r}; `agent doctor` lists the models it has"
        case Code.NOT_FOUND:
            return f"check the URL {url} and the model {model!r}{target.url_shape}"
        case Code.RATE_LIMIT:
            return f"{url} is rate limiting; wait a little, or raise limits.max_retries for model {model!r}"
        case Code.CONTEXT_LENGTH:
            return f"the conversation no longer fits model {model!r}; start a new session or lower limits.max_tool_output_bytes"
        case Code.TOOLS_UNSUPPORTED:
            return f"model {model!r} at {url} rejected native tools; set tools.tool_format (e.g. \"hermes\") to emulate them"
        case Code.BAD_REQUEST:
            return f"{url} rejected the request for model {model!r}; check the profile's [request] overrides and transforms"
        case Code.TOOL_CHOICE_UNSUPPORTED:
            return f"{url} fails requests that force a tool call for model {model!r}; set tools.tool_choice = \"auto\""
        case Code.SERVER | Code.OVERLOADED:
            return f"{url} is failing or overloaded; try again later or switch model (now {model!r})"
        case Code.NETWORK:
            extra = f" {target.start_hint}" if target.start_hint else ""
            return f"is the server running at {url}?{extra}"
        case Code.TIMEOUT:
            wait = f" within {timeout:g} s" if timeout else ""
            return f"{url} did not answer{wait} (model {model!r}); check the server or raise limits.request_timeout / stream_idle_timeout"
        case Code.STREAM_BROKEN:
            return f"the stream from {url} kept breaking off; try again, or set stream = false in the profile"
    return f"check {url}"


# What a chat template says when it refuses a conversation (lower-cased). llama.cpp and
# llama-cpp-python answer these with HTTP 500, but the same request fails the same way again.
TEMPLATE_MARKERS = (
    "raise_exception",
    "templateerror",
    "template error",
    "error rendering",
    "jinja",
    "chat template",
    "conversation roles must alternate",
    "only supports single tool-calls",
    "tool call ids should be",
)


def is_html(text: str, headers: Mapping[str, str]) -> bool:
    """A web page, by its start (a JSON error mislabelled text/html is still read as JSON)."""
    ctype = next((v for k, v in headers.items() if k.lower() == "content-type"), "")
    head = text.lstrip()[:15].lower()
    return head.startswith("<") and ("html" in ctype.lower() or head.startswith(("<!doctype html", "<html")))


_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.I | re.S)
_H1 = re.compile(r"<h1[^>]*>(.*?)</h1>", re.I | re.S)
_TAGS = re.compile(r"<(script|style)\b.*?</\1\s*>|<[^>]*>", re.I | re.S)


def summarize_body(text: str, media_type: str = "", limit: int = BODY_LIMIT) -> str:
    """A body fit to quote: an HTML page as its title (a proxy's error page is no message), anything else trimmed."""
    if not is_html(text, {"content-type": media_type}):
        return trim(text, limit)
    found = _TITLE.search(text) or _H1.search(text)
    import html

    words = html.unescape(_TAGS.sub(" ", found.group(1) if found else text))
    return f"an HTML page: {trim(words, 80)}" if words.strip() else "an HTML page"


def error_from_status(
    status: int,
    text: str,
    headers: Mapping[str, str],
    target: Target,
    refine: Callable[[int, str], Code | None] | None = None,
    *,
    inband: bool = False,
) -> ProviderError:
    """Map one HTTP error reply (or an error sent inside a 200 stream) to a ProviderError."""
    page = is_html(text or "", headers)
    detail = summarize_body(text, "text/html") if page else body_message(text or "")
    lower = detail.lower()
    code, retryable = STATUS_TABLE.get(status, (Code.SERVER, True) if status >= 500 else (Code.BAD_REQUEST, False))
    hint = None
    if page:  # a proxy's or web server's page: the API never saw the request, so nothing in it is a model error
        code = Code.SERVER if code is Code.OVERLOADED else code
        hint = (f"{target.url} answered HTTP {status} with an HTML page, not the model API: check that the URL points "
                f"at the API{target.url_shape if status in (404, 405) else ''}")
    elif refine is not None and (better := refine(status, detail)) is not None:
        code = better
        if code in (Code.TOOLS_UNSUPPORTED, Code.MODEL_MISSING, Code.CONTEXT_LENGTH, Code.AUTH):
            retryable = False  # llama.cpp says "tools param requires --jinja flag" with a 500
    elif code in (Code.BAD_REQUEST, Code.NOT_FOUND) and any(m in lower for m in CONTEXT_MARKERS):
        code = Code.CONTEXT_LENGTH
    elif any(m in lower for m in TEMPLATE_MARKERS):
        code, retryable = (Code.SERVER if status >= 500 else Code.BAD_REQUEST), False
        hint = (f"the chat template of model {target.model!r} at {target.url} refused this conversation; asking again "
                "cannot help. Emulate tools (tools.tool_format = \"hermes\") or serve the model with a template "
                "that accepts it")
    elif code is Code.SERVER and "overloaded" in lower:
        code = Code.OVERLOADED
    if (override := _should_retry_header(headers)) is not None and code not in (Code.AUTH, Code.TOOLS_UNSUPPORTED):
        retryable = override
    message = f"{'stream error' if inband else 'HTTP'} {status} from {target.url}"
    if target.model:
        message += f" (model {target.model})"
    if detail:
        message += f": {trim(redact(detail, target.secrets))}"
    return ProviderError(
        code,
        message,
        url=target.url,
        model=target.model,
        status=status,
        retryable=retryable,
        retry_after=parse_retry_after(headers),
        hint=hint or hint_for(code, target),
    )


def first_turn_overflow_hint(target: Target) -> str:
    """The first request already overflows: there is no history to drop, so say what makes room."""
    advice = target.context_advice or DEFAULT_CONTEXT_ADVICE
    return f"the first request alone does not fit model {target.model!r} at {target.url}: {advice}"


def overtime(target: Target, seconds: float, *, mid_stream: bool) -> ProviderError:
    """The whole-request bound ran out. Once the reply had begun, asking again would run as long: not retried."""
    if not mid_stream:
        return ProviderError(
            Code.TIMEOUT, f"timed out: {target.url} sent no reply within {seconds:g} s",
            url=target.url, model=target.model, retryable=True, hint=hint_for(Code.TIMEOUT, target, timeout=seconds),
        )
    return ProviderError(
        Code.TIMEOUT,
        f"the reply from {target.url} was still arriving after limits.request_timeout ({seconds:g} s); stopped reading",
        url=target.url, model=target.model, retryable=False,
        hint=(f"a model that repeats itself streams until a limit stops it: set limits.max_output_tokens; "
              f"if model {target.model!r} really answers at such length, raise limits.request_timeout"),
    )


def unreadable(exc: BaseException, target: Target) -> ProviderError:
    """A body that cannot be decoded (bad gzip, a compression we never offered): the same bytes would come again."""
    return ProviderError(
        Code.SERVER, f"{target.url} sent a reply agentcli cannot read: {exc}",
        url=target.url, model=target.model, retryable=False,
        hint=f"{target.url} or a proxy in front of it mangles replies; try the server without the proxy",
    )


def dropped_before_reply(exc: BaseException) -> bool:
    """The connection was made and the request sent, then closed with no byte of reply.

    llama-cpp-python does this to a stream whose prompt overflows its context; a refused or
    timed-out connection is something else (the server is not there, or slow).
    """
    import httpx

    return isinstance(exc, (httpx.RemoteProtocolError, httpx.ReadError)) and not isinstance(exc, httpx.ConnectError)


# In-band error types (Anthropic's SSE `error` event, OpenRouter / vLLM mid-stream errors) -> status.
INBAND_TYPES: dict[str, int] = {
    "overloaded_error": 529,
    "rate_limit_error": 429,
    "api_error": 500,
    "server_error": 500,
    "timeout_error": 504,
    "invalid_request_error": 400,
    "authentication_error": 401,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
}


def error_from_inband(err: Any, target: Target, refine: Callable[[int, str], Code | None] | None = None) -> ProviderError:
    """An error object that arrived in a 200 body or stream; unknown kinds count as server errors (retried)."""
    status = 500
    if isinstance(err, dict):
        code = err.get("code")
        if isinstance(code, int) and 400 <= code <= 599:
            status = code
        elif isinstance(code, str) and code.isdigit() and 400 <= int(code) <= 599:
            status = int(code)
        else:
            status = INBAND_TYPES.get(str(err.get("type") or code or ""), 500)
    text = json.dumps({"error": err}) if not isinstance(err, str) else json.dumps({"error": err})
    return error_from_status(status, text, {}, target, refine, inband=True)


def _caused_by_refusal(exc: BaseException) -> bool:
    """httpx words a refusal as "All connection attempts failed"; the OS error sits in the chain."""
    seen: BaseException | None = exc
    for _ in range(8):
        if seen is None:
            return False
        if isinstance(seen, ConnectionRefusedError) or "refused" in str(seen).lower():
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def error_from_exception(exc: BaseException, target: Target, *, mid_stream: bool = False, timeout: float | None = None) -> ProviderError:
    """Map a transport failure (httpx exception, stalled stream) to a retryable ProviderError."""
    import httpx

    name = type(exc).__name__
    text = trim(redact(str(exc) or name, target.secrets))
    if isinstance(exc, (httpx.TimeoutException, TimeoutError)):
        what = "stream stalled" if mid_stream else "timed out"
        return ProviderError(
            Code.TIMEOUT,
            f"{what}: {target.url} ({name})",
            url=target.url, model=target.model, retryable=True, hint=hint_for(Code.TIMEOUT, target, timeout=timeout),
        )
    if mid_stream:
        return ProviderError(
            Code.STREAM_BROKEN,
            f"the stream from {target.url} broke off: {text}",
            url=target.url, model=target.model, retryable=True, hint=hint_for(Code.STREAM_BROKEN, target),
        )
    refused = isinstance(exc, httpx.ConnectError) and _caused_by_refusal(exc)
    what = "connection refused" if refused else f"connection failed ({text})"
    return ProviderError(
        Code.NETWORK,
        f"{what}: {target.url}",
        url=target.url, model=target.model, retryable=True, hint=hint_for(Code.NETWORK, target),
    )


_REASONS: dict[Code, str] = {
    Code.RATE_LIMIT: "rate limited",
    Code.OVERLOADED: "server overloaded",
    Code.SERVER: "server error",
    Code.NETWORK: "connection failed",
    Code.TIMEOUT: "timed out",
    Code.STREAM_BROKEN: "stream broke",
}


def retry_reason(err: ProviderError) -> str:
    reason = _REASONS.get(err.code, err.code.value)
    return f"{reason} (HTTP {err.status})" if err.status else reason


def _gave_up(err: ProviderError, attempts: int, why: str) -> ProviderError:
    err.message = f"{err.message} [{why} after {attempts} attempt{'s' if attempts != 1 else ''}]"
    err.args = (err.message,)
    return err


async def run_with_retries(
    attempt: Callable[[], Awaitable[T]],
    policy: RetryPolicy,
    target: Target,
    on_event: OnEvent | None = None,
    *,
    partial_output: Callable[[], bool] | None = None,
) -> T:
    """Call `attempt` until it succeeds, fails for good, or the attempts or wall budget run out.

    `partial_output` says whether the failed attempt already emitted stream events; if so a
    Notice tells the UI to discard them before the turn starts again.
    """
    started = policy.clock()
    retries = 0
    while True:
        try:
            return await attempt()
        except ProviderError as err:
            failure = err
        except Exception as exc:
            # Providers convert httpx's errors; this is the safety net. Only a request made with
            # httpx can raise one, so a scripted provider never imports it (cold start).
            httpx = sys.modules.get("httpx")
            if httpx is None or not isinstance(exc, httpx.HTTPError):
                raise
            failure = error_from_exception(exc, target)
        if not failure.retryable:
            raise failure
        if retries >= policy.max_retries:
            raise _gave_up(failure, retries + 1, "gave up")
        asked = failure.retry_after
        if asked is not None and asked > MAX_RETRY_AFTER_S:
            raise ProviderError(
                failure.code,
                f"{failure.message} [server asked to wait {asked:.0f} s, over the {MAX_RETRY_AFTER_S:.0f} s cap]",
                url=failure.url, model=failure.model, status=failure.status, retryable=False,
                retry_after=asked, hint=f"try again later; {target.url} asked for a {asked:.0f} s pause",
            )
        delay = asked if asked is not None and 0 < asked <= MAX_RETRY_AFTER_S else policy.backoff(retries)
        if policy.clock() - started + delay > policy.budget_s:
            raise _gave_up(failure, retries + 1, f"retry budget of {policy.budget_s:g} s spent")
        retries += 1
        import logging  # a retry is rare: its log and events load with the first one

        from agentcli.core.events import Notice, RetryScheduled

        logging.getLogger("agentcli.http").debug(
            "retry %d in %.2f s: %s", retries, delay, failure.message, extra={"secrets": target.secrets})
        if on_event is not None:
            if partial_output is not None and partial_output():
                on_event(Notice("warning", "stream broke; retrying the turn", code="stream_retry"))
            on_event(RetryScheduled(retry_reason(failure), retries, delay))
        await policy.sleep(delay)
