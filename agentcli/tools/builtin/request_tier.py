"""request_tier: the model asks for a higher tier, with a reason; a person decides.

One small tool instead of a marked stub per locked tool: it costs one definition however many
tools are locked (small context windows), and the model cannot mistake a stub for the tool
itself. Its description lists what each tier above adds, so the model knows what to ask for.
It is offered only below the cap. Its call is the tier checkpoint: the judgement carries
`raise_tier`, the approval policy asks (or applies a pre-approval), and on yes the session's
tier rises and the new tools are offered from the next turn.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from agentcli.core.types import Tier, Tool
from agentcli.tools.base import BuiltinTool, Judgement, TierView, ToolContext, arg_str

MAX_REASON = 500
_WHAT = {Tier.WALK: "change files", Tier.RUN: "run commands"}


class RequestTier(BuiltinTool):
    spec = Tool(
        name="request_tier",
        description=(
            "Ask the user for a higher tier when the task needs tools you were not given yet. The user approves "
            "or declines; approved, the new tools are offered from your next turn.\n"
            "Use it when: the task needs you to change files or run commands and no offered tool can.\n"
            "Do not use it to read or search (you can already), or for a tier you already have. Edge cases: a "
            "declined tier is not asked for again in this request, so continue with the tools you have.\n"
            'Example: {"tier": "walk", "reason": "fix the typo in greeting.py"}'
        ),
        parameters={
            "type": "object",
            "properties": {
                "tier": {"type": "string", "enum": ["walk", "run"], "description": "The tier you need."},
                "reason": {"type": "string", "description": "What you will do with it, in one sentence."},
            },
            "required": ["tier", "reason"],
            "additionalProperties": False,
        },
        tier=Tier.CRAWL,
        read_only=False,  # its approval changes what the session may do: never batched, never unasked
        needs_approval=True,
    )
    changes_files = False

    def offered(self, view: TierView) -> Tool | None:
        above = [t for t in sorted(view.locked) if view.tier < t <= view.cap and view.locked[t]]
        if not above:
            return None
        lines = [f"- {t.label}: {_WHAT.get(t, 'more tools')} ({', '.join(view.locked[t])})" for t in above]
        desc = self.spec.description.replace(
            "\nExample:", f"\nYou are at the {view.tier.label} tier. Tiers you may ask for:\n" + "\n".join(lines)
            + "\nExample:", 1)
        params = dict(self.spec.parameters)
        props = dict(params["properties"])
        props["tier"] = {**props["tier"], "enum": [t.label for t in above]}
        params["properties"] = props
        return replace(self.spec, description=desc, parameters=params)

    def _asked(self, args: dict[str, Any]) -> tuple[Tier, str]:
        label = arg_str(args, "tier", choices=("crawl", "walk", "run"))
        reason = " ".join(arg_str(args, "reason", "").split())[:MAX_REASON]
        return Tier.parse(label), reason

    def judge(self, args: dict[str, Any], ctx: ToolContext) -> Judgement:
        tier, reason = self._asked(args)
        return Judgement("ask", preview=f"reason: {reason or '(none given)'}", raise_tier=tier)

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> str:
        tier, _ = self._asked(args)
        return (f"Approved: this session is now at the {tier.label} tier. Its tools are offered from your next "
                "turn; continue with the task.")


TOOL = RequestTier()
