"""Credentials go only to the profile's own origin: a redirect elsewhere is followed without them.

httpx drops Authorization on a cross-origin redirect and nothing else, so x-api-key, x-goog-api-key
and a gateway's own auth header (any header the profile sets) would follow a redirect to any host.
"""

from __future__ import annotations

import logging

import pytest
from wire_helpers import APIS, KEY, ask, body_for, provider_for, server

from agentcli.core.errors import ProviderError
from agentcli.providers._credentials import masked, origin, secret_names

GATEWAY = {"X-Auth-Token": "gw-token-7f3a9c2e11d04b", "X-Route": "eu-west-pool-a"}
CREDENTIALS = ("authorization", "x-api-key", "x-goog-api-key", "x-auth-token", "x-route")


def chat_path(api: str, stream: bool) -> str:
    return {
        "openai": "/v1/chat/completions",
        "anthropic": "/v1/messages",
        "ollama": "/api/chat",
        "gemini": "/v1beta/models/loopback-model:" + ("streamGenerateContent?alt=sse" if stream else "generateContent"),
    }[api]


def sent_credentials(req) -> set[str]:
    return {name for name in CREDENTIALS if name in req.headers}


KEY_HEADER = {"openai": {"authorization"}, "anthropic": {"x-api-key"}, "gemini": {"x-goog-api-key"}, "ollama": set()}


# Every redirect status on one API; every API, streamed and whole, on the two that keep the POST.
REDIRECTS = [("openai", False, s) for s in (301, 302, 303)] + [
    (api, stream, 307 if stream else 308) for api in APIS for stream in (False, True)]


@pytest.mark.parametrize(("api", "stream", "status"), REDIRECTS)
async def test_a_cross_origin_redirect_is_followed_without_credentials(api, stream, status, sleeps):
    with server(api) as home, server(api) as elsewhere:
        elsewhere.queue(body_for(api))
        home.queue_error(status, "", headers={"location": elsewhere.root + chat_path(api, stream)})
        p = provider_for(home, sleep=sleeps, headers=GATEWAY)
        try:
            if status in (307, 308):  # method and body kept: the other server answers
                assert (await ask(p, api, stream=stream)).tool_calls
            else:  # 301-303 turn the POST into a GET, which no chat route takes
                with pytest.raises(ProviderError):
                    await ask(p, api, stream=stream)
        finally:
            await p.aclose()
        first, moved = home.requests[0], elsewhere.requests[0]
    assert sent_credentials(first) == KEY_HEADER[api] | {"x-auth-token", "x-route"}  # the configured origin: all
    assert sent_credentials(moved) == set()  # any other origin: none
    assert KEY not in str(moved.headers) and GATEWAY["X-Auth-Token"] not in str(moved.headers)


@pytest.mark.parametrize("api", APIS)
async def test_a_same_origin_redirect_keeps_them(api, sleeps):
    with server(api) as home:
        home.queue_error(307, "", headers={"location": home.root + chat_path(api, False)})
        home.queue(body_for(api))
        p = provider_for(home, sleep=sleeps, headers=GATEWAY)
        parsed = await ask(p, api, stream=False)
        await p.aclose()
        first, again = home.chat_requests()
    assert parsed.tool_calls and sent_credentials(again) == sent_credentials(first) >= {"x-auth-token"}


@pytest.mark.parametrize(("a", "b", "same"), [
    ("http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/other", True),
    ("https://api.example.com", "https://API.example.com:443/x", True),
    ("http://h", "http://h:80/x", True),
    ("http://h:8080", "http://h:8081", False),
    ("http://h", "https://h", False),
    ("http://api.example.com", "http://evil.example.com", False),
])
def test_origin(a, b, same):
    assert (origin(a) == origin(b)) is same


def test_profile_headers_are_masked_in_the_debug_log():
    names = secret_names({"x-api-key": "k"}, GATEWAY)
    shown = masked({"X-Auth-Token": GATEWAY["X-Auth-Token"], "user-agent": "agentcli", "X-API-Key": KEY}, names)
    assert shown == {"X-Auth-Token": "[REDACTED]", "user-agent": "agentcli", "X-API-Key": "[REDACTED]"}


async def test_the_debug_log_never_holds_a_profile_header(sleeps, caplog, openai_server):
    openai_server.queue(body_for("openai"))
    p = provider_for(openai_server, sleep=sleeps, headers=GATEWAY)
    with caplog.at_level(logging.DEBUG, logger="agentcli.http"):
        await ask(p, "openai", stream=False)
    await p.aclose()
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "x-auth-token" in logged.lower() and GATEWAY["X-Auth-Token"] not in logged and KEY not in logged
