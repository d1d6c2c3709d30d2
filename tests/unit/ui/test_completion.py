from prompt_toolkit.document import Document

from agentcli.ui.repl import _completer


def complete(text: str) -> list[str]:
    return [c.text for c in _completer(None).get_completions(Document(text), None)]


def test_slash_commands_complete():
    assert "/model" in complete("/mo")
    assert complete("/ti") == ["/tier"]
    assert complete("plain text") == []


def test_arguments_complete_profiles_models_and_tiers():
    assert complete("/tier w") == ["walk"]
    assert "offline" in complete("/profile off")
    models = complete("/model claude-3")
    assert models and all(m.startswith("claude-3") for m in models)
    assert "boxxie" in complete("/model box")
