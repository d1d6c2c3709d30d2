"""The loop's decisions, as functions that return values (`agent/steps.py`) instead of acting.

Each tool call is decided in three phases, in this order:
  1. `check`: can it run at all? (readable, known, within the cap and the allow/deny lists, at the
     session's tier or raised to it at the tier checkpoint, within the size limit, valid)
  2. `after_guard`: the repeat guard's verdict on it (refused, or "stuck": a person decides)
  3. `approve`: the tool's own judgement with the session's standing grants (run, ask, refuse,
     a tier request, a question for the person)
and each turn's end by `turn_limit`, `after_text`, `after_cut` and `after_calls`. These read the
Session and the run's memory but never change the Session, print, or wait: the driver
(`agent/loop.py`) carries out what they return (asks, raises the tier, runs, records), so every
path here is testable in-process without a model, a terminal or a tool running.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from agentcli.agent.approval import Decision, Ruling, rule
from agentcli.agent.steps import (
    Answered,
    Ask,
    CallDecision,
    End,
    FinalAnswer,
    Grant,
    Nudge,
    Passed,
    Refuse,
    Run,
    RunAgain,
    RunMemory,
    RunState,
    Stopped,
    TurnEnd,
    final_stop,
)
from agentcli.agent.validate import terse, validate_arguments
from agentcli.core import jsonsafe
from agentcli.core.errors import ErrorCode, ToolError
from agentcli.core.events import Checkpoint, CheckpointKind, Notice, StopReason
from agentcli.core.types import ParsedResponse, Tier, Tool, ToolCall, ToolResult

if TYPE_CHECKING:
    from agentcli.agent.repeat import Verdict
    from agentcli.agent.session import Session
    from agentcli.tools.base import Judgement

FINALIZE_PROMPT = (
    "You have finished using tools. Reply now with your final answer to the task, in plain text, "
    "without calling any tool."
)
USE_TOOLS_PROMPT = "This task needs the tools you were given: call one of them instead of answering from memory"
FINISH_HINT = ", or call `{name}` if you are sure the task is already done"
UNREAD_CALL_PROMPT = (
    "Your reply looks like a tool call, but it could not be read. Write the call again exactly in the "
    "format the system prompt describes, or answer in plain text without tool-call markup."
)
# A reply that is empty or cut at the output length limit is not an answer: one nudge, then a stop.
INCOMPLETE_PROMPTS = {
    "length": "Your last reply was cut off at the output length limit. Reply again, shorter.",
    "empty": "Your last reply was empty. Answer the task now, or call one of your tools.",
}
CUT_CALL_ERROR = (
    "Not run: your reply was cut off at the output length limit, so this call may be incomplete.",
    "Send the call again in a shorter reply (split large content over several calls).",
)
_CUT_WORDS = {"length": "cut off at the output length limit", "empty": "empty"}
_TIER_USE = {Tier.WALK: "change files in the workspace", Tier.RUN: "run commands"}


# -- phase 1: can the call run at all ---------------------------------------------------------
def check(s: Session, call: ToolCall, mem: RunMemory) -> CallDecision:
    """Reasons a call cannot run, in the order a model can fix them; a tool above the session's
    tier (but within the cap) is the tier checkpoint, after which the call is checked again."""
    refused = _check(s, call, mem)
    if isinstance(refused, Refuse) and not s.layers.messages:
        refused.error = terse(refused.error, call, known=s.registry.get(call.name) is not None)
    return refused


def _check(s: Session, call: ToolCall, mem: RunMemory) -> CallDecision:
    if call.error:
        return Refuse(ToolError.of(
            ErrorCode.VALIDATION, f"Could not read the arguments of your {call.name} call: {call.error}",
            "Send the arguments as one valid JSON object.",
        ))
    tool = s.registry.get(call.name)
    if call.unknown or tool is None:
        return Refuse(ToolError.of(
            ErrorCode.VALIDATION, f"Unknown tool {call.name!r}.", f"Use one of the available tools: {_names(s)}."
        ))
    spec = tool.spec
    if spec.tier > s.max_tier:
        return Refuse(s.tier_grant().over_cap(spec.tier, f"tool {call.name!r}"))
    refused = s.registry.check(call.name, s.max_tier, s.profile.tools.allow, s.profile.tools.deny)
    if refused is not None:
        return Refuse(refused)
    if spec.tier > s.tier:  # a tool it was not offered: asking for it is the tier checkpoint
        message = (f"The model wants to use {call.name}, which needs the {spec.tier.label} tier "
                   f"(the session is at {s.tier.label}). Raise the tier to {spec.tier.label} and run it?")
        return tier_request(s, call, spec.tier, message, s.preview(call), mem, then=lambda: check(s, call, mem))
    size = len(jsonsafe.dumps(call.arguments, ensure_ascii=False, default=str).encode())
    if size > s.profile.limits.max_tool_args_bytes:
        return Refuse(ToolError.of(
            ErrorCode.VALIDATION,
            f"ARGUMENTS_TOO_LARGE: the arguments are {size} bytes; the limit is {s.profile.limits.max_tool_args_bytes}.",
            "Split the work into several smaller calls (for example write a file in parts with mode=append).",
        ))
    invalid = validate_arguments(spec, call.arguments)
    return Refuse(invalid) if invalid is not None else Passed()


def tier_request(s: Session, call: ToolCall, needed: Tier, message: str, preview: str, mem: RunMemory,
                 then: Callable[[], CallDecision]) -> CallDecision:
    """The tier checkpoint: never past the cap; pre-approved tiers (--approve edits, --yes) rise
    without asking; a tier a person declined in this run is not asked again."""
    grant = s.tier_grant()
    if needed <= s.tier:
        return then()
    if needed > grant.cap:
        return Refuse(grant.over_cap(needed, f"raising the tier to {needed.label}"))
    if needed <= grant.preapproved:
        return Grant(needed, Notice("info", f"tier raised to {needed.label} (pre-approved)", "tier"), then)
    if needed in mem.declined:
        return Refuse(ToolError.of(
            ErrorCode.PERMISSION, f"The user already declined the {needed.label} tier for this request; "
            f"this session stays at the {s.tier.label} tier.",
            "Continue with the tools you have, or say in your answer what you would need.",
            tier=s.tier.label, needed=needed.label))
    cp = Checkpoint(CheckpointKind.TIER_ESCALATION, message, call, preview=preview, options=("yes", "no", "abort"))

    def answered(decision: Decision) -> CallDecision:
        if (end := final_stop(decision, grant.unapproved_hint(needed))) is not None:
            return end
        if decision.action in ("yes", "always"):
            return Grant(needed, Notice("info", f"tier raised to {needed.label}", "tier"), then, seen=call)
        return Refuse(ToolError.of(
            ErrorCode.PERMISSION,
            f"Raising the tier to {needed.label} was not approved"
            + (f": {decision.text}" if decision.text else "") + f"; this session stays at the {s.tier.label} tier.",
            f"Use the tools available now: {_names(s)}.", tier=s.tier.label, needed=needed.label,
        ), declined=needed)

    return Ask(cp, answered)


# -- phase 2: the repeat guard's verdict ------------------------------------------------------
def after_guard(call: ToolCall, verdict: Verdict) -> CallDecision:
    """An identical call that did not help is refused; one repeated on and on asks a person."""
    if verdict == "deny":
        return Refuse(ToolError.of(
            ErrorCode.MODEL_REFUSAL,
            f"Refused: this {call.name} call is identical to earlier ones that did not help.",
            "Change the arguments, use the results you already have, or give your final answer.",
        ), notice=Notice("warning", f"repeat guard refused an identical {call.name} call", "repeat"))
    if verdict != "stuck":
        return Passed()
    cp = Checkpoint(CheckpointKind.STUCK, f"The model keeps repeating {call.name} with the same arguments.",
                    call, options=("guidance", "retry", "abort"))

    def answered(decision: Decision) -> CallDecision:
        if decision.action == "guidance" and decision.text:
            return Refuse(ToolError.of(ErrorCode.MODEL_REFUSAL, "Stopped a repeated call.", decision.text))
        if decision.action in ("retry", "yes"):
            return Passed()
        return End(Stopped(StopReason.STUCK, f"stuck: the model kept repeating {call.name} with the same arguments"))

    return Ask(cp, answered)


# -- phase 3: approval ----------------------------------------------------------------------
def runs_unasked(s: Session, call: ToolCall, judgement: Judgement) -> bool:
    """A read-only call nobody needs to see: it may run in parallel with its neighbours."""
    spec = _spec(s, call)
    return (spec.read_only and not spec.interactive and judgement.raise_tier is None
            and ruling(s, call, judgement) == "run")


def approve(s: Session, call: ToolCall, judgement: Judgement, mem: RunMemory) -> CallDecision:
    """The tool's judgement with the session's grants applied: run, refuse, or ask first."""
    spec = _spec(s, call)
    if spec.interactive:  # a question for the person (ask_user): the answer is the result
        cp = Checkpoint(CheckpointKind.ASK_USER, s.preview(call), call, options=("answer", "abort"))
        return Ask(cp, lambda d: End(Stopped(StopReason.ABORTED, "aborted at a checkpoint")) if d.action == "abort"
                   else Answered(d.text or "(no answer)"))
    verdict = ruling(s, call, judgement)
    if verdict == "refuse":
        return Refuse(judgement.error or ToolError.of(
            ErrorCode.PERMISSION, f"Refused: {judgement.reason or 'this call is not allowed'}",
            judgement.hint or "Do something else; this call will not be run."))
    if judgement.raise_tier is not None:  # the call is a tier request: its checkpoint is the tier's
        needed = judgement.raise_tier
        message = (f"The model asks to raise the tier from {s.tier.label} to {needed.label}, to "
                   f"{_TIER_USE.get(needed, 'use more tools')}. Allow it?")
        return tier_request(s, call, needed, message, judgement.preview, mem, then=lambda: Run(call))
    uncontained = spec.sandboxed and not contained()
    if verdict == "ask" and not (mem.approved is call and not uncontained):
        return _ask(call, spec, judgement, uncontained)
    return Run(call)


def _ask(call: ToolCall, spec: Tool, judgement: Judgement, uncontained: bool) -> CallDecision:
    cp = Checkpoint(
        CheckpointKind.APPROVE_TOOL, f"Run {call.name}{' outside any sandbox' if uncontained else ''}?", call,
        preview=judgement.preview, options=("yes", "no", "always", "edit", "abort"), uncontained=uncontained,
    )

    def answered(decision: Decision) -> CallDecision:
        hint = ("--yes approves it ahead of time" if spec.read_only or spec.tier > Tier.WALK
                else "--approve edits approves it ahead of time (so does --yes)")
        if (end := final_stop(decision, hint)) is not None:
            return end
        if decision.action == "always":
            return Run(call, always=True)
        if decision.action == "edit" and decision.arguments is not None:
            invalid = validate_arguments(spec, decision.arguments)
            if invalid is None:
                return Run(ToolCall(call.name, decision.arguments, call.id, call.raw, call.dialect))
            decision = Decision("no", text=f"the edited arguments were invalid: {invalid.message}")
        if decision.action in ("no", "skip", "edit"):
            why = decision.text or "The user declined this call."
            return Refuse(ToolError.of(ErrorCode.PERMISSION, f"Not approved: {why}",
                                       "Do something else, or ask the user what they want with ask_user."))
        return Run(call)

    return Ask(cp, answered)


def ruling(s: Session, call: ToolCall, judgement: Judgement) -> Ruling:
    spec = _spec(s, call)
    return rule(judgement, spec, name=call.name, mode=s.approve_mode, always=s.always,
                contained=contained() if spec.sandboxed else True)


# -- how a turn ends --------------------------------------------------------------------------
def turn_limit(st: RunState, max_turns: int) -> Stopped | None:
    if st.turns >= max_turns:
        return Stopped(StopReason.MAX_TURNS, f"stopped after {st.turns} turns (limits.max_turns)")
    return None


def incomplete(response: ParsedResponse, unread_call: bool) -> str | None:
    """"length" for a reply cut at the output limit, "empty" for no text and no call, else None."""
    if response.finish_reason == "length":
        return "length"
    if not response.tool_calls and not response.text.strip() and not unread_call:
        return "empty"
    return None


def after_text(s: Session, response: ParsedResponse, st: RunState, offered: bool) -> TurnEnd:
    """A reply without calls: the answer, unless it needs one more nudge (a call that could not
    be read, or a task that must use its tools) or repeats the same message a third time."""
    if s.adapt.unread_call and st.invalid_turns < s.profile.limits.validation_retries:
        st.invalid_turns += 1
        return Nudge(UNREAD_CALL_PROMPT)
    text = response.text.strip()
    if s.profile.tools.tool_use_mode == "enforced" and not st.used_tools and not st.nudged and offered:
        st.nudged = True
        finish = next((t.name for t in s.visible_tools() if t.ends_run), None)
        return Nudge(USE_TOOLS_PROMPT + (FINISH_HINT.format(name=finish) if finish else "") + ".")
    if s.guard.message(text):
        return Stopped(StopReason.STUCK, "the model repeated the same message three times")
    return FinalAnswer(text)


def after_cut(response: ParsedResponse, cut: str, st: RunState) -> TurnEnd:
    """An empty reply or one cut at the length limit: its calls never run; one nudge, then a stop."""
    if st.incomplete_nudged:
        return Stopped(StopReason.INCOMPLETE, f"the model's reply was {_CUT_WORDS[cut]} twice in a row")
    st.incomplete_nudged = True
    st.no_tools_next = cut == "empty" and st.used_tools
    if response.tool_calls:  # the "not run" results say why
        return RunAgain()
    return Nudge(FINALIZE_PROMPT if st.no_tools_next else INCOMPLETE_PROMPTS[cut])


def cut_words(cut: str) -> str:
    return _CUT_WORDS[cut]


def not_run(call: ToolCall) -> ToolResult:
    """The result of a call in a reply cut at the length limit: it never runs."""
    err = ToolError.of(ErrorCode.VALIDATION, *CUT_CALL_ERROR)
    return ToolResult(call.id, call.name, False, err.render(), err)


def after_calls(results: list[ToolResult], st: RunState, submitted: str | None, retries: int) -> TurnEnd:
    """After the calls ran: the answer of a tool that ends the run (`submitted`), a stop after
    more than `retries` turns in a row of nothing but invalid calls, or another turn."""
    if submitted is not None:
        return FinalAnswer(submitted, StopReason.SUBMITTED)
    if all(_is_invalid(r) for r in results):
        st.invalid_turns += 1
        if st.invalid_turns > retries:
            return Stopped(StopReason.ERROR, f"the model made invalid tool calls {st.invalid_turns} turns in a row")
    else:
        st.invalid_turns = 0
    return RunAgain()


# -- small parts ------------------------------------------------------------------------------
def contained() -> bool:
    """Whether commands can start inside the OS sandbox here (probed once per process)."""
    from agentcli.tools.bwrap import status

    return status().available


def _spec(s: Session, call: ToolCall) -> Tool:
    """The spec of a call that passed the checks (so its tool exists)."""
    tool = s.registry.get(call.name)
    assert tool is not None
    return tool.spec


def _names(s: Session) -> str:
    """The tools the model has now, for an error that tells it what to use instead (worded only
    when such an error is given)."""
    return ", ".join(t.name for t in s.visible_tools()) or "(none)"


def _is_invalid(r: ToolResult) -> bool:
    return not r.ok and isinstance(r.error, ToolError) and r.error.code is ErrorCode.VALIDATION
