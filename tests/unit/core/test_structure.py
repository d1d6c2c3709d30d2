"""Structure the code keeps: short functions, and a loop that names no provider."""

from __future__ import annotations

import ast
from pathlib import Path

import agentcli
import agentcli.agent.loop as loop_module
from agentcli.config.providers import PROVIDERS

PACKAGE = Path(agentcli.__file__).parent
MAX_LINES = 80


def test_no_function_is_longer_than_80_lines() -> None:
    long = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MAX_LINES:
                    long.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name} ({lines} lines)")
    assert long == []


def test_the_loop_names_no_provider() -> None:
    tree = ast.parse(Path(loop_module.__file__).read_text(encoding="utf-8"))
    strings = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    assert sorted(strings & set(PROVIDERS)) == []
