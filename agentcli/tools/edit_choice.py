"""Which edit tool a session offers, and what happens when a model calls one it was not given.

Each model is offered one edit tool: the form it was trained on (the capability's `edit_tool`,
from its family rule) unless the profile's `[tools] edit_tool` says otherwise. The others stay
registered under their trained names but hidden (`model_visible=False`): a model that calls
one anyway (a Claude-like model calling `str_replace_based_edit_tool`, an OpenAI-like one
calling `apply_patch`) has its arguments carried out by the same edit core, and the result
says so and names the tool it has; arguments that cannot be carried out come back as a
structured error that names the tool it has.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from agentcli.core.errors import ErrorCode, ToolFailure
from agentcli.tools.base import BuiltinTool, ToolContext
from agentcli.tools.registry import BUILTINS

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
    name, ref = EDIT_FORMS[form]
    out: dict[str, str] = {}
    for key, value in BUILTINS.items():
        if key == EDIT_FORMS[DEFAULT_FORM][0]:
            out[name] = ref
        elif key not in {n for n, _ in EDIT_FORMS.values()}:
            out[key] = value
    return out


def hidden_aliases(form: str, deny: list[str] | None = None) -> list[BuiltinTool]:
    """The other trained edit tools, hidden, each carrying out its calls and saying which tool the model has."""
    from agentcli.core.lazy import LazyTable

    chosen = tool_name(form)
    if chosen in set(deny or ()):
        return []  # the profile turned editing off: no back door under another name
    loader: LazyTable[BuiltinTool] = LazyTable("agentcli.tools.builtin", {n: r for n, r in EDIT_FORMS.values()})
    return [TrainedAlias(loader.load(ref), chosen) for name, ref in EDIT_FORMS.values() if name != chosen]


class TrainedAlias(BuiltinTool):
    """A trained edit tool the model was not offered: runs through the real tool's plan (the shared
    edit core), hidden from the model, and reports the repair in its result."""

    def __init__(self, real: BuiltinTool, has: str) -> None:
        self.real = real
        self.has = has
        self.spec = dataclasses.replace(real.spec, model_visible=False, native_form=None)

    def _note(self) -> str:
        return (f"[repair: {self.spec.name} is not one of your tools; this call was carried out by the same edit "
                f"code as your edit tool, {self.has}. Call {self.has} next time.]")

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> str:
        try:
            out = await self.real.run(args, ctx)
        except ToolFailure as exc:
            err = exc.error
            raise ToolFailure.of(
                err.code if err.code is not ErrorCode.NOT_FOUND else ErrorCode.VALIDATION,
                f"{self.spec.name} is not one of your tools (your edit tool is {self.has}), and this call could not "
                f"be carried out: {err.message}",
                f"Call {self.has} instead. {err.suggested_fix or ''}".strip(),
                tool=self.has,
            ) from None
        return f"{out}\n{self._note()}"

    def preview(self, args: dict[str, Any], ctx: ToolContext) -> str:
        return self.real.preview(args, ctx)

    def changed_paths(self, args: dict[str, Any]) -> list[str]:
        return self.real.changed_paths(args)


def session_registry(setting: str | None, trained: str | None, deny: list[str] | None = None) -> Any:
    """A session's tool registry: the chosen edit tool offered, the other trained ones hidden."""
    from agentcli.tools.registry import ToolRegistry

    form, _ = choose(setting, trained)
    return ToolRegistry(table(form), extra=hidden_aliases(form, deny))
