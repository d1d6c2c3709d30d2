"""The provider set, walked from the one provider table: every row has the class that speaks its
API shape, a test double for that shape the class really talks to, sane defaults, and shows up
where providers are listed. A new row that misses any of these fails here, by name."""

from __future__ import annotations

import asyncio
import json
import re
import string
from urllib.parse import urlsplit

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from typer.testing import CliRunner
from wire_helpers import KEY, ask, make_profile

from agentcli.cli.main import app
from agentcli.config import shipped_dir
from agentcli.config.providers import PROVIDERS, ProviderFacts, api_kinds
from agentcli.providers import create, provider_class, rows, speaker
from agentcli.providers.base import Provider
from agentcli.providers.scripted import ScriptedProvider
from agentcli.testing.doubles import server_class
from agentcli.wire import native

ROWS = rows()
HOSTED = [n for n, r in ROWS.items() if r.url and urlsplit(r.url).scheme == "https"]


@pytest.mark.parametrize("name", list(ROWS))
def test_every_row_has_its_class(name: str) -> None:
    row = ROWS[name]
    cls = row.load()
    assert issubclass(cls, Provider) and cls is provider_class(name)
    if row.api is None:  # the scripted provider plays every shape
        assert cls is ScriptedProvider
    else:
        assert cls.api == row.api and row.api in native.names(), "the class and the wire must speak the row's shape"


@pytest.mark.parametrize("name", list(ROWS))
def test_every_row_has_sane_defaults(name: str) -> None:
    row = ROWS[name]
    if row.url is not None:
        parts = urlsplit(row.url)
        assert parts.scheme in ("http", "https") and parts.hostname and not (parts.query or parts.fragment)
        assert not row.url.endswith("/"), "the provider adds its paths after the base URL"
    else:
        assert row.api is None, "a row on an HTTP API shape needs a default URL"
    if row.api_key_env is not None:
        assert re.fullmatch(r"[A-Z][A-Z0-9_]*_API_KEY", row.api_key_env)
    if name in HOSTED:
        assert row.api_key_env, "a hosted API takes a key: name its variable"


@pytest.mark.parametrize("api", api_kinds())
@pytest.mark.parametrize("stream", [False, True])
async def test_every_api_shape_has_a_double_its_class_talks_to(api: str, stream: bool) -> None:
    name = next(n for n, r in ROWS.items() if r.api == api)
    with server_class(api)() as srv:
        assert srv.api == api
        srv.queue(speaker(api).reply_body("hello from the double"))
        p = create(make_profile(name, srv.url), api_key=KEY)
        parsed = await ask(p, api, stream=stream)
        await p.aclose()
    assert parsed.text == "hello from the double" and srv.pending == 0
    assert len(srv.chat_requests()) == 1 and srv.errors == []


@pytest.mark.parametrize("api", api_kinds())
@pytest.mark.parametrize("stream", [False, True])
async def test_the_scripted_provider_plays_every_api_shape(api: str, stream: bool) -> None:
    p = ScriptedProvider.from_turns([{"text": "played"}, {api: speaker(api).reply_body("native body")}], api=api)
    assert (await ask(p, api, stream=stream)).text == "played"
    assert (await ask(p, api, stream=stream)).text == "native body"
    p.assert_complete()


@settings(max_examples=80, deadline=None)
@given(api=st.sampled_from(api_kinds()), size=st.integers(1, 12),
       text=st.text(string.ascii_letters + string.digits + " .,'!?-", min_size=1, max_size=60).map(str.strip).filter(bool))
def test_a_reply_streamed_in_any_pieces_reads_back_whole(api: str, size: int, text: str) -> None:
    # What a shape's server answers and how its class reads it agree, whole or cut at any size.
    body = speaker(api).reply_body(text)
    p = ScriptedProvider.from_turns([{api: body}, {api: body}], api=api, chunk_size=size)
    whole, streamed = asyncio.run(ask(p, api, stream=False)), asyncio.run(ask(p, api, stream=True))
    assert whole.text == streamed.text == text


def test_every_provider_is_listed() -> None:
    # `agent profiles list` shows a shipped profile for each provider, so each has a working example.
    out = CliRunner().invoke(app, ["profiles", "list", "--json"], catch_exceptions=False).stdout
    listed = {p["provider"] for p in json.loads(out)["profiles"] if str(shipped_dir()) in p["path"]}
    assert listed == set(ROWS)
    # A profile naming an unknown provider is told every known one.
    with pytest.raises(ValidationError) as info:
        make_profile("nope", "http://127.0.0.1:1")
    assert all(repr(n) in str(info.value) for n in ROWS)


def test_a_row_on_a_shape_no_class_speaks_is_refused_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(PROVIDERS, "smoke", ProviderFacts("smoke-signals", "http://127.0.0.1:1", None))
    with pytest.raises(KeyError, match="smoke-signals.*known: openai"):
        provider_class("smoke")
    with pytest.raises(KeyError, match="smoke-signals"):
        server_class("smoke-signals")
