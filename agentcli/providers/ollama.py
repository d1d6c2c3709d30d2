"""Ollama's native API: POST {url}/api/chat (NDJSON stream), GET /api/tags, POST /api/show."""

from __future__ import annotations

from typing import Any

from agentcli.core.errors import ProviderError
from agentcli.core.errors import ProviderErrorCode as Code
from agentcli.providers._http import error_from_inband
from agentcli.providers.base import Chunk, Provider, ReplyCall, pieces
from agentcli.wire.types import RequestSettings

PULLABLE = "qwen3:8b"  # a tool-capable model anyone can `ollama pull`, named when the server has none


def _family(name: str) -> str:
    """The leading letters-and-digits of a model name: `qwen3` for qwen3-next-80b-tools and qwen3:8b."""
    import re

    m = re.match(r"[a-z]+[0-9.]*", name.lower())
    return m.group(0) if m else name.lower()


def nearest_model(wanted: str, have: list[str]) -> str | None:
    """The model on the server most like `wanted`: same family first, then the closest spelling."""
    import difflib

    if not have:
        return None
    same = [h for h in have if _family(h) == _family(wanted)]
    pool = same or have
    ranked = sorted(pool, key=lambda h: difflib.SequenceMatcher(None, wanted.lower(), h.lower()).ratio(), reverse=True)
    best = ranked[0]
    if not same and difflib.SequenceMatcher(None, wanted.lower(), best.lower()).ratio() < 0.4:
        return None  # nothing alike: naming one at random would mislead
    return best


def missing_model_hint(wanted: str, url: str, have: list[str]) -> str:
    """What to do when the server lacks `wanted`: the nearest model it has (usable at once with
    -m), what else it has, and how to pull a model or create the custom one under that name."""
    from agentcli.core.escape import visible

    names = [visible(h, keep_newlines=False) for h in have[:8]]
    near = nearest_model(wanted, have)
    create = (f"or create {wanted!r} under that name: a Modelfile with FROM <a base model> and a "
              f"tool-calling TEMPLATE, then `ollama create {wanted} -f Modelfile`")
    if near is not None:
        near = visible(near, keep_newlines=False)
        more = f" (it also has: {', '.join(n for n in names if n != near)})" if len(names) > 1 else ""
        return f"the nearest model {url} has is {near!r}: agent run -m {near} ...{more}; {create}"
    if names:
        return f"{url} has: {', '.join(names)}; use one with -m MODEL, `ollama pull {PULLABLE}`, {create}"
    return f"{url} has no models yet: `ollama pull {PULLABLE}` then agent run -m {PULLABLE} ...; {create}"


class OllamaProvider(Provider):
    """No key; streams NDJSON by default so `stream` is always written explicitly."""

    api = "ollama"
    url_shape = " (Ollama's URL is the server root, e.g. http://localhost:11434, without /v1 or /api)"
    start_hint = "try `ollama serve`"
    stream_format = "ndjson"
    context_advice = ("raise the model's context: [request] options = { num_ctx = 8192 } in the profile (or "
                      "OLLAMA_CONTEXT_LENGTH for the server), or send less: a shorter system_prompt, fewer tools "
                      "(tools.max_tier, tools.deny)")

    @staticmethod
    def reply_body(text: str) -> dict[str, Any]:
        return ollama_body(text)

    @staticmethod
    def reply(text: str, calls: list[ReplyCall], usage: tuple[int, int]) -> dict[str, Any]:
        return ollama_reply(text, calls, usage)

    @staticmethod
    def reply_chunks(body: dict[str, Any], size: int) -> list[dict[str, Any]]:
        return ollama_chunks(body, size)

    def endpoint(self, settings: RequestSettings) -> str:
        return f"{self.url}/api/chat"

    def adjust_body(self, body: dict[str, Any], settings: RequestSettings) -> dict[str, Any]:
        body["stream"] = bool(settings.stream)
        return body

    @staticmethod
    def refine_error(status: int, detail: str) -> Code | None:
        lower = detail.lower()
        # 400 {"error":"registry.ollama.ai/library/gemma2:2b does not support tools"}
        if "does not support tools" in lower:
            return Code.TOOLS_UNSUPPORTED
        # 404 {"error":"model \"llama9\" not found, try pulling it first"}
        if "not found" in lower and "model" in lower:
            return Code.MODEL_MISSING
        return None

    async def complete(self, *args: Any, **kwargs: Any) -> Any:
        """As every provider; a model the server lacks is answered with what it has instead."""
        try:
            return await super().complete(*args, **kwargs)
        except ProviderError as exc:
            if exc.code is not Code.MODEL_MISSING:
                raise
            try:
                have = await self.list_models()
            except ProviderError:
                raise exc from None  # the server's own message is still the best we have
            wanted = exc.model or ""
            exc.hint = missing_model_hint(wanted, self.url, have)
            raise exc from None

    def stream_item(self, event: str, data: dict[str, Any] | str) -> Chunk:
        assert isinstance(data, dict)
        if data.get("error") is not None:
            raise error_from_inband(data["error"], self.target(), self.refine_error)
        return data, bool(data.get("done"))

    async def list_models(self) -> list[str]:
        data = await self._get_json("/api/tags")
        return [str(m.get("name") or m.get("model")) for m in data.get("models") or () if isinstance(m, dict)]

    async def model_info(self, model: str) -> dict[str, Any] | None:
        """/api/show: `capabilities` (e.g. ["completion", "tools"]), template, details, model_info."""
        return await self._get_json("/api/show", method="POST", json_body={"model": model})

# -- what this API's server answers: a reply body, and the chunks it streams for it --------------
# The scripted provider plays these back; the loopback test server serves them.


def ollama_chunks(body: dict[str, Any], size: int = 8) -> list[dict[str, Any]]:
    """Non-streamed /api/chat reply -> NDJSON objects; tool calls arrive whole, as Ollama sends them."""
    msg = body.get("message") or {}
    base = {"model": body.get("model", ""), "created_at": body.get("created_at", "2025-01-01T00:00:00Z")}

    def chunk(message: dict[str, Any]) -> dict[str, Any]:
        return {**base, "message": {"role": "assistant", "content": "", **message}, "done": False}

    out = [chunk({"thinking": p}) for p in pieces(msg.get("thinking") or "", size)]
    out += [chunk({"content": p}) for p in pieces(msg.get("content") or "", size)]
    if msg.get("tool_calls"):
        out.append(chunk({"tool_calls": msg["tool_calls"]}))
    final = {k: v for k, v in body.items() if k not in ("message", "model", "created_at")}
    final.update(done=True, done_reason=body.get("done_reason", "stop"))
    out.append({**base, "message": {"role": "assistant", "content": ""}, **final})
    return out


def ollama_body(text: str, model: str = "loopback", tool_calls: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    msg: dict[str, Any] = {"role": "assistant", "content": text}
    if tool_calls:
        msg["tool_calls"] = tool_calls
    return {
        "model": model,
        "created_at": "2025-01-01T00:00:00Z",
        "message": msg,
        "done": True,
        "done_reason": "stop",
        "prompt_eval_count": 10,
        "eval_count": 5,
    }


def ollama_reply(text: str, calls: list[ReplyCall], usage: tuple[int, int]) -> dict[str, Any]:
    """An /api/chat reply with tool calls and eval counts."""
    body = ollama_body(text, tool_calls=[{"function": {"name": c.name, "arguments": c.args}} for c in calls] or None)
    body["prompt_eval_count"], body["eval_count"] = usage
    return body
