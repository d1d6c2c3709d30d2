"""The agent loop: request -> parse -> validate -> guard -> approve -> execute -> results.

`Agent.run()` is an async generator of events; its last event is always `Done`, the
run's step value. It never prints and never reads the keyboard: decisions go through
the session's Approver.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, AsyncIterator
from typing import TYPE_CHECKING, Any

from agentcli.agent.approval import Approver, Decision, Ruling, rule
from agentcli.agent.hookpaths import run_hook_files
from agentcli.agent.planner import plan_batches
from agentcli.agent.steps import FinalAnswer, RunAgain, RunState, Step, Stop, Stopped, stop_if_final
from agentcli.agent.validate import terse, validate_arguments
from agentcli.core import jsonsafe
from agentcli.core.errors import ErrorCode, ProviderError, ProviderErrorCode, ToolError
from agentcli.core.events import (
    AgentEvent,
    Checkpoint,
    CheckpointKind,
    Done,
    Notice,
    StopReason,
    ToolFinished,
    ToolStarted,
    TurnStarted,
)
from agentcli.core.types import Message, ParsedResponse, Tier, Tool, ToolCall, ToolResult

if TYPE_CHECKING:
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


class Agent:
    """Runs turns for one Session. Holds per-run counters only; state lives in the Session."""

    def __init__(self, session: Session, approver: Approver) -> None:
        self.s = session
        self.approver = approver
        # The call approved together with its tier escalation (asked once). Held by identity, never by
        # id: a model may reuse ids, and a reused id must not skip the next approval.
        self._approved: ToolCall | None = None
        self._declined: set[Tier] = set()  # tiers a person refused in this run: not asked again

    async def run(self, user_text: str | None) -> AsyncGenerator[AgentEvent, None]:
        """Drive turns until one returns a final step; the last event is always `Done`."""
        s = self.s
        s.ended = False
        if user_text is not None:
            s.begin_exchange(user_text)
        started = time.monotonic()
        changed_before = len(s.files_changed)  # a chat session runs many times; report this run's files
        known = {(c.path, c.before, c.after) for c in s.ledger.changes}
        st = RunState()
        step: Step = RunAgain()
        try:
            for note in await s.open_tool_sources():  # MCP servers start on first use, in parallel
                yield Notice("warning", note, "mcp")
            while isinstance(step, RunAgain):
                async for item in self._turn(st):
                    if isinstance(item, (RunAgain, FinalAnswer, Stopped)):
                        step = item
                    else:
                        yield item
        except Stop as stop:
            step = stop.step
        except ProviderError as exc:
            step = Stopped(StopReason.ERROR, exc.message + (f" ({exc.hint})" if exc.hint else ""))
        except (asyncio.CancelledError, KeyboardInterrupt):
            s.end(StopReason.INTERRUPTED, "interrupted")
            raise
        answer, error = (step.text, None) if isinstance(step, FinalAnswer) else ("", step.error)
        changed = list(dict.fromkeys(s.files_changed[changed_before:]))
        done = Done(
            step.stop, answer, st.turns, st.usage, st.tools_run,
            changed, round(time.monotonic() - started, 3), error,
            hook_files=run_hook_files(s.workspace, known, s.ledger.changes, changed),
            background=s.running(),
        )
        s.end(step.stop, error, answer)
        yield done

    # -- one turn ------------------------------------------------------------------------
    async def _turn(self, st: RunState) -> AsyncIterator[AgentEvent | Step]:
        """One request and what follows from it; the last item is the Step."""
        s = self.s
        if st.turns >= s.profile.limits.max_turns:
            yield Stopped(StopReason.MAX_TURNS, f"stopped after {st.turns} turns (limits.max_turns)")
            return
        st.turns += 1
        folded = s.compact()
        if folded:
            yield Notice("warning", f"context window nearly full: folded {folded} older messages into a summary", "compact")
        yield TurnStarted(st.turns, s.profile.model)
        visible = [] if st.no_tools_next else s.visible_tools()
        st.no_tools_next = False
        response: ParsedResponse | None = None
        async for ev in self._request(visible):
            if isinstance(ev, ParsedResponse):
                response = ev
            else:
                yield ev
        if response is None:  # the user chose to retry a failed request: same turn again
            st.turns -= 1
            yield RunAgain()
            return
        async for ev in self._record(response, st):
            yield ev
        if (cut := _incomplete(response, s.adapt.unread_call)) is not None:
            async for item in self._after_cut(response, cut, st):
                yield item
            return
        if not response.tool_calls:
            async for item in self._after_text(response, st, bool(visible)):
                yield item
            return
        st.used_tools = True
        results: list[ToolResult] = []
        try:
            async for ev in self._handle_calls(response.tool_calls, results):
                st.tools_run += isinstance(ev, ToolStarted)
                yield ev
        finally:
            if results:
                s.add(Message.results(results))
        yield self._after_calls(results, st)

    async def _request(self, visible: list[Tool]) -> AsyncIterator[Any]:
        """The model's reply (last item), or nothing when a failed request is to be retried."""
        s = self.s
        try:
            async for ev in self._complete(visible):
                yield ev
        except ProviderError as exc:
            if not s.interactive:
                raise
            cp = Checkpoint(
                CheckpointKind.FAILURE,
                f"The model request failed after retries: {exc.message}" + (f" ({exc.hint})" if exc.hint else ""),
                options=("retry", "abort"),
            )
            yield cp
            if (await self._checkpoint(cp)).action != "retry":
                raise

    async def _record(self, response: ParsedResponse, st: RunState) -> AsyncIterator[AgentEvent]:
        """Add the reply to the history, count its usage, and learn from how it was written."""
        s = self.s
        if response.usage:
            st.usage = st.usage + response.usage
            s.usage = s.usage + response.usage
        for r in response.repairs:
            yield Notice("info", f"repaired the model's output: {r.detail}", r.kind)
        s.add(Message.assistant(response))
        learned = s.adapt.note_dialects(s, response.tool_calls)
        if learned:
            yield Notice("info", learned, "learned")
        switched = s.adapt.note_emulation(s, response)
        if switched:
            st.invalid_turns = 0  # the new style gets its own retries
            yield Notice("warning", switched, "fallback")

    async def _after_text(self, response: ParsedResponse, st: RunState, offered: bool) -> AsyncIterator[AgentEvent | Step]:
        """A reply without calls: an answer, unless it needs one more nudge (the last item is the Step)."""
        s = self.s
        if s.adapt.unread_call and st.invalid_turns < s.profile.limits.validation_retries:
            st.invalid_turns += 1
            s.add(Message.user(UNREAD_CALL_PROMPT))
            yield RunAgain()
            return
        text = response.text.strip()
        if s.profile.tools.tool_use_mode == "enforced" and not st.used_tools and not st.nudged and offered:
            st.nudged = True
            finish = next((t.name for t in s.visible_tools() if t.ends_run), None)
            s.add(Message.user(USE_TOOLS_PROMPT + (FINISH_HINT.format(name=finish) if finish else "") + "."))
            yield RunAgain()
        elif s.guard.message(text):
            yield Stopped(StopReason.STUCK, "the model repeated the same message three times")
        else:
            yield FinalAnswer(text)

    async def _after_cut(self, response: ParsedResponse, cut: str, st: RunState) -> AsyncIterator[AgentEvent | Step]:
        """An empty reply or one cut at the length limit: its calls never run; one nudge, then a stop."""
        s = self.s
        if response.tool_calls:  # the results say why; they also keep the history valid for the API
            s.add(Message.results([_not_run(c) for c in response.tool_calls]))
        if st.incomplete_nudged:
            yield Stopped(StopReason.INCOMPLETE, f"the model's reply was {_CUT_WORDS[cut]} twice in a row")
            return
        st.incomplete_nudged = True
        st.no_tools_next = cut == "empty" and st.used_tools
        if not response.tool_calls:
            s.add(Message.user(FINALIZE_PROMPT if st.no_tools_next else INCOMPLETE_PROMPTS[cut]))
        yield Notice("warning", f"the model's reply was {_CUT_WORDS[cut]}; asking once more", "incomplete")
        yield RunAgain()

    def _after_calls(self, results: list[ToolResult], st: RunState) -> Step:
        """After the calls ran: the answer of a tool that ends the run, a stop, or another turn."""
        s = self.s
        if s.submitted is not None:
            answer, s.submitted = s.submitted, None
            return FinalAnswer(answer, StopReason.SUBMITTED)
        if all(_is_invalid(r) for r in results):
            st.invalid_turns += 1
            if st.invalid_turns > s.profile.limits.validation_retries:
                return Stopped(StopReason.ERROR, f"the model made invalid tool calls {st.invalid_turns} turns in a row")
        else:
            st.invalid_turns = 0
        return RunAgain()

    # -- one model request -------------------------------------------------------------
    async def _complete(self, visible: list[Tool]) -> AsyncIterator[Any]:
        """Yield the provider's events as they happen, then the ParsedResponse.
        A server that rejects native tools is retried once with prompt emulation."""
        s = self.s
        for attempt in (1, 2):
            queue: asyncio.Queue[AgentEvent] = asyncio.Queue()
            task = asyncio.create_task(
                s.provider.complete(
                    s.request_messages(), visible, s.plan, s.settings(), s.parse_context(), on_event=queue.put_nowait
                )
            )
            getter: asyncio.Future[AgentEvent] | None = None
            try:
                while not task.done() or not queue.empty():
                    getter = asyncio.ensure_future(queue.get())
                    await asyncio.wait({task, getter}, return_when=asyncio.FIRST_COMPLETED)
                    if getter.done():
                        yield getter.result()
                    else:
                        getter.cancel()
                response = task.result()
            except ProviderError as exc:
                if (exc.code is ProviderErrorCode.TOOLS_UNSUPPORTED and s.plan.native_tools and attempt == 1
                        and s.layers.fallback):
                    note = s.adapt.fall_back_to_emulation(s, exc.message)
                    yield Notice("warning", note, "fallback")
                    continue
                if exc.code is ProviderErrorCode.TOOL_CHOICE_UNSUPPORTED and attempt == 1:
                    yield Notice("warning", s.adapt.tool_choice_rejected(s, exc.message), "fallback")
                    continue
                raise
            finally:
                # cancelled mid-request (Ctrl-C in chat): end both tasks here, or asyncio later
                # reports them as "destroyed but pending"
                pending = [t for t in (task, getter) if t is not None and not t.done()]
                for t in pending:
                    t.cancel()
                if pending:
                    await asyncio.wait(pending)
            yield response
            return

    # -- tool calls --------------------------------------------------------------------
    async def _handle_calls(self, calls: list[ToolCall], results: list[ToolResult]) -> AsyncIterator[AgentEvent]:
        s = self.s
        batch: list[ToolCall] = []
        for call in calls:
            tool = s.registry.get(call.name)
            error: ToolError | None = None
            async for ev in self._precheck(call):
                if isinstance(ev, ToolError):
                    error = ev
                else:
                    yield ev
            judgement = s.judge(call) if error is None else None
            if (judgement is not None and tool is not None and tool.spec.read_only and not tool.spec.interactive
                    and judgement.raise_tier is None and self._rule(call, judgement) == "run"):
                batch.append(call)
                continue
            async for ev in self._run_batch(batch, results):
                yield ev
            batch = []
            if error is not None and not s.layers.messages:
                error = terse(error, call, known=tool is not None)
            if error is not None or judgement is None:
                assert error is not None
                self._fail(call, error, results)
                yield ToolFinished(call, results[-1])
                continue
            async for ev in self._approve_and_run(call, judgement, results):
                yield ev
        async for ev in self._run_batch(batch, results):
            yield ev

    def _fail(self, call: ToolCall, error: ToolError, results: list[ToolResult]) -> None:
        result = ToolResult(call.id, call.name, False, error.render(), error)
        self.s.record_result(result)
        results.append(result)

    def _rule(self, call: ToolCall, judgement: Judgement) -> Ruling:
        s = self.s
        spec = self._spec(call)
        return rule(judgement, spec, name=call.name, mode=s.approve_mode, always=s.always,
                    contained=_contained() if spec.sandboxed else True)

    async def _precheck(self, call: ToolCall) -> AsyncIterator[Any]:
        """Yield events, and a ToolError when the call must not run."""
        s = self.s
        names = ", ".join(t.name for t in s.visible_tools()) or "(none)"
        if call.error:
            yield ToolError.of(
                ErrorCode.VALIDATION, f"Could not read the arguments of your {call.name} call: {call.error}",
                "Send the arguments as one valid JSON object.",
            )
            return
        tool = s.registry.get(call.name)
        if call.unknown or tool is None:
            yield ToolError.of(
                ErrorCode.VALIDATION, f"Unknown tool {call.name!r}.", f"Use one of the available tools: {names}."
            )
            return
        if tool.spec.tier > s.max_tier:
            yield s.tier_grant().over_cap(tool.spec.tier, f"tool {call.name!r}")
            return
        refused = s.registry.check(call.name, s.max_tier, s.profile.tools.allow, s.profile.tools.deny)
        if refused is not None:
            yield refused
            return
        if tool.spec.tier > s.tier:  # a tool it was not offered: asking for it is the tier checkpoint
            message = (f"The model wants to use {call.name}, which needs the {tool.spec.tier.label} tier "
                       f"(the session is at {s.tier.label}). Raise the tier to {tool.spec.tier.label} and run it?")
            refusal: ToolError | None = None
            asked = False
            async for ev in self._raise_tier(call, tool.spec.tier, message, s.preview(call)):
                if isinstance(ev, ToolError):
                    refusal = ev
                else:
                    asked |= isinstance(ev, Checkpoint)
                    yield ev
            if refusal is not None:
                yield refusal
                return
            if asked:  # a person saw this call at the tier checkpoint: it is not asked about twice
                self._approved = call
        size = len(jsonsafe.dumps(call.arguments, ensure_ascii=False, default=str).encode())
        if size > s.profile.limits.max_tool_args_bytes:
            yield ToolError.of(
                ErrorCode.VALIDATION,
                f"ARGUMENTS_TOO_LARGE: the arguments are {size} bytes; the limit is "
                f"{s.profile.limits.max_tool_args_bytes}.",
                "Split the work into several smaller calls (for example write a file in parts with mode=append).",
            )
            return
        invalid = validate_arguments(tool.spec, call.arguments)
        if invalid is not None:
            yield invalid
            return
        verdict = s.guard.before(call)
        if verdict == "deny":
            yield Notice("warning", f"repeat guard refused an identical {call.name} call", "repeat")
            yield ToolError.of(
                ErrorCode.MODEL_REFUSAL,
                f"Refused: this {call.name} call is identical to earlier ones that did not help.",
                "Change the arguments, use the results you already have, or give your final answer.",
            )
            return
        if verdict == "stuck":
            decision = await self._checkpoint(
                Checkpoint(CheckpointKind.STUCK, f"The model keeps repeating {call.name} with the same arguments.",
                           call, options=("guidance", "retry", "abort"))
            )
            if decision.action == "guidance" and decision.text:
                yield ToolError.of(ErrorCode.MODEL_REFUSAL, "Stopped a repeated call.", decision.text)
                return
            if decision.action not in ("retry", "yes"):
                raise Stop(StopReason.STUCK, f"stuck: the model kept repeating {call.name} with the same arguments")

    async def _raise_tier(self, call: ToolCall, needed: Tier, message: str, preview: str) -> AsyncIterator[Any]:
        """The tier checkpoint: yield events, and a ToolError when the tier stays where it is.
        Never past the cap; pre-approved tiers (--approve edits, --yes) rise without asking."""
        s = self.s
        grant = s.tier_grant()
        if needed <= s.tier:
            return
        if needed > grant.cap:
            yield grant.over_cap(needed, f"raising the tier to {needed.label}")
            return
        if needed <= grant.preapproved:
            s.set_tier(needed)
            yield Notice("info", f"tier raised to {needed.label} (pre-approved)", "tier")
            return
        if needed in self._declined:
            yield ToolError.of(
                ErrorCode.PERMISSION, f"The user already declined the {needed.label} tier for this request; "
                f"this session stays at the {s.tier.label} tier.",
                "Continue with the tools you have, or say in your answer what you would need.",
                tier=s.tier.label, needed=needed.label)
            return
        cp = Checkpoint(CheckpointKind.TIER_ESCALATION, message, call, preview=preview, options=("yes", "no", "abort"))
        yield cp
        decision = await self._checkpoint(cp)
        stop_if_final(decision, grant.unapproved_hint(needed))
        if decision.action in ("yes", "always"):
            s.set_tier(needed)
            yield Notice("info", f"tier raised to {needed.label}", "tier")
            return
        self._declined.add(needed)
        names = ", ".join(t.name for t in s.visible_tools()) or "(none)"
        yield ToolError.of(
            ErrorCode.PERMISSION,
            f"Raising the tier to {needed.label} was not approved"
            + (f": {decision.text}" if decision.text else "") + f"; this session stays at the {s.tier.label} tier.",
            f"Use the tools available now: {names}.", tier=s.tier.label, needed=needed.label,
        )

    def _spec(self, call: ToolCall) -> Tool:
        """The spec of a call that passed the precheck (so its tool exists)."""
        tool = self.s.registry.get(call.name)
        assert tool is not None
        return tool.spec

    async def _checkpoint(self, cp: Checkpoint) -> Decision:
        decision = await self.approver.decide(cp)
        self.s.log_decision(cp, decision)
        return decision

    async def _approve_and_run(self, call: ToolCall, judgement: Judgement,
                               results: list[ToolResult]) -> AsyncIterator[AgentEvent]:
        s = self.s
        tool = s.registry.get(call.name)
        assert tool is not None
        if tool.spec.interactive:
            question = s.preview(call)
            cp = Checkpoint(CheckpointKind.ASK_USER, question, call, options=("answer", "abort"))
            yield cp
            decision = await self._checkpoint(cp)
            if decision.action == "abort":
                raise Stop(StopReason.ABORTED, "aborted at a checkpoint")
            result = ToolResult(call.id, call.name, True, decision.text or "(no answer)")
            s.record_result(result)
            results.append(result)
            yield ToolFinished(call, result)
            return
        ruling = self._rule(call, judgement)
        if ruling == "refuse":
            self._fail(call, judgement.error or ToolError.of(
                ErrorCode.PERMISSION, f"Refused: {judgement.reason or 'this call is not allowed'}",
                judgement.hint or "Do something else; this call will not be run."), results)
            yield ToolFinished(call, results[-1])
            return
        if judgement.raise_tier is not None:  # the call is a tier request: its checkpoint is the tier's
            needed = judgement.raise_tier
            message = (f"The model asks to raise the tier from {s.tier.label} to {needed.label}, to "
                       f"{_TIER_USE.get(needed, 'use more tools')}. Allow it?")
            refusal: ToolError | None = None
            async for ev in self._raise_tier(call, needed, message, judgement.preview):
                if isinstance(ev, ToolError):
                    refusal = ev
                else:
                    yield ev
            if refusal is not None:
                self._fail(call, refusal, results)
                yield ToolFinished(call, results[-1])
                return
        elif ruling == "ask" and not (self._approved is call and not (tool.spec.sandboxed and not _contained())):
            approved: ToolCall | None = None
            async for ev in self._ask(call, judgement, results):
                if isinstance(ev, ToolCall):
                    approved = ev
                else:
                    yield ev
            if approved is None:
                return
            call = approved
        self._approved = None
        async for ev in self._run_batch([call], results):
            yield ev

    async def _ask(self, call: ToolCall, judgement: Judgement, results: list[ToolResult]) -> AsyncIterator[Any]:
        """The approval checkpoint for one call; yields events, then the call to run (maybe edited),
        or records a refusal result."""
        s = self.s
        spec = self._spec(call)
        uncontained = spec.sandboxed and not _contained()
        cp = Checkpoint(
            CheckpointKind.APPROVE_TOOL, f"Run {call.name}{' outside any sandbox' if uncontained else ''}?", call,
            preview=judgement.preview, options=("yes", "no", "always", "edit", "abort"), uncontained=uncontained,
        )
        yield cp
        decision = await self._checkpoint(cp)
        stop_if_final(decision, "--yes approves it ahead of time" if spec.read_only or spec.tier > Tier.WALK
                       else "--approve edits approves it ahead of time (so does --yes)")
        if decision.action == "always":
            s.always.add(call.name)
        elif decision.action == "edit" and decision.arguments is not None:
            invalid = validate_arguments(spec, decision.arguments)
            if invalid is None:
                call = ToolCall(call.name, decision.arguments, call.id, call.raw, call.dialect)
            else:
                decision = Decision("no", text=f"the edited arguments were invalid: {invalid.message}")
        if decision.action in ("no", "skip") or (decision.action == "edit" and decision.arguments is None):
            why = decision.text or "The user declined this call."
            self._fail(call, ToolError.of(ErrorCode.PERMISSION, f"Not approved: {why}",
                                          "Do something else, or ask the user what they want with ask_user."), results)
            yield ToolFinished(call, results[-1])
            return
        yield call

    async def _run_batch(self, batch: list[ToolCall], results: list[ToolResult]) -> AsyncIterator[AgentEvent]:
        if not batch:
            return
        s = self.s
        for sub in plan_batches(batch, lambda c: self._spec(c).read_only):
            for call in sub:
                yield ToolStarted(call)
            t0 = time.monotonic()
            outs = await asyncio.gather(*(s.execute(call) for call in sub))
            elapsed = (time.monotonic() - t0) * 1000
            for call, result in zip(sub, outs):
                if self._spec(call).ends_run and result.ok:
                    s.submitted = result.content
                note = s.guard.after(call, result)
                if note:
                    result.content = f"{result.content}\n\n{note}"
                    yield Notice("warning", f"repeat guard: identical {call.name} calls", "repeat")
                s.record_result(result)
                results.append(result)
                yield ToolFinished(call, result, elapsed)
            for ev in s.tool_events():  # what the tools reported as they ran (a plan update)
                yield ev


_TIER_USE = {Tier.WALK: "change files in the workspace", Tier.RUN: "run commands"}


_CUT_WORDS = {"length": "cut off at the output length limit", "empty": "empty"}


def _incomplete(response: ParsedResponse, unread_call: bool) -> str | None:
    """"length" for a reply cut at the output limit, "empty" for no text and no call, else None."""
    if response.finish_reason == "length":
        return "length"
    if not response.tool_calls and not response.text.strip() and not unread_call:
        return "empty"
    return None


def _not_run(call: ToolCall) -> ToolResult:
    err = ToolError.of(ErrorCode.VALIDATION, *CUT_CALL_ERROR)
    return ToolResult(call.id, call.name, False, err.render(), err)


def _contained() -> bool:
    """Whether commands can start inside the OS sandbox here (probed once per process)."""
    from agentcli.tools.bwrap import status

    return status().available


def _is_invalid(r: ToolResult) -> bool:
    return not r.ok and isinstance(r.error, ToolError) and r.error.code in (ErrorCode.VALIDATION,)

