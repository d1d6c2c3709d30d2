"""The one lazy registry: a table of name -> "module:attribute", imported on first use.

Every registry in agentcli (providers, native APIs, text dialects, model families, built-in
tools) is a plain dict literal that a reader can scan in one screen; this wrapper keeps the
imports out of start-up, so `agent --help` never pays for a dialect it does not use.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast

if TYPE_CHECKING:
    import re

T = TypeVar("T")


class LazyTable(Generic[T]):
    """`refs` maps names to "module:attr"; `get` imports once and caches.

    A module without a dot is relative to `package`; a dotted one is absolute, so a row can
    point outside the package (a plugin, a test's throwaway implementation)."""

    def __init__(self, package: str, refs: Mapping[str, str]) -> None:
        self.package = package
        self.refs = refs  # kept by reference: rows added to the dict later are seen
        self._loaded: dict[str, T] = {}

    def load(self, ref: str) -> T:
        """The object a "module:attr" reference names (cached per reference)."""
        obj = self._loaded.get(ref)
        if obj is None:
            module, attr = ref.split(":")
            path = module if "." in module else f"{self.package}.{module}"
            obj = self._loaded[ref] = getattr(importlib.import_module(path), attr)
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


def lazy_exports(package: str, exports: Mapping[str, str], namespace: dict[str, Any]) -> Callable[[str], Any]:
    """A module `__getattr__` for a package that re-exports names from its submodules on first use
    (`exports`: name -> submodule, relative to `package` unless dotted); each value found is
    cached in the package's `namespace`, so the lookup runs once per name."""

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        path = module if "." in module else f"{package}.{module}"
        value = namespace[name] = getattr(importlib.import_module(path), name)
        return value

    return __getattr__


class _LazyPattern:
    """A regular expression compiled the first time one of its methods or attributes is read; each
    one read is then kept on the instance, so later reads cost what the compiled pattern's do."""

    def __init__(self, pattern: str, flags: int) -> None:
        self._source = (pattern, flags)

    def __getattr__(self, name: str) -> Any:
        compiled = self.__dict__.get("_compiled")
        if compiled is None:
            import re

            compiled = self.__dict__["_compiled"] = re.compile(*self.__dict__["_source"])
        value = self.__dict__[name] = getattr(compiled, name)
        return value

    def __repr__(self) -> str:
        return f"lazy_pattern({self._source[0]!r})"


def lazy_pattern(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile(pattern, flags)`, compiled on first use: a module's patterns cost nothing in a
    process that never matches with them (a dialect's, in a reply the dialect never reads). It
    stands for the pattern's methods and attributes (search, finditer, sub, pattern...), not for
    the pattern itself: never pass it to `re.sub` and the like, or compare it with one."""
    return cast("re.Pattern[str]", _LazyPattern(pattern, flags))
