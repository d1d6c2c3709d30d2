"""Fixtures for tool tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from _toolbox import Box


@pytest.fixture
def box(tmp_path: Path) -> Box:
    return Box(tmp_path)
