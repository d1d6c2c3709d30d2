"""Emulated tool calling: history re-rendered as plain text for a model prompted in a dialect.

The internal history keeps real ToolCalls and ToolResults; only the request sent to a model
without native tools sees them as text (calls in the dialect's syntax, results as user turns).
"""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

from agentcli.core.lazy import lazy_pattern
from agentcli.core.types import Message, Role, Tool
from agentcli.wire import dialects


def _dialect(name: str) -> dialects.Dialect:
    return dialects.get(dialects.SHORTHANDS.get(name, name))


def render_plain_history(messages: list[Message], dialect: str, tools: list[Tool], compact: bool = False) -> list[Message]:
    """Messages with the tool prompt in the system message, calls as text and results as user turns."""
    d = _dialect(dialect)
    out: list[Message] = []
    prompt = d.render_prompt(tools, compact) if tools else ""
    has_system = any(m.role is Role.SYSTEM for m in messages)
    if prompt and not has_system:
        out.append(Message.system(prompt))
    system_done = False
    from_results = False  # the previous output message is a user turn made of tool results
    for msg in messages:
        if msg.role is Role.SYSTEM:
            if prompt and not system_done:
                text = f"{msg.text.rstrip()}\n\n{prompt}" if msg.text.strip() else prompt
                out.append(dataclasses.replace(msg, text=text))
                system_done = True
            else:
                out.append(msg)
            from_results = False
        elif msg.role is Role.ASSISTANT and msg.tool_calls:
            calls = "\n".join(d.render_call(c) for c in msg.tool_calls)
            text = f"{msg.text.rstrip()}\n\n{calls}" if msg.text.strip() else calls
            out.append(dataclasses.replace(msg, text=text, tool_calls=[]))
            from_results = False
        elif msg.role is Role.TOOL:
            text = d.render_results(msg.tool_results) if msg.tool_results else msg.text
            if from_results:
                out[-1] = dataclasses.replace(out[-1], text=f"{out[-1].text}\n\n{text}")
            else:
                out.append(Message(Role.USER, text, provider_data=dict(msg.provider_data)))
            from_results = True
        elif msg.role is Role.USER and from_results:
            # Keep user/assistant alternation: a user line right after results joins that turn.
            out[-1] = dataclasses.replace(out[-1], text=f"{out[-1].text}\n\n{msg.text}")
            from_results = False
        else:
            out.append(msg)
            from_results = False
    return out


# --- fitting tools into a context budget (journey E6) ----------------------------------------

_WORD = lazy_pattern(r"[a-z0-9]+")
_STOP = frozenset("a an the to of in on for and or with from by is are be this that it as at".split())


def estimate_tokens(tool: Tool) -> int:
    """A rough token count for one tool definition: characters / 4."""
    return (len(tool.name) + len(tool.description) + len(json.dumps(tool.parameters, ensure_ascii=False))) // 4 + 1


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower().replace("_", " ")) if w not in _STOP}


def _relevance(tool: Tool, task: set[str]) -> float:
    if not task:
        return 0.0
    name_words = _words(tool.name)
    desc_words = _words(tool.description)
    stems = {w[:5] for w in task}
    score = 3.0 * len(name_words & task) + len(desc_words & task)
    score += 0.5 * sum(1 for w in name_words | desc_words if w[:5] in stems)
    return score


def _first_sentence(text: str, limit: int) -> str:
    text = " ".join(text.split())
    m = re.search(r"(?<=[.!?])\s", text)
    if m and m.start() <= limit:
        text = text[: m.start()]
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


def _strip_param_docs(schema: dict[str, Any]) -> dict[str, Any]:
    props = schema.get("properties")
    if not isinstance(props, dict):
        return schema
    slim = {k: {kk: vv for kk, vv in v.items() if kk not in ("description", "examples", "title")} if isinstance(v, dict) else v for k, v in props.items()}
    return {**schema, "properties": slim}


def optimize_tool_definitions(tools: list[Tool], budget_tokens: int, task: str) -> list[Tool]:
    """Fit the tool list into `budget_tokens`: most relevant to `task` first, descriptions shortened
    before any tool is dropped. Returns the tools unchanged when they already fit."""
    if sum(estimate_tokens(t) for t in tools) <= budget_tokens:
        return list(tools)
    words = _words(task)
    ranked = sorted(tools, key=lambda t: -_relevance(t, words))  # stable: ties keep registry order

    def total(ts: list[Tool]) -> int:
        return sum(estimate_tokens(t) for t in ts)

    stages = [
        lambda t: dataclasses.replace(t, description=_first_sentence(t.description, 160)),
        lambda t: dataclasses.replace(t, description=_first_sentence(t.description, 80), parameters=_strip_param_docs(t.parameters)),
    ]
    current = ranked
    for stage in stages:
        current = [stage(t) for t in ranked]
        if total(current) <= budget_tokens:
            return current
    kept: list[Tool] = []
    used = 0
    for t in current:
        cost = estimate_tokens(t)
        if used + cost <= budget_tokens:
            kept.append(t)
            used += cost
    if not kept and current and budget_tokens > 0:
        kept = [current[0]]  # the single most relevant tool, even over budget: no tools at all is worse
    return kept
