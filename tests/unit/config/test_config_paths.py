"""User dirs follow XDG at call time; private files are 0600 in 0700 dirs, written atomically."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from agentcli.config.paths import cache_dir, config_dir, data_dir, write_private


def _mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


def test_xdg_vars_are_read_at_call_time(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "c1"))
    assert config_dir() == tmp_path / "c1" / "agentcli"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "c2"))
    assert config_dir() == tmp_path / "c2" / "agentcli"
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "d"))
    assert data_dir() == tmp_path / "d" / "agentcli"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "k"))
    assert cache_dir() == tmp_path / "k" / "agentcli"


def test_defaults_under_home_and_relative_xdg_ignored(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("XDG_DATA_HOME", "relative/dir")  # invalid per the XDG spec
    assert config_dir() == tmp_path / ".config" / "agentcli"
    assert data_dir() == tmp_path / ".local" / "share" / "agentcli"


def test_write_private_modes_and_content(tmp_path):
    target = tmp_path / "a" / "b" / "secret.json"
    write_private(target, "hello")
    assert target.read_text() == "hello"
    assert _mode(target) == 0o600
    assert _mode(tmp_path / "a") == 0o700 and _mode(tmp_path / "a" / "b") == 0o700
    write_private(target, b"\x00bytes")
    assert target.read_bytes() == b"\x00bytes"
    assert _mode(target) == 0o600
    assert os.listdir(target.parent) == ["secret.json"]  # no temp file left behind


def test_write_private_tightens_an_existing_loose_file(tmp_path):
    target = tmp_path / "f.txt"
    target.write_text("old")
    os.chmod(target, 0o644)
    write_private(target, "new")
    assert _mode(target) == 0o600 and target.read_text() == "new"


def test_write_private_leaves_existing_parent_modes_alone(tmp_path):
    parent = tmp_path / "shared"
    parent.mkdir(mode=0o755)
    os.chmod(parent, 0o755)
    write_private(parent / "x", "1")
    assert _mode(parent) == 0o755


def test_write_private_failure_leaves_old_file(tmp_path, monkeypatch):
    target = tmp_path / "keep.txt"
    target.write_text("original")

    def boom(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    try:
        write_private(target, "new")
    except OSError:
        pass
    else:
        raise AssertionError("expected the OSError to propagate")
    assert target.read_text() == "original"
    assert os.listdir(tmp_path) == ["keep.txt"]
