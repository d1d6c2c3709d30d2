"""The agent loop (layer 6): turns, guards, approvals, sessions. Never prints."""
