"""Throwaway dialects in the registry for the length of a block: a module of their own, a row each
in the table, and every cache built from the table dropped on the way in and out (_markup.forget),
as a real family's module and row would be read."""

from __future__ import annotations

import contextlib
import sys
import types
from collections.abc import Iterator

import pytest

from agentcli.wire import dialects
from agentcli.wire.dialects import _markup
from agentcli.wire.dialects._base import Dialect


@contextlib.contextmanager
def registered(module_name: str, rows: dict[str, Dialect]) -> Iterator[None]:
    """`rows` (registry name -> dialect) in the table for the block, read from a module called
    `module_name`; gone after."""
    module = types.ModuleType(module_name)
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(sys.modules, module_name, module)
        for name, dialect in rows.items():
            attr = name.upper()
            setattr(module, attr, dialect)
            mp.setitem(dialects.DIALECTS, name, f"{module_name}:{attr}")
        _markup.forget()
        try:
            yield
        finally:
            mp.undo()
            _markup.forget()
