from agentcli.core import ErrorCode, Message, ParsedResponse, Role, Tier, ToolCall, ToolError, redact
from agentcli.core.errors import ConfigError, ToolFailure


def test_tier_parse_and_order():
    assert Tier.parse("Walk") is Tier.WALK
    assert Tier.CRAWL < Tier.WALK < Tier.RUN
    try:
        Tier.parse("sprint")
    except ValueError as e:
        assert "crawl, walk or run" in str(e)
    else:
        raise AssertionError("bad tier accepted")


def test_tool_error_defaults_follow_code():
    perm = ToolError.of(ErrorCode.PERMISSION, "outside the workspace")
    assert not perm.recoverable and perm.retry_strategy == "abort"
    assert "Do not retry" in perm.render()
    t = ToolError.of(ErrorCode.TIMEOUT, "slow", "narrow the search")
    assert t.recoverable and t.retry_strategy == "same"
    assert ToolError.from_dict(t.to_dict()) == t
    assert ToolFailure.of(ErrorCode.NOT_FOUND, "x").error.code is ErrorCode.NOT_FOUND


def test_call_ids_are_unique_and_messages_carry_calls():
    a, b = ToolCall("read_file", {"path": "a"}), ToolCall("read_file", {"path": "a"})
    assert a.id != b.id and a.id.startswith("call_")
    m = Message.assistant(ParsedResponse(text="hi", tool_calls=[a]))
    assert m.role is Role.ASSISTANT and m.tool_calls == [a]


def test_config_error_names_file_profile_key():
    e = ConfigError("expected one of crawl, walk, run", file="p.toml", profile="boxxie", key="tools.max_tier")
    assert e.message == "p.toml, profile 'boxxie', key 'tools.max_tier': expected one of crawl, walk, run"
    assert e.exit_code == 2


def test_redact_masks_env_secrets_in_every_encoding(monkeypatch):
    import base64

    key = "canary-" + "9f8e7d6c5b4a3210"
    monkeypatch.setenv("MY_API_KEY", key)
    for form in (key, base64.b64encode(key.encode()).decode(), key.encode().hex(), "canary-9f8e7d6c5b4a3210"):
        assert key not in redact(f"x {form} y") and form not in redact(f"x {form} y")
    assert redact("Authorization: Bearer abcdefghijklmnop123") == "Authorization: Bearer [REDACTED]"
    assert redact("nothing secret here") == "nothing secret here"


def test_stream_scrubber_never_releases_a_split_key(monkeypatch):
    import random

    from agentcli.core.redaction import StreamScrubber

    key = "zz-canary-" + "0123456789abcdef"
    monkeypatch.setenv("SOME_SERVICE_TOKEN", key)
    text = f"Here is the key: {key}\nand again {key}. Done with words after it."
    rng = random.Random(7)
    for _ in range(200):
        cuts = sorted(rng.sample(range(1, len(text)), 6))
        parts = [text[i:j] for i, j in zip([0, *cuts], [*cuts, len(text)])]
        s = StreamScrubber()
        out = [s.feed(p) for p in parts] + [s.flush()]
        assert all(key not in o for o in out)
        assert "".join(out) == redact(text)
