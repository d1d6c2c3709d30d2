"""A trained edit tool the model was not given, kept hidden: its calls run through the real tool's
plan (the shared edit core) and the result reports the repair, naming the tool the model has.

It knows nothing of which edit forms exist: `edit_choice` owns that table and builds the aliases,
so this module sits below it."""

from __future__ import annotations

import dataclasses
from typing import Any

from agentcli.core.errors import ErrorCode, ToolFailure
from agentcli.tools.base import BuiltinTool, ToolContext


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
