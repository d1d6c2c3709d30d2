"""A tool with a native form: Anthropic's API gets its own tool type (schema-less, the name the API
fixes); every other API, and a tool that only borrows the form under another name, get the schema."""

from __future__ import annotations

import dataclasses

import pytest
from native_data import READ

from agentcli.tools.builtin.str_replace_editor import TOOL
from agentcli.wire import native

EDITOR = TOOL.spec


def test_anthropic_sends_the_text_editor_type():
    out = native.get("anthropic").render_tools([READ, EDITOR])
    assert out[1] == {"type": "text_editor_20250728", "name": "str_replace_based_edit_tool"}
    assert out[0]["name"] == "read_file" and "input_schema" in out[0]


def test_a_renamed_tool_with_the_form_gets_its_schema():
    other = dataclasses.replace(EDITOR, name="my_editor")
    (out,) = native.get("anthropic").render_tools([other])
    assert out["name"] == "my_editor" and out["input_schema"]["required"] == ["command", "path"]


@pytest.mark.parametrize("api", ["openai", "ollama"])
def test_other_apis_get_the_same_commands_as_a_function(api: str):
    (out,) = native.get(api).render_tools([EDITOR])
    fn = out["function"]
    assert fn["name"] == "str_replace_based_edit_tool"
    assert fn["parameters"]["properties"]["command"]["enum"] == ["view", "create", "str_replace", "insert"]
    assert fn["parameters"]["properties"]["view_range"]["type"] == "array"
