"""Shared pieces of the security checks: canary keys and their encodings, scanners, profiles, runners."""

from __future__ import annotations

import base64
import json
import os
import secrets
import subprocess
import sys
import urllib.parse
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from agentcli.cli.main import app

REPO = Path(__file__).resolve().parents[2]
FULL = os.environ.get("AGENTCLI_FULL_CORPUS", "") not in ("", "0")

# One fresh value per test session. Deliberately not key-shaped (no sk-/AIza prefix), so only the
# exact-value net of the scrubber can catch them: the pattern net would hide a broken value net.
_TAG = secrets.token_hex(6)
CANARIES: dict[str, str] = {
    "OPENAI_API_KEY": f"cnryOA{_TAG}q7Z",
    "ANTHROPIC_API_KEY": f"cnryAN{_TAG}w3X",
    "GEMINI_API_KEY": f"cnryGM{_TAG}e5V",
    "OPENROUTER_API_KEY": f"cnryOR{_TAG}r9T",
    "ACME_GATEWAY_KEY": f"cnryCU{_TAG}t2Y",  # the custom api_key_env
}


def _b64_cores(raw: bytes) -> set[str]:
    """Base64 of `raw` at each of the 3 byte alignments, trimmed to the characters that depend on
    `raw` alone: finds the key even when it was encoded in the middle of a longer string."""
    out = set()
    for shift in range(3):
        enc = base64.b64encode(b"\0" * shift + raw + b"\0\0").decode()
        start = (shift + 2) // 3 * 4  # first group with no padding byte in it
        end = (shift + len(raw)) // 3 * 4  # last group made only of `raw` bytes
        if end - start >= 8:
            core = enc[start:end]
            out |= {core, core.replace("+", "-").replace("/", "_")}
    return out


def forms(value: str) -> dict[str, str]:
    """Every encoding a leak could take: raw, base64 (std, unpadded, urlsafe, mid-string), URL, hex."""
    raw = value.encode()
    out = {
        "raw": value,
        "base64": base64.b64encode(raw).decode(),
        "base64-nopad": base64.b64encode(raw).decode().rstrip("="),
        "base64-urlsafe": base64.urlsafe_b64encode(raw).decode().rstrip("="),
        "url": urllib.parse.quote(value, safe=""),
        "url-plus": urllib.parse.quote_plus(value),
        "hex": raw.hex(),
        "HEX": raw.hex().upper(),
    }
    for i, core in enumerate(sorted(_b64_cores(raw))):
        out[f"base64-mid{i}"] = core
    return out


def scan(text: str | bytes, canaries: dict[str, str] = CANARIES) -> list[tuple[str, str]]:
    """(variable, form) for every canary form found in `text`."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return [(name, form) for name, value in canaries.items() for form, s in forms(value).items() if s in text]


def files_under(*roots: Path) -> Iterator[Path]:
    for root in roots:
        if root.is_file():
            yield root
        elif root.is_dir():
            yield from (p for p in sorted(root.rglob("*")) if p.is_file() and not p.is_symlink())


def scan_files(*roots: Path, canaries: dict[str, str] = CANARIES) -> dict[str, list[tuple[str, str]]]:
    """path -> hits, for every file under `roots` that holds a canary in any form."""
    hits = {}
    for p in files_under(*roots):
        found = scan(p.read_bytes(), canaries)
        if found:
            hits[str(p)] = found
    return hits


def user_dirs() -> tuple[Path, Path, Path]:
    from agentcli.config.paths import cache_dir, config_dir, data_dir

    return config_dir(), data_dir(), cache_dir()


def write_profile(path: Path, provider: str, url: str | None, model: str, *, name: str = "sec", **fields: Any) -> Path:
    """A one-profile TOML file; dict values become sub-tables, others top-level keys."""
    top = {"provider": provider, "model": model, **({"url": url} if url else {})}
    tables = {}
    for k, v in fields.items():
        (tables if isinstance(v, dict) else top)[k] = v
    lines = [f"[profiles.{name}]"] + [f"{k} = {json.dumps(v)}" for k, v in top.items()]
    for table, values in tables.items():
        lines.append(f"[profiles.{name}.{table}]")
        lines += [f"{k} = {json.dumps(v)}" for k, v in values.items()]
    path.write_text("\n".join(lines) + "\n")
    return path


def run_cli(*args: str) -> Any:
    """`agent ARGS` in-process; stdout and stderr kept apart."""
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def openai_call(name: str, args: dict[str, Any], call_id: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


def agent_env(home: Path, **extra: str) -> dict[str, str]:
    """Environment for an `agent` subprocess whose user dirs live under `home`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "AGENTCLI_", "PYTEST_"))}
    for var, sub in (("XDG_CONFIG_HOME", "config"), ("XDG_DATA_HOME", "data"), ("XDG_CACHE_HOME", "cache")):
        env[var] = str(home / sub)
    env["NO_COLOR"] = "1"
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env


def spawn(args: Iterable[str], env: dict[str, str], cwd: Path) -> subprocess.Popen:
    """`python -m agentcli ARGS` in its own process group, no terminal on stdin."""
    return subprocess.Popen(
        [sys.executable, "-m", "agentcli", *args], env=env, cwd=cwd, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
    )


class Sink:
    """A listener that records every connection and every byte sent to it (the attacker): loopback
    TCP, or with `path` a unix socket (standing for tmux, docker, D-Bus, ssh-agent)."""

    def __init__(self, path: Path | None = None) -> None:
        import socket
        import threading

        self.path = str(path) if path is not None else None
        if self.path is None:
            self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self.sock.bind(("127.0.0.1", 0))
            self.port = self.sock.getsockname()[1]
        else:
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.sock.bind(self.path)
            self.port = 0
        self.sock.listen(64)
        self.sock.settimeout(0.1)
        self.connections = 0
        self.data = bytearray()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._serve, daemon=True)
        self._t.start()

    def _serve(self) -> None:
        import threading

        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            with self._lock:
                self.connections += 1
            threading.Thread(target=self._read, args=(conn,), daemon=True).start()

    def _read(self, conn: Any) -> None:
        conn.settimeout(2.0)
        try:
            chunk = conn.recv(65536)
            if chunk:
                with self._lock:
                    self.data += chunk
                if chunk.startswith((b"GET", b"POST", b"PUT", b"HEAD")):
                    conn.sendall(b"HTTP/1.0 200 OK\r\ncontent-length: 2\r\n\r\nok")
        except OSError:
            pass
        finally:
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self._t.join()
        self.sock.close()
        if self.path is not None:
            Path(self.path).unlink(missing_ok=True)

    def __enter__(self) -> Sink:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
