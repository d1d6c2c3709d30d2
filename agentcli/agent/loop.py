"""The agent loop: request -> parse -> check -> guard -> approve -> execute -> results.

`Agent.run()` is an async generator of events; its last event is always `Done`, the run's
step value. It is a driver: what to do with a reply and with each tool call is decided by the
functions in `agent/decide.py`, which return values (`agent/steps.py`); the driver carries them
out (asks the Approver, raises the tier, runs tools, records results) and hands every event on.
It never prints and never reads the keyboard, and no exception steers it: an abort is a value.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, AsyncIterator
from typing import TYPE_CHECKING

from agentcli.agent.approval import Approver, Decision
from agentcli.agent.decide import (
    INCOMPLETE_PROMPTS,
    after_calls,
    after_cut,
    after_guard,
    after_text,
    approve,
    check,
    cut_words,
    incomplete,
    not_run,
    runs_unasked,
    turn_limit,
)
from agentcli.agent.hookpaths import run_hook_files
from agentcli.agent.planner import plan_batches
from agentcli.agent.steps import (
    Answered,
    Ask,
    CallDecision,
    End,
    Final,
    FinalAnswer,
    Grant,
    Nudge,
    Passed,
    Refuse,
    Run,
    RunAgain,
    RunMemory,
    RunState,
    Step,
    Stopped,
    TurnEnd,
)
from agentcli.core.errors import ProviderError, ProviderErrorCode, ToolError
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
from agentcli.core.types import Message, ParsedResponse, Tool, ToolCall, ToolResult

if TYPE_CHECKING:
    from agentcli.agent.session import Session

__all__ = ["INCOMPLETE_PROMPTS", "Agent"]


class Agent:
    """Runs turns for one Session. Holds per-run state only; the conversation lives in the Session."""

    def __init__(self, session: Session, approver: Approver) -> None:
        self.s = session
        self.approver = approver
        self.mem = RunMemory()
        self._final: Final = Passed()  # where `_settle` leaves a call's final decision
        self._end: End | None = None  # set when a decision ends the run mid-turn
        self._reply: ParsedResponse | ProviderError | Step = RunAgain()  # where `_request` leaves the reply

    async def run(self, user_text: str | None) -> AsyncGenerator[AgentEvent, None]:
        """Drive turns until one ends the run; the last event is always `Done`."""
        s = self.s
        s.ended = False
        if user_text is not None:
            s.begin_exchange(user_text)
        started = time.monotonic()
        changed_before = len(s.files_changed)  # a chat session runs many times; report this run's files
        known = {(c.path, c.before, c.after) for c in s.ledger.changes}
        st = RunState()
        try:
            for note in await s.open_tool_sources():  # MCP servers start on first use, in parallel
                yield Notice("warning", note, "mcp")
            while isinstance(st.outcome, RunAgain):
                async for ev in self._turn(st):
                    yield ev
        except ProviderError as exc:  # an error outside the request (which settles its own)
            st.outcome = Stopped(StopReason.ERROR, _reason(exc))
        except (asyncio.CancelledError, KeyboardInterrupt):
            s.end(StopReason.INTERRUPTED, "interrupted")
            raise
        step = st.outcome
        assert not isinstance(step, RunAgain)  # the loop above ends on any other step
        answer, error = (step.text, None) if isinstance(step, FinalAnswer) else ("", step.error)
        changed = list(dict.fromkeys(s.files_changed[changed_before:]))
        done = Done(
            step.stop, answer, st.turns, st.usage, st.tools_run,
            changed, round(time.monotonic() - started, 3), error,
            hook_files=run_hook_files(s.workspace, known, s.ledger.changes, changed),
            background=s.running(),
        )
        s.end(done.stop, error, answer)
        yield done

    # -- one turn ------------------------------------------------------------------------
    async def _turn(self, st: RunState) -> AsyncIterator[AgentEvent]:
        """One request and what follows from it; leaves the turn's Step in `st.outcome`."""
        s = self.s
        if (limit := turn_limit(st, s.profile.limits.max_turns)) is not None:
            st.outcome = limit
            return
        st.turns += 1
        folded = s.compact()
        if folded:
            yield Notice("warning", f"context window nearly full: folded {folded} older messages into a summary", "compact")
        yield TurnStarted(st.turns, s.profile.model)
        visible = [] if st.no_tools_next else s.visible_tools()
        st.no_tools_next = False
        async for ev in self._request(visible):
            yield ev
        reply = self._reply
        if isinstance(reply, ProviderError):  # the request failed and nobody chose to retry it
            st.outcome = Stopped(StopReason.ERROR, _reason(reply))
            return
        if not isinstance(reply, ParsedResponse):
            if isinstance(reply, RunAgain):  # a person chose to retry: the same turn again
                st.turns -= 1
            st.outcome = reply
            return
        for ev in self._record(reply, st):
            yield ev
        if (cut := incomplete(reply, s.adapt.unread_call)) is not None:
            if reply.tool_calls:  # the results say why; they also keep the history valid for the API
                s.add(Message.results([not_run(c) for c in reply.tool_calls]))
            end = after_cut(reply, cut, st)
            if not isinstance(end, Stopped):
                yield Notice("warning", f"the model's reply was {cut_words(cut)}; asking once more", "incomplete")
            st.outcome = self._next(end)
            return
        if not reply.tool_calls:
            st.outcome = self._next(after_text(s, reply, st, bool(visible)))
            return
        st.used_tools = True
        results: list[ToolResult] = []
        try:
            async for ev in self._handle_calls(reply.tool_calls, results, st):
                yield ev
        finally:
            if results:
                s.add(Message.results(results))
        if self._end is not None:
            st.outcome, self._end = self._end.step, None
            return
        submitted, s.submitted = s.submitted, None
        st.outcome = self._next(after_calls(results, st, submitted, s.profile.limits.validation_retries))

    def _next(self, end: TurnEnd) -> Step:
        """A nudge is a message to the model and another turn; any other end is the step itself."""
        if isinstance(end, Nudge):
            self.s.add(Message.user(end.message))
            return RunAgain()
        return end

    def _record(self, response: ParsedResponse, st: RunState) -> list[AgentEvent]:
        """Add the reply to the history, count its usage, and learn from how it was written."""
        s = self.s
        events: list[AgentEvent] = []
        if response.usage:
            st.usage = st.usage + response.usage
            s.usage = s.usage + response.usage
        events += [Notice("info", f"repaired the model's output: {r.detail}", r.kind) for r in response.repairs]
        s.add(Message.assistant(response))
        learned = s.adapt.note_dialects(s, response.tool_calls)
        if learned:
            events.append(Notice("info", learned, "learned"))
        switched = s.adapt.note_emulation(s, response)
        if switched:
            st.invalid_turns = 0  # the new style gets its own retries
            events.append(Notice("warning", switched, "fallback"))
        return events

    # -- one model request -------------------------------------------------------------
    async def _request(self, visible: list[Tool]) -> AsyncIterator[AgentEvent]:
        """Leaves in `_reply` the model's reply; after a failure, RunAgain when a person chose to
        retry, else the failure (a run with nobody to ask ends on it)."""
        async for ev in self._complete(visible):
            yield ev
        failed = self._reply
        if not isinstance(failed, ProviderError) or not self.s.interactive:
            return
        cp = Checkpoint(CheckpointKind.FAILURE, f"The model request failed after retries: {_reason(failed)}",
                        options=("retry", "abort"))
        yield cp
        if (await self._checkpoint(cp)).action == "retry":
            self._reply = RunAgain()

    async def _complete(self, visible: list[Tool]) -> AsyncIterator[AgentEvent]:
        """Hand on the provider's events as they happen; the reply (or the failure) goes in `_reply`.
        A server that rejects native tools is asked once more with prompt emulation."""
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
                self._reply = task.result()
                return
            except ProviderError as exc:
                if (exc.code is ProviderErrorCode.TOOLS_UNSUPPORTED and s.plan.native_tools and attempt == 1
                        and s.layers.fallback):
                    yield Notice("warning", s.adapt.fall_back_to_emulation(s, exc.message), "fallback")
                    continue
                if exc.code is ProviderErrorCode.TOOL_CHOICE_UNSUPPORTED and attempt == 1:
                    yield Notice("warning", s.adapt.tool_choice_rejected(s, exc.message), "fallback")
                    continue
                self._reply = exc
                return
            finally:
                # cancelled mid-request (Ctrl-C in chat): end both tasks here, or asyncio later
                # reports them as "destroyed but pending"
                pending = [t for t in (task, getter) if t is not None and not t.done()]
                for t in pending:
                    t.cancel()
                if pending:
                    await asyncio.wait(pending)

    # -- tool calls --------------------------------------------------------------------
    async def _handle_calls(self, calls: list[ToolCall], results: list[ToolResult],
                            st: RunState) -> AsyncIterator[AgentEvent]:
        """Decide each call (checks, guard, approval) and carry the decision out. Read-only calls
        nobody needs to see gather into a batch that runs in parallel before the next call that
        needs anything else."""
        s = self.s
        batch: list[ToolCall] = []
        for call in calls:
            async for ev in self._settle(check(s, call, self.mem)):
                yield ev
            if isinstance(self._final, Passed):
                async for ev in self._settle(after_guard(call, s.guard.before(call))):
                    yield ev
            decided = self._final
            if isinstance(decided, End):
                self._end = decided
                return
            judgement = s.judge(call) if isinstance(decided, Passed) else None
            if judgement is not None and runs_unasked(s, call, judgement):
                batch.append(call)
                continue
            async for ev in self._run_batch(batch, results, st):
                yield ev
            batch = []
            if judgement is not None:
                async for ev in self._settle(approve(s, call, judgement, self.mem)):
                    yield ev
                decided = self._final
            async for ev in self._carry_out(call, decided, results, st):
                yield ev
            if self._end is not None:
                return
        async for ev in self._run_batch(batch, results, st):
            yield ev

    async def _settle(self, decision: CallDecision) -> AsyncIterator[AgentEvent]:
        """Ask what must be asked and raise the tier where granted, until the decision is final
        (left in `_final`)."""
        while isinstance(decision, (Ask, Grant)):
            if isinstance(decision, Ask):
                yield decision.checkpoint
                decision = decision.then(await self._checkpoint(decision.checkpoint))
            else:
                self.s.set_tier(decision.tier)
                yield decision.notice
                if decision.seen is not None:  # seen at the tier checkpoint: not asked about twice
                    self.mem.approved = decision.seen
                decision = decision.then()
        self._final = decision

    async def _carry_out(self, call: ToolCall, decided: Final, results: list[ToolResult],
                         st: RunState) -> AsyncIterator[AgentEvent]:
        s = self.s
        if isinstance(decided, Refuse):
            if decided.notice is not None:
                yield decided.notice
            if decided.declined is not None:
                self.mem.declined.add(decided.declined)
            yield self._refuse(call, decided.error, results)
        elif isinstance(decided, Answered):
            result = ToolResult(call.id, call.name, True, decided.text)
            s.record_result(result)
            results.append(result)
            yield ToolFinished(call, result)
        elif isinstance(decided, End):
            self._end = decided
        elif isinstance(decided, Run):
            if decided.always:
                s.always.add(call.name)
            self.mem.approved = None
            async for ev in self._run_batch([decided.call], results, st):
                yield ev

    def _refuse(self, call: ToolCall, error: ToolError, results: list[ToolResult]) -> ToolFinished:
        """The one way a call is turned down: its error is its result, recorded and handed back."""
        result = ToolResult(call.id, call.name, False, error.render(), error)
        self.s.record_result(result)
        results.append(result)
        return ToolFinished(call, result)

    async def _checkpoint(self, cp: Checkpoint) -> Decision:
        decision = await self.approver.decide(cp)
        self.s.log_decision(cp, decision)
        return decision

    async def _run_batch(self, batch: list[ToolCall], results: list[ToolResult],
                         st: RunState) -> AsyncIterator[AgentEvent]:
        if not batch:
            return
        s = self.s
        for sub in plan_batches(batch, lambda c: _read_only(s, c)):
            for call in sub:
                yield ToolStarted(call)
            st.tools_run += len(sub)
            t0 = time.monotonic()
            outs = await asyncio.gather(*(s.execute(call) for call in sub))
            elapsed = (time.monotonic() - t0) * 1000
            for call, result in zip(sub, outs):
                tool = s.registry.get(call.name)
                if tool is not None and tool.spec.ends_run and result.ok:
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


def _read_only(s: Session, call: ToolCall) -> bool:
    tool = s.registry.get(call.name)
    return tool is not None and tool.spec.read_only


def _reason(exc: ProviderError) -> str:
    return exc.message + (f" ({exc.hint})" if exc.hint else "")
