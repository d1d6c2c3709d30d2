"""The app's option declarations are typer's own objects, built without typer's 45-keyword calls:
each declared option and argument equals what `typer.Option` / `typer.Argument` build from the
same values, and importing the app calls typer's constructors only for the two default objects."""

from __future__ import annotations

import inspect
import subprocess
import sys

import pytest
import typer
from typer.models import ArgumentInfo, OptionInfo, ParameterInfo

from agentcli.cli import app as app_module


def _callbacks(typer_app: typer.Typer):
    if typer_app.registered_callback is not None:
        yield typer_app.registered_callback.callback
    for command in typer_app.registered_commands:
        yield command.callback
    for group in typer_app.registered_groups:
        yield from _callbacks(group.typer_instance)


def _declared() -> list[ParameterInfo]:
    out = []
    for callback in _callbacks(app_module.app):
        for param in inspect.signature(callback).parameters.values():
            if isinstance(param.default, ParameterInfo):
                out.append(param.default)
    return out


def test_every_declaration_is_what_typer_builds():
    declared = _declared()
    assert len(declared) > 50 and {type(d) for d in declared} == {OptionInfo, ArgumentInfo}
    for info in declared:
        maker, base = ((typer.Option, app_module._OPTION_DEFAULTS) if isinstance(info, OptionInfo)
                       else (typer.Argument, app_module._ARGUMENT_DEFAULTS))
        named = {k: v for k, v in vars(info).items() if k not in ("default", "param_decls") and v is not base[k]}
        built = maker(info.default, *(info.param_decls or ()), **named)
        assert type(built) is type(info) and vars(built) == vars(info)


def test_what_it_does_not_model_goes_to_typer():
    with pytest.raises(TypeError):
        app_module._option(None, "--x", no_such_setting=1)
    with pytest.raises(ValueError):  # typer's own check of two custom parsers
        app_module._option(None, "--x", parser=int, click_type=object())
    assert vars(app_module._argument(None, help="h")) == vars(typer.Argument(None, help="h"))


def test_importing_the_app_calls_typers_constructors_twice():
    code = ("import sys, typer.models as m\n"
            "calls = []\n"
            "real = m.ParameterInfo.__init__\n"
            "def counted(self, *a, **k):\n"
            "    calls.append(type(self).__name__)\n"
            "    real(self, *a, **k)\n"
            "m.ParameterInfo.__init__ = counted\n"
            "import agentcli.cli.app\n"
            "print(sorted(calls))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "['ArgumentInfo', 'OptionInfo']"
