"""Opt-in debug log: AGENTCLI_DEBUG=1 writes request/response facts to <data dir>/agentcli.log.

The file is created 0600 and every line goes through the secret scrubber (plus any
per-record `secrets`, e.g. a key read from a variable whose name does not look secret).
Nothing is logged, and `logging` is not even imported, unless the variable is set.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

ENV = "AGENTCLI_DEBUG"
LOG_FILE = "agentcli.log"
LOGGER = "agentcli"
_TRUE = frozenset({"1", "true", "yes", "on", "debug"})


def debug_enabled() -> bool:
    return os.environ.get(ENV, "").strip().lower() in _TRUE


def log_path() -> Path:
    from agentcli.config.paths import data_dir

    return data_dir() / LOG_FILE


def _formatter() -> Any:
    import logging

    from agentcli.core.redaction import redact

    class RedactingFormatter(logging.Formatter):
        """Scrubs the whole formatted line (message, arguments and traceback alike)."""

        def format(self, record: logging.LogRecord) -> str:
            return redact(super().format(record), tuple(getattr(record, "secrets", ()) or ()))

    return RedactingFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s")


def configure() -> Path | None:
    """Attach the private file handler once per log path; returns the path, or None when off."""
    if not debug_enabled():
        return None
    import logging

    from agentcli.config.paths import ensure_private_dir

    path = log_path()
    logger = logging.getLogger(LOGGER)
    for h in list(logger.handlers):
        if getattr(h, "_agentcli_path", None) == str(path):
            return path
        if hasattr(h, "_agentcli_path"):  # the data dir moved (tests, wrappers): follow it
            logger.removeHandler(h)
            h.close()
    try:
        ensure_private_dir(path.parent)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
        os.fchmod(fd, 0o600)  # an older file may have been created with wider bits
    except OSError:  # an unwritable data dir must not stop the command; there is just no log
        return None
    stream = os.fdopen(fd, "a", encoding="utf-8", buffering=1)  # line-buffered: a crash loses nothing
    handler = logging.StreamHandler(stream)
    handler._agentcli_path = str(path)  # type: ignore[attr-defined]
    handler.setFormatter(_formatter())
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    return path


def log_crash(exc: BaseException) -> None:
    """Put an internal error's traceback in the debug log too (scrubbed like every line)."""
    if not debug_enabled():
        return
    import logging

    logging.getLogger(LOGGER).error("internal error", exc_info=(type(exc), exc, exc.__traceback__))
