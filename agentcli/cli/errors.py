"""The one table from exception to message and exit code.

Exit codes: 0 done, 1 the model or a tool failed, 2 usage/profile error,
3 stopped at a checkpoint or by a guard, 4 no usable answer (empty or cut at the
length limit twice), 130 interrupted (129 / 143 ended by SIGHUP / SIGTERM), 141 a run whose
stdout closed (a pipe reader left before the end). A listing whose reader left early (`agent
sessions | head -1`) exits 0: the reader took what it wanted, and a `set -o pipefail` script must not fail on it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentcli.core.errors import AgentCliError

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_STOPPED, EXIT_INCOMPLETE, EXIT_INTERRUPTED = 0, 1, 2, 3, 4, 130
DEBUG_ENV = "AGENTCLI_DEBUG"  # logging_setup.ENV, named here so a start without it never loads that module
EXIT_PIPE_CLOSED = 141  # 128 + SIGPIPE: what a shell reports for any program whose reader went away

# How a run ended (a `core.events.StopReason` value) -> the process exit code. Keyed by the plain
# strings, which StopReason members equal, so start-up need not import the event types.
EXIT_CODES: dict[str, int] = {
    "answered": EXIT_OK,
    "submitted": EXIT_OK,
    "error": EXIT_FAILED,
    "max_turns": EXIT_STOPPED,
    "stuck": EXIT_STOPPED,
    "aborted": EXIT_STOPPED,
    "refused": EXIT_STOPPED,
    "incomplete": EXIT_INCOMPLETE,
    "interrupted": EXIT_INTERRUPTED,
}


def _labels() -> list[tuple[type[BaseException], str]]:
    """Checked in order; the first matching type decides the label (exit codes come from the class).
    Built when an error is shown, so a command that raises none never loads the error tree."""
    from agentcli.core.errors import AgentCliError, ConfigError, ProviderError, UsageError

    return [
        (ConfigError, "profile error"),
        (UsageError, "error"),
        (ProviderError, "model request failed"),
        (AgentCliError, "error"),
    ]


def _say(label: str, message: str, hint: str | None) -> None:
    from agentcli.core.redaction import redact

    sys.stderr.write(f"agent: {label}: {redact(message)}\n")
    if hint:
        sys.stderr.write(f"  hint: {redact(hint)}\n")


def run_guarded(fn: Callable[..., int | None], **options: Any) -> int:
    """Run a command body; user mistakes become one clear message, never a traceback."""
    import os

    if DEBUG_ENV in os.environ:  # the debug log's switch: unset, there is nothing to load
        from agentcli.cli.logging_setup import configure as configure_logging

        configure_logging()
    try:
        return int(fn(**options) or 0)
    except KeyboardInterrupt:
        sys.stderr.write("agent: interrupted\n")
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `agent sessions | head -1`: the reader is gone; stop quietly, like any filter
        silence_stdout()
        return EXIT_OK  # (a run cut short by it says so itself: 141, in commands/run.py)
    except Exception as exc:
        from agentcli.core.errors import AgentCliError

        if isinstance(exc, AgentCliError):
            return _report(exc, options)
        # a bug of ours: keep the details, scrubbed, out of the terminal
        from agentcli.cli.logging_setup import log_crash

        path = _crash_report(exc)
        log_crash(exc)
        _say("internal error", f"{type(exc).__name__}: {exc}", f"details were written to {path}; please report it")
        return EXIT_FAILED


def _report(exc: AgentCliError, options: dict[str, Any]) -> int:
    """An error raised on purpose: its label and message (and hint) on stderr, its exit code."""
    from agentcli.core.errors import ProviderError

    label = next(lbl for typ, lbl in _labels() if isinstance(exc, typ))
    code = exit_code_of(exc)
    if code == EXIT_USAGE and isinstance(exc, ProviderError):
        label = "error"  # no request was made: nothing "failed" at the model
    _say(label, exc.message, exc.hint)
    if options.get("json_out"):
        _json_error(label, exc.message, exc.hint, code)
    return code


def exit_code_of(exc: AgentCliError) -> int:
    """The class's exit code, except that a key missing from the environment is the user's set-up
    (exit 2, like a bad profile), not a failed request: no request was sent (no HTTP status)."""
    from agentcli.core.errors import ProviderError, ProviderErrorCode

    if isinstance(exc, ProviderError) and exc.code is ProviderErrorCode.AUTH and exc.status is None:
        return EXIT_USAGE
    return exc.exit_code


def _json_error(label: str, message: str, hint: str | None, code: int) -> None:
    """Under --json a failure is a JSON line on stdout too (with the same words as stderr), so a
    script reading stdout sees why there is nothing else."""
    import json

    from agentcli.core.redaction import redact

    record = {"event": "error", "error": label, "message": redact(message), "exit_code": code}
    if hint:
        record["hint"] = redact(hint)
    try:
        sys.stdout.write(json.dumps(record, ensure_ascii=False) + "\n")
        sys.stdout.flush()
    except (BrokenPipeError, OSError, ValueError):
        pass


def silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's last flush cannot fail again."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # no real file descriptor (a test's captured stream): nothing to flush
        pass


def _crash_report(exc: BaseException) -> str:
    import time
    import traceback

    from agentcli.config.paths import data_dir, write_private
    from agentcli.core.redaction import redact

    path = data_dir() / "crashes" / time.strftime("crash-%Y%m%d-%H%M%S.txt")
    text = "".join(traceback.format_exception(exc))
    write_private(path, redact(text))
    return str(path)
