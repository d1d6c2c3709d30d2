"""Bracket / JSON families read as a run with the family's model reads them: wrappers and channel
headers never stay visible, reasoning goes to thinking, prose is not a call, a broken call is
reported beside its good siblings, and arguments are typed by the offered schema."""

from __future__ import annotations

from agentcli.core.types import Tool
from agentcli.wire.model_parse import parse_for

FUNCTIONARY = "meetkai/functionary-medium-v3.2"
COMMAND_R_PLUS = "CohereForAI/c4ai-command-r-plus"
MAGISTRAL = "mistralai/Magistral-Small-2506"
WEATHER = Tool("get_weather", "Weather for a city", {
    "type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}, "required": ["city"]})


def _calls(resp):
    return [(c.name, c.arguments) for c in resp.tool_calls if not c.error]


def test_functionary_text_channel_header_is_not_text_with_or_without_its_prompt_arrows():
    for out in ("all\nIt is sunny in Oslo.", ">>>all\nIt is sunny in Oslo."):
        resp = parse_for(out, FUNCTIONARY, [WEATHER])
        assert (resp.text.strip(), _calls(resp)) == ("It is sunny in Oslo.", [])


def test_functionary_bare_first_call_after_the_prompt_arrows_is_typed_by_the_schema():
    resp = parse_for('get_weather\n{"city": "Oslo", "days": "3"}', FUNCTIONARY, [WEATHER])
    assert _calls(resp) == [("get_weather", {"city": "Oslo", "days": 3})]
    assert resp.text.strip() == ""


def test_functionary_prose_opening_with_a_word_line_and_json_is_not_a_call():
    out = 'get_weather\n{"city": "Oslo"} is what the call would look like.'
    resp = parse_for(out, FUNCTIONARY, [WEATHER])
    assert _calls(resp) == [] and "what the call would look like" in resp.text


def test_functionary_prose_that_ends_a_line_with_all_keeps_its_words():
    out = "That is all\nthere is to say."
    assert parse_for(out, FUNCTIONARY, [WEATHER]).text == out


def test_command_r_plus_turn_tokens_are_markup():
    resp = parse_for("<|CHATBOT_TOKEN|>Hello there.<|END_OF_TURN_TOKEN|>", COMMAND_R_PLUS, [WEATHER])
    assert (resp.text.strip(), _calls(resp)) == ("Hello there.", [])


def test_command_r_plus_action_list_keeps_good_calls_beside_a_broken_one():
    out = ('Action:\n```json\n[{"tool_name": "get_weather", "parameters": {"city": "Oslo"}},\n'
           ' {"tool_name": "get_weather", "parameters": {"city": }}]\n```')
    resp = parse_for(out, COMMAND_R_PLUS, [WEATHER])
    assert _calls(resp) == [("get_weather", {"city": "Oslo"})]
    assert [c.name for c in resp.tool_calls if c.error] == ["get_weather"]
    assert "Action:" not in resp.text and "```" not in resp.text


def test_command_a_action_block_reports_a_value_it_cannot_read_instead_of_guessing():
    out = ('<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"days": 15:30}},'
           ' {"tool_call_id": "1", "tool_name": "get_weather", "parameters": {"city": "Oslo",}}]<|END_ACTION|>')
    resp = parse_for(out, "CohereLabs/c4ai-command-a-03-2025", [WEATHER])
    assert _calls(resp) == [("get_weather", {"city": "Oslo"})]  # a trailing comma is a lossless fix
    assert [c.error is not None for c in resp.tool_calls] == [True, False]
    assert "START_ACTION" not in resp.text


def test_magistral_think_block_is_thinking_and_the_call_is_read():
    out = '[THINK]Oslo, so a weather call.[/THINK][TOOL_CALLS]get_weather[ARGS]{"city": "Oslo"}'
    resp = parse_for(out, MAGISTRAL, [WEATHER])
    assert _calls(resp) == [("get_weather", {"city": "Oslo"})]
    assert "Oslo, so a weather call." in (resp.thinking or "")
    assert "[THINK]" not in resp.text and "[TOOL_CALLS]" not in resp.text


def test_mistral_prose_naming_the_token_is_not_a_call():
    out = "Mistral models write [TOOL_CALLS] before a call; here I answer directly."
    resp = parse_for(out, MAGISTRAL, [WEATHER])
    assert _calls(resp) == []
