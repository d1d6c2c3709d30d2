"""Each model edits with the tool it was trained on, through the real wire forms: an OpenAI-family
model's `apply_patch` function call over chat completions, and a Claude model's
`str_replace_based_edit_tool` sent as Anthropic's native text editor type and answered with
`tool_use` blocks. Asserts the request bodies actually sent and the file bytes after."""

from __future__ import annotations

from e2e_helpers import openai_call, run_agent, tool_messages, write_profile

from agentcli.testing import AnthropicServer, OpenAIServer, anthropic_body, openai_body

PATCH = """*** Begin Patch
*** Update File: calc.py
@@ def add(a, b):
-    return a - b
+    return a + b
*** Add File: notes/CHANGES.md
+- add() adds
*** End Patch
"""


# The runs start at walk, so the first request already offers the edit tool (the tier request
# itself is tested in test_tier_request_cli.py).
WALK = {"start_tier": "walk"}


def _names(tools: list[dict]) -> set[str]:
    return {t["function"]["name"] for t in tools}


def test_gpt5_edits_with_apply_patch_over_chat_completions(tmp_path, workspace):
    with OpenAIServer() as srv:
        srv.queue(openai_body("", tool_calls=[openai_call("apply_patch", {"input": PATCH}, "p1")]))
        srv.queue(openai_body("Patched."))
        profile = write_profile(tmp_path, "openai", srv.url, "gpt-5", tools=WALK)
        res = run_agent("run", "fix add() in calc.py", "--profile", str(profile), "--workspace", str(workspace),
                        "--yes", "--tier", "walk")
        assert res.exit_code == 0, res.output
        first, second = srv.chat_requests()
        tools = {t["function"]["name"]: t for t in first.body["tools"]}
        assert "apply_patch" in tools and not {"edit_file", "str_replace_based_edit_tool"} & set(tools)
        fn = tools["apply_patch"]
        assert fn["type"] == "function"
        assert fn["function"]["parameters"]["required"] == ["input"]
        assert list(fn["function"]["parameters"]["properties"]) == ["input"]
        assert "*** Begin Patch" in fn["function"]["description"]
        result = tool_messages(second.body)[0]
        assert result["tool_call_id"] == "p1" and result["content"].startswith("Success. Updated the following files:")
    assert (workspace / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    assert (workspace / "notes/CHANGES.md").read_bytes() == b"- add() adds\n"
    undone = run_agent("undo", "-w", str(workspace))  # both files of the one call come back
    assert undone.exit_code == 0, undone.output
    assert (workspace / "calc.py").read_text() == "def add(a, b):\n    return a - b\n"
    assert not (workspace / "notes/CHANGES.md").exists()


def test_apply_patch_that_does_not_fit_changes_nothing_and_quotes_the_hunk(tmp_path, workspace):
    bad = PATCH.replace("-    return a - b", "-    return a * b")
    with OpenAIServer() as srv:
        srv.queue(openai_body("", tool_calls=[openai_call("apply_patch", {"input": bad}, "p1")]))
        srv.queue(openai_body("It did not apply."))
        profile = write_profile(tmp_path, "openai", srv.url, "gpt-4.1", tools=WALK)
        res = run_agent("run", "fix add()", "--profile", str(profile), "--workspace", str(workspace),
                        "--yes", "--tier", "walk")
        assert res.exit_code == 0, res.output
        content = tool_messages(srv.chat_requests()[1].body)[0]["content"]
        assert "Failed to find expected lines in calc.py" in content and "-    return a * b" in content
    assert (workspace / "calc.py").read_text() == "def add(a, b):\n    return a - b\n"
    assert not (workspace / "notes").exists()


def test_claude_edits_with_the_native_text_editor(tmp_path, workspace):
    view = {"type": "tool_use", "id": "toolu_1", "name": "str_replace_based_edit_tool",
            "input": {"command": "view", "path": "calc.py", "view_range": [2, -1]}}
    edit = {"type": "tool_use", "id": "toolu_2", "name": "str_replace_based_edit_tool",
            "input": {"command": "str_replace", "path": "calc.py", "old_str": "return a - b", "new_str": "return a + b"}}
    with AnthropicServer() as srv:
        srv.queue(anthropic_body("", tool_uses=[view]))
        srv.queue(anthropic_body("", tool_uses=[edit]))
        srv.queue(anthropic_body("Fixed."))
        profile = write_profile(tmp_path, "anthropic", srv.url, "claude-sonnet-4-5", tools=WALK)
        res = run_agent("run", "fix add() in calc.py", "--profile", str(profile), "--workspace", str(workspace),
                        "--yes", "--tier", "walk")
        assert res.exit_code == 0, res.output
        first, second, third = (r.body for r in srv.chat_requests())
        native = [t for t in first["tools"] if t.get("type", "").startswith("text_editor_")]
        assert native == [{"type": "text_editor_20250728", "name": "str_replace_based_edit_tool"}]
        others = {t["name"] for t in first["tools"] if "input_schema" in t}
        assert "read_file" in others and not {"edit_file", "apply_patch"} & others
        viewed = second["messages"][-1]["content"][0]
        assert viewed["type"] == "tool_result" and viewed["tool_use_id"] == "toolu_1"
        text = viewed["content"] if isinstance(viewed["content"], str) else viewed["content"][0]["text"]
        assert "     2\t    return a - b" in text and "def add" not in text
        edited = third["messages"][-1]["content"][0]
        assert edited["tool_use_id"] == "toolu_2" and not edited.get("is_error")
    assert (workspace / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"


def test_profile_override_and_a_trained_name_not_given(tmp_path, workspace):
    """edit_tool = "edit_file" for a GPT-5 profile: apply_patch is not offered, yet a call to it is
    carried out by the same edit core, with the repair reported to the model."""
    with OpenAIServer() as srv:
        srv.queue(openai_body("", tool_calls=[openai_call("apply_patch", {"input": PATCH}, "p1")]))
        srv.queue(openai_body("Done."))
        profile = write_profile(tmp_path, "openai", srv.url, "gpt-5", tools={**WALK, "edit_tool": "edit_file"})
        res = run_agent("run", "fix add()", "--profile", str(profile), "--workspace", str(workspace),
                        "--yes", "--tier", "walk")
        assert res.exit_code == 0, res.output
        first, second = srv.chat_requests()
        assert "edit_file" in _names(first.body["tools"]) and "apply_patch" not in _names(first.body["tools"])
        content = tool_messages(second.body)[0]["content"]
        assert "repair" in content and "edit_file" in content
    assert (workspace / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"


def test_doctor_shows_the_edit_tool(tmp_path):
    profile = write_profile(tmp_path, "openai", "http://127.0.0.1:9", "gpt-5-codex")
    res = run_agent("doctor", "--profile", str(profile), "--offline", "--json")
    assert res.exit_code == 0, res.output
    import json

    report = json.loads(res.output)
    assert report["edit_tool"] == {"form": "apply_patch", "tool": "apply_patch", "from": "family rule"}
    claude = write_profile(tmp_path, "anthropic", "http://127.0.0.1:9", "claude-opus-4-1",
                           tools={**WALK, "edit_tool": "edit_file"})
    res = run_agent("doctor", "--profile", str(claude), "--offline")
    assert res.exit_code == 0, res.output
    assert "edit tool" in res.output and "profile [tools] edit_tool" in res.output
