"""The one lazy registry: a table of name -> "module:attribute", imported on first use.

Every registry in agentcli (providers, native APIs, text dialects, model families, built-in
tools) is a plain dict literal that a reader can scan in one screen; this wrapper keeps the
imports out of start-up, so `agent --help` never pays for a dialect it does not use.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from typing import Generic, TypeVar

T = TypeVar("T")


class LazyTable(Generic[T]):
    """`refs` maps names to "module:attr" (module relative to `package`); `get` imports once and caches."""

    def __init__(self, package: str, refs: Mapping[str, str]) -> None:
        self.package = package
        self.refs = refs  # kept by reference: rows added to the dict later are seen
        self._loaded: dict[str, T] = {}

    def load(self, ref: str) -> T:
        """The object a "module:attr" reference names (cached per reference)."""
        obj = self._loaded.get(ref)
        if obj is None:
            module, attr = ref.split(":")
            obj = self._loaded[ref] = getattr(importlib.import_module(f"{self.package}.{module}"), attr)
        return obj

    def get(self, name: str) -> T:
        """The object registered as `name` (KeyError if unknown)."""
        return self.load(self.refs[name])

    def names(self) -> list[str]:
        return list(self.refs)

    def __contains__(self, name: object) -> bool:
        return name in self.refs

    def __iter__(self) -> Iterator[str]:
        return iter(self.refs)
