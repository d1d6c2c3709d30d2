"""What `agent doctor` and chat `/doctor` find out: the parsed model, its capabilities and their
sources, the wire plan, the key, endpoint, sandbox and MCP checks — each problem with a fix hint.

Gathering lives here, below the two front ends that render it (`ui.doctor`) and wire it (`cli`)."""

from __future__ import annotations

import os
from collections.abc import Coroutine
from dataclasses import asdict, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from agentcli.core.record import record

if TYPE_CHECKING:
    from agentcli.config.schema import Profile
    from agentcli.models.capability import ResolvedCapability
    from agentcli.models.learned import LearnedStore
    from agentcli.providers.base import Provider
    from agentcli.wire.types import WirePlan


@record(slots=False)
class Check:
    """One line of the report: what was checked, whether it passed, and how to fix it if not."""

    name: str
    ok: bool
    detail: str
    hint: str | None = None
    warning: bool = False  # shown, but does not fail the exit code


def _key_check(profile: Profile, provider: Provider) -> Check:
    env = getattr(provider, "api_key_env", None) or profile.api_key_env
    if not env:
        return Check("api key", True, "this provider needs no key")
    if os.environ.get(env):
        return Check("api key", True, f"${env} is set")
    return Check("api key", False, f"${env} is not set", f"export {env}=... (the key itself never goes in a profile)")


async def _endpoint_checks(provider: Provider, model: str) -> list[Check]:
    from agentcli.core.errors import ProviderError

    checks = []
    try:
        models = await provider.list_models()
    except ProviderError as exc:
        return [Check("endpoint", False, f"{provider.url}: {exc.message}", exc.hint)]
    checks.append(Check("endpoint", True, f"{provider.url} answers ({len(models)} models)"))
    prefix = f"{provider.name}/"
    bare = model.removeprefix(prefix)
    found = bare in models or f"{bare}:latest" in models or any(m.split("/")[-1] == bare for m in models)
    checks.append(
        Check("model", found, f"{model} {'is' if found else 'is not'} served there",
              None if found else f"pull or pick one of: {', '.join(models[:8]) or '(none listed)'}")
    )
    info = await provider.model_info(model) if found else None
    if info and isinstance(info.get("capabilities"), list):
        has = "tools" in info["capabilities"]
        checks.append(Check("server says tools", True, "native tools supported" if has else
                            "the server reports no native tool support (emulation will be used)", warning=not has))
    return checks


async def _probe(provider: Provider, plan: WirePlan, learned: LearnedStore, profile: Profile) -> Check:
    """One tiny real request with a test tool: learn whether native calls work here."""
    from agentcli.core.errors import ProviderError, ProviderErrorCode
    from agentcli.core.types import Message, Tool
    from agentcli.wire.types import ParseContext, RequestSettings

    echo = Tool("echo", "Echo the given text back. Use it when asked to echo something.",
                {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]})
    msgs = [Message.system("You are a test harness. Use the tool you are given."),
            Message.user("Call the echo tool with text 'ping'.")]
    try:
        resp = await provider.complete(msgs, [echo], plan, RequestSettings(model=profile.model, stream=False),
                                       ParseContext.of([echo]))
    except ProviderError as exc:
        if exc.code is ProviderErrorCode.TOOLS_UNSUPPORTED:
            learned.record(profile.model, provider.url, "native_tools", False, "probe: server rejected tools")
            return Check("probe", True, "server rejects native tools: learned, emulation will be used", warning=True)
        return Check("probe", False, exc.message, exc.hint)
    calls = [c for c in resp.tool_calls if c.name == "echo"]
    if not calls:
        return Check("probe", False, "the model answered without calling the test tool",
                     "try a tool_format in the profile, or a model with tool support")
    dialect = calls[0].dialect
    if dialect.startswith("native"):
        learned.record(profile.model, provider.url, "native_tools", True, "probe")
        return Check("probe", True, "native tool call works")
    learned.record(profile.model, provider.url, "text_dialect", dialect, "probe: call came back as text")
    return Check("probe", True, f"the model wrote its call as text ({dialect}): learned, parsed first from now on",
                 warning=True)


def _mcp_section(profile: Profile) -> tuple[list[Check], list[dict[str, Any]]]:
    """Start each configured MCP server: its tools, or its error with a fix hint."""
    from agentcli.tools.mcp.manager import probe

    statuses, warnings = probe(profile, Path.cwd())
    checks = [Check("mcp", False, w, "run `agent trust` in that workspace, or move the servers to your user "
                    "profile", warning=True) for w in warnings]
    servers = []
    for st in statuses:
        usable = [t for t in st.tools if t.spec is not None]
        skipped = [t for t in st.tools if t.spec is None and t.state != "disabled"]
        if st.error:
            checks.append(Check(f"mcp {st.name}", False, st.error, st.hint))
        else:
            names = ", ".join(f"{t.spec.name} ({t.spec.tier.label})" for t in usable if t.spec)
            checks.append(Check(f"mcp {st.name}", True, f"{st.server_info or st.transport}: {len(usable)} tools: "
                                f"{names[:600] or '(none)'}"))
            for t in skipped:
                checks.append(Check(f"mcp {st.name}", True, f"tool {t.remote} not offered: {t.state}", warning=True))
        servers.append({
            "name": st.name, "transport": st.transport, "server": st.server_info, "ok": st.error is None,
            "error": st.error, "hint": st.hint,
            "tools": [{"name": t.spec.name, "remote": t.remote, "tier": t.spec.tier.label, "tier_from": t.source}
                      for t in usable if t.spec],
        })
    return checks, servers


def _sandbox_check(profile: Profile) -> Check:
    """Whether shell commands run contained here; without it every command asks (a warning, not a failure)."""
    from agentcli.tools.bwrap import Limits, status

    st = status()
    net = "network on (profile [bash] network = true)" if profile.bash.network else "network off"
    if st.available:
        return Check("sandbox", True, f"{st.detail}; {net}; per command: {Limits.of(profile.bash).describe()}")
    return Check("sandbox", False, f"{st.detail}: every shell command asks, and --yes runs none",
                 f"to enable it, {st.hint}" if st.hint else None, warning=True)


T = TypeVar("T")


def _on_loop(coro: Coroutine[Any, Any, T]) -> T:
    """Run on the process's event loop, imported here: `doctor --offline` never starts one."""
    from agentcli.core import aio

    return aio.run(coro)


def gather(profile: Profile, *, offline: bool, probe: bool = False, forget: bool = False) -> dict[str, Any]:
    from agentcli.core.errors import ProviderError, ProviderErrorCode
    from agentcli.models import LearnedStore, parse_model_id
    from agentcli.models.capability import UNKNOWN_MODEL_WARNING, is_unknown
    from agentcli.providers import create

    key_missing = None
    try:
        provider = create(profile)
    except ProviderError as exc:
        if exc.code is not ProviderErrorCode.AUTH:
            raise
        key_missing = Check("api key", False, exc.message, exc.hint)
        provider = create(profile, api_key="unset")  # lets doctor show the plan; never sent
    learned = LearnedStore()
    if forget:
        learned.forget(profile.model, provider.url)
    spec = parse_model_id(profile.model)
    from agentcli.agent.resolve import resolve_model

    resolved, plan = resolve_model(profile, provider, learned)
    checks = [key_missing or _key_check(profile, provider), _sandbox_check(profile)]
    warnings = []
    if is_unknown(spec):
        warnings.append(UNKNOWN_MODEL_WARNING.format(model=profile.model) if "{model" in UNKNOWN_MODEL_WARNING
                        else UNKNOWN_MODEL_WARNING)
    if key_missing is not None:
        offline = True
        _on_loop(provider.aclose())
    if not offline:
        async def online() -> list[Check]:
            try:
                out = await _endpoint_checks(provider, profile.model)
                if probe:
                    out.append(await _probe(provider, plan, learned, profile))
                return out
            finally:
                await provider.aclose()

        checks += _on_loop(online())
    mcp_servers: list[dict[str, Any]] = []
    if not offline and (getattr(profile, "mcp_servers", None) or getattr(profile, "mcp", None)):
        mcp_checks, mcp_servers = _mcp_section(profile)
        checks += mcp_checks
    cap = resolved.capability
    return {
        "profile": profile.name,
        "source": str(profile.source) if profile.source else None,
        "provider": profile.provider,
        "url": provider.url,
        "model": {"id": profile.model, **spec.to_dict()},
        "capabilities": {f.name: getattr(cap, f.name) for f in fields(cap)},
        "capability_sources": dict(resolved.sources),
        "formats": {
            "api": plan.api,
            "tools": "native" if plan.native_tools else f"emulated ({plan.dialect})",
            "native_tools": plan.native_tools,
            "definition": plan.api if plan.native_tools else plan.dialect,
            "call_parser": ["native_" + plan.api, *plan.parsers],
            "result": plan.result,
            "strict": plan.strict,
            "notes": list(plan.notes),
        },
        "edit_tool": _edit_tool(profile, resolved),
        "learned": {k: {"value": f.value, "source": f.source} for k, f in learned.get(profile.model, provider.url).items()},
        "warnings": warnings,
        "checks": [asdict(c) for c in checks],
        "mcp_servers": mcp_servers,
    }


def _edit_tool(profile: Profile, resolved: ResolvedCapability) -> dict[str, str]:
    """The one edit tool a session offers this model, and where that choice came from."""
    from agentcli.tools.edit_choice import choose, tool_name

    form, why = choose(profile.tools.edit_tool, resolved.capability.edit_tool)
    if why == "model family":
        why = resolved.source("edit_tool")
    return {"form": form, "tool": tool_name(form), "from": why}
