"""Learned facts: what worked or failed for one model on one endpoint, kept for a while.

Stored in $XDG_CACHE_HOME/agentcli/learned.json (default ~/.cache/agentcli), mode 0600,
replaced atomically. Facts expire after a time-to-live so a server upgrade is noticed.
Endpoints are stored with credentials and query strings removed.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from agentcli.core.record import record

FILE_NAME = "learned.json"
DEFAULT_TTL = 7 * 24 * 3600.0  # a week: long enough to skip re-probing, short enough to notice upgrades
_FORMAT = 1


def cache_dir() -> Path:
    """agentcli's cache directory, honouring XDG_CACHE_HOME (absolute paths only, per the spec)."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".cache"
    return root / "agentcli"


@record(frozen=True)
class LearnedFact:
    """One observation: its value, who saw it (probe, run, doctor) and when (unix time)."""

    value: Any
    source: str
    recorded_at: float

    def expired(self, ttl: float, now: float) -> bool:
        return now - self.recorded_at > ttl

    def to_json(self) -> dict[str, Any]:
        return {"value": self.value, "source": self.source, "at": self.recorded_at}

    @classmethod
    def from_json(cls, data: Any) -> LearnedFact | None:
        if not isinstance(data, dict) or not isinstance(data.get("at"), (int, float)):
            return None
        return cls(data.get("value"), str(data.get("source", "")), float(data["at"]))


def normalize_endpoint(endpoint: str | None) -> str:
    """Scheme://host[:port]/path, lower-cased host, no user info, query or trailing slash."""
    if not endpoint:
        return ""
    parts = urlsplit(endpoint.strip())
    if not parts.scheme or not parts.hostname:
        return endpoint.strip().rstrip("/")
    host = parts.hostname.lower()
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme.lower(), host, parts.path.rstrip("/"), "", ""))


class LearnedStore:
    """Facts per (model, endpoint). Reads the file on each call so parallel runs see each other."""

    def __init__(self, path: str | Path | None = None, *, ttl: float = DEFAULT_TTL, clock: Any = time.time) -> None:
        self.path = Path(path) if path is not None else cache_dir() / FILE_NAME
        self.ttl = ttl
        self._clock = clock
        # Facts about a scripted model (the offline profile, a test's script) live for this process
        # only: a demo or a scripted test must leave the user's real file as it found it.
        self._memory: dict[str, dict[str, LearnedFact]] = {}

    @staticmethod
    def ephemeral(endpoint: str | None) -> bool:
        """True for an endpoint no real server sits behind (`scripted://...`)."""
        return (endpoint or "").startswith("scripted:")

    @staticmethod
    def _key(model: str, endpoint: str | None) -> str:
        return f"{model.strip()} @ {normalize_endpoint(endpoint)}"

    def get(self, model: str, endpoint: str | None) -> dict[str, LearnedFact]:
        """Unexpired facts for this model on this endpoint."""
        if self.ephemeral(endpoint):
            return dict(self._memory.get(self._key(model, endpoint), {}))
        entry = self._read().get(self._key(model, endpoint))
        if not isinstance(entry, dict):
            return {}
        now = self._clock()
        out = {}
        for key, raw in (entry.get("facts") or {}).items():
            fact = LearnedFact.from_json(raw)
            if fact is not None and not fact.expired(self.ttl, now):
                out[key] = fact
        return out

    def record(self, model: str, endpoint: str | None, key: str, value: Any, source: str) -> LearnedFact:
        """Store one fact (value must be JSON-serialisable) and return it."""
        json.dumps(value)  # fail here, not half-way through a write
        fact = LearnedFact(value, source, float(self._clock()))
        if self.ephemeral(endpoint):
            self._memory.setdefault(self._key(model, endpoint), {})[key] = fact
            return fact
        entries = self._read()
        k = self._key(model, endpoint)
        entry = entries.get(k)
        if not isinstance(entry, dict):
            entry = {"model": model.strip(), "endpoint": normalize_endpoint(endpoint), "facts": {}}
        entry.setdefault("facts", {})[key] = fact.to_json()
        entries[k] = entry
        self._write(entries)
        return fact

    def forget(self, model: str, endpoint: str | None = None) -> int:
        """Drop facts for `model` on `endpoint` (on every endpoint when None); count removed."""
        entries = self._read()
        model = model.strip()
        if endpoint is None:
            gone = [k for k, e in entries.items() if isinstance(e, dict) and e.get("model") == model]
        else:
            k = self._key(model, endpoint)
            gone = [k] if k in entries else []
        if not gone:
            return 0
        removed = sum(len((entries.pop(k) or {}).get("facts") or {}) for k in gone)
        self._write(entries)
        return removed

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}  # missing or corrupt: start again rather than fail a run
        entries = data.get("entries") if isinstance(data, dict) else None
        return dict(entries) if isinstance(entries, dict) else {}

    def _prune(self, entries: dict[str, Any]) -> dict[str, Any]:
        now = self._clock()
        kept: dict[str, Any] = {}
        for k, entry in entries.items():
            if not isinstance(entry, dict):
                continue
            facts = {
                name: raw
                for name, raw in (entry.get("facts") or {}).items()
                if (f := LearnedFact.from_json(raw)) is not None and not f.expired(self.ttl, now)
            }
            if facts:
                kept[k] = {**entry, "facts": facts}
        return kept

    def _write(self, entries: dict[str, Any]) -> None:
        """Write to a 0600 temp file in the same directory, fsync, then rename over."""
        import tempfile

        from agentcli.config.paths import ensure_private_dir

        ensure_private_dir(self.path.parent)  # every missing parent 0700, whatever the umask
        body = json.dumps({"format": _FORMAT, "entries": self._prune(entries)}, indent=1, sort_keys=True)
        fd, tmp = tempfile.mkstemp(prefix=".learned-", suffix=".tmp", dir=self.path.parent)
        try:
            os.fchmod(fd, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(body)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
