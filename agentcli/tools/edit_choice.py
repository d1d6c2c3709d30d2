"""Which edit tool a session offers, and what happens when a model calls one it was not given.

Each model is offered one edit tool: the form it was trained on (the capability's `edit_tool`,
from its family rule) unless the profile's `[tools] edit_tool` says otherwise. The others stay
registered under their trained names but hidden (`model_visible=False`): a model that calls
one anyway (a Claude-like model calling `str_replace_based_edit_tool`, an OpenAI-like one
calling `apply_patch`) has its arguments carried out by the same edit core, and the result
says so and names the tool it has; arguments that cannot be carried out come back as a
structured error that names the tool it has (`trained_alias`).

Light on purpose: `agent doctor` asks `choose` without loading the tool table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentcli.tools.base import BuiltinTool
    from agentcli.tools.registry import ToolRegistry

# edit tool form -> (tool name, "module:ATTRIBUTE" under agentcli.tools.builtin)
EDIT_FORMS: dict[str, tuple[str, str]] = {
    "apply_patch": ("apply_patch", "apply_patch:TOOL"),
    "str_replace": ("str_replace_based_edit_tool", "str_replace_editor:TOOL"),
    "edit_file": ("edit_file", "edit_file:TOOL"),
}
DEFAULT_FORM = "edit_file"


def choose(setting: str | None, trained: str | None) -> tuple[str, str]:
    """(form, why): the profile's setting unless it is "auto", else the model's trained form."""
    if setting and setting != "auto":
        if setting not in EDIT_FORMS:
            raise ValueError(f"unknown edit_tool {setting!r}; known: auto, {', '.join(EDIT_FORMS)}")
        return setting, "profile [tools] edit_tool"
    if trained in EDIT_FORMS:
        return str(trained), "model family"
    return DEFAULT_FORM, "default"


def tool_name(form: str) -> str:
    return EDIT_FORMS[form][0]


def table(form: str) -> dict[str, str]:
    """The built-in table with `form`'s tool in the place edit_file holds (and no other edit tool)."""
    from agentcli.tools.registry import BUILTINS

    name, ref = EDIT_FORMS[form]
    out: dict[str, str] = {}
    for key, value in BUILTINS.items():
        if key == EDIT_FORMS[DEFAULT_FORM][0]:
            out[name] = ref
        elif key not in {n for n, _ in EDIT_FORMS.values()}:
            out[key] = value
    return out


def session_registry(setting: str | None, trained: str | None, deny: list[str] | None = None) -> ToolRegistry:
    """A session's tool registry: the chosen edit tool offered, the other trained ones hidden."""
    from agentcli.tools.registry import ToolRegistry

    form, _ = choose(setting, trained)
    return ToolRegistry(table(form), extra=hidden_aliases(form, deny))


def reoffer(registry: ToolRegistry, setting: str | None, trained: str | None, deny: list[str] | None = None) -> str:
    """Offer another model's edit tool in a live registry (`/model`): the new form's tool shown, the
    others hidden behind aliases naming it. Returns the tool name now offered."""
    from agentcli.core.lazy import LazyTable
    from agentcli.tools.trained_alias import TrainedAlias

    form, _ = choose(setting, trained)
    chosen = tool_name(form)
    loader: LazyTable[BuiltinTool] = LazyTable("agentcli.tools.builtin", {n: r for n, r in EDIT_FORMS.values()})
    hidden = chosen not in set(deny or ())
    for name, ref in EDIT_FORMS.values():
        real = loader.load(ref)
        if name == chosen:
            registry.register(real)
        elif hidden:
            registry.register(TrainedAlias(real, chosen))
    return chosen


def hidden_aliases(form: str, deny: list[str] | None = None) -> list[BuiltinTool]:
    """The other trained edit tools, hidden, each carrying out its calls and saying which tool the model has."""
    from agentcli.core.lazy import LazyTable
    from agentcli.tools.trained_alias import TrainedAlias

    chosen = tool_name(form)
    if chosen in set(deny or ()):
        return []  # the profile turned editing off: no back door under another name
    loader: LazyTable[BuiltinTool] = LazyTable("agentcli.tools.builtin", {n: r for n, r in EDIT_FORMS.values()})
    return [TrainedAlias(loader.load(ref), chosen) for name, ref in EDIT_FORMS.values() if name != chosen]
