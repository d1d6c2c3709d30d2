"""Capture real response bytes as replay fixtures (tests/fixtures/real/*.json) for `make test`.

Runs only with AGENTCLI_CAPTURE=1 (and AGENTCLI_REAL=1): `make capture-real`. Each fixture holds the
server's name and version, the request that produced it, the status, the content type and the
response bytes exactly (decoded as UTF-8). Paths of the capturing machine are replaced by `<venv>`.
"""

from __future__ import annotations

import json
import os
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import MASTER_KEY
from proxy import Call, gbnf_literal, pinned_schema

OUT = Path(__file__).parents[1] / "fixtures" / "real"

pytestmark = pytest.mark.skipif(os.environ.get("AGENTCLI_CAPTURE") != "1", reason="set AGENTCLI_CAPTURE=1 to capture")

LIST_FILES = {"type": "function", "function": {"name": "list_files", "description": "List files in a folder.",
                                               "parameters": pinned_schema({"path": "."})}}
READ_FILE = {"type": "function", "function": {"name": "read_file", "description": "Read a file.",
                                              "parameters": pinned_schema({"path": "notes.txt"})}}
USER = [{"role": "user", "content": "List the files, then read notes.txt."}]
NAMED = {"type": "function", "function": {"name": "list_files"}}


def scrub(text: str) -> str:
    for prefix in {sys.prefix, str(Path(sys.prefix).resolve()), str(Path(sys.executable).parent.parent)}:
        text = text.replace(prefix, "<venv>")
    return text


def save(name: str, server: str, version: str, path: str, request: dict[str, Any], resp: httpx.Response,
         note: str) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    fixture = {
        "server": server, "version": version, "note": note,
        "request": {"method": "POST", "path": path, "body": request},
        "response": {"status": resp.status_code, "content_type": resp.headers.get("content-type", ""),
                     "body": scrub(resp.content.decode("utf-8"))},
    }
    (OUT / f"{name}.json").write_text(json.dumps(fixture, indent=1, ensure_ascii=False) + "\n")


def test_capture_llama_cpp(llama_server):
    version = metadata.version("llama-cpp-python")
    cases: list[tuple[str, dict[str, Any], str]] = [
        ("llama_named_tool_stream", {"tools": [LIST_FILES], "tool_choice": NAMED, "stream": True},
         "named tool_choice, streamed: each fragment in both function_call and tool_calls"),
        ("llama_named_tool_whole", {"tools": [LIST_FILES], "tool_choice": NAMED},
         "named tool_choice, not streamed: function_call and tool_calls hold the same call"),
        ("llama_hermes_stream", {"grammar": gbnf_literal(
            '<tool_call>\n{"name": "read_file", "arguments": {"path": "notes.txt"}}\n</tool_call>'), "stream": True},
         "a Hermes call written as text: the tokenizer splits <tool_call> into pieces"),
        ("llama_length_stream", {"max_tokens": 6, "stream": True}, "cut at max_tokens: finish_reason length"),
        ("llama_length_whole", {"max_tokens": 6}, "cut at max_tokens: finish_reason length"),
        ("llama_null_content", {"messages": USER + [
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "list_files", "arguments": '{"path": "."}'}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "notes.txt"}]},
         "an assistant turn with null content: the request model wants a string (HTTP 500)"),
        ("llama_overflow_stream", {"messages": [{"role": "user", "content": "word " * 6000}], "stream": True},
         "the prompt overflows the context: HTTP 200 and an empty stream"),
        ("llama_overflow_whole", {"messages": [{"role": "user", "content": "word " * 6000}]},
         "the same without streaming: the real error"),
    ]
    for name, extra, note in cases:
        body = {"model": "tiny", "messages": USER, "seed": 1107, **extra}
        with httpx.Client(timeout=120) as client:  # a fresh connection: an empty stream leaves it unusable
            resp = client.post(llama_server.url + "/v1/chat/completions", json=body)
        if "word " * 100 in json.dumps(body):  # keep the fixture small: say what was sent
            body["messages"] = [{"role": "user", "content": "word × 6000 (30,000 characters)"}]
        save(name, "llama-cpp-python", version, "/v1/chat/completions", body, resp, note)


GEMINI_TOOLS = [{"functionDeclarations": [{"name": "list_files", "description": "List files in a folder.",
                                            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}]}]
GEMINI_USER = [{"role": "user", "parts": [{"text": "List the files, then read notes.txt."}]}]


def test_capture_litellm(litellm_server, litellm_route):
    """Both LiteLLM versions; the newest one's fixtures are named litellm_new_*."""
    litellm_route.script = [Call("list_files", {"path": "."})]
    anthropic_tools = [{"name": "list_files", "description": "List files in a folder.",
                        "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}}}]
    keyed = {"x-api-key": MASTER_KEY, "authorization": f"Bearer {MASTER_KEY}", "x-goog-api-key": MASTER_KEY}
    cases: list[tuple[str, str, dict[str, Any], str, dict[str, str]]] = [
        ("openai_tool_stream", "/v1/chat/completions",
         {"model": "tiny", "messages": USER, "tools": [LIST_FILES], "tool_choice": "auto", "stream": True},
         "OpenAI route to llama-cpp-python, streamed", keyed),
        ("openai_tool_whole", "/v1/chat/completions",
         {"model": "tiny", "messages": USER, "tools": [LIST_FILES], "tool_choice": "auto"},
         "OpenAI route to llama-cpp-python, not streamed", keyed),
        ("anthropic_tool_stream", "/v1/messages",
         {"model": "tiny", "max_tokens": 64, "messages": USER, "tools": anthropic_tools, "stream": True},
         "Anthropic route to llama-cpp-python, streamed: a new tool_use block, same id, per fragment", keyed),
        ("anthropic_tool_whole", "/v1/messages",
         {"model": "tiny", "max_tokens": 64, "messages": USER, "tools": anthropic_tools},
         "Anthropic route to llama-cpp-python, not streamed", keyed),
        ("gemini_tool_stream", "/v1beta/models/tiny:streamGenerateContent?alt=sse",
         {"contents": GEMINI_USER, "tools": GEMINI_TOOLS}, "Gemini route to llama-cpp-python, streamed", keyed),
        ("gemini_tool_whole", "/v1beta/models/tiny:generateContent",
         {"contents": GEMINI_USER, "tools": GEMINI_TOOLS}, "Gemini route to llama-cpp-python, not streamed", keyed),
        ("openai_unknown_model", "/v1/chat/completions",
         {"model": "no-such-model", "messages": USER}, "unknown model on the OpenAI route", keyed),
        ("anthropic_unknown_model", "/v1/messages",
         {"model": "no-such-model", "max_tokens": 64, "messages": USER}, "unknown model on the Anthropic route", keyed),
        ("mock_429", "/v1/chat/completions", {"model": "mock-429", "messages": USER}, "mock rate limit", keyed),
        ("mock_500", "/v1/chat/completions", {"model": "mock-500", "messages": USER}, "mock server error", keyed),
        ("long_answer_whole", "/v1/chat/completions", {"model": "mock-long", "messages": USER},
         "a whole reply over 1,000 bytes (LiteLLM 1.106 gzipped these)", {**keyed, "accept-encoding": "gzip"}),
        ("no_key", "/v1/chat/completions", {"model": "tiny", "messages": USER},
         "the proxy has a master key and the request sends none: 401", {}),
    ]
    prefix = "litellm_new_" if litellm_server.which == "newest" else "litellm_"
    with httpx.Client(timeout=120) as client:
        for name, path, body, note, headers in cases:
            if litellm_server.which == "pinned" and name.startswith("gemini"):
                continue  # 1.80's Gemini route drops the tools' parameters (test_litellm says so)
            litellm_route.exchanges.clear()
            resp = client.post(litellm_server.url + path, json=body, headers=headers)
            save(prefix + name, "litellm-proxy", litellm_server.version, path.split("?")[0], body, resp, note)


TEMPLATE_CASES = {
    "mistral_v3": ("Mistral-7B-Instruct-v0.3", [("call_0123456789abcdef", "list_files")],
                   "the Mistral v0.3 template refuses a call id that is not 9 characters (HTTP 500)"),
    "llama3.1_json": ("Meta-Llama-3.1-8B-Instruct", [("call_1", "list_files"), ("call_2", "read_file")],
                      "the Llama 3.1 template refuses two calls in one assistant message (HTTP 500)"),
}


@pytest.mark.parametrize("template", list(TEMPLATE_CASES))
def test_capture_templates(template, tmp_path):
    """A published template on the real server: a named call (streamed and not) and the history it refuses."""
    import tinymodel
    from conftest import llama_argv, start_server

    alias, calls, note = TEMPLATE_CASES[template]
    cache = Path(os.environ.get("AGENTCLI_REAL_CACHE") or Path(sys.prefix) / "real-cache")
    model = tinymodel.cached(cache, template)
    server = start_server(lambda port: llama_argv(model, alias, port, n_ctx=8192), "/v1/models", tmp_path / "log")
    version = metadata.version("llama-cpp-python")
    refused = USER + [{"role": "assistant", "content": "", "tool_calls": [
        {"id": cid, "type": "function", "function": {"name": n, "arguments": '{"path": "."}'}} for cid, n in calls]}]
    refused += [{"role": "tool", "tool_call_id": cid, "content": "notes.txt"} for cid, _ in calls]
    stem = template.replace(".", "").replace("_json", "")
    cases = [
        (f"template_{stem}_named_stream", {"tools": [LIST_FILES], "tool_choice": NAMED, "stream": True},
         f"{alias} template, named tool_choice, streamed (llama-cpp-python's jinja handler)"),
        (f"template_{stem}_named_whole", {"tools": [LIST_FILES], "tool_choice": NAMED},
         f"{alias} template, named tool_choice, not streamed"),
        (f"template_{stem}_refused", {"messages": refused, "max_tokens": 4}, note),
    ]
    try:
        for name, extra, case_note in cases:
            body = {"model": alias, "messages": USER, "seed": 1107, **extra}
            with httpx.Client(timeout=120) as client:
                resp = client.post(server.url + "/v1/chat/completions", json=body)
            save(name, "llama-cpp-python", version, "/v1/chat/completions", body, resp, case_note)
    finally:
        server.stop()


def test_capture_html_error_page(spawn_server):
    """Python's http.server answers a POST with its HTML 501 page (what a wrong URL often meets)."""
    server = spawn_server(lambda port: [sys.executable, "-m", "http.server", "--bind", "127.0.0.1", str(port)], "/",
                          name="http-server")
    body = {"model": "tiny", "messages": USER}
    with httpx.Client(timeout=60) as client:
        resp = client.post(server.url + "/v1/chat/completions", json=body)
    save("http_server_html_501", "python-http.server", sys.version.split()[0], "/v1/chat/completions", body, resp,
         "an HTML error page where an API was expected")


def test_capture_llama_cpp_function_calling_format(llama_server_fc):
    body = {"model": "tiny", "messages": USER, "seed": 1107, "tool_choice": "required",
            "tools": [{"type": "function", "function": {"name": "list_files", "description": "List files in a folder.",
                                                        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}}]}
    with httpx.Client(timeout=120) as client:
        resp = client.post(llama_server_fc.url + "/v1/chat/completions", json=body)
    save("llama_required_rejected", "llama-cpp-python", metadata.version("llama-cpp-python"), "/v1/chat/completions",
         body, resp, 'server started with --chat_format chatml-function-calling: tool_choice "required" fails with an '
         "empty HTTP 500")
