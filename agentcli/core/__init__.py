"""The internal protocol every layer speaks (layer 0).

History, tool calls and results live in these types; a provider's wire shape is
built from them at the edge, per request. Nothing here imports pydantic, httpx or
rich, so parsing and the CLI's start-up stay cheap.
"""

from agentcli.core.errors import (
    AgentCliError,
    ConfigError,
    ErrorCode,
    ModelOutputError,
    ProviderError,
    ProviderErrorCode,
    RetryStrategy,
    ToolError,
    ToolFailure,
    UsageError,
)
from agentcli.core.events import (
    AgentEvent,
    Checkpoint,
    CheckpointKind,
    Done,
    Notice,
    RetryScheduled,
    StreamEvent,
    StreamKind,
    ToolFinished,
    ToolStarted,
    TurnStarted,
)
from agentcli.core.types import (
    Message,
    ParsedResponse,
    Repair,
    Role,
    Tier,
    Tool,
    ToolCall,
    ToolResult,
    Usage,
    new_call_id,
)

__all__ = [
    "AgentCliError", "AgentEvent", "Checkpoint", "CheckpointKind", "ConfigError", "Done",
    "ErrorCode", "Message", "ModelOutputError", "Notice", "ParsedResponse", "ProviderError",
    "ProviderErrorCode", "Repair", "RetryScheduled", "RetryStrategy", "Role", "StreamEvent",
    "StreamKind", "Tier", "Tool", "ToolCall", "ToolError", "ToolFailure", "ToolFinished",
    "ToolResult", "ToolStarted", "TurnStarted", "Usage", "UsageError", "new_call_id",
]

from agentcli.core.redact import redact  # noqa: E402

__all__ += ["redact"]
