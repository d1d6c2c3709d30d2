"""Pure translation between MCP's wire shapes (as JSON dicts) and our Tool / result text.

Everything here reads dicts dumped with the SDK's aliases (`inputSchema`, `readOnlyHint`,
`isError`, ...), so the rules are plain data in, plain data out, and every field a server
controls is bounded before it reaches the model or the terminal.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from agentcli.core.record import record
from agentcli.core.types import Tier, Tool

if TYPE_CHECKING:
    from agentcli.config.mcp_schema import McpServerConfig

MAX_DESCRIPTION = 1024  # characters of a server's tool description shown to the model
MAX_SCHEMA_BYTES = 32_000  # an input schema larger than this is refused, not sent
MAX_RESULT_CHARS = 4_000_000  # hard stop before the executor's size check refuses it anyway


@record
class Listed:
    """One tool a server lists, as we will offer it (or why we will not)."""

    server: str
    remote: str  # the name the server knows it by
    spec: Tool | None
    state: str  # "ok", "disabled", or "error: ..."
    source: str = "annotations"  # where the tier came from: annotations | server override | tool override


def tier_from_annotations(annotations: dict[str, Any] | None) -> Tier:
    """readOnlyHint -> crawl; non-destructive and closed-world -> walk; anything else -> run.

    MCP's own defaults apply to a missing hint: destructive and open-world unless said otherwise,
    so an unannotated tool needs the run tier.
    """
    ann = annotations if isinstance(annotations, dict) else {}
    if ann.get("readOnlyHint") is True:
        return Tier.CRAWL
    if ann.get("destructiveHint") is False and ann.get("openWorldHint") is False:
        return Tier.WALK
    return Tier.RUN


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _clean_text(value: Any, limit: int) -> str:
    text = value if isinstance(value, str) else ""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _schema(raw: Any) -> tuple[dict[str, Any] | None, str | None]:
    """(schema, None) or (None, why it cannot be used)."""
    from agentcli.wire import object_root

    if not isinstance(raw, dict):
        return None, "its input schema is not a JSON object"
    try:
        size = len(json.dumps(raw))
    except (TypeError, ValueError):
        return None, "its input schema is not JSON"
    if size > MAX_SCHEMA_BYTES:
        return None, f"its input schema is {size} bytes (limit {MAX_SCHEMA_BYTES})"
    schema = object_root(raw)
    schema.pop("$schema", None)  # the validator picks the draft; an exotic one would be refused
    try:
        from jsonschema import Draft202012Validator

        Draft202012Validator.check_schema(schema)
    except Exception as exc:  # jsonschema.SchemaError and anything a crafted schema triggers
        return None, f"its input schema is invalid ({str(exc).splitlines()[0][:120]})"
    return schema, None


def tool_name(server: str, remote: str, taken: set[str]) -> str:
    """SERVER_TOOL, safe for every provider, distinct from every name in `taken`."""
    from agentcli.wire import MAX_NAME, name_digest, namespaced, sanitize

    name = sanitize(namespaced(sanitize(remote), server))
    if name in taken:
        name = f"{name[: MAX_NAME - 9]}_{name_digest(server + '/' + remote)}"
    return name


def to_listed(server: str, raw: dict[str, Any], cfg: McpServerConfig, taken: set[str]) -> Listed:
    """One listed tool -> a registry spec, with the profile's filters and tier overrides applied."""
    remote = raw.get("name") if isinstance(raw.get("name"), str) else ""
    if not remote:
        return Listed(server, "?", None, "error: the server listed a tool without a name")
    remote = remote[:200]
    if remote in cfg.disabled_tools or (cfg.enabled_tools is not None and remote not in cfg.enabled_tools):
        return Listed(server, remote, None, "disabled")
    schema, why = _schema(raw.get("inputSchema"))
    if schema is None:
        return Listed(server, remote, None, f"error: {why}")
    tier, source = tier_from_annotations(raw.get("annotations")), "annotations"
    # Annotations are the server's claims. A claim of read-only places the tool at crawl (so it
    # is offered there) but, unless the user trusts this server's annotations, it neither runs
    # unasked nor counts as changing nothing: its calls ask ("always" answers for the session).
    claimed = tier is Tier.CRAWL and not cfg.trust_annotations
    if claimed:
        source = "annotations (not trusted: asks)"
    if cfg.tier is not None:
        claimed = False
        tier, source = Tier.parse(cfg.tier), "server override"
    override = cfg.tools.get(remote)
    if override is not None and override.tier is not None:
        tier, source, claimed = Tier.parse(override.tier), "tool override", False
    title = raw.get("title") or _dict(raw.get("annotations")).get("title")
    desc = _clean_text(raw.get("description"), MAX_DESCRIPTION) or _clean_text(title, 200) or remote
    spec = Tool(
        name=tool_name(server, remote, taken),
        description=f"[{server}] {desc}",
        parameters=schema,
        tier=tier,
        read_only=tier is Tier.CRAWL and not claimed,
        needs_approval=tier > Tier.CRAWL or claimed,
        namespace=server,
    )
    return Listed(server, remote, spec, "ok", source)


# ----- results -------------------------------------------------------------------------------

def _describe(item: dict[str, Any]) -> str:
    """One content block as text; what a text-only model cannot take is described instead."""
    kind = item.get("type")
    if kind == "text":
        return _str(item.get("text"))
    if kind in ("image", "audio"):
        data = _str(item.get("data"))
        return f"[{kind}: {_clean_text(item.get('mimeType'), 80) or 'unknown type'}, about {len(data) * 3 // 4} bytes; not shown]"
    if kind == "resource_link":
        return (f"[resource link: {_clean_text(item.get('name'), 200)} {_clean_text(item.get('uri'), 500)}"
                + (f" ({_clean_text(item.get('mimeType'), 80)})" if item.get("mimeType") else "") + "]")
    if kind == "resource":
        res = _dict(item.get("resource"))
        uri = _clean_text(res.get("uri"), 500)
        if isinstance(res.get("text"), str):
            return f"[resource {uri}]\n{res['text']}"
        blob = _str(res.get("blob"))
        return f"[resource {uri}: {_clean_text(res.get('mimeType'), 80) or 'binary'}, about {len(blob) * 3 // 4} bytes; not shown]"
    return f"[content of type {_clean_text(kind, 40) or 'unknown'}; not shown]"


def result_bytes(result: dict[str, Any]) -> int:
    """UTF-8 bytes of the whole rendered result, before render_result's clip: the size an
    over-the-limit result is reported with (the clipped text would understate it)."""
    content = result.get("content")
    texts = [_describe(i) for i in (content if isinstance(content, list) else []) if isinstance(i, dict)]
    if not any(t.strip() for t in texts) and result.get("structuredContent") is not None:
        texts = [json.dumps(result["structuredContent"], ensure_ascii=False, default=str)]
    texts = [t for t in texts if t]
    return sum(len(t.encode("utf-8", errors="replace")) for t in texts) + max(0, len(texts) - 1)


def render_result(result: dict[str, Any]) -> tuple[bool, str]:
    """(ok, text) for a tools/call result: text blocks joined, structured content when
    there is no text, other blocks described. `isError` makes ok False."""
    parts: list[str] = []
    size = 0
    content = result.get("content")
    for item in content if isinstance(content, list) else []:
        if not isinstance(item, dict):
            continue
        text = _describe(item)
        size += len(text)
        if size > MAX_RESULT_CHARS:
            parts.append(text[: max(0, MAX_RESULT_CHARS - (size - len(text)))])
            break
        parts.append(text)
    structured = result.get("structuredContent")
    if structured is not None and not any(p.strip() for p in parts):
        parts.append(json.dumps(structured, ensure_ascii=False, default=str)[:MAX_RESULT_CHARS])
    text = "\n".join(p for p in parts if p)
    return result.get("isError") is not True, text or "(the tool returned no content)"
