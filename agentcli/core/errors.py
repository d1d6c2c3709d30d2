"""One error tree for the whole program.

    AgentCliError                 anything we raise on purpose
    ├── UsageError                the user's input is wrong (bad flag, bad argument)   exit 2
    │   └── ConfigError           a profile file/key is wrong; names file, profile, key exit 2
    ├── ProviderError             HTTP/transport failure, with a code and a fix hint    exit 1
    └── ModelOutputError          the model's output could not be used at all           exit 1

    ToolError (data, not raised)  a tool failure as the model sees it: code, message,
                                  recoverable, retry strategy, suggested fix
    ToolFailure(ToolError)        raised inside a tool to return a ToolError

The CLI maps these to messages and exit codes in one table (agentcli.cli.errors).
"""

from __future__ import annotations

from dataclasses import field
from enum import Enum
from typing import Any, Literal

from agentcli.core.record import record

RetryStrategy = Literal["same", "rephrase", "escalate", "abort"]


class AgentCliError(Exception):
    """Base of every error raised on purpose; `hint` says what to do about it."""

    exit_code = 1

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


class UsageError(AgentCliError):
    exit_code = 2


class ConfigError(UsageError):
    """A profile problem, located: file, profile name, key."""

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        profile: str | None = None,
        key: str | None = None,
        hint: str | None = None,
    ) -> None:
        where = []
        if file:
            where.append(str(file))
        if profile:
            where.append(f"profile {profile!r}")
        if key:
            where.append(f"key {key!r}")
        full = f"{': '.join([', '.join(where), message]) if where else message}"
        super().__init__(full, hint=hint)
        self.file, self.profile, self.key = file, profile, key


class ProviderErrorCode(str, Enum):
    AUTH = "auth"
    NOT_FOUND = "not_found"
    MODEL_MISSING = "model_missing"
    RATE_LIMIT = "rate_limit"
    CONTEXT_LENGTH = "context_length"
    BAD_REQUEST = "bad_request"
    TOOLS_UNSUPPORTED = "tools_unsupported"  # the server rejected native tools: fall back to emulation
    TOOL_CHOICE_UNSUPPORTED = "tool_choice_unsupported"  # a forced call (tool_choice required) failed: learn, use auto
    SERVER = "server"
    OVERLOADED = "overloaded"
    NETWORK = "network"
    TIMEOUT = "timeout"
    STREAM_BROKEN = "stream_broken"


class ProviderError(AgentCliError):
    """A failed model request. Never carries an API key (messages are scrubbed)."""

    def __init__(
        self,
        code: ProviderErrorCode,
        message: str,
        *,
        url: str | None = None,
        model: str | None = None,
        status: int | None = None,
        retryable: bool = False,
        retry_after: float | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(message, hint=hint)
        self.code, self.url, self.model, self.status = code, url, model, status
        self.retryable, self.retry_after = retryable, retry_after


class ModelOutputError(AgentCliError):
    pass


class ErrorCode(str, Enum):
    VALIDATION = "validation"
    PERMISSION = "permission"
    NOT_FOUND = "not_found"
    TIMEOUT = "timeout"
    RATE_LIMIT = "rate_limit"
    MODEL_REFUSAL = "model_refusal"
    EXECUTION = "execution"
    NETWORK = "network"


# Defaults per code: (recoverable, strategy). Transient errors repeat as-is,
# argument errors need new arguments, permission errors never retry.
_DEFAULTS: dict[ErrorCode, tuple[bool, RetryStrategy]] = {
    ErrorCode.VALIDATION: (True, "rephrase"),
    ErrorCode.PERMISSION: (False, "abort"),
    ErrorCode.NOT_FOUND: (True, "rephrase"),
    ErrorCode.TIMEOUT: (True, "same"),
    ErrorCode.RATE_LIMIT: (True, "same"),
    ErrorCode.MODEL_REFUSAL: (True, "rephrase"),
    ErrorCode.EXECUTION: (True, "rephrase"),
    ErrorCode.NETWORK: (True, "same"),
}


@record
class ToolError:
    """A tool failure the model can act on."""

    code: ErrorCode
    message: str
    recoverable: bool = True
    retry_strategy: RetryStrategy = "rephrase"
    suggested_fix: str | None = None
    details: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, code: ErrorCode, message: str, suggested_fix: str | None = None, **details: Any) -> ToolError:
        recoverable, strategy = _DEFAULTS[code]
        return cls(code, message, recoverable, strategy, suggested_fix, details)

    def render(self) -> str:
        """The text the model receives: what went wrong and how to fix it."""
        lines = [f"Error [{self.code.value}]: {self.message}"]
        if self.suggested_fix:
            lines.append(f"How to fix: {self.suggested_fix}")
        if not self.recoverable:
            lines.append("Do not retry this call.")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code.value,
            "message": self.message,
            "recoverable": self.recoverable,
            "retry_strategy": self.retry_strategy,
            "suggested_fix": self.suggested_fix,
            "details": self.details,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ToolError:
        return cls(
            ErrorCode(d["code"]), d["message"], d.get("recoverable", True),
            d.get("retry_strategy", "rephrase"), d.get("suggested_fix"), d.get("details") or {},
        )


class ToolFailure(Exception):
    """Raised inside a tool implementation; the executor turns it into a ToolResult."""

    def __init__(self, error: ToolError) -> None:
        super().__init__(error.message)
        self.error = error

    @classmethod
    def of(cls, code: ErrorCode, message: str, suggested_fix: str | None = None, **details: Any) -> ToolFailure:
        return cls(ToolError.of(code, message, suggested_fix, **details))
