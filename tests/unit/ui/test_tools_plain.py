"""`agent tools` skips rich only where rich would write the same bytes: on a console without styles
(stdout no terminal), `plain_table` is byte for byte what rich's Table writes for any table it
accepts, the command's listing is what its rich path writes for any tool set (names and
descriptions with markup-like text, wide and hidden characters included), and an ordinary
listing at 40, 80 and 200 columns takes the plain path."""

from __future__ import annotations

import contextlib
import io

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.table import Table
from rich.text import Text

from agentcli.cli.commands import tools as cmd
from agentcli.ui import console as console_mod
from agentcli.ui.plain_table import plain_table

ascii_text = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=40)
spaced = st.text(alphabet="ab -_/", max_size=30)
long_words = st.text(alphabet="abcdefghij", min_size=15, max_size=60)
odd = st.text(alphabet="ab [bold]/[/]\\:smile:\t\x07\x1b\u200b\u202e\u00e9\u4e2d\U0001f600", max_size=30)
cell = st.one_of(ascii_text, spaced, long_words, st.just(""), st.just("[bold]x[/bold]"))
widths = st.one_of(st.sampled_from([40, 80, 200]), st.integers(1, 250))


def _console(buf: io.StringIO, width: int):
    return console_mod._safe_console_class()(file=buf, width=width, highlight=False, soft_wrap=True, markup=False,
                                             emoji=False, force_terminal=False, color_system=None)


def _rich_table(title: str, headers, rows, ends, width: int) -> str:
    buf = io.StringIO()
    table = Table(title=Text(title), title_justify="left")
    for h in headers:
        table.add_column(h, overflow="fold")
    for row, end in zip(rows, ends):
        table.add_row(*(Text(c) for c in row), end_section=end)
    _console(buf, width).print(table)
    return buf.getvalue()


@st.composite
def tables(draw):
    n = draw(st.integers(1, 7))
    headers = draw(st.lists(st.one_of(ascii_text, spaced).filter(str.strip), min_size=n, max_size=n))
    rows = draw(st.lists(st.lists(cell, min_size=n, max_size=n), max_size=8))
    ends = draw(st.lists(st.booleans(), min_size=len(rows), max_size=len(rows)))
    return draw(st.one_of(ascii_text, st.just(""))), headers, rows, ends


@settings(max_examples=400, deadline=None)
@given(table=tables(), width=widths)
def test_plain_table_is_what_rich_writes(table, width):
    text = plain_table(*table, width, "utf-8")
    if text is not None:
        assert text == _rich_table(*table, width)


def test_plain_table_leaves_to_rich_what_it_does_not_model():
    rows = [["read_file", "Read a file."]]
    assert plain_table("t", ["tool", "what"], rows, [False], 80, "utf-8") is not None
    assert plain_table("t", ["tool", "what"], rows, [False], 80, "ascii") is None  # rich draws an ASCII box
    assert plain_table("t", ["tool", "what"], [["caf\u00e9", "x"]], [False], 80, "utf-8") is None  # cells by width
    assert plain_table("t", ["tool", "what"], [["a\tb", "x"]], [False], 80, "utf-8") is None  # a tab to expand
    assert plain_table("t", ["tool", "what"], rows, [False], 6, "utf-8") is None  # columns under 3 cells


@st.composite
def tool_sets(draw):
    rows = []
    for _ in range(draw(st.integers(0, 6))):
        ro = draw(st.sampled_from([None, True, False]))
        rows.append({"name": draw(st.one_of(ascii_text, odd)), "server": draw(st.one_of(st.none(), ascii_text, odd)),
                     "tier": draw(st.sampled_from(["crawl", "walk", "run", None])), "read_only": ro,
                     "visible": draw(st.booleans()), "state": draw(st.one_of(st.none(), st.just("deferred"))),
                     "description": draw(st.one_of(ascii_text, spaced, odd, long_words))})
    servers = [{"name": draw(st.one_of(st.none(), ascii_text)), "error": draw(st.one_of(ascii_text, odd)),
                "hint": draw(st.one_of(st.none(), ascii_text))} for _ in range(draw(st.integers(0, 2)))]
    return rows, servers, draw(st.one_of(st.just("Tools at tier run"), ascii_text, odd))


def _listing(table, servers, title: str, width: int, plain: bool, monkeypatch) -> tuple[str, int]:
    """The command's output at `width` on a stdout without styles, and how many consoles it made;
    `plain=False` forces the rich path (what a console of that width writes)."""
    buf = io.StringIO()
    made = []

    def make_console(stderr: bool = False):
        made.append(stderr)
        return _console(buf, width)

    with monkeypatch.context() as m:
        m.setattr(console_mod, "make_console", make_console)
        m.setattr(console_mod, "plain_width", lambda: width if plain else None)
        with contextlib.redirect_stdout(buf):
            cmd._render(table, servers, title)
    return buf.getvalue(), len(made)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tools=tool_sets(), width=widths)
def test_the_listing_is_what_the_rich_path_writes(tools, width, monkeypatch):
    plain, _ = _listing(*tools, width, True, monkeypatch)
    assert plain == _listing(*tools, width, False, monkeypatch)[0]


@pytest.mark.parametrize("width", [40, 80, 200])
def test_the_builtin_listing_takes_the_plain_path(width, monkeypatch):
    from agentcli.core.types import Tier

    table = cmd.rows(Tier.RUN, None, [])
    out, consoles = _listing(table, [], "Tools at tier run", width, True, monkeypatch)
    assert consoles == 0 and out.startswith("Tools at tier run\n┏")
    assert out == _listing(table, [], "Tools at tier run", width, False, monkeypatch)[0]
    assert all(len(line) <= width for line in out.splitlines())


def test_a_hostile_name_goes_through_rich_and_is_shown_not_interpreted(monkeypatch):
    table = [{"name": "[bold]x\u202e", "tier": "crawl", "read_only": True, "visible": True, "description": "\x1b[31m"}]
    out, consoles = _listing(table, [], "t", 80, True, monkeypatch)
    assert consoles == 1 and "[bold]x\\u202e" in out and "\\x1b[31m" in out
