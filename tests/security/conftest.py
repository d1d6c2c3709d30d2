"""Fixtures for the security checks (helpers live in sec_helpers.py)."""

from __future__ import annotations

import logging

import pytest


@pytest.fixture(autouse=True)
def _detach_debug_log():
    """The debug log handler is process-wide: drop it after each test so the next one starts clean."""
    yield
    logger = logging.getLogger("agentcli")
    for h in list(logger.handlers):
        if hasattr(h, "_agentcli_path"):
            logger.removeHandler(h)
            h.close()
