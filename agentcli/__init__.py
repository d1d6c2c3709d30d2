"""agentcli: an agent runner that makes tool calling work with any LLM."""

__version__ = "0.1.0"
