"""`agent run` against loopback servers speaking each protocol: the full loop."""

from __future__ import annotations

import json

from e2e_helpers import KEY, openai_call, run_agent, tool_messages, write_profile

from agentcli.testing import AnthropicServer, OllamaServer, OpenAIServer, anthropic_body, ollama_body, openai_body


def test_openai_streamed_read_edit_run(tmp_path, workspace):
    with OpenAIServer() as srv:
        srv.queue(openai_body("", tool_calls=[openai_call("read_file", {"path": "calc.py"}, "c1")]))
        srv.queue(openai_body("Found it.", tool_calls=[openai_call(
            "edit_file", {"path": "calc.py", "old_content": "return a - b", "new_content": "return a + b"}, "c2")]))
        srv.queue(openai_body("", tool_calls=[openai_call("bash", {"command": "python3 check.py"}, "c3")]))
        srv.queue(openai_body("Fixed add() and the check passes."))
        profile = write_profile(tmp_path, "openai", srv.url, "gpt-4o")
        res = run_agent("run", "fix the bug in calc.py and run the tests", "--profile", str(profile),
                        "--workspace", str(workspace), "--yes", "--tier", "run")
        assert res.exit_code == 0, res.output
        assert "return a + b" in (workspace / "calc.py").read_text()
        reqs = srv.chat_requests()
        assert len(reqs) == 4
        assert all(r.body["stream"] is True for r in reqs)
        assert reqs[0].headers["authorization"] == f"Bearer {KEY}"
        # The run starts at crawl: the model is offered the tier request, not the tools above it; --yes
        # pre-approves up to the cap, so its direct calls raise the tier unasked.
        first = {t["function"]["name"] for t in reqs[0].body["tools"]}
        assert {"read_file", "request_tier"} <= first and not first & {"edit_file", "bash"}
        assert {t["function"]["name"] for t in reqs[3].body["tools"]} >= {"read_file", "edit_file", "bash"}
        results = tool_messages(reqs[3].body)
        assert [m["tool_call_id"] for m in results] == ["c1", "c2", "c3"]
        assert "all good" in results[2]["content"]
        assert "Fixed add()" in res.output


def test_crawl_goal_hides_write_tools_and_refuses_them(tmp_path, workspace):
    with OpenAIServer() as srv:
        srv.queue(openai_body("", tool_calls=[openai_call("write_file", {"path": "x.txt", "content": "hi"}, "w1")]))
        srv.queue(openai_body("I could not write."))
        profile = write_profile(tmp_path, "openai", srv.url, "gpt-4o", tools={"max_tier": "crawl"})
        res = run_agent("run", "what is in calc.py?", "--profile", str(profile), "--workspace", str(workspace), "--yes")
        assert res.exit_code == 0, res.output
        first, second = srv.chat_requests()
        assert "write_file" not in {t["function"]["name"] for t in first.body["tools"]}
        refusal = tool_messages(second.body)[0]["content"]
        assert "walk" in refusal and "crawl" in refusal and "permission" in refusal
        assert not (workspace / "x.txt").exists()


def test_tier_escalation_through_a_checkpoint(tmp_path, workspace):
    def scenario(srv):
        srv.queue(openai_body("", tool_calls=[openai_call("write_file", {"path": "x.txt", "content": "hi"}, "w1")]))
        srv.queue(openai_body("done"))

    with OpenAIServer() as srv:  # approved by --yes: the tier rises and the call runs
        scenario(srv)
        profile = write_profile(tmp_path, "openai", srv.url, "gpt-4o")
        res = run_agent("run", "what is in calc.py?", "--profile", str(profile), "--workspace", str(workspace), "--yes")
        assert res.exit_code == 0 and (workspace / "x.txt").read_text() == "hi"
        assert "tier raised to walk" in res.output
    (workspace / "x.txt").unlink()
    with OpenAIServer() as srv:  # no terminal, no --yes: the run ends at once, exit 3, saying why
        scenario(srv)
        profile = write_profile(tmp_path, "openai", srv.url, "gpt-4o")
        res = run_agent("run", "what is in calc.py?", "--profile", str(profile), "--workspace", str(workspace))
        assert res.exit_code == 3 and not (workspace / "x.txt").exists()
        assert len(srv.chat_requests()) == 1
        assert "refused" in res.output and "write_file needs approval" in res.output and "--yes" in res.output


def test_refusals_go_back_to_the_model_and_the_run_goes_on(tmp_path, workspace):
    calls = [
        openai_call("read_file", {"path": "../secret.txt"}, "p1"),
        openai_call("read_file", {"path": "/etc/passwd"}, "p2"),
        openai_call("read_file", {"path_name": "calc.py"}, "v1"),
        openai_call("delete_everything", {}, "u1"),
        openai_call("write_file", {"path": "big.txt", "content": "x" * 5000}, "s1"),
    ]
    with OpenAIServer() as srv:
        srv.queue(openai_body("", tool_calls=calls))
        srv.queue(openai_body("done"))
        profile = write_profile(tmp_path, "openai", srv.url, "gpt-4o", limits={"max_tool_args_bytes": 1000})
        res = run_agent("run", "edit things", "--profile", str(profile), "--workspace", str(workspace), "--yes")
        assert res.exit_code == 0, res.output
        results = {m["tool_call_id"]: m["content"] for m in tool_messages(srv.chat_requests()[1].body)}
        assert "permission" in results["p1"] and "CANARY" not in results["p1"]
        assert "permission" in results["p2"]
        assert "validation" in results["v1"] and "path" in results["v1"]
        assert "Unknown tool 'delete_everything'" in results["u1"] and "read_file" in results["u1"]
        assert "ARGUMENTS_TOO_LARGE" in results["s1"]
        assert not (workspace / "big.txt").exists()


def test_deny_list_hides_and_refuses(tmp_path, workspace):
    with OpenAIServer() as srv:
        srv.queue(openai_body("", tool_calls=[openai_call("search", {"pattern": "add"}, "d1")]))
        srv.queue(openai_body("ok"))
        profile = write_profile(tmp_path, "openai", srv.url, "gpt-4o", tools={"deny": ["search"]})
        res = run_agent("run", "look", "--profile", str(profile), "--workspace", str(workspace), "--yes")
        assert res.exit_code == 0
        first, second = srv.chat_requests()
        assert "search" not in {t["function"]["name"] for t in first.body["tools"]}
        assert "search" in tool_messages(second.body)[0]["content"]


def test_repeat_loop_ends_with_exit_3_after_a_handful_of_requests(tmp_path, workspace):
    with OpenAIServer() as srv:
        for i in range(12):
            srv.queue(openai_body("", tool_calls=[openai_call("list_files", {"path": "."}, f"r{i}")]))
        profile = write_profile(tmp_path, "openai", srv.url, "gpt-4o")
        res = run_agent("run", "look around", "--profile", str(profile), "--workspace", str(workspace), "--yes")
        assert res.exit_code == 3, res.output
        assert "stuck" in res.output
        assert len(srv.chat_requests()) <= 6
        notes = [m["content"] for r in srv.chat_requests() for m in tool_messages(r.body)]
        assert any("identical call #4" in n for n in notes)


def test_anthropic_native_tool_use(tmp_path, workspace):
    with AnthropicServer() as srv:
        srv.queue(anthropic_body("", tool_uses=[{"type": "tool_use", "id": "toolu_1", "name": "read_file",
                                                  "input": {"path": "calc.py"}}]))
        srv.queue(anthropic_body("add() subtracts."))
        profile = write_profile(tmp_path, "anthropic", srv.url, "claude-sonnet-4-20250514")
        res = run_agent("run", "what does calc.py do?", "--profile", str(profile), "--workspace", str(workspace))
        assert res.exit_code == 0, res.output
        second = srv.chat_requests()[1].body
        assert second["max_tokens"] > 0 and isinstance(second["system"], (str, list))
        block = second["messages"][-1]["content"][0]
        assert block["type"] == "tool_result" and block["tool_use_id"] == "toolu_1"
        assert srv.chat_requests()[0].headers["x-api-key"] == KEY


def test_ollama_emulated_model_writes_hermes_calls(tmp_path, workspace):
    with OllamaServer() as srv:
        srv.queue(ollama_body('<tool_call>\n{"name": "read_file", "arguments": {"path": "calc.py"}}\n</tool_call>'))
        srv.queue(ollama_body("It subtracts instead of adding."))
        profile = write_profile(tmp_path, "ollama", srv.url, "llama3:8b")
        res = run_agent("run", "what does calc.py do?", "--profile", str(profile), "--workspace", str(workspace))
        assert res.exit_code == 0, res.output
        first, second = srv.chat_requests()
        assert "tools" not in first.body
        system = first.body["messages"][0]["content"]
        assert "read_file" in system
        last_user = [m for m in second.body["messages"] if m["role"] == "user"][-1]["content"]
        assert "return a - b" in last_user
        assert "It subtracts" in res.output


def test_ollama_rejecting_tools_falls_back_to_emulation_and_remembers(tmp_path, workspace):
    with OllamaServer() as srv:
        srv.queue_error(400, {"error": "registry.ollama.ai/library/qwen3:8b does not support tools"})
        srv.queue(ollama_body('<tool_call>{"name": "list_files", "arguments": {"path": "."}}</tool_call>'))
        srv.queue(ollama_body("Two python files."))
        profile = write_profile(tmp_path, "ollama", srv.url, "qwen3:8b")
        res = run_agent("run", "what files are here?", "--profile", str(profile), "--workspace", str(workspace))
        assert res.exit_code == 0, res.output
        reqs = srv.chat_requests()
        assert "tools" in reqs[0].body and "tools" not in reqs[1].body
        assert "emulation" in res.output
        # remembered: the next run starts emulated
        srv.queue(ollama_body("Still two."))
        res2 = run_agent("run", "and now?", "--profile", str(profile), "--workspace", str(workspace))
        assert res2.exit_code == 0
        assert "tools" not in srv.chat_requests()[-1].body
        doctor = run_agent("doctor", "--profile", str(profile), "--json", "--offline")
        assert json.loads(doctor.output)["learned"]["native_tools"]["value"] is False


def test_native_model_writing_text_calls_is_learned(tmp_path, workspace):
    leak = '<tool_call>{"name": "list_files", "arguments": {"path": "."}}</tool_call>'
    with OpenAIServer() as srv:
        srv.queue(openai_body(leak))
        srv.queue(openai_body(leak.replace('"."', '"./"')))
        srv.queue(openai_body("two files"))
        profile = write_profile(tmp_path, "openai", srv.url, "gpt-4o")
        res = run_agent("run", "list", "--profile", str(profile), "--workspace", str(workspace), "--yes")
        assert res.exit_code == 0, res.output
        assert "writes its tool calls as hermes" in res.output
        doctor = json.loads(run_agent("doctor", "--profile", str(profile), "--json", "--offline").output)
        assert doctor["learned"]["text_dialect"]["value"] == "hermes"
        assert doctor["formats"]["call_parser"][1] == "hermes"


def test_json_output_is_one_event_per_line_ending_in_done(tmp_path, workspace):
    with OpenAIServer() as srv:
        srv.queue(openai_body("", tool_calls=[openai_call("read_file", {"path": "calc.py"}, "c1")]))
        srv.queue(openai_body("It subtracts."))
        profile = write_profile(tmp_path, "openai", srv.url, "gpt-4o")
        res = run_agent("run", "what does calc.py do?", "--profile", str(profile), "--workspace", str(workspace),
                        "--json")
        assert res.exit_code == 0
        events = [json.loads(line) for line in res.stdout.splitlines()]
        kinds = [e["event"] for e in events]
        assert kinds[0] == "session_start" and kinds[1] == "turn_start" and kinds[-1] == "done"
        assert all(k == k.lower() and " " not in k for k in kinds)  # snake_case, one convention
        assert events[0]["session_id"] and events[0]["model"] == "gpt-4o" and events[0]["tier"] == "crawl"
        assert "tool_run" in kinds and "tool_result" in kinds
        finished = next(e for e in events if e["event"] == "tool_result")
        assert finished["call"]["name"] == "read_file" and finished["result"]["ok"] is True
        assert events[-1]["stop"] == "answered" and events[-1]["answer"] == "It subtracts."
        assert "".join(e.get("text", "") for e in events if e["event"] == "text") == "It subtracts."
