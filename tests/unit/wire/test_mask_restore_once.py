"""A reply's text is restored (its hidden markup given back) once: the rest the dialects left. The
text they read is restored only beside native calls, whose echoes are cut from it; restoring a
megabyte of text costs a regex split and a join of it (some 3 ms). Counted, never timed."""

from __future__ import annotations

from agentcli.wire import pipeline


def test_the_text_is_restored_once_without_native_calls(monkeypatch) -> None:
    """A long reply with markup hidden in a string outside any call, after its reasoning: its text
    comes back restored once (the rest the dialects left), not also the text they read, which only
    native calls' echoes ask for."""
    from agentcli.wire.dialects import _opaque

    restored: list[int] = []
    real = _opaque.Masked._restore_text
    monkeypatch.setattr(_opaque.Masked, "_restore_text", lambda self, v: restored.append(len(v)) or real(self, v))
    answer = 'Example: {"q": "a </tool_call> b"}\n' + "lorem ipsum " * 2000
    resp = pipeline.parse_text("<think>Plan.</think>" + answer)
    assert (resp.text, resp.thinking, resp.tool_calls) == (answer.strip(), "Plan.", [])
    assert len([n for n in restored if n > 1000]) == 1, restored
