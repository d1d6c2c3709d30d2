"""A Session: one conversation with one (switchable) model, its tools and its transcript.

History lives in internal form, so `/model` can move the conversation to another
model or provider family: the next request is simply rendered for the new plan.
"""

from __future__ import annotations

from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentcli.agent.adapt import Adaptation
from agentcli.agent.approval import Decision, TierGrant
from agentcli.agent.checkpoints import FileChange, Ledger, Recorder
from agentcli.agent.context import TokenTally
from agentcli.agent.layers import Layers
from agentcli.agent.prompts import system_prompt
from agentcli.agent.repeat import RepeatGuard
from agentcli.agent.store import Transcript
from agentcli.core.events import AgentEvent, Checkpoint
from agentcli.core.record import record
from agentcli.core.types import Message, Role, Tier, Tool, ToolCall, ToolResult, Usage

TOOL_BUDGET_SHARE = 0.15  # of the context window, for tool definitions
TOOL_BUDGET_MIN = 600  # tokens: below this even a tiny model gets the short forms

if TYPE_CHECKING:
    from agentcli.agent.instructions import Instructions
    from agentcli.config.schema import Profile
    from agentcli.models.capability import ResolvedCapability
    from agentcli.models.learned import LearnedStore
    from agentcli.providers.base import Provider
    from agentcli.tools.base import BuiltinTool, Judgement, ToolContext
    from agentcli.tools.deferred import ToolCatalog
    from agentcli.tools.mcp.manager import McpManager
    from agentcli.tools.registry import ToolRegistry
    from agentcli.wire.types import ParseContext, RequestSettings, WirePlan


@record(slots=False)
class Session:
    """Everything one conversation holds; the loop (`Agent`) keeps only per-run counters."""

    id: str
    profile: Profile
    workspace: Path
    provider: Provider
    capability: ResolvedCapability
    plan: WirePlan
    registry: ToolRegistry
    tool_ctx: ToolContext
    tier: Tier
    max_tier: Tier  # the cap: --tier, else the profile's max_tier
    transcript: Transcript | None = None
    grant: TierGrant | None = None  # how far the tier rises unasked (None: nothing pre-approved)
    approve_mode: str = "ask"
    interactive: bool = False
    history: list[Message] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    always: set[str] = field(default_factory=set)
    guard: RepeatGuard = field(default_factory=RepeatGuard)
    files_changed: list[str] = field(default_factory=list)
    submitted: str | None = None
    learned: LearnedStore | None = None
    pending_close: list[Provider] = field(default_factory=list)  # providers replaced by /model
    adapt: Adaptation = field(default_factory=Adaptation)  # what this session learns about the model
    layers: Layers = field(default_factory=Layers)  # all on; `agent eval` turns them off to measure each
    tally: TokenTally = field(default_factory=TokenTally)  # running token estimate of the history
    ledger: Ledger = field(default_factory=Ledger)  # user requests and the file changes each caused
    recorder: Recorder | None = None  # file checkpoints (None: not recorded, e.g. eval trials)
    instructions: Instructions | None = None  # AGENTS.md files
    mcp: McpManager | None = None  # the profile's MCP servers, started on first use
    catalog: ToolCatalog | None = None  # tools held back for tool_search
    tool_notes: list[str] = field(default_factory=list)  # said once, at the next run's start
    ended: bool = False  # the last run's end record is written
    tool_goal: str = ""  # the first request, which ranks the tools when they must be fitted
    _visible: tuple[tuple[object, ...], list[Tool]] | None = field(default=None, repr=False)
    # The results written since the last message, each with what it held then (see `add`).
    _recorded: dict[str, tuple[object, ...]] = field(default_factory=dict, repr=False)

    # -- history ---------------------------------------------------------------------
    def add(self, message: Message) -> None:
        """Append to history and to the transcript. A tool message whose results were each written
        as they finished (`record_result`), unchanged since, is written as their call ids: a result
        is in the transcript once, not twice (a file read of 20 KB was 40 KB a turn)."""
        self.history.append(message)
        if self.transcript:
            ids = self._answered_as_recorded(message)
            if ids is None:
                self.transcript.message(message)
            else:
                self.transcript.write("message", message={"role": message.role.value, "tool_results_recorded": ids})
        self._recorded.clear()

    def _answered_as_recorded(self, m: Message) -> list[str] | None:
        """The call ids of `m` when the transcript already holds each of its results exactly, so a
        reader rebuilds `m` from them as it would from `m` written whole (store.load_session): `m`
        holds results only, each holding what was recorded under its id since the last message."""
        if m.role is not Role.TOOL or not m.tool_results or m.text or m.thinking or m.provider_data:
            return None
        for r in m.tool_results:  # (of two results under one id, one is not what was recorded under it)
            got = self._recorded.get(r.call_id)
            if got is None or any(a is not b for a, b in zip(got, _held(r))):
                return None
        return [r.call_id for r in m.tool_results]

    def begin_exchange(self, text: str) -> None:
        """A user request: marked, so /undo and `agent undo` can go back to just before it."""
        self.ledger.exchanges.append(len(self.history))
        if self.transcript:
            self.transcript.write("exchange", keep=len(self.history))
        self.add(Message.user(text))
        self.guard.new_request()  # the repeat guard judges one request, not the whole chat

    def truncate(self, keep: int) -> None:
        """Drop history after `keep` messages (/undo, /clear), durably."""
        self.history = self.history[:keep]
        if not any(m.role is Role.USER for m in self.history):
            self.tool_goal = ""  # the first request is gone: the next one ranks the tools
        self.ledger.truncate(keep)
        self.guard.reset()
        if self.transcript:
            self.transcript.write("truncate", keep=keep)

    def record_result(self, result: ToolResult) -> None:
        """Write a finished call's result at once: a resumed session never re-runs it."""
        if self.transcript:
            self.transcript.result(result)
            self._recorded[result.call_id] = _held(result)

    def log_decision(self, cp: Checkpoint, decision: Decision) -> None:
        if self.transcript:
            self.transcript.write("checkpoint", kind=cp.kind.value, action=decision.action,
                                  call_id=cp.call.id if cp.call else None)

    def end(self, stop: str, error: str | None = None, answer: str = "") -> None:
        self.ended = True
        if self.transcript:
            self.transcript.write("end", stop=stop, error=error, answer=answer,
                                  usage={"input": self.usage.input_tokens, "output": self.usage.output_tokens})

    def compact(self, force: bool = False) -> int:
        """Fold old turns when near the context window (or when asked); returns messages folded."""
        from agentcli.agent.context import compact, over_threshold

        window = int(getattr(self.capability.capability, "context_window", 0) or 0)
        if not force and (not window or not over_threshold(self.system_message(), self.history, window, self.tally)):
            return 0
        self.history, folded = compact(self.history)
        if folded:
            self.ledger.compact(folded, 2)
        if folded and self.transcript:
            from agentcli.agent.serialize import message_to_dict

            self.transcript.write("compact", folded=folded, head=[message_to_dict(m) for m in self.history[:2]])
        return folded

    def system_message(self) -> Message:
        """The system prompt, rebuilt: it names the current tier."""
        project = self.instructions.prompt() if self.instructions is not None else ""
        extra = "\n\n".join(x for x in (self.profile.system_prompt, project) if x) or None
        return Message.system(system_prompt(str(self.workspace), self.tier, extra))

    def request_messages(self) -> list[Message]:
        """System prompt + the conversation: built once a turn, for the request itself."""
        return [self.system_message(), *self.history]

    # -- tools -----------------------------------------------------------------------
    def visible_tools(self) -> list[Tool]:
        """Tools the model may see now: tier, allow/deny, then fitted into a share of the
        context window (small models get shorter descriptions, most relevant tools first).
        Worked out again only when something it depends on changed (kept per `_tools_key`)."""
        if self.profile.tools.tool_use_mode == "disabled":
            return []
        window = int(getattr(self.capability.capability, "context_window", 0) or 0)
        if window and not self.tool_goal:
            # The first request ranks the tools, kept as first written: after compaction the first
            # user message is the summary (kilobytes), and ranking against it cost more each turn.
            self.tool_goal = next((m.text for m in self.history if m.role is Role.USER), "")[:2000]
        if self._visible is not None and self._visible[0] == self._tools_key(window):
            return list(self._visible[1])
        tools = self._fit_tools(window)
        self._visible = (self._tools_key(window), tools)  # after fitting: it may register tool_search
        return list(tools)

    def _tools_key(self, window: int) -> tuple[object, ...]:
        """Everything the visible tool list depends on."""
        t = self.profile.tools
        allow, deny = (None if names is None else tuple(names) for names in (t.allow, t.deny))
        return (id(self.registry), self.registry.version, self.tier, self.max_tier, allow, deny,
                window, self.tool_goal, tuple(self.catalog.enabled) if self.catalog is not None else None)

    def _fit_tools(self, window: int) -> list[Tool]:
        tools = self.registry.visible(self.tier, self.profile.tools.allow, self.profile.tools.deny, cap=self.max_tier)
        if not window:
            return tools
        from agentcli.wire import optimize_tool_definitions

        goal = self.tool_goal
        budget = max(TOOL_BUDGET_MIN, int(window * TOOL_BUDGET_SHARE))
        if self.catalog is None:
            return optimize_tool_definitions(tools, budget, goal)
        from agentcli.tools.deferred import SEARCH_NAME, ToolSearch, fit_tools
        from agentcli.wire import estimate_tokens

        kept, search = fit_tools(tools, budget, goal, self.catalog, optimize_tool_definitions, estimate_tokens)
        if search is None:
            return kept
        searcher = self.registry.get(SEARCH_NAME)
        if searcher is None:
            searcher = ToolSearch(self.catalog)
            self.registry.register(searcher)
        searcher.spec = search
        return [search, *kept]

    async def open_tool_sources(self) -> list[str]:
        """Start the profile's MCP servers (in parallel, once); warnings for those that failed."""
        notes, self.tool_notes = self.tool_notes, []
        if self.mcp is None or self.profile.tools.tool_use_mode == "disabled":
            return notes
        return notes + await self.mcp.start(self.registry)

    async def aclose(self) -> None:
        """Close what the session holds open on its event loop: the provider's HTTP client (and any
        a /model switch replaced), the MCP servers and the tools' background processes. Every path
        that ends a session (answer, error, Ctrl-C, a signal, an eval trial) comes through here;
        closing twice does nothing. The transcript is closed by its writer's owner (it may outlive
        the loop, as `run -i` does into the chat)."""
        providers, self.pending_close = [*self.pending_close, self.provider], []
        for provider in providers:
            close = getattr(provider, "aclose", None)
            if close is not None:
                await close()
        await self.close_tool_sources()

    async def __aenter__(self) -> Session:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def close_tool_sources(self) -> None:
        """Stop the MCP servers and whatever the tools keep running (background processes) with the
        session (or with its event loop)."""
        from agentcli.tools.base import SessionResource

        if self.mcp is not None:
            await self.mcp.aclose()
        for kept in self.tool_ctx.all_kept():
            if isinstance(kept, SessionResource):
                await kept.aclose()

    def running(self) -> list[str]:
        """What the tools keep running for this session (background processes), one line each."""
        from agentcli.tools.base import SessionResource

        return [line for kept in self.tool_ctx.all_kept() if isinstance(kept, SessionResource)
                for line in kept.summary()]

    def set_tier(self, tier: Tier) -> None:
        self.tier = min(tier, self.max_tier)
        if self.transcript:
            self.transcript.write("tier", tier=self.tier.label)

    def tier_grant(self) -> TierGrant:
        """The grant in force: as built, kept within the current cap (/model or a profile switch may lower it)."""
        g = self.grant or TierGrant(self.max_tier, self.tier, "profile", self.max_tier)
        cap = min(g.cap, self.max_tier)
        return TierGrant(cap, min(max(g.preapproved, self.tier), cap), g.cap_from, g.profile_max)

    def parse_context(self) -> ParseContext:
        from agentcli.wire.types import ParseContext

        offered = [t for t in self.registry.all() if t.name not in set(self.profile.tools.deny)]
        prompted = None if self.plan.native_tools else self.plan.dialect
        on = self.layers
        return ParseContext.of(offered, prefer=self.plan.parsers[:1], repair=on.repair, prompted=prompted,
                               names=on.names, coerce=on.coercion)

    def settings(self) -> RequestSettings:
        from agentcli.wire.types import RequestSettings

        p = self.profile
        return RequestSettings(
            model=p.model, stream=p.stream, temperature=p.temperature,
            max_output_tokens=self._output_cap(), overrides=dict(p.request),
        )

    def _output_cap(self) -> int | None:
        """The profile's output limit, never above what the model can write (APIs refuse more)."""
        asked = self.profile.limits.max_output_tokens
        most = getattr(self.capability.capability, "max_output_tokens", None)
        return min(asked, most) if asked and most else asked

    def judge(self, call: ToolCall) -> Judgement:
        """The tool's own verdict on this call (allow / ask / refuse, with its preview). A judge that
        fails closes: a refusal with its error (ToolFailure) or, for a bug, a question to a person."""
        from agentcli.core.errors import ToolFailure
        from agentcli.tools.base import Judgement

        tool = self.registry.get(call.name)
        if tool is None:
            return Judgement.refuse(f"there is no tool named {call.name!r}")
        try:
            return tool.judge(call.arguments, self.tool_ctx)
        except ToolFailure as exc:
            return Judgement("refuse", reason=exc.error.message, hint=exc.error.suggested_fix or "", error=exc.error)
        except Exception as exc:  # a judge's bug must not let the call run unseen
            return Judgement.ask(f"(no preview: {type(exc).__name__}: {exc})")

    def tool_events(self) -> list[AgentEvent]:
        """Events the tools reported since the last call (a plan update), handed on once."""
        events, self.tool_ctx.events[:] = list(self.tool_ctx.events), []
        return events

    def preview(self, call: ToolCall) -> str:
        tool = self.registry.get(call.name)
        try:
            return tool.preview(call.arguments, self.tool_ctx) if tool else ""
        except Exception as exc:  # a preview must never break the approval prompt
            return f"(no preview: {exc})"

    async def execute(self, call: ToolCall) -> ToolResult:
        """Run one approved call. A transient failure of a read-only tool (timeout,
        network) is retried once as-is; anything else goes back to the model."""
        from agentcli.tools.executor import execute

        tool = self.registry.get(call.name)
        if self.instructions is not None and tool is not None:
            for path in tool.touched_paths(call.arguments):
                self.instructions.note(path)  # AGENTS.md on the way to this file
        record = self.recorder is not None and tool is not None and not tool.spec.read_only and tool.changes_files_in(call.arguments)
        named = self._changed_rel(tool, call) if record and tool is not None else None
        before = self.recorder.snapshot(named) if self.recorder is not None and record else None
        result = await execute(call, self.registry, self.tool_ctx)
        err = result.error
        if not result.ok and tool is not None and tool.spec.read_only and getattr(err, "retry_strategy", "") == "same":
            result = await execute(call, self.registry, self.tool_ctx)
        if result.ok and tool is not None and not tool.spec.read_only:
            self.files_changed.extend(tool.changed_paths(call.arguments))
        if self.recorder is not None and before is not None:
            self._record(self.recorder.changes(before, self.recorder.snapshot(named), self._exchange(), call.name))
        return result

    def _changed_rel(self, tool: BuiltinTool, call: ToolCall) -> list[str] | None:
        """Workspace-relative paths the call names, or None: it may change anything (a shell)."""
        from agentcli.core.errors import ToolFailure

        try:
            paths = tool.checkpoint_paths(call.arguments, self.tool_ctx)
        except ToolFailure:
            return []  # the tool refuses this call too: nothing will change
        if not paths:
            return None
        out = []
        for p in paths:
            try:
                out.append(self.tool_ctx.workspace.relative(self.tool_ctx.workspace.resolve(p, write=True)))
            except ToolFailure:
                continue  # the tool refuses this path too: nothing will change there
        return out

    def _exchange(self) -> int:
        last = self.ledger.last_exchange()
        return last if last is not None else 0

    def _record(self, changes: list[FileChange]) -> None:
        for change in changes:
            self.ledger.changes.append(change)
            if self.transcript:
                self.transcript.write("file", **change.to_record())
        if changes and self.instructions is not None:
            self.instructions.saw_changes(changes)  # an AGENTS.md the model wrote is data next time

    # -- model and wire plan ----------------------------------------------------------
    def learned_facts(self) -> dict[str, Any]:
        from agentcli.agent.resolve import learned_facts

        return learned_facts(self.learned, self.profile.model, self.provider.url)

    def renegotiate(self, extra_learned: dict[str, Any] | None = None) -> None:
        from agentcli.wire import negotiate

        learned = {**self.learned_facts(), **(extra_learned or {})}
        self.plan = negotiate(
            api=self.provider.api, capability=self.capability.capability, tools_cfg=self.profile.tools, learned=learned
        )
        if self.transcript:
            self.transcript.write("plan", api=self.plan.api, native_tools=self.plan.native_tools,
                                  dialect=self.plan.dialect, model=self.profile.model, provider=self.profile.provider)


def _held(r: ToolResult) -> tuple[object, ...]:
    """What a result holds, compared by identity: a result changed after it was written (a note
    appended to its content) no longer matches its record."""
    return (r.call_id, r.tool_name, r.ok, r.content, r.error)
