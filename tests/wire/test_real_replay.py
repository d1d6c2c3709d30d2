"""Providers and parsers on bytes captured from real servers (tests/fixtures/real, `make capture-real`).

Each fixture holds the server, its version, the request that produced the bytes and the response as
sent. Served again from a loopback server, they must give what the real server meant.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from wire_helpers import KEY, make_profile, server

from agentcli.core.errors import ProviderError
from agentcli.core.errors import ProviderErrorCode as Code
from agentcli.core.events import StreamKind
from agentcli.core.types import Message, ParsedResponse, Tool
from agentcli.providers import create
from agentcli.testing.servers import Reply
from agentcli.wire import native
from agentcli.wire.types import ParseContext, RequestSettings, WirePlan

REAL = Path(__file__).parents[1] / "fixtures" / "real"
LIST = Tool("list_files", "List files.", {"type": "object", "properties": {"path": {"type": "string"}}})
READ = Tool("read_file", "Read a file.", {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})
TOOLS = [LIST, READ]
MSGS = [Message.user("List the files, then read notes.txt.")]


def fixture(name: str) -> dict:
    return json.loads((REAL / f"{name}.json").read_text())


def reply(name: str) -> Reply:
    """The captured response, byte for byte, with its status and content type."""
    resp = fixture(name)["response"]
    return Reply(body=resp["body"].encode(), status=resp["status"], content_type=resp["content_type"], stream=False)


def provider(srv, model="tiny", **kw):
    p = create(make_profile(srv.api, srv.url, model=model, **kw), api_key=KEY, sleep=_no_sleep)
    p.policy.random = lambda: 0.0
    return p


async def _no_sleep(_):
    return None


async def complete(srv, *, stream: bool, plan: WirePlan | None = None, events: list | None = None, model="tiny", **kw):
    p = provider(srv, model=model, **kw)
    try:
        return await p.complete(MSGS, TOOLS, plan or WirePlan(api=srv.api), RequestSettings(model=model, stream=stream),
                                ParseContext.of(TOOLS), events.append if events is not None else None)
    finally:
        await p.aclose()


def test_every_fixture_says_where_it_came_from():
    names = sorted(p.stem for p in REAL.glob("*.json"))
    assert len(names) >= 38
    for name in names:
        f = fixture(name)
        assert f["server"] in ("llama-cpp-python", "litellm-proxy", "python-http.server") and f["version"], name
        assert f["request"]["path"].startswith(("/v1/", "/v1beta/")), name
        assert isinstance(f["request"]["body"], dict), name
        assert "/work/" not in json.dumps(f) and "/tmp/" not in json.dumps(f), name


# -- 1: llama-cpp-python sends each streamed fragment twice (function_call and tool_calls) -----

@pytest.mark.parametrize(("name", "stream"), [("llama_named_tool_stream", True), ("llama_named_tool_whole", False)])
async def test_llama_named_tool_call_arrives_once(name, stream):
    raw = fixture(name)["response"]["body"]
    assert '"function_call": {"name": "list_files"' in raw or '"function_call":{"name":"list_files"' in raw
    with server("openai") as srv:
        srv.queue_reply(reply(name))
        parsed = await complete(srv, stream=stream)
    assert [(c.name, c.arguments) for c in parsed.tool_calls] == [("list_files", {"path": "."})]


# -- 2: null content is refused; agentcli never sends it ----------------------------------------

def test_null_content_is_refused_and_never_sent():
    f = fixture("llama_null_content")
    assert f["response"]["status"] == 500 and "Input should be a valid string" in f["response"]["body"]
    from agentcli.core.types import ParsedResponse, ToolCall, ToolResult

    history = MSGS + [Message.assistant(ParsedResponse(tool_calls=[ToolCall("list_files", {"path": "."}, "c1")])),
                      Message.results([ToolResult("c1", "list_files", True, "notes.txt")])]
    body = native.get("openai").build_body(history, TOOLS, WirePlan(api="openai"), RequestSettings(model="tiny"))
    assistant = [m for m in body["messages"] if m["role"] == "assistant"]
    assert assistant and all(isinstance(m["content"], str) for m in assistant)
    assert body["tool_choice"] == "auto"  # 3: chatml-function-calling renders no tools without it


# -- 5: the real tokenizer splits <tool_call>; no piece of the tag is shown ----------------------

async def test_hermes_tag_split_by_the_tokenizer_never_shows():
    raw = fixture("llama_hermes_stream")["response"]["body"]
    pieces = [json.loads(line[6:])["choices"][0]["delta"].get("content") or ""
              for line in raw.splitlines() if line.startswith("data: {")]
    assert "<tool_call>" in "".join(pieces) and not any("<tool_call>" in p for p in pieces)
    events: list = []
    with server("openai") as srv:
        srv.queue_reply(reply("llama_hermes_stream"))
        parsed = await complete(srv, stream=True, events=events,
                                plan=WirePlan(api="openai", native_tools=False, dialect="hermes", parsers=("hermes",),
                                              result="hermes"))
    shown = "".join(e.text for e in events if e.kind is StreamKind.TEXT)
    assert "<" not in shown and "tool_call" not in shown, shown
    assert [(c.name, c.arguments) for c in parsed.tool_calls] == [("read_file", {"path": "notes.txt"})]


# -- 4: a reply cut at the length limit is marked so ---------------------------------------------

@pytest.mark.parametrize(("name", "stream"), [("llama_length_stream", True), ("llama_length_whole", False)])
async def test_length_cut_is_reported(name, stream):
    with server("openai") as srv:
        srv.queue_reply(reply(name))
        parsed = await complete(srv, stream=stream)
    assert parsed.finish_reason == "length"


# -- 6: a stream request answered with one JSON body is read as that body ------------------------

@pytest.mark.parametrize(("api", "name"), [("openai", "llama_named_tool_whole"), ("anthropic", "litellm_anthropic_tool_whole")])
async def test_whole_json_answer_to_a_stream_request(api, name):
    with server(api) as srv:
        srv.queue_reply(reply(name))
        parsed = await complete(srv, stream=True)
        assert len(srv.chat_requests()) == 1  # read, not retried as a broken stream
    assert [(c.name, c.arguments) for c in parsed.tool_calls] == [("list_files", {"path": "."})]


# -- 7: an empty 200 stream (context overflow) -> the real cause, on the first try ----------------

async def test_empty_stream_asks_once_without_streaming_and_says_why():
    with server("openai") as srv:
        srv.queue_reply(reply("llama_overflow_stream")).queue_reply(reply("llama_overflow_whole"))
        with pytest.raises(ProviderError) as err:
            await complete(srv, stream=True)
        sent = [r.body for r in srv.chat_requests()]
    assert err.value.code is Code.CONTEXT_LENGTH and not err.value.retryable
    assert "maximum context length is 4096 tokens" in err.value.message
    assert [b.get("stream") for b in sent] == [True, False] and "stream_options" not in sent[1]


async def test_empty_stream_then_an_answer_is_used():
    with server("openai") as srv:
        srv.queue_reply(reply("llama_overflow_stream")).queue_reply(reply("llama_named_tool_whole"))
        parsed = await complete(srv, stream=True)
    assert [c.name for c in parsed.tool_calls] == ["list_files"]


# -- LiteLLM: its Anthropic route reopens a tool_use block per fragment --------------------------

LITELLM_TOOL_REPLIES = [
    (api, f"{prefix}{route}_tool_{kind}", kind == "stream")
    for prefix in ("litellm_", "litellm_new_")
    for api, route in (("openai", "openai"), ("anthropic", "anthropic"), ("gemini", "gemini"))
    for kind in ("stream", "whole")
    if (REAL / f"{prefix}{route}_tool_{kind}.json").exists()
]


def test_both_litellm_versions_were_captured_on_every_route():
    names = {name for _, name, _ in LITELLM_TOOL_REPLIES}
    assert {f"litellm_new_{r}_tool_{k}" for r in ("openai", "anthropic", "gemini") for k in ("stream", "whole")} <= names
    assert fixture("litellm_new_openai_tool_whole")["version"] != fixture("litellm_openai_tool_whole")["version"]


@pytest.mark.parametrize(("api", "name", "stream"), LITELLM_TOOL_REPLIES, ids=[n for _, n, _ in LITELLM_TOOL_REPLIES])
async def test_litellm_tool_call_arrives_once(api, name, stream):
    with server(api) as srv:
        srv.queue_reply(reply(name))
        parsed = await complete(srv, stream=stream)
    assert [(c.name, c.arguments) for c in parsed.tool_calls] == [("list_files", {"path": "."})]


@pytest.mark.parametrize("name", ["litellm_no_key", "litellm_new_no_key"])
async def test_litellm_without_a_key_is_an_auth_error_said_once(name):
    assert fixture(name)["response"]["status"] == 401
    with server("openai") as srv:
        srv.queue_reply(reply(name))
        with pytest.raises(ProviderError) as err:
            await complete(srv, stream=False)
        assert len(srv.chat_requests()) == 1
    assert err.value.code is Code.AUTH and not err.value.retryable


@pytest.mark.parametrize("name", ["litellm_long_answer_whole", "litellm_new_long_answer_whole"])
async def test_litellm_long_whole_answer(name):
    with server("openai") as srv:
        srv.queue_reply(reply(name))
        parsed = await complete(srv, stream=False)
    assert parsed.text.startswith("The notes say hello (0).") and len(parsed.text) > 1000


# -- published chat templates on llama-cpp-python (tests/real/templates) ----------------------------

@pytest.mark.parametrize("stem", ["mistral_v3", "llama31"])
@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
async def test_template_named_call_arrives_once(stem, stream):
    name = f"template_{stem}_named_{'stream' if stream else 'whole'}"
    with server("openai") as srv:
        srv.queue_reply(reply(name))
        parsed = await complete(srv, stream=stream)
    assert [(c.name, c.arguments) for c in parsed.tool_calls] == [("list_files", {"path": "."})]


@pytest.mark.parametrize(("stem", "words"), [
    ("mistral_v3", "Tool call IDs should be alphanumeric strings with length 9!"),
    ("llama31", "This model only supports single tool-calls at once!"),
])
async def test_what_a_template_refuses_agentcli_no_longer_sends(stem, words):
    """The captured refusal names the rule; the history agentcli renders for that family keeps it."""
    from agentcli.core.types import ToolCall, ToolResult
    from agentcli.models import get_capability
    from agentcli.wire import negotiate

    f = fixture(f"template_{stem}_refused")
    assert f["response"]["status"] == 500 and words in f["response"]["body"]
    sent = f["request"]["body"]["messages"]
    calls = [ToolCall(c["function"]["name"], json.loads(c["function"]["arguments"]), c["id"])
             for m in sent if m["role"] == "assistant" for c in m["tool_calls"]]
    history = MSGS + [Message.assistant(ParsedResponse(tool_calls=calls)),
                      Message.results([ToolResult(c.id, c.name, True, "notes.txt") for c in calls])]
    cap = get_capability(f["request"]["body"]["model"])
    plan = negotiate(api="openai", capability=cap, tools_cfg=None)
    body = native.get("openai").build_body(history, TOOLS, plan, RequestSettings(model="m"))
    rendered = [m for m in body["messages"] if m["role"] in ("assistant", "tool")]
    ids = [c["id"] for m in rendered for c in m.get("tool_calls") or []]
    assert sorted(ids) == sorted(m["tool_call_id"] for m in rendered if m["role"] == "tool")
    if cap.call_id_format == "alnum9":
        assert all(len(i) == 9 and i.isalnum() for i in ids), ids
    if not cap.parallel_tools:
        assert all(len(m.get("tool_calls") or []) <= 1 for m in rendered)


async def test_an_html_error_page_is_a_provider_error():
    f = fixture("http_server_html_501")
    assert f["response"]["status"] == 501 and "<html" in f["response"]["body"].lower()
    with server("openai") as srv:
        for _ in range(3):
            srv.queue_reply(reply("http_server_html_501"))
        with pytest.raises(ProviderError):
            await complete(srv, stream=False, limits={"max_retries": 2})


# -- 9: LiteLLM's errors ------------------------------------------------------------------------

@pytest.mark.parametrize(("api", "name"), [("openai", "litellm_openai_unknown_model"),
                                           ("anthropic", "litellm_anthropic_unknown_model")])
async def test_litellm_invalid_model_name_is_model_missing(api, name):
    with server(api) as srv:
        srv.queue_reply(reply(name))
        with pytest.raises(ProviderError) as err:
            await complete(srv, stream=False, model="no-such-model")
        assert len(srv.chat_requests()) == 1
    assert err.value.code is Code.MODEL_MISSING and not err.value.retryable
    assert "does not serve model 'no-such-model'" in err.value.hint


@pytest.mark.parametrize(("name", "code"), [("litellm_mock_429", Code.RATE_LIMIT), ("litellm_mock_500", Code.SERVER)])
async def test_litellm_mock_errors_are_retried(name, code):
    with server("openai") as srv:
        for _ in range(3):
            srv.queue_reply(reply(name))
        with pytest.raises(ProviderError) as err:
            await complete(srv, stream=False, limits={"max_retries": 2})
        assert len(srv.chat_requests()) == 3
    assert err.value.code is code and "after 3 attempts" in err.value.message
