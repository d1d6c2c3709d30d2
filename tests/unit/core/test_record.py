"""`record` behaves as `@dataclass(slots=True)` (frozen or not) without generating code at import
(its `__init__` is compiled after a handful of instances): drawn class shapes built both ways must agree on construction, errors, repr, equality, hash, assignment and the
dataclasses helpers."""

from __future__ import annotations

import copy
import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcli.core.record import COMPILE_AFTER, is_record, record

# One field: (default kind, shown in repr, compared). Kinds: required, a value, a factory.
FIELD = st.tuples(st.sampled_from(["required", "value", "factory"]), st.booleans(), st.booleans())
VALUES = st.one_of(st.integers(-3, 3), st.text(max_size=3), st.none(), st.tuples(st.integers(0, 2)))


def _shape(draw_fields: list[tuple[str, bool, bool]]) -> list[tuple[str, bool, bool]]:
    """Required fields first, as both decorators demand."""
    return sorted(draw_fields, key=lambda f: f[0] != "required")


def _build(shape: list[tuple[str, bool, bool]], frozen: bool, as_record: bool, slots: bool = True) -> type:
    body: dict[str, object] = {"__annotations__": {}, "__doc__": "A drawn value type.", "__module__": __name__}
    for i, (kind, shown, compared) in enumerate(shape):
        name = f"f{i}"
        body["__annotations__"][name] = "object"  # type: ignore[index]
        if kind == "value":
            body[name] = dataclasses.field(default=i, repr=shown, compare=compared)
        elif kind == "factory":
            body[name] = dataclasses.field(default_factory=list, repr=shown, compare=compared)
        else:
            body[name] = dataclasses.field(repr=shown, compare=compared)
    cls = type("Drawn", (), body)
    if as_record:
        return record(frozen=frozen, slots=slots)(cls)
    return dataclasses.dataclass(frozen=frozen, slots=slots)(cls)


def _outcome(fn):
    try:
        return ("ok", fn())
    except Exception as exc:  # the error class and its words must match too
        return (type(exc).__name__, str(exc).replace("Drawn.__init__", "__init__"))


@settings(max_examples=150, deadline=None)
@given(fields=st.lists(FIELD, max_size=5), frozen=st.booleans(), slots=st.booleans(), args=st.lists(VALUES, max_size=6),
       kwargs=st.dictionaries(st.sampled_from(["f0", "f1", "f2", "f4", "g"]), VALUES, max_size=3))
def test_a_record_acts_as_the_dataclass_would(fields, frozen, slots, args, kwargs):
    shape = _shape(fields)
    ours, theirs = _build(shape, frozen, True, slots), _build(shape, frozen, False, slots)
    made = _outcome(lambda: ours(*args, **kwargs))
    want = _outcome(lambda: theirs(*args, **kwargs))
    assert made[0] == want[0]
    if made[0] != "ok":
        assert made[1] == want[1]
        return
    a, b = made[1], want[1]
    assert repr(a) == repr(b)
    assert dataclasses.asdict(a) == dataclasses.asdict(b)
    assert ours.__match_args__ == theirs.__match_args__
    assert [f.name for f in dataclasses.fields(ours)] == [f.name for f in dataclasses.fields(theirs)]
    assert hasattr(a, "__dict__") is hasattr(b, "__dict__") is not slots
    assert getattr(ours, "__slots__", None) == getattr(theirs, "__slots__", None)
    twin, other = ours(*args, **kwargs), theirs(*args, **kwargs)
    assert (a == twin) == (b == other) and a != b  # equal to its twin; never to another class
    assert dataclasses.replace(a) == a and copy.copy(a) == a
    assert _outcome(lambda: hash(a)) == _outcome(lambda: hash(b))
    if shape:
        assert _outcome(lambda: setattr(a, "f0", 1)) == _outcome(lambda: setattr(b, "f0", 1))
        assert _outcome(lambda: delattr(a, "f0")) == _outcome(lambda: delattr(b, "f0"))
    if not slots:
        assert _outcome(lambda: setattr(a, "g", 1)) == _outcome(lambda: setattr(b, "g", 1))
    else:  # No other name can be set on either (the dataclass's frozen slotted class says so with a
        # TypeError from its own super() call, a CPython 3.11 quirk; a record names the field).
        assert _outcome(lambda: setattr(a, "g", 1))[0] != "ok" and _outcome(lambda: setattr(b, "g", 1))[0] != "ok"


def test_a_class_s_own_methods_are_kept_and_post_init_runs():
    @record(frozen=True)
    class Pair:
        """Two numbers."""

        a: int
        b: int = 2

        def __repr__(self) -> str:
            return "pair"

        def __post_init__(self) -> None:
            object.__setattr__(self, "b", self.b * 10)

    p = Pair(1)
    assert repr(p) == "pair" and p.b == 20 and p == Pair(1) and hash(p) == hash((1, 20))
    assert Pair.__init__.__qualname__ == f"{Pair.__qualname__}.__init__"


def test_a_record_needs_its_defaults_last_and_no_dataclass_base():
    with pytest.raises(TypeError, match="non-default argument 'b' follows default argument"):
        @record
        class Bad:
            """Out of order."""

            a: int = 1
            b: int

    @dataclasses.dataclass
    class Base:
        x: int = 0

    with pytest.raises(TypeError, match="does not extend a dataclass"):
        @record
        class Child(Base):
            """On a dataclass."""


def test_a_recursive_record_repr_stops():
    @record
    class Node:
        """Holds itself."""

        items: list

    n = Node([])
    n.items.append(n)
    assert repr(n) == f"{Node.__qualname__}(items=[...])"


def test_building_records_generates_no_code(monkeypatch):
    """The point of `record`: no exec() per class (the run's value types are built at import);
    `@dataclass` on the same body, seen by the same counter, execs its methods."""
    calls = []

    def counting(*args, **kwargs):
        calls.append(args[0])
        return exec(*args, **kwargs)

    monkeypatch.setattr(dataclasses, "exec", counting, raising=False)  # the name dataclasses looks up

    def body() -> type:
        class Spec:
            """Three fields."""

            a: int
            b: str = ""
            c: list = dataclasses.field(default_factory=list)

        return Spec

    spec = record(frozen=True)(body())
    assert calls == [] and is_record(spec)
    first = [spec(i) for i in range(COMPILE_AFTER)]  # a handful of instances: the shared walk builds them
    assert calls == []
    later = spec(1)
    compiled = len(calls)
    assert compiled >= 1 and any("__init__" in c for c in calls)  # then __init__ is compiled, once
    assert later == first[1] == spec(1, "", []) == spec(a=1) and len(calls) == compiled
    assert spec.__init__.__code__.co_filename == "<string>"  # the generated code itself, not a walk
    calls.clear()
    dataclasses.dataclass(frozen=True, slots=True)(body())
    assert len(calls) >= 3 and not is_record(dataclasses.dataclass(body()))


def test_a_record_built_a_few_times_compiles_nothing():
    """A type a run builds once or twice costs no compile: its `__init__` stays the shared one."""

    @record
    class Few:
        """Built a few times."""

        a: int

    assert [Few(i).a for i in range(COMPILE_AFTER)] == list(range(COMPILE_AFTER))
    assert Few.__init__.__code__.co_filename != "<string>"
