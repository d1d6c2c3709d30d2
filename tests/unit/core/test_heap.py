"""core.heap: what start-up keeps is frozen out of the collector's walks; a one-shot report runs
with collection paused and leaves the collector as it found it."""

from __future__ import annotations

import gc

import pytest

from agentcli.core.heap import paused, settle


def test_settle_moves_what_is_alive_out_of_the_collector_s_generations():
    try:
        kept = [[] for _ in range(1000)]
        settle()
        assert gc.get_freeze_count() >= len(kept)
    finally:
        gc.unfreeze()


@pytest.mark.parametrize("enabled", [True, False])
def test_paused_stops_collection_and_restores_the_collector_as_it_was(enabled):
    (gc.enable if enabled else gc.disable)()
    try:
        with paused():
            assert not gc.isenabled()
        assert gc.isenabled() is enabled
        with pytest.raises(KeyError), paused():
            raise KeyError("x")
        assert gc.isenabled() is enabled
    finally:
        gc.enable()
