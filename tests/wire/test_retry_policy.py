"""docs/retry-policy.md, row by row: what is retried, how long we wait, the bounds."""

from __future__ import annotations

import asyncio
import email.utils
import time

import pytest

from agentcli.core.errors import ProviderError
from agentcli.core.errors import ProviderErrorCode as Code
from agentcli.core.events import Notice, RetryScheduled
from agentcli.providers._http import (
    MAX_RETRY_AFTER_S,
    RetryPolicy,
    Target,
    error_from_inband,
    error_from_status,
    parse_retry_after,
    run_with_retries,
)

TARGET = Target("openai", "http://127.0.0.1:9/v1", "m", "LOOPBACK_API_KEY")


class Script:
    """An attempt function that raises the given errors in turn, then returns 'ok'."""

    def __init__(self, *errors: ProviderError) -> None:
        self.errors = list(errors)
        self.calls = 0

    async def __call__(self) -> str:
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return "ok"


def policy(sleeps, **kw) -> RetryPolicy:
    return RetryPolicy(sleep=sleeps, random=lambda: 0.0, **kw)


def status_error(status: int, body: str = "{}", **headers: str) -> ProviderError:
    return error_from_status(status, body, {k.replace("_", "-"): v for k, v in headers.items()}, TARGET)


# -- what is retried (rows 5-15 by status) ---------------------------------------------------

RETRIED = [(408, Code.TIMEOUT), (409, Code.SERVER), (429, Code.RATE_LIMIT), (500, Code.SERVER),
           (502, Code.SERVER), (503, Code.OVERLOADED), (504, Code.SERVER), (529, Code.OVERLOADED)]
NOT_RETRIED = [(400, Code.BAD_REQUEST), (401, Code.AUTH), (403, Code.AUTH), (404, Code.NOT_FOUND),
               (413, Code.CONTEXT_LENGTH), (422, Code.BAD_REQUEST), (418, Code.BAD_REQUEST)]


@pytest.mark.parametrize("status,code", RETRIED)
async def test_retried_statuses(status, code, sleeps):
    attempt = Script(status_error(status))
    assert await run_with_retries(attempt, policy(sleeps), TARGET) == "ok"
    assert attempt.calls == 2
    assert sleeps.delays == [0.5]
    assert status_error(status).code is code


@pytest.mark.parametrize("status,code", NOT_RETRIED)
async def test_never_retried_statuses(status, code, sleeps):
    attempt = Script(status_error(status))
    with pytest.raises(ProviderError) as info:
        await run_with_retries(attempt, policy(sleeps), TARGET)
    assert attempt.calls == 1 and sleeps.delays == []
    assert info.value.code is code and info.value.status == status


def test_body_refines_codes():
    assert status_error(400, '{"error":{"message":"This model\'s maximum context length is 8192 tokens"}}').code is Code.CONTEXT_LENGTH
    assert status_error(500, '{"error":{"message":"Overloaded"}}').code is Code.OVERLOADED


def test_x_should_retry_header_overrules_the_table():
    assert status_error(400, x_should_retry="true").retryable
    assert not status_error(503, x_should_retry="false").retryable
    assert not status_error(401, x_should_retry="true").retryable  # auth never retries


@pytest.mark.parametrize("etype,code,retryable", [
    ("overloaded_error", Code.OVERLOADED, True),
    ("api_error", Code.SERVER, True),
    ("rate_limit_error", Code.RATE_LIMIT, True),
    ("invalid_request_error", Code.BAD_REQUEST, False),
])
def test_in_band_errors(etype, code, retryable):
    err = error_from_inband({"type": etype, "message": "x"}, TARGET)
    assert (err.code, err.retryable) == (code, retryable)
    assert err.message.startswith("stream error")


# -- how long to wait ----------------------------------------------------------------------

async def test_backoff_doubles_and_caps(sleeps):
    errors = [status_error(500) for _ in range(6)]
    await run_with_retries(Script(*errors), policy(sleeps, max_retries=6, budget_s=1000), TARGET)
    assert sleeps.delays == [0.5, 1.0, 2.0, 4.0, 8.0, 8.0]


def test_jitter_stays_in_range():
    assert RetryPolicy(random=lambda: 0.0).backoff(2) == 2.0
    assert RetryPolicy(random=lambda: 0.999999).backoff(2) == pytest.approx(1.5, abs=1e-5)
    assert RetryPolicy(random=lambda: 0.5).backoff(10) == 8.0 * 0.875


@pytest.mark.parametrize("headers,expected", [
    ({"retry-after": "2"}, 2.0),
    ({"Retry-After": "1.5"}, 1.5),
    ({"retry-after-ms": "250"}, 0.25),
    ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),  # ms wins, as in the SDKs
    ({"retry-after": "soon"}, None),
    ({"retry-after": "-3"}, None),
    ({"retry-after-ms": "abc", "retry-after": "4"}, 4.0),
    ({}, None),
])
def test_parse_retry_after(headers, expected):
    assert parse_retry_after(headers) == expected


def test_parse_retry_after_http_date():
    now = time.time()
    date = email.utils.formatdate(now + 30, usegmt=True)
    assert parse_retry_after({"retry-after": date}, now=now) == pytest.approx(30, abs=1.0)
    past = email.utils.formatdate(now - 30, usegmt=True)
    assert parse_retry_after({"retry-after": past}, now=now) == 0.0


@pytest.mark.parametrize("headers,delay", [
    ({"retry-after": "3"}, 3.0),
    ({"retry-after-ms": "1200"}, 1.2),
    ({"retry-after": "0"}, 0.5),  # zero is not a usable hint: backoff
    ({"retry-after": "-1"}, 0.5),  # negative: backoff
    ({"retry-after": "tomorrow-ish"}, 0.5),  # garbage: backoff
    ({"retry-after": str(MAX_RETRY_AFTER_S)}, MAX_RETRY_AFTER_S),  # at the cap: honoured
])
async def test_retry_after_is_honoured(headers, delay, sleeps):
    await run_with_retries(Script(status_error(429, **{k.replace("-", "_"): v for k, v in headers.items()})), policy(sleeps), TARGET)
    assert sleeps.delays == [pytest.approx(delay)]


async def test_retry_after_http_date_is_honoured(sleeps, monkeypatch):
    import types

    from agentcli.providers import _http

    now = 1_700_000_000.0  # a fixed clock: the delay must not depend on how busy the machine is
    monkeypatch.setattr(_http, "time", types.SimpleNamespace(time=lambda: now, monotonic=time.monotonic))
    date = email.utils.formatdate(now + 5, usegmt=True)
    await run_with_retries(Script(status_error(429, retry_after=date)), policy(sleeps), TARGET)
    assert sleeps.delays == [pytest.approx(5.0)]


async def test_retry_after_over_the_cap_fails_at_once(sleeps):
    attempt = Script(status_error(429, retry_after="600"))
    with pytest.raises(ProviderError) as info:
        await run_with_retries(attempt, policy(sleeps), TARGET)
    assert attempt.calls == 1 and sleeps.delays == []
    assert info.value.code is Code.RATE_LIMIT and not info.value.retryable
    assert "600 s" in info.value.message and "cap" in info.value.message
    assert info.value.retry_after == 600


# -- bounds -------------------------------------------------------------------------------

async def test_attempts_are_bounded(sleeps):
    attempt = Script(*[status_error(503) for _ in range(10)])
    with pytest.raises(ProviderError) as info:
        await run_with_retries(attempt, policy(sleeps, max_retries=2), TARGET)
    assert attempt.calls == 3 and len(sleeps.delays) == 2
    assert "after 3 attempts" in info.value.message


async def test_zero_retries(sleeps):
    attempt = Script(status_error(503))
    with pytest.raises(ProviderError):
        await run_with_retries(attempt, policy(sleeps, max_retries=0), TARGET)
    assert attempt.calls == 1


async def test_wall_budget_stops_retries(sleeps):
    clock = iter([0.0, 0.0, 0.0]).__next__
    attempt = Script(status_error(429, retry_after="30"), status_error(429, retry_after="30"))
    with pytest.raises(ProviderError) as info:
        await run_with_retries(attempt, RetryPolicy(max_retries=5, budget_s=20, sleep=sleeps, clock=clock), TARGET)
    assert attempt.calls == 1 and sleeps.delays == []
    assert "budget" in info.value.message


# -- what the user sees -------------------------------------------------------------------

async def test_each_retry_emits_retry_scheduled(sleeps):
    events = []
    await run_with_retries(Script(status_error(429, retry_after="2"), status_error(503)), policy(sleeps), TARGET, events.append)
    assert events == [RetryScheduled("rate limited (HTTP 429)", 1, 2.0), RetryScheduled("server overloaded (HTTP 503)", 2, 1.0)]


async def test_partial_output_gets_a_notice_before_the_retry(sleeps):
    events = []
    await run_with_retries(Script(status_error(500)), policy(sleeps), TARGET, events.append, partial_output=lambda: True)
    assert isinstance(events[0], Notice) and events[0].message == "stream broke; retrying the turn"
    assert isinstance(events[1], RetryScheduled)


async def test_cancellation_during_backoff_exits_at_once():
    attempt = Script(*[status_error(503) for _ in range(3)])
    entered = asyncio.Event()
    cancelled: list[float] = []

    async def backoff(seconds: float) -> None:  # a backoff that never ends by itself
        entered.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.append(seconds)
            raise

    task = asyncio.create_task(run_with_retries(attempt, RetryPolicy(random=lambda: 0.0, sleep=backoff), TARGET))
    await entered.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert len(cancelled) == 1 and attempt.calls == 1  # cancelled inside the backoff, not after it


def test_error_messages_are_scrubbed_and_trimmed():
    body = '{"error":{"message":"bad key sk-test-loopback-0123456789abcdef ' + "x" * 1000 + '"}}'
    err = error_from_status(401, body, {}, Target("openai", "http://h/v1", "m", "K", secrets=("sk-test-loopback-0123456789abcdef",)))
    assert "sk-test-loopback" not in err.message
    assert len(err.message) < 400
    assert "$K" in (err.hint or "")
