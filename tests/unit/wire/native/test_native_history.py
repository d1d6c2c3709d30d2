"""One internal history re-rendered for every API: exact request JSON."""

from __future__ import annotations

from native_data import READ, WEATHER, history, plan, settings

from agentcli.wire import native

ERR = "Error [not_found]: a.txt does not exist"
WEATHER_PARAMS = {
    "type": "object",
    "properties": {
        "location": {"type": "string", "description": "City name"},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
    },
    "required": ["location"],
}
READ_PARAMS = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
S = settings(model="m", temperature=0.2, max_output_tokens=512)


def test_openai_history_exact():
    body = native.get("openai").build_body(history(), [WEATHER, READ], plan("openai"), S)
    assert body == {
        "model": "m",
        "messages": [
            {"role": "system", "content": "You are terse."},
            {"role": "user", "content": "Weather in Paris, and show a.txt"},
            {
                "role": "assistant",
                "content": "Checking.",
                "tool_calls": [
                    {"id": "call_1", "type": "function",
                     "function": {"name": "get_weather", "arguments": '{"location":"Paris"}'}},
                    {"id": "toolu_01A09q90qw90lq917835lq9", "type": "function",
                     "function": {"name": "read_file", "arguments": '{"path":"a.txt"}'}},
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": "18C sunny"},
            {"role": "tool", "tool_call_id": "toolu_01A09q90qw90lq917835lq9", "content": ERR},
            {"role": "user", "content": "Thanks"},
            {"role": "assistant", "content": "Paris is 18C; a.txt is missing."},
        ],
        "tools": [
            {"type": "function", "function": {"name": "get_weather", "description": "Current weather for a city.",
                                              "parameters": WEATHER_PARAMS}},
            {"type": "function", "function": {"name": "read_file", "description": "Read a file.",
                                              "parameters": READ_PARAMS}},
        ],
        "tool_choice": "auto",
        "temperature": 0.2,
        "max_tokens": 512,
    }


def test_anthropic_history_exact():
    body = native.get("anthropic").build_body(history(), [WEATHER, READ], plan("anthropic"), S)
    assert body == {
        "model": "m",
        "max_tokens": 512,
        "system": "You are terse.",
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "Weather in Paris, and show a.txt"}]},
            {"role": "assistant", "content": [
                {"type": "text", "text": "Checking."},
                {"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {"location": "Paris"}},
                {"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", "name": "read_file",
                 "input": {"path": "a.txt"}},
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "call_1", "content": "18C sunny", "is_error": False},
                {"type": "tool_result", "tool_use_id": "toolu_01A09q90qw90lq917835lq9", "content": ERR,
                 "is_error": True},
                {"type": "text", "text": "Thanks"},
            ]},
            {"role": "assistant", "content": [{"type": "text", "text": "Paris is 18C; a.txt is missing."}]},
        ],
        "tools": [
            {"name": "get_weather", "description": "Current weather for a city.", "input_schema": WEATHER_PARAMS},
            {"name": "read_file", "description": "Read a file.", "input_schema": READ_PARAMS},
        ],
        "temperature": 0.2,
    }


def test_gemini_history_exact():
    body = native.get("gemini").build_body(history(), [WEATHER, READ], plan("gemini"), S)
    assert body == {
        "contents": [
            {"role": "user", "parts": [{"text": "Weather in Paris, and show a.txt"}]},
            {"role": "model", "parts": [
                {"text": "Checking."},
                # calls from another provider carry Google's placeholder signature on the first call
                {"functionCall": {"name": "get_weather", "args": {"location": "Paris"}},
                 "thoughtSignature": "skip_thought_signature_validator"},
                {"functionCall": {"name": "read_file", "args": {"path": "a.txt"}}},
            ]},
            {"role": "user", "parts": [
                {"functionResponse": {"name": "get_weather", "response": {"result": "18C sunny"}}},
                {"functionResponse": {"name": "read_file", "response": {"error": ERR}}},
                {"text": "Thanks"},
            ]},
            {"role": "model", "parts": [{"text": "Paris is 18C; a.txt is missing."}]},
        ],
        "systemInstruction": {"parts": [{"text": "You are terse."}]},
        "tools": [{"functionDeclarations": [
            {"name": "get_weather", "description": "Current weather for a city.", "parameters": WEATHER_PARAMS},
            {"name": "read_file", "description": "Read a file.", "parameters": READ_PARAMS},
        ]}],
        "generationConfig": {"temperature": 0.2, "maxOutputTokens": 512},
    }


def test_ollama_history_exact():
    body = native.get("ollama").build_body(history(), [WEATHER, READ], plan("ollama"), S)
    assert body == {
        "model": "m",
        "messages": [
            {"role": "system", "content": "You are terse."},
            {"role": "user", "content": "Weather in Paris, and show a.txt"},
            {"role": "assistant", "content": "Checking.", "tool_calls": [
                {"function": {"name": "get_weather", "arguments": {"location": "Paris"}}},
                {"function": {"name": "read_file", "arguments": {"path": "a.txt"}}},
            ]},
            {"role": "tool", "content": "18C sunny", "tool_name": "get_weather"},
            {"role": "tool", "content": ERR, "tool_name": "read_file"},
            {"role": "user", "content": "Thanks"},
            {"role": "assistant", "content": "Paris is 18C; a.txt is missing."},
        ],
        "stream": False,
        "tools": [
            {"type": "function", "function": {"name": "get_weather", "description": "Current weather for a city.",
                                              "parameters": WEATHER_PARAMS}},
            {"type": "function", "function": {"name": "read_file", "description": "Read a file.",
                                              "parameters": READ_PARAMS}},
        ],
        "options": {"temperature": 0.2, "num_predict": 512},
    }


def test_tool_schemas_are_not_mutated():
    before = repr(WEATHER.parameters)
    for api in ("openai", "anthropic", "gemini", "ollama"):
        native.get(api).build_body(history(), [WEATHER, READ], plan(api, strict=True), S)
    assert repr(WEATHER.parameters) == before
