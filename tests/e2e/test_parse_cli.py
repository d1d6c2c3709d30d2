"""`agent parse` end to end: text and provider bodies, --json, --jsonl batches, bad input."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HERMES = '<tool_call>\n{"name": "Read_File", "arguments": {"path": "a.py",}}\n</tool_call>'
OPENAI = {
    "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]}}]
}
ANTHROPIC = {"content": [{"type": "text", "text": "Checking."}, {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Rome"}}], "stop_reason": "tool_use"}
OLLAMA = {"message": {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Oslo"}}}]}, "done": True}
GEMINI = {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Lima"}}}]}, "finishReason": "STOP"}]}
RESPONSES = {"output": [{"type": "function_call", "call_id": "fc_1", "name": "get_weather", "arguments": "{\"city\": \"Kyiv\"}"}]}


def agent(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "agentcli", "parse", *args], input=stdin, capture_output=True, text=True, timeout=60)


def test_text_file_json_output(tmp_path):
    f = tmp_path / "out.txt"
    f.write_text(HERMES)
    r = agent(str(f), "--tools", "read_file,write_file", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert [(c["name"], c["arguments"], c["dialect"]) for c in out["tool_calls"]] == [("read_file", {"path": "a.py"}, "hermes")]
    assert {x["kind"] for x in out["repairs"]} == {"name_case", "json_repair"}


def test_human_output_from_stdin():
    r = agent("-", stdin='Let me see.\n[get_weather(city="Paris")]')
    assert r.returncode == 0, r.stderr
    assert "get_weather" in r.stdout and "pythonic" in r.stdout and "Let me see." in r.stdout


@pytest.mark.parametrize(("body", "city"), [(OPENAI, "Paris"), (ANTHROPIC, "Rome"), (OLLAMA, "Oslo"), (GEMINI, "Lima"), (RESPONSES, "Kyiv")])
def test_provider_body_autodetected(body, city):
    r = agent("-", "--json", stdin=json.dumps(body))
    assert r.returncode == 0, r.stderr
    calls = json.loads(r.stdout)["tool_calls"]
    assert [(c["name"], c["arguments"]) for c in calls] == [("get_weather", {"city": city})]
    assert calls[0]["dialect"].startswith("native_")


def test_unknown_provider_is_a_usage_error():
    r = agent("-", "--provider", "nope", stdin="hi")
    assert r.returncode == 2 and "nope" in r.stderr


def test_jsonl_batch_in_order_with_bad_lines(tmp_path):
    lines = [
        {"id": "a", "kind": "text", "input": HERMES, "tools": ["read_file"]},
        "this is not json",
        {"id": "c", "kind": "openai", "input": OPENAI, "tools": ["get_weather"]},
        {"id": "d", "kind": "gemini", "input": "not an object"},
        {"id": "e", "kind": "anthropic", "input": ANTHROPIC},
        {"id": "f", "kind": "text", "input": "No tools needed: 42."},
    ]
    f = tmp_path / "batch.jsonl"
    f.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n")
    r = agent("--jsonl", str(f))
    assert r.returncode == 0, r.stderr
    out = [json.loads(line) for line in r.stdout.splitlines()]
    assert len(out) == 6
    assert [o["id"] for o in out] == ["a", None, "c", "d", "e", "f"]
    assert out[0]["tool_calls"] == [{"name": "read_file", "arguments": {"path": "a.py"}, "dialect": "hermes", "id": out[0]["tool_calls"][0]["id"]}]
    assert "error" in out[1] and "error" in out[3]
    assert out[2]["tool_calls"][0]["arguments"] == {"city": "Paris"}
    assert out[4]["text"] == "Checking." and out[4]["tool_calls"][0]["name"] == "get_weather"
    assert out[5] == {"id": "f", "tool_calls": [], "text": "No tools needed: 42.", "repairs": []}


def test_model_option_reads_as_that_model_would():
    # A Llama 3.1 run reads the built-in tool form after the python tag; a wrong model id is a usage error.
    text = '<|python_tag|>brave_search.call(query="gold price")<|eom_id|>'
    r = agent("-", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--tools", "brave_search", "--json", stdin=text)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert [(c["name"], c["arguments"]) for c in out["tool_calls"]] == [("brave_search", {"query": "gold price"})]


def test_megabyte_arguments_are_clipped_for_display_not_for_json():
    big = "x" * 1_000_000
    reply = '<tool_call>{"name": "write_file", "arguments": {"path": "a", "content": "' + big + '"}}</tool_call>'
    shown = agent("-", stdin=reply)
    assert shown.returncode == 0, shown.stderr
    words = "".join(ch for ch in shown.stdout if ch.isalnum())  # the table folds the note across lines
    assert "morecharactersjsonshowsall" in words and len(shown.stdout) < 20_000
    full = agent("-", "--json", stdin=reply)
    assert json.loads(full.stdout)["tool_calls"][0]["arguments"]["content"] == big
