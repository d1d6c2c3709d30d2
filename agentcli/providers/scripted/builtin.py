"""Built-in scripted models a profile can name as `script = "builtin:NAME"` (the offline profile uses
`builtin:demo`). A table of name -> (API it answers in, "module:function"), imported on use."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

PREFIX = "builtin:"

BUILTIN_MODELS: dict[str, tuple[str, str]] = {
    "demo": ("openai", "agentcli.providers.scripted.demo_model:demo_turn"),
}


def is_builtin(script: str | None) -> bool:
    return bool(script) and str(script).startswith(PREFIX)


def load_builtin(script: str) -> tuple[str, Callable[..., dict[str, Any]]]:
    """`builtin:NAME` -> (api, fn(messages, tools, plan) -> turn); KeyError names the known models.

    The model's module is imported on the first turn asked of it, not here: a provider built only to
    be described (`agent doctor`) never loads the model that would write its turns."""
    name = script.removeprefix(PREFIX)
    try:
        api, ref = BUILTIN_MODELS[name]
    except KeyError:
        raise KeyError(f"unknown built-in scripted model {name!r}; known: {', '.join(BUILTIN_MODELS)}") from None
    loaded: list[Callable[..., dict[str, Any]]] = []

    def turn(*args: Any, **kwargs: Any) -> dict[str, Any]:
        if not loaded:
            module, attr = ref.split(":")
            loaded.append(getattr(importlib.import_module(module), attr))
        return loaded[0](*args, **kwargs)

    turn.__qualname__ = turn.__name__ = ref.rsplit(":", 1)[1]
    return api, turn
