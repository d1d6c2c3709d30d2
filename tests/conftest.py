"""Suite-wide guards: no real network, no writes to the real user dirs."""

from __future__ import annotations

import signal
import socket

import pytest


def pytest_configure(config):
    """A suite started in the background (`make test &`) inherits SIGINT ignored, and so would every
    agent process the tests start: Python then never raises KeyboardInterrupt and Ctrl-C tests fail.
    Catching SIGINT here gives the children what a terminal gives them (a caught signal is reset to
    its default on exec, an ignored one stays ignored)."""
    if signal.getsignal(signal.SIGINT) in (signal.SIG_IGN, None):
        signal.signal(signal.SIGINT, signal.default_int_handler)


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


class WorkCounter:
    """Work counted, never timed: Python lines executed (each loop iteration and comprehension item
    is one) plus builtin calls, while code runs. The same on any machine and under any load, so a
    complexity check built on it cannot flake; the speed itself is a benchmark's to report."""

    RATIO = 6.0  # 4x the input: linear work gives about 4x the count, quadratic about 16x

    @staticmethod
    def calls(fn, *args, **kwargs) -> int:
        import sys

        count = 0

        def line(frame, event, arg):
            nonlocal count
            count += 1
            return line

        def builtin(frame, event, arg):
            nonlocal count
            if event == "c_call":
                count += 1

        trace, profile = sys.gettrace(), sys.getprofile()
        sys.settrace(line)
        sys.setprofile(builtin)
        try:
            fn(*args, **kwargs)
        finally:
            sys.settrace(trace)
            sys.setprofile(profile)
        return count

    def assert_linear(self, run, n: int, ratio: float | None = None) -> tuple[int, int]:
        """`run(size)` does the work for an input of that size; its work at n and 4n must grow linearly."""
        small, big = self.calls(run, n), self.calls(run, 4 * n)
        assert big <= (ratio or self.RATIO) * max(small, 1), f"work at n={n}: {small}; at 4n: {big}"
        return small, big


@pytest.fixture
def work() -> WorkCounter:
    return WorkCounter()
