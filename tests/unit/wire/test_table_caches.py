"""Every cache the pipeline builds from the dialect table is dropped when the table changes
(`_markup.forget`): a cache left out keeps answering for the old table (a family a test or a plugin
added or removed). The caches that are pure functions of their arguments (a needle's rarest
character, a hash constructor) are the only ones allowed to stay."""

from __future__ import annotations

from agentcli.core.types import Tool
from agentcli.wire import pipeline
from agentcli.wire.dialects import _markup
from agentcli.wire.types import ParseContext

PURE = {"grouped", "rare_key", "_shortest", "_blake2b", "_NOT_SPACE"}  # of their arguments alone, or constant
REPLIES = [
    '<tool_call>{"name": "read_file", "arguments": {}}</tool_call>',
    "x <read_file><path>a</path></read_file> <think>a</think> [read_file()]",
    "```json\n{\"name\": \"read_file\", \"arguments\": {}}\n```",
]


def test_every_cache_built_from_the_table_is_dropped_when_it_changes() -> None:
    ctx = ParseContext.of([Tool("read_file", "", {"type": "object"})])
    for reply in REPLIES:  # the auto chain and a forced one fill every cache a parse uses
        pipeline.parse_text(reply, ctx)
        pipeline.parse_text(reply, ctx, ("hermes",))
    caches = {n: f for n, f in vars(pipeline).items() if hasattr(f, "cache_info")}
    assert "_reads_tool_tags" in caches and caches["_reads_tool_tags"].cache_info().currsize
    _markup.forget()
    left = sorted(n for n, f in caches.items() if f.cache_info().currsize and n not in PURE)
    assert left == []
