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
from proxy import Call, gbnf_literal, pinned_schema

OUT = Path(__file__).parents[1] / "fixtures" / "real"
LITELLM_VERSION = "1.80.0"  # the Makefile's pin; the proxy runs in its own venv

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


def test_capture_litellm(litellm_server, litellm_route):
    litellm_route.script = [Call("list_files", {"path": "."})]
    anthropic_tools = [{"name": "list_files", "description": "List files in a folder.",
                        "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}}}]
    cases: list[tuple[str, str, dict[str, Any], str]] = [
        ("litellm_openai_tool_stream", "/v1/chat/completions",
         {"model": "tiny", "messages": USER, "tools": [LIST_FILES], "tool_choice": "auto", "stream": True},
         "OpenAI route to llama-cpp-python, streamed"),
        ("litellm_anthropic_tool_stream", "/v1/messages",
         {"model": "tiny", "max_tokens": 64, "messages": USER, "tools": anthropic_tools, "stream": True},
         "Anthropic route to llama-cpp-python, streamed: a new tool_use block, same id, per fragment"),
        ("litellm_anthropic_tool_whole", "/v1/messages",
         {"model": "tiny", "max_tokens": 64, "messages": USER, "tools": anthropic_tools},
         "Anthropic route to llama-cpp-python, not streamed"),
        ("litellm_openai_unknown_model", "/v1/chat/completions",
         {"model": "no-such-model", "messages": USER}, "unknown model on the OpenAI route"),
        ("litellm_anthropic_unknown_model", "/v1/messages",
         {"model": "no-such-model", "max_tokens": 64, "messages": USER}, "unknown model on the Anthropic route"),
        ("litellm_mock_429", "/v1/chat/completions", {"model": "mock-429", "messages": USER}, "mock rate limit"),
        ("litellm_mock_500", "/v1/chat/completions", {"model": "mock-500", "messages": USER}, "mock server error"),
    ]
    with httpx.Client(timeout=120) as client:
        for name, path, body, note in cases:
            resp = client.post(litellm_server.url + path, json=body, headers={"x-api-key": "sk-real-test"})
            save(name, "litellm-proxy", LITELLM_VERSION, path, body, resp, note)


def test_capture_llama_cpp_function_calling_format(llama_server_fc):
    body = {"model": "tiny", "messages": USER, "seed": 1107, "tool_choice": "required",
            "tools": [{"type": "function", "function": {"name": "list_files", "description": "List files in a folder.",
                                                        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}}]}
    with httpx.Client(timeout=120) as client:
        resp = client.post(llama_server_fc.url + "/v1/chat/completions", json=body)
    save("llama_required_rejected", "llama-cpp-python", metadata.version("llama-cpp-python"), "/v1/chat/completions",
         body, resp, 'server started with --chat_format chatml-function-calling: tool_choice "required" fails with an '
         "empty HTTP 500")
