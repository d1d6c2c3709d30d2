"""Turn TOML and pydantic failures into one located ConfigError each.

The reader should see file, profile, key and a short reason; never a traceback
and never the value of a field that may hold a secret.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentcli.core.errors import ConfigError

if TYPE_CHECKING:  # pragma: no cover
    import tomllib

    from pydantic import BaseModel, ValidationError
    from pydantic_core import ErrorDetails

_AT = re.compile(r"\s*\(at (?:line (\d+), column (\d+)|end of document)\)\s*$")
# Keys whose values must never be echoed back in a message.
_SILENT_KEYS = ("api_key_env", "headers")


def toml_error(exc: tomllib.TOMLDecodeError, file: Path | str, text: str) -> ConfigError:
    """A TOML syntax error with its line and column."""
    msg = str(exc)
    m = _AT.search(msg)
    reason = msg[: m.start()] if m else msg
    if m and m.group(1):
        where = f"line {m.group(1)}, column {m.group(2)}"
    else:
        lines = text.count("\n") + (0 if text.endswith("\n") else 1)
        where = f"end of file (line {max(lines, 1)})"
    return ConfigError(
        f"TOML syntax error at {where}: {reason[:1].lower()}{reason[1:]}",
        file=str(file),
        hint="check quotes, brackets and `key = value` pairs on that line",
    )


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _fields_at(model: type[BaseModel], loc: tuple[Any, ...]) -> list[str]:
    """Field names allowed at `loc`'s parent, for did-you-mean suggestions."""
    cls: Any = model
    for part in loc[:-1]:
        field = getattr(cls, "model_fields", {}).get(part)
        if field is None:
            return []
        cls = field.annotation
    fields = getattr(cls, "model_fields", None)
    if not fields:
        return []
    return [name for name, f in fields.items() if not f.exclude and name != "name"]


def _reason(err: ErrorDetails, model: type[BaseModel]) -> tuple[str, str | None]:
    kind, loc, msg = err["type"], tuple(err["loc"]), err["msg"]
    key = ".".join(str(p) for p in loc)
    silent = any(key == k or key.startswith(k + ".") for k in _SILENT_KEYS)
    got = "" if silent or kind == "missing" else f" (got {_short(err.get('input'))})"
    if kind == "extra_forbidden":
        allowed = _fields_at(model, loc)
        close = difflib.get_close_matches(str(loc[-1]), allowed, n=1)
        hint = f"did you mean {close[0]!r}?" if close else None
        if allowed and not hint:
            hint = "known keys here: " + ", ".join(allowed)
        return "unknown key", hint
    if kind == "missing":
        return "required key is missing", None
    if kind == "literal_error":
        expected = err.get("ctx", {}).get("expected", "")
        return f"must be one of {expected}{got}", None
    if kind == "value_error":
        return msg.removeprefix("Value error, ") + got, None
    reason = msg.replace("Input should be", "must be", 1)
    return reason[:1].lower() + reason[1:] + got, None


def validation_error(
    exc: ValidationError, *, file: Path | str | None, profile: str | None, model: type[BaseModel]
) -> ConfigError:
    """The first problem as a ConfigError with its dotted key; the count of the rest."""
    errors = exc.errors(include_url=False)
    first = errors[0]
    key = ".".join(str(p) for p in first["loc"]) or None
    reason, hint = _reason(first, model)
    if len(errors) > 1:
        others = ", ".join(".".join(str(p) for p in e["loc"]) for e in errors[1:4])
        more = f"{len(errors) - 1} more problem(s): {others}" + (", ..." if len(errors) > 4 else "")
        hint = f"{hint}; {more}" if hint else more
    return ConfigError(reason, file=str(file) if file else None, profile=profile, key=key, hint=hint)
