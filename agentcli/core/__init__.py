"""The internal protocol every layer speaks (layer 0).

History, tool calls and results live in these types; a provider's wire shape is
built from them at the edge, per request. Nothing here imports pydantic, httpx or
rich, so parsing and the CLI's start-up stay cheap.
"""

from __future__ import annotations

from typing import Any

from agentcli.core.lazy import lazy_exports

# Public name -> the submodule that defines it. Resolved on first use (PEP 562) so that importing one
# small submodule (`agentcli.core.errors`, `agentcli.core.jsonsafe`) does not load every type and event:
# the CLI's no-network commands import those submodules and must start fast.
_EXPORTS: dict[str, str] = {
    **dict.fromkeys((
        "AgentCliError", "ConfigError", "ErrorCode", "ModelOutputError", "ProviderError",
        "ProviderErrorCode", "RetryStrategy", "ToolError", "ToolFailure", "UsageError",
    ), "errors"),
    **dict.fromkeys((
        "AgentEvent", "Checkpoint", "CheckpointKind", "Done", "Notice", "RetryScheduled",
        "StreamEvent", "StreamKind", "ToolFinished", "ToolStarted", "TurnStarted",
    ), "events"),
    **dict.fromkeys((
        "Message", "ParsedResponse", "Repair", "Role", "Tier", "Tool", "ToolCall", "ToolResult",
        "Usage", "new_call_id",
    ), "types"),
    "redact": "redaction",  # the module has its own name, so the package's `redact` stays the function
}

__all__ = sorted(_EXPORTS)


__getattr__ = lazy_exports(__name__, _EXPORTS, globals())


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
