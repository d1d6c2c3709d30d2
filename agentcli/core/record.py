"""Dataclasses that generate no code at import.

CPython 3.11's `@dataclass` writes a class's `__init__`, `__repr__` and `__eq__` (a frozen one's
`__setattr__`, `__delattr__` and `__hash__` too) as source text and `exec()`s each: a parse and a
compile per method, most of what an `agent run` spent building its ~80 value types before the
first line showed. `record` lets `dataclasses` collect the fields, so `fields()`, `asdict()`,
`replace()` and `is_dataclass()` work as before. The methods are shared ones that walk the field
list; `__init__`, the one on hot paths, becomes the one `dataclasses` generates once a type has
built a handful of instances (a type a run builds once or twice never pays for the compile). The
shared methods give the same repr
text, equality on the same tuple, the same hash, the same errors on assignment to a frozen
instance, slots as `slots=True` gives. A method the class body defines itself is kept, as
`@dataclass` keeps it."""

from __future__ import annotations

import dataclasses
import reprlib
import weakref
from collections.abc import Callable
from typing import Any, TypeVar, cast, dataclass_transform, overload

C = TypeVar("C", bound=type)
_MISSING = dataclasses.MISSING
_RECORDS: weakref.WeakSet[type] = weakref.WeakSet()
COMPILE_AFTER = 16  # instances built by the shared walk before a type's __init__ is compiled


def is_record(cls: type) -> bool:
    """`cls` was made by `record`."""
    return cls in _RECORDS


def _has_default(f: dataclasses.Field[Any]) -> bool:
    return f.default is not _MISSING or f.default_factory is not _MISSING


def _compiled_init(cls: type, flds: tuple[dataclasses.Field[Any], ...], frozen: bool) -> Callable[..., None]:
    """The `__init__` `@dataclass` writes for these fields, compiled by `dataclasses` itself on a
    stand-in class of the same name, fields and `__post_init__` (so its errors read as the
    dataclass's would). Only the stand-in is processed: the record keeps its own shared methods."""
    body: dict[str, Any] = {"__annotations__": {f.name: f.type for f in flds}, "__qualname__": cls.__qualname__,
                            "__module__": cls.__module__, "__doc__": cls.__doc__}
    for f in flds:
        body[f.name] = dataclasses.field(default=f.default, default_factory=f.default_factory, init=f.init,
                                         kw_only=f.kw_only)
    if (post := getattr(cls, "__post_init__", None)) is not None:
        body["__post_init__"] = post
    stand_in: Any = dataclasses.dataclass(type(cls.__name__, (), body), repr=False, eq=False, frozen=frozen)
    return cast(Callable[..., None], stand_in.__init__)


def _walking_init(cls: type, flds: tuple[dataclasses.Field[Any], ...]) -> Callable[..., None]:
    """`__init__(self, <field>, ...)`: every field a parameter in order, defaults and factories as
    declared; assigned with `object.__setattr__`, which a frozen class needs and a slotted one
    takes as `self.x = x`; then `__post_init__` when the class has one."""
    names = tuple(f.name for f in flds)
    defaulted = [f.default is not _MISSING or f.default_factory is not _MISSING for f in flds]
    for i in range(1, len(flds)):
        if defaulted[i - 1] and not defaulted[i]:
            raise TypeError(f"non-default argument {names[i]!r} follows default argument")
    known = frozenset(names)
    least = 1 + defaulted.count(False)  # self and the required fields
    fallback = {f.name: f for f in flds if f.default is not _MISSING or f.default_factory is not _MISSING}
    post = getattr(cls, "__post_init__", None) is not None
    where = f"{cls.__qualname__}.__init__()"
    put = object.__setattr__

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        for name in kwargs:  # checked in the order the interpreter checks a written signature
            if name not in known:
                raise TypeError(f"{where} got an unexpected keyword argument {name!r}")
            if names.index(name) < len(args):
                raise TypeError(f"{where} got multiple values for argument {name!r}")
        if len(args) > len(names):
            most = len(names) + 1
            took = f"from {least} to {most} positional arguments" if least < most else \
                f"{most} positional argument{'s' if most > 1 else ''}"
            raise TypeError(f"{where} takes {took} but {len(args) + 1} were given")
        for name, value in zip(names, args):
            put(self, name, value)
        missing = []
        for name in names[len(args):]:
            if name in kwargs:
                put(self, name, kwargs[name])
            elif (f := fallback.get(name)) is not None:
                put(self, name, f.default if f.default_factory is _MISSING else f.default_factory())
            else:
                missing.append(name)
        if missing:
            quoted = [repr(n) for n in missing]
            said = quoted[0] if len(quoted) == 1 else f"{quoted[0]} and {quoted[1]}" if len(quoted) == 2 \
                else f"{', '.join(quoted[:-1])}, and {quoted[-1]}"
            noun = "argument" if len(missing) == 1 else "arguments"
            raise TypeError(f"{where} missing {len(missing)} required positional {noun}: {said}")
        if post:
            self.__post_init__()

    return __init__


def _init(cls: type, flds: tuple[dataclasses.Field[Any], ...], frozen: bool) -> Callable[..., None]:
    """A type's first instances are built by the shared walk; from its `COMPILE_AFTER`th on, by the
    `__init__` `dataclasses` generates, compiled then, once. Most value types on a command's path
    are built a few times a run (a profile, a session, a header) and never pay for a compile; the
    few built per turn or per event (messages, calls, events) get the generated code's speed, about
    six times the walk's, after their first handful."""
    walk = _walking_init(cls, flds)
    built = 0

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        nonlocal built
        if built < COMPILE_AFTER:
            built += 1
            walk(self, *args, **kwargs)
            return
        own: Callable[..., None] = cls.__dict__["__init__"]
        if own is __init__:  # the compiled method replaces this one on the class
            own = _compiled_init(cls, flds, frozen)
            own.__qualname__ = f"{cls.__qualname__}.__init__"
            type.__setattr__(cls, "__init__", own)
        own(self, *args, **kwargs)

    return __init__


def _methods(cls: Any, frozen: bool, slots: bool) -> dict[str, Any]:
    """The methods `@dataclass(frozen=frozen, slots=slots)` would have written for `cls`."""
    flds = dataclasses.fields(cls)
    shown = tuple(f.name for f in flds if f.repr)
    compared = tuple(f.name for f in flds if f.compare)
    hashed = tuple(f.name for f in flds if (f.compare if f.hash is None else f.hash))

    @reprlib.recursive_repr("...")
    def __repr__(self: Any) -> str:
        return f"{self.__class__.__qualname__}({', '.join(f'{n}={getattr(self, n)!r}' for n in shown)})"

    def __eq__(self: Any, other: object) -> bool:
        if other.__class__ is self.__class__:
            return tuple(getattr(self, n) for n in compared) == tuple(getattr(other, n) for n in compared)
        return NotImplemented

    out: dict[str, Any] = {"__init__": _init(cls, flds, frozen), "__repr__": __repr__, "__eq__": __eq__}
    if not frozen:
        out["__hash__"] = None  # mutable and compared by value: unhashable, as @dataclass makes it
        return out
    names = frozenset(f.name for f in flds)

    def __hash__(self: Any) -> int:
        return hash(tuple(getattr(self, n) for n in hashed))

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    if not slots:
        out.update(__hash__=__hash__, __setattr__=__setattr__, __delattr__=__delattr__)
        return out

    def __getstate__(self: Any) -> list[Any]:  # copy and pickle of a frozen slotted instance
        return [getattr(self, f.name) for f in flds]

    def __setstate__(self: Any, state: list[Any]) -> None:
        for f, value in zip(flds, state):
            object.__setattr__(self, f.name, value)

    out.update(__hash__=__hash__, __setattr__=__setattr__, __delattr__=__delattr__, __getstate__=__getstate__,
               __setstate__=__setstate__)
    return out


def _own_hash(body: dict[str, Any]) -> bool:
    """The class body set `__hash__` itself (not the None Python puts there beside an own `__eq__`)."""
    value = body.get("__hash__", _MISSING)
    return not (value is _MISSING or (value is None and "__eq__" in body))


@overload
def record(cls: C, /) -> C: ...
@overload
def record(*, frozen: bool = False, slots: bool = True) -> Callable[[C], C]: ...


@dataclass_transform(field_specifiers=(dataclasses.field, dataclasses.Field))
def record(cls: Any = None, /, *, frozen: bool = False, slots: bool = True) -> Any:
    """`@dataclass(slots=True)` (or `frozen=True`, or `slots=False` for a class that other code
    adds attributes to) without its generated code."""

    def wrap(cls: C) -> C:
        if any(dataclasses.is_dataclass(base) for base in cls.__mro__[1:]):
            raise TypeError(f"{cls.__qualname__}: a record does not extend a dataclass (use @dataclass)")
        body = dict(cls.__dict__)
        undocumented = not cls.__doc__
        if undocumented:  # else @dataclass asks inspect.signature for one (as costly as the methods)
            cls.__doc__ = cls.__name__
        made: Any = dataclasses.dataclass(cls, init=False, repr=False, eq=False, slots=slots)
        for name, method in _methods(made, frozen, slots).items():
            if name in body and (name != "__hash__" or _own_hash(body)):
                continue  # the class wrote its own
            if method is not None:
                method.__qualname__ = f"{made.__qualname__}.{name}"
            setattr(made, name, method)
        if undocumented:
            made.__doc__ = f"{made.__name__}({', '.join(f.name for f in dataclasses.fields(made))})"
        params = made.__dataclass_params__
        params.init = params.repr = params.eq = True  # what the class has, as @dataclass records it
        params.frozen = frozen
        _RECORDS.add(made)
        return cast(C, made)

    return wrap if cls is None else wrap(cls)
