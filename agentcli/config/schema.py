"""The profile schema (seed 001 §3.4). Unknown keys are errors, not silently ignored."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

ProviderName = Literal["openai", "anthropic", "ollama", "gemini", "openrouter", "scripted"]
TierName = Literal["crawl", "walk", "run"]
FormatName = str  # "auto", "native", a native API name or a dialect name; checked by the negotiator


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class ToolsConfig(_Strict):
    definition_format: FormatName = "auto"
    call_parser: FormatName = "auto"
    result_format: FormatName = "auto"
    # Shorthand: native | hermes | json | xml | pythonic | mistral (emulation dialect, parsed first).
    tool_format: FormatName | None = None
    tool_choice: str = "auto"  # auto | none | required | <tool name>
    tool_use_mode: Literal["enforced", "relaxed", "disabled"] = "relaxed"
    max_tier: TierName = "run"
    allow: list[str] | None = None  # None = every tool
    deny: list[str] = Field(default_factory=list)
    strict: bool | None = None  # OpenAI strict mode; None = where the schema allows it
    parallel: bool = True


class LimitsConfig(_Strict):
    max_turns: int = Field(30, ge=1, le=1000)
    max_tool_args_bytes: int = Field(100_000, ge=64)
    max_tool_output_bytes: int = Field(50_000, ge=256)
    request_timeout: float = Field(120.0, gt=0)
    connect_timeout: float = Field(10.0, gt=0)
    stream_idle_timeout: float = Field(60.0, gt=0)
    max_retries: int = Field(2, ge=0, le=10)
    retry_budget_s: float = Field(120.0, gt=0)  # wall budget for one call including retries
    validation_retries: int = Field(3, ge=0, le=20)
    max_output_tokens: int | None = Field(None, ge=1)


class BashConfig(_Strict):
    """Shell command rules: prefixes; the strictest matching rule wins."""

    allow: list[str] = Field(default_factory=list)
    ask: list[str] = Field(default_factory=list)
    deny: list[str] = Field(default_factory=list)
    network: bool = True
    env_allow: list[str] = Field(default_factory=list)  # secret-named variables the shell may see
    timeout_seconds: float = Field(120.0, gt=0)


class Profile(_Strict):
    name: str = ""
    provider: ProviderName = "ollama"
    model: str
    url: str | None = None  # None = the provider's default
    api_key_env: str | None = None
    stream: bool = True
    temperature: float | None = None
    headers: dict[str, str] = Field(default_factory=dict)  # non-secret extra headers (routing, ...)
    request: dict[str, Any] = Field(default_factory=dict)  # body overrides; reserved keys refused
    transforms: list[str] = Field(default_factory=list)  # named provider quirk transforms
    script: str | None = None  # scripted provider: file of assistant turns
    system_prompt: str | None = None
    tools: ToolsConfig = Field(default_factory=ToolsConfig)
    capabilities: dict[str, Any] = Field(default_factory=dict)
    limits: LimitsConfig = Field(default_factory=LimitsConfig)
    bash: BashConfig = Field(default_factory=BashConfig)

    # Set by the loader, not by the file.
    source: Path | None = Field(default=None, exclude=True)

    @field_validator("api_key_env")
    @classmethod
    def _env_name(cls, v: str | None) -> str | None:
        if v is not None and (not v or not v.replace("_", "").isalnum()):
            raise ValueError("must be the NAME of an environment variable (letters, digits, _), never the key")
        return v
