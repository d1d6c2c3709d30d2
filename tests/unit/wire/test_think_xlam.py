"""xLAM's reply read with fewer scans: the last `</think>` looked for only where a `<` stands, and
fences only where a backtick does. Held to the plain searches on generated replies."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcli.wire.dialects import xlam
from agentcli.wire.dialects._scan import calls_from_json, decode_json_at, skip_ws
from agentcli.wire.dialects._seen import SHORT

PIECES = ["</think>", "<think>", "<", "/", "think>", "```", "```json\n", "`", "\n```", "\n", " ", "lorem ipsum ",
          '[{"name": "f", "arguments": {"a": 1}}]', '{"name": "g", "arguments": {}}', "[TOOL_CALLS]", "<tool_call>",
          '```json\n[{"name": "f", "arguments": {"a": 1}}]\n```']
texts = st.tuples(st.lists(st.sampled_from(PIECES), max_size=12).map("".join), st.integers(0, 1),
                  st.lists(st.sampled_from(PIECES), max_size=6).map("".join)).map(
    lambda t: t[0] + "lorem ipsum " * (SHORT // 12 + 1) * t[1] + t[2])
_examples = settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))


@_examples
@given(texts)
def test_the_last_close_tag_is_rfind(text: str) -> None:
    assert xlam._last(text, xlam.THINK_END) == text.rfind(xlam.THINK_END)


def _fences_by_search(text: str) -> tuple[list, list]:
    """_XLam._fences as first written: every ``` looked for, with no look for a backtick first."""
    cands: list = []
    spans: list = []
    pos = 0
    while (at := text.find("```", pos)) != -1:
        nl = text.find("\n", at)
        if nl == -1:
            break
        pos = nl + 1
        if text[at + 3 : nl].strip() not in ("", "json", "JSON"):
            continue
        got = decode_json_at(text, nl + 1)
        if got is None:
            continue
        k = skip_ws(text, got[1])
        if not text.startswith("```", k):
            continue
        end = k + 3
        found = calls_from_json(got[0], text[at:end], "xlam", require_args=True)
        if found:
            cands.extend(found)
            spans.append((at, end))
        pos = end
    return cands, spans


@_examples
@given(texts)
def test_fences_are_found_where_backticks_stand(text: str) -> None:
    assert xlam.XLAM._fences(text) == _fences_by_search(text)
