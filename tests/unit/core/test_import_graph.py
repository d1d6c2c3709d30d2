"""No import circles: two modules that import each other (at the top, in a function, or only for
type checking) are one idea split in two, or a piece both need that belongs in a module below them.

The graph is grimp's (import-linter's library); a circle is a strongly connected group of modules."""

from __future__ import annotations

import grimp
from hypothesis import given
from hypothesis import strategies as st

# Circles that exist and are owned elsewhere: each must still be a circle (fixing one fails this test
# until it is taken off the list), and no other may appear.
KNOWN: set[frozenset[str]] = set()  # a circle someone cannot break yet goes here, with why


def circles(graph: grimp.ImportGraph) -> set[frozenset[str]]:
    """Every group of two or more modules that reach each other through imports (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: set[frozenset[str]] = set()
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            nxt = next(edges, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.find_modules_directly_imported_by(nxt)))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.add(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.add(frozenset(group))
    return found


def _package_graph() -> grimp.ImportGraph:
    return grimp.build_graph("agentcli", cache_dir=None)  # type-checking imports count: a circle all the same


def test_the_package_has_no_import_circle_but_the_known_ones() -> None:
    found = circles(_package_graph())
    assert {tuple(sorted(c)) for c in found - KNOWN} == set(), "new import circle(s)"
    assert {tuple(sorted(c)) for c in KNOWN - found} == set(), "fixed: take it off KNOWN"


def test_the_agent_package_has_no_import_circle() -> None:
    graph = _package_graph()
    assert [sorted(c) for c in circles(graph) if any(m.startswith("agentcli.agent.") for m in c)] == []
    assert not graph.chain_exists(importer="agentcli.agent.adapt", imported="agentcli.agent.session")


@given(st.integers(2, 12), st.data())
def test_circles_finds_exactly_a_back_edge_cycle(n: int, data: st.DataObject) -> None:
    """A chain m0 -> m1 -> ... -> m(n-1) has no circle; one edge back from mj to mi (i < j) makes
    exactly mi..mj one circle, whatever extra forward edges there are."""
    graph = grimp.ImportGraph()
    names = [f"pkg.m{k}" for k in range(n)]
    for name in names:
        graph.add_module(name)
    for a, b in zip(names, names[1:], strict=False):
        graph.add_import(importer=a, imported=b)
    for _ in range(data.draw(st.integers(0, n))):
        i = data.draw(st.integers(0, n - 2))
        graph.add_import(importer=names[i], imported=names[data.draw(st.integers(i + 1, n - 1))])
    assert circles(graph) == set()
    j = data.draw(st.integers(1, n - 1))
    i = data.draw(st.integers(0, j - 1))
    graph.add_import(importer=names[j], imported=names[i])
    assert circles(graph) == {frozenset(names[i : j + 1])}
