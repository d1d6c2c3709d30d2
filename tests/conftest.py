"""Suite-wide guards: no real network, no writes to the real user dirs."""

from __future__ import annotations

import socket

import pytest


@pytest.fixture(autouse=True)
def _isolated_user_dirs(tmp_path_factory, monkeypatch):
    home = tmp_path_factory.mktemp("home")
    for var, sub in (("XDG_CONFIG_HOME", "config"), ("XDG_DATA_HOME", "data"), ("XDG_CACHE_HOME", "cache")):
        monkeypatch.setenv(var, str(home / sub))
    monkeypatch.delenv("AGENTCLI_PROFILE", raising=False)
    monkeypatch.setenv("NO_COLOR", "1")


_real_connect = socket.socket.connect


def _loopback_only(self, address):
    host = address[0] if isinstance(address, tuple) else address
    if isinstance(host, str) and not (
        host.startswith("127.") or host in ("localhost", "::1") or self.family == socket.AF_UNIX
    ):
        raise RuntimeError(f"tests must not reach the network (tried {host!r})")
    return _real_connect(self, address)


@pytest.fixture(autouse=True)
def _no_network(monkeypatch):
    monkeypatch.setattr(socket.socket, "connect", _loopback_only)
