"""Shared builders for provider tests: one body per API for the same assistant turn."""

from __future__ import annotations

import json
from typing import Any

from agentcli.config.schema import Profile
from agentcli.core.types import Message, Tool
from agentcli.providers import create
from agentcli.testing.servers import SERVERS
from agentcli.testing.streams import anthropic_body, gemini_body, ollama_body, openai_body
from agentcli.wire.types import ParseContext, RequestSettings, WirePlan

KEY = "sk-test-loopback-0123456789abcdef"  # key-shaped on purpose: it must never show up in errors


def make_profile(provider: str, url: str, model: str = "loopback-model", **kw: Any) -> Profile:
    limits = {"request_timeout": 5.0, "connect_timeout": 2.0, "stream_idle_timeout": 5.0, **kw.pop("limits", {})}
    return Profile(name=f"test-{provider}", provider=provider, model=model, url=url, limits=limits, **kw)


APIS = ["openai", "anthropic", "ollama", "gemini"]

READ = Tool("read_file", "Read a file from the workspace.",
            {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})
GREP = Tool("grep", "Search files for a pattern.",
            {"type": "object", "properties": {"pattern": {"type": "string"}, "path": {"type": "string"}}, "required": ["pattern"]})
TOOLS = [READ, GREP]

CALLS = [("call_a1", "read_file", {"path": "src/app.py"}),
         ("call_b2", "grep", {"pattern": "def main", "path": "src"})]
TEXT = "I'll read the file and search for main."


def body_for(api: str, text: str = TEXT, calls: list[tuple[str, str, dict]] = CALLS) -> dict[str, Any]:
    """The same turn (text + parallel calls) in each API's non-streamed shape."""
    if api == "openai":
        return openai_body(text, tool_calls=[
            {"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}} for i, n, a in calls])
    if api == "anthropic":
        return anthropic_body(text, tool_uses=[{"type": "tool_use", "id": i, "name": n, "input": a} for i, n, a in calls])
    if api == "ollama":
        return ollama_body(text, tool_calls=[{"function": {"name": n, "arguments": a}} for _i, n, a in calls])
    return gemini_body(text, calls=[{"name": n, "args": a} for _i, n, a in calls])


def provider_for(srv, *, sleep=None, provider: str | None = None, **profile_kw: Any):
    prof = make_profile(provider or srv.api, srv.url, **profile_kw)
    provider = create(prof, api_key=None if srv.api == "ollama" else KEY, sleep=sleep)
    provider.policy.random = lambda: 0.0  # no jitter: delays are exact
    return provider


def settings(stream: bool, model: str = "loopback-model", **kw: Any) -> RequestSettings:
    return RequestSettings(model=model, stream=stream, **kw)


async def ask(provider, api: str, *, stream: bool, messages: list[Message] | None = None, events: list | None = None, **kw: Any):
    msgs = messages or [Message.system("You are a coding agent."), Message.user("Where is main defined?")]
    return await provider.complete(msgs, TOOLS, WirePlan(api=api), settings(stream, **kw), ParseContext.of(TOOLS),
                                   events.append if events is not None else None)


def server(api: str):
    return SERVERS[api]()
