"""The markup around calls and reasoning, declared by each dialect and collected from the table once.

A family's knowledge sits on its dialect (Dialect.reasoning_tags, call_wrappers, section_openers,
reasoning_split; see _base.py); markup no one family owns is declared here once (GENERIC). The
pipeline's reasoning split, the string masking (_opaque.py) and the stream detector read the
collected tuples, so a new family is one module, one registry row and one fixture: no central
table to edit. This module sits below the pipeline and _opaque (both import it, it imports neither).

Collected lazily on first use and cached, from the registry's declared rows (dialects/_declared.py):
no dialect module is imported for it (a reasoning split declared with split_by is imported when a
reply holds its trigger; one declared with the function itself imports its dialect). Caches built from the table register with `on_change`, so
a test that adds a registry row calls `forget()` and every one of them is rebuilt.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import NamedTuple

from agentcli.wire import dialects
from agentcli.wire.dialects._base import ReasoningSplit, split_by


# A NamedTuple, not a dataclass: every parse imports it, and a dataclass costs some 0.5 ms to build.
class Markup(NamedTuple):
    """What one declaration (a dialect's, or the generic one) says about the markup in a reply."""

    reasoning_tags: tuple[tuple[str, str], ...] = ()
    call_wrappers: tuple[tuple[str, str], ...] = ()
    section_openers: tuple[str, ...] = ()
    reasoning_splits: tuple[ReasoningSplit, ...] = ()
    # Chat-template tokens a server may leave in the text (its stop token not stripped, a turn
    # opener): they belong to chat templates, which many families share, not to a call dialect.
    turn_end: tuple[str, ...] = ()
    turn_start: tuple[str, ...] = ()


# Markup no single dialect owns: `<think>` is written by many families (Qwen3, DeepSeek-R1, GLM,
# MiniMax, ...) and put there by servers' templates, whatever dialect reads the calls.
GENERIC = Markup(
    reasoning_tags=(("<think>", "</think>"),),
    turn_end=("<|im_end|>", "<|endoftext|>", "<|eot_id|>", "<|eom_id|>", "<|end_of_text|>", "<end_of_turn>",
              "<turn|>", "<|return|>", "<|end|>", "<|call|>", "<|role_end|>", "</s>", "<|assistant_end|>"),
    turn_start=("<|assistant_start|>",),
)


class Collected(NamedTuple):
    """The whole table's declarations, merged (each entry once, the generic one first, then in
    table order: the reasoning pairs are applied in that order)."""

    reasoning_tags: tuple[tuple[str, str], ...]
    call_wrappers: tuple[tuple[str, str], ...]
    section_openers: tuple[str, ...]
    reasoning_splits: tuple[ReasoningSplit, ...]
    turn_end: tuple[str, ...]
    turn_start: tuple[str, ...]
    # Substrings of which any reply holding reasoning markup contains one (a common part of each
    # pair's two tags, and each split's trigger): a reply with none skips the split in a few scans.
    probes: tuple[str, ...]
    close_of: dict[str, str]  # each reasoning opener -> its closer


@functools.cache
def collected() -> Collected:
    """Every registered dialect's declarations and the generic ones, merged; built once."""
    parts = [GENERIC]
    for name in dialects.names():
        try:
            row = dialects.declared(name)  # data: no module imported (a split declared by reference neither)
            if row.split_trigger is None:
                split = None
            elif row.split_ref is not None:
                split = ReasoningSplit(row.split_trigger, split_by(row.split_ref))
            else:
                split = dialects.get(name).reasoning_split
        except (KeyError, ImportError, AttributeError):
            continue  # a broken row narrows what is known, as everywhere else in the chain
        parts.append(Markup(row.reasoning_tags, row.call_wrappers, row.section_openers,
                            (split,) if split is not None else ()))

    def merged(field: str) -> tuple:
        return tuple(dict.fromkeys(x for p in parts for x in getattr(p, field)))

    tags = merged("reasoning_tags")
    splits = merged("reasoning_splits")
    return Collected(
        reasoning_tags=tags,
        call_wrappers=merged("call_wrappers"),
        section_openers=merged("section_openers"),
        reasoning_splits=splits,
        turn_end=merged("turn_end"),
        turn_start=merged("turn_start"),
        probes=_fewest((*(_common(o, c) for o, c in tags), *(s.trigger for s in splits))),
        close_of=dict(tags),
    )


def _common(a: str, b: str) -> str:
    """The longest substring of both `a` and `b` (`think>` of `<think>`, `</think>`): a text holding
    either tag holds it. Tags are short, so the plain search is enough."""
    best = ""
    for i in range(len(a)):
        for j in range(i + len(best) + 1, len(a) + 1):
            if a[i:j] not in b:
                break
            best = a[i:j]
    return best or a


def _fewest(probes: tuple[str, ...]) -> tuple[str, ...]:
    """`probes` without those holding another one (a text holding `seed:think>` holds `think>`)."""
    kept = tuple(dict.fromkeys(p for p in probes if p))
    return tuple(p for p in kept if not any(q != p and q in p for q in kept))


_ON_CHANGE: list[Callable[[], None]] = []


def on_change(clear: Callable[[], None]) -> Callable[[], None]:
    """Register `clear` (a cache's cache_clear) to run when the table changes (see forget)."""
    _ON_CHANGE.append(clear)
    return clear


def forget() -> None:
    """The table changed (a test added or removed a row): drop everything built from it."""
    collected.cache_clear()
    for clear in _ON_CHANGE:
        clear()
