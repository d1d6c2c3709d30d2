"""The profile schema (seed 001 §3.4). Unknown keys are errors, not silently ignored."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from agentcli.config.checks import check_server_names, http_url
from agentcli.config.providers import PROVIDERS, default_api_key_env, default_url

if TYPE_CHECKING:  # pragma: no cover
    from pydantic import TypeAdapter

    from agentcli.config.mcp_schema import McpServerConfig

    McpServers = dict[str, McpServerConfig]
else:
    # At run time the field is a plain table that `Profile._mcp_servers` turns into McpServerConfig
    # values, so the MCP models are built only for a profile that has servers (most have none).
    McpServers = dict[str, Any]

ProviderName = str  # a key of agentcli.config.providers.PROVIDERS, checked by Profile
TierName = Literal["crawl", "walk", "run"]
FormatName = str  # "auto", "native", a native API name or a dialect name; checked by the negotiator


class _Strict(BaseModel):
    """A typo in a profile must fail loudly, so every table forbids unknown keys."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class ToolsConfig(_Strict):
    """`[profiles.NAME.tools]`: wire formats (each `auto` by default) and which tools are visible."""

    definition_format: FormatName = "auto"
    call_parser: FormatName = "auto"
    result_format: FormatName = "auto"
    # Shorthand: native | hermes | json | xml | pythonic | mistral (emulation dialect, parsed first).
    tool_format: FormatName | None = None
    tool_choice: str = "auto"  # auto | none | required | <tool name>
    tool_use_mode: Literal["enforced", "relaxed", "disabled"] = "relaxed"
    max_tier: TierName = "run"
    # Where a run starts when --tier is not given; it rises only through a checkpoint.
    start_tier: TierName = "crawl"
    allow: list[str] | None = None  # None = every tool
    deny: list[str] = []
    strict: bool | None = None  # OpenAI strict mode; None = where the schema allows it
    parallel: bool = True
    # How much tool results say (seed 000 §11): concise saves context; detailed adds line
    # numbers, sizes, exit codes and what was cut.
    result_mode: Literal["concise", "detailed"] = "concise"
    # Which file-editing tool the model gets: "auto" = the one its family was trained on
    # (apply_patch for OpenAI GPT-4.1/GPT-5/codex, str_replace for Claude 4, edit_file otherwise).
    edit_tool: Literal["auto", "apply_patch", "str_replace", "edit_file"] = "auto"

    @field_validator("max_tier", "start_tier", mode="before")
    @classmethod
    def _tier_case(cls, v: Any) -> Any:
        return v.strip().lower() if isinstance(v, str) else v


class LimitsConfig(_Strict):
    """`[profiles.NAME.limits]`: turn, size, time and retry caps for one run."""

    max_turns: int = Field(default=30, ge=1, le=1000)
    max_tool_args_bytes: int = Field(default=100_000, ge=64)
    max_tool_output_bytes: int = Field(default=50_000, ge=256)
    request_timeout: float = Field(default=300.0, gt=0)  # the whole request, streamed or not
    connect_timeout: float = Field(default=10.0, gt=0)
    stream_idle_timeout: float = Field(default=60.0, gt=0)
    max_response_bytes: int = Field(default=32_000_000, ge=1024)  # one model response, streamed or not
    max_response_seconds: float = Field(default=900.0, gt=0)  # one model response, first byte to last
    max_retries: int = Field(default=2, ge=0, le=10)
    retry_budget_s: float = Field(default=120.0, gt=0)  # wall budget for one call including retries
    validation_retries: int = Field(default=3, ge=0, le=20)
    max_output_tokens: int | None = Field(default=None, ge=1)


class FetchConfig(_Strict):
    """`[profiles.NAME.fetch]`: what the fetch_url tool may reach without asking."""

    allow_hosts: list[str] = []  # fetched unasked ("docs.python.org", "*.rust-lang.org")
    allow_private: bool = False  # loopback, private and link-local addresses (a local dev server)
    max_bytes: int = Field(default=2_000_000, ge=1024, le=50_000_000)  # of one response body
    timeout_seconds: float = Field(default=20.0, gt=0, le=300)


class BashConfig(_Strict):
    """Shell command rules: prefixes; the strictest matching rule wins."""

    allow: list[str] = []
    ask: list[str] = []
    deny: list[str] = []
    network: bool = False  # the sandbox gets a network namespace of its own unless this is true
    env_allow: list[str] = []  # secret-named variables the shell may see
    timeout_seconds: float = Field(default=120.0, gt=0)
    # Per command, in the sandbox (docs/security.md §4): address space, process count, file size,
    # CPU time (None: timeout_seconds + 5) and the size of /tmp and the home dir (each a tmpfs).
    memory_mb: int = Field(default=16384, ge=64)  # address space: V8 reserves ~10 GB for a WebAssembly memory
    processes: int = Field(default=512, ge=8)
    file_size_mb: int = Field(default=2048, ge=1)
    cpu_seconds: float | None = Field(default=None, gt=0)
    tmpfs_mb: int = Field(default=1024, ge=4)


# Header names that carry credentials (compared lower-cased): keys never live in profiles.
_SECRET_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "x-api-key", "api-key", "x-goog-api-key"})
# Request body keys agentcli builds itself; a profile may not replace them.
RESERVED_REQUEST_KEYS = frozenset(
    {"model", "messages", "tools", "tool_choice", "stream", "contents", "system", "functions"}
)
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class Profile(_Strict):
    """One named model endpoint plus how to talk tools with it."""

    name: str = ""
    provider: ProviderName = "ollama"
    model: str = Field(min_length=1)
    url: str | None = None  # None = the provider's default
    api_key_env: str | None = None
    stream: bool = True
    temperature: float | None = None
    headers: dict[str, str] = {}  # non-secret extra headers (routing, ...)
    request: dict[str, Any] = {}  # body overrides; reserved keys refused
    transforms: list[str] = []  # named provider quirk transforms
    script: str | None = None  # scripted provider: file of assistant turns
    system_prompt: str | None = None
    tools: ToolsConfig = Field(default_factory=ToolsConfig)
    capabilities: dict[str, Any] = {}
    limits: LimitsConfig = Field(default_factory=LimitsConfig)
    bash: BashConfig = Field(default_factory=BashConfig)
    fetch: FetchConfig = Field(default_factory=FetchConfig)
    # MCP servers: defined here, or shared in config.toml and enabled by name (docs/mcp.md).
    mcp_servers: McpServers = {}
    mcp: list[str] = []

    # Set by the loader, not by the file.
    source: Path | None = Field(default=None, exclude=True)

    @field_validator("provider")
    @classmethod
    def _known_provider(cls, v: str) -> str:
        if v not in PROVIDERS:
            expected = ", ".join(repr(n) for n in PROVIDERS)
            raise PydanticCustomError("literal_error", "Input should be one of {expected}", {"expected": expected})
        return v

    @field_validator("api_key_env")
    @classmethod
    def _env_name(cls, v: str | None) -> str | None:
        # "" is allowed and means "send no key" (a local OpenAI-compatible server).
        if v and not _ENV_NAME.match(v):
            raise ValueError("must be the NAME of an environment variable (letters, digits, _), never the key")
        return v

    @field_validator("mcp_servers")
    @classmethod
    def _mcp_servers(cls, v: dict[str, Any]) -> dict[str, McpServerConfig]:
        """Each table validated as an McpServerConfig; an error keeps its location
        (`mcp_servers.NAME.key`: pydantic prefixes the field to the adapter's own path)."""
        if not v:
            return v
        return _servers_adapter().validate_python(check_server_names(v))

    @field_validator("url")
    @classmethod
    def _url(cls, v: str | None) -> str | None:
        return http_url(v, example="http://localhost:11434", credentials="name the key with api_key_env instead",
                        noun="base URL")

    @field_validator("headers")
    @classmethod
    def _headers(cls, v: dict[str, str]) -> dict[str, str]:
        for name in v:
            if name.strip().lower() in _SECRET_HEADERS:
                raise ValueError(f"{name!r} carries a credential; keys never live in profiles, use api_key_env")
        return v

    @field_validator("request")
    @classmethod
    def _request(cls, v: dict[str, Any]) -> dict[str, Any]:
        taken = sorted(RESERVED_REQUEST_KEYS.intersection(v))
        if taken:
            raise ValueError(f"may not set {', '.join(taken)}: agentcli builds those from the session")
        return v

    @model_validator(mode="after")
    def _mark_secrets(self) -> Profile:
        """Feed the scrubber: the key's variable whatever its name, and the values of custom headers."""
        from agentcli.core.redaction import header_secrets, mark_secret_env, mark_secret_values

        if key_env := self.resolved_api_key_env():
            mark_secret_env(key_env)
        mark_secret_values(*header_secrets(self.headers))
        return self

    def resolved_url(self) -> str | None:
        """The base URL to use: the profile's, else the provider's default (None for scripted)."""
        return (self.url or default_url(self.provider) or "").rstrip("/") or None

    def resolved_api_key_env(self) -> str | None:
        """The environment variable holding the key; None when no key is sent."""
        if self.api_key_env is not None:
            return self.api_key_env or None
        return default_api_key_env(self.provider)


_SERVERS: list[TypeAdapter[dict[str, McpServerConfig]]] = []


def _servers_adapter() -> TypeAdapter[dict[str, McpServerConfig]]:
    """The validator of a profile's server tables, built on first use."""
    if not _SERVERS:
        from pydantic import TypeAdapter

        from agentcli.config.mcp_schema import McpServerConfig

        _SERVERS.append(TypeAdapter(dict[str, McpServerConfig]))
    return _SERVERS[0]


def effective_url(profile: Profile) -> str | None:
    """Function form of `Profile.resolved_url` for callers that prefer it."""
    return profile.resolved_url()
