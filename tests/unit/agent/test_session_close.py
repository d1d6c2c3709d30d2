"""The Session closes what it holds on every path: its provider, any a /model switch replaced, and
the tools' background resources, once, also when the block it guards raises."""

from __future__ import annotations

import pytest
from loop_helpers import scripted_session

from agentcli.tools.base import SessionResource


class _Closing:
    def __init__(self, log: list[str], name: str) -> None:
        self.log, self.name = log, name

    async def aclose(self) -> None:
        self.log.append(self.name)


class _Resource(SessionResource):
    def __init__(self, log: list[str]) -> None:
        self.log = log

    async def aclose(self) -> None:
        self.log.append("background")

    def summary(self) -> list[str]:
        return []


async def test_the_session_closes_everything_it_holds_even_when_the_block_raises(tmp_path):
    s = scripted_session(tmp_path, [])
    log: list[str] = []
    s.provider = _Closing(log, "provider")  # type: ignore[assignment]
    s.pending_close.append(_Closing(log, "replaced by /model"))  # type: ignore[arg-type]
    s.tool_ctx.kept("procs", lambda: _Resource(log))
    with pytest.raises(RuntimeError):
        async with s:
            raise RuntimeError("the run failed")
    assert sorted(log) == ["background", "provider", "replaced by /model"]
    assert s.pending_close == []
