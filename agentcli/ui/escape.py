"""Moved to `agentcli.core.escape` (every layer renders untrusted text by the same rule)."""

from agentcli.core.escape import *  # noqa: F403
from agentcli.core.escape import hidden_count, short_args, styled, visible  # noqa: F401
