"""The offline model line-up: one scripted persona per wire family and text dialect.

Each persona is a profile (provider API, a real model id so capability resolution and the
negotiator decide the wire plan as they would live) plus how the model slips when it writes a
call as text, and how noisy it is. `agent eval` without --profile runs all of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agentcli.evals.noisy import NoiseConfig

if TYPE_CHECKING:
    from agentcli.config.schema import Profile


@dataclass(frozen=True, slots=True)
class Persona:
    name: str
    api: str  # the provider protocol it answers in
    model: str
    family: str
    tool_format: str | None = None  # set: tools are emulated in this dialect
    leak: str = "hermes"  # the text form its stray calls take
    noise: NoiseConfig | None = None
    capabilities: dict[str, Any] = field(default_factory=dict)

    def profile(self) -> Profile:
        from agentcli.config.schema import Profile, ToolsConfig

        # The real provider name, so capability resolution sees what it would see live; the
        # runner swaps in the scripted provider.
        return Profile(
            name=self.name, provider=self.api, model=self.model, stream=True,
            tools=ToolsConfig(tool_format=self.tool_format), capabilities=dict(self.capabilities),
        )


NOISE = NoiseConfig(rate=0.35)

PERSONAS: dict[str, Persona] = {p.name: p for p in (
    Persona("openai-native", "openai", "gpt-4o-mini", "openai", leak="hermes"),
    Persona("anthropic-native", "anthropic", "claude-sonnet-4-20250514", "claude", leak="claude_xml"),
    Persona("ollama-native", "ollama", "qwen3-coder:30b", "qwen", leak="qwen3_coder_bare"),
    Persona("gemini-native", "gemini", "gemini-2.0-flash", "gemini", leak="json_block"),
    Persona("hermes-emulated", "openai", "NousResearch/Hermes-3-Llama-3.1-8B", "hermes", "hermes", leak="claude_xml"),
    Persona("claude-xml-emulated", "anthropic", "claude-3-5-haiku", "claude", "xml", leak="hermes"),
    Persona("pythonic-emulated", "ollama", "llama3.2:3b", "llama", "pythonic", leak="llama3_json"),
    Persona("qwen-xml-emulated", "openai", "Qwen/Qwen3-Coder-30B-A3B-Instruct", "qwen", "qwen_xml", leak="hermes"),
    Persona("mistral-emulated", "openai", "mistral-small", "mistral", "mistral", leak="json_block"),
    Persona("json-emulated", "gemini", "gemini-2.0-flash", "gemini", "json", leak="hermes"),
    Persona("noisy-openai", "openai", "gpt-4o-mini", "openai", leak="hermes", noise=NOISE),
    Persona("noisy-hermes", "openai", "NousResearch/Hermes-3-Llama-3.1-8B", "hermes", "hermes",
            leak="llama3_json", noise=NOISE),
)}

DEFAULT_PERSONAS: tuple[str, ...] = tuple(PERSONAS)
