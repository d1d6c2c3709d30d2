"""Fixtures for the config tests: a workspace and helpers that write profile files."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from agentcli.config.paths import user_profiles_dir


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return path


@pytest.fixture
def put():
    """`put(path, text)` writes a dedented file, creating parents."""
    return write


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """An empty workspace directory (not trusted)."""
    d = tmp_path / "repo"
    d.mkdir()
    return d


@pytest.fixture
def user_dir() -> Path:
    """The user profiles dir under the test's XDG_CONFIG_HOME (not created)."""
    return user_profiles_dir()
