"""Generated and mutated model outputs for the parser-at-scale check (and its benchmark).

Seeded and plain-random (no hypothesis) so 50,000 cases cost seconds to make: fixture texts of
every dialect and native bodies of every API, cut, spliced with markers, nested fences, NUL and
bidi characters, lone surrogates, repeated into thousands of calls, or blown up to 1 MB.
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

from agentcli.wire import dialects

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
MB = 1 << 20
ODD = ["\x00", "\u202e", "\u202d", "\u2066", "\u2069", "\u200b", "\ufeff", "\udc80", "\ud800", "\r", "\x1b[31m",
       "\U0001f600", "\u0301", "\\", "\\u0000", "\\ud800", '\\"', "\t"]
FENCES = ["```", "```json\n", "```tool_call\n", "~~~\n", "````\n```json\n{\"a\": 1}\n```\n````"]


def dialect_texts() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for name in dialects.names():
        path = FIXTURES / "dialects" / f"{name}.json"
        if path.exists():
            out[name] = [c["text"] for c in json.loads(path.read_text(encoding="utf-8"))["cases"]]
    return out


def native_bodies() -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for path in sorted((FIXTURES / "native").glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        out[path.stem] = [v for k, v in data.items() if isinstance(v, dict) and not k.startswith("stream")]
    return out


def markers() -> list[str]:
    found = {m for n in dialects.names() for m in dialects.get(n).markers if m}
    return sorted(found) + ["{", "}", "[", "]", '"', ":", ",", '"name": ', '"arguments": ', "<think>", "</think>",
                            "(", ")", "=", "<", ">", "/>", "<|", "|>"]


class Mutator:
    """One random source; every method returns a new string or body."""

    def __init__(self, seed: int, texts: dict[str, list[str]], bodies: dict[str, list[dict]]) -> None:
        self.r = random.Random(seed)
        self.texts, self.bodies, self.marks = texts, bodies, markers()
        self.all_texts = [t for ts in texts.values() for t in ts]

    def text(self, dialect: str | None = None) -> str:
        r = self.r
        base = r.choice(self.texts.get(dialect) or self.all_texts)
        op = r.randrange(10)
        if op == 0:  # truncation
            return base[: r.randrange(len(base) + 1)]
        if op == 1:  # markers and odd characters spliced in
            s = base
            for _ in range(r.randint(1, 8)):
                p = r.randrange(len(s) + 1)
                s = s[:p] + r.choice(self.marks + ODD) + s[p:]
            return s
        if op == 2:  # nested / unclosed fences
            f = r.choice(FENCES)
            return f + base + r.choice(["", "\n```", f]) + r.choice(self.all_texts)
        if op == 3:  # many calls
            return "\n".join([base] * r.choice([2, 10, 100, 1000, 3000]))
        if op == 4:  # two dialects mixed
            return base + r.choice(self.all_texts)[: r.randrange(200)] + base[::-1][: r.randrange(100)]
        if op == 5:  # deletions
            s = base
            for _ in range(r.randint(1, 6)):
                if s:
                    p = r.randrange(len(s))
                    s = s[:p] + s[p + r.randint(1, 5):]
            return s
        if op == 6:  # marker soup
            return "".join(r.choice(self.marks + ODD + ["get_weather", "x", " ", "\n"]) for _ in range(r.randint(1, 200)))
        if op == 7:  # bytes decoded leniently
            return bytes(r.randrange(256) for _ in range(r.randint(0, 300))).decode("utf-8", "replace")
        if op == 8:  # a long value inside the call
            p = r.randrange(len(base) + 1)
            return base[:p] + r.choice(ODD + ["a", "\"", "{"]) * r.randint(100, 5000) + base[p:]
        return base  # as captured

    def big(self, dialect: str | None = None) -> str:
        """1 MB: one huge argument, thousands of calls, an unclosed fence, deep nesting or marker noise."""
        return self._big(dialect)[:MB]

    def _big(self, dialect: str | None) -> str:
        r = self.r
        base = r.choice(self.texts.get(dialect) or self.all_texts)
        kind = r.randrange(5)
        if kind == 0:
            return base.replace("\"", "\"" + "y" * MB, 1) if "\"" in base else base + "y" * MB
        if kind == 1:
            return ("\n".join([base] * (MB // max(len(base), 1) + 1)))[:MB]
        if kind == 2:
            return "```json\n{\"name\": \"write_file\", \"arguments\": {\"content\": \"" + "z" * MB
        if kind == 3:
            return "".join(r.choice(self.marks) for _ in range(MB // 6))
        return "{" * (MB // 8) + base + "}" * (MB // 16)

    def body(self, api: str) -> dict[str, Any]:
        r = self.r
        body = copy.deepcopy(r.choice(self.bodies[api]))
        for _ in range(r.randint(1, 4)):
            self._poke(body)
        return body

    def _poke(self, node: Any, depth: int = 0) -> None:
        r = self.r
        if isinstance(node, dict) and node:
            key = r.choice(list(node))
            if depth > 1 and r.random() < 0.3:
                choice = r.randrange(6)
                if choice == 0:
                    del node[key]
                elif choice == 1:
                    node[key] = self.text()
                elif choice == 2:
                    node[key] = r.choice([None, 0, -1, 1.5, True, [], {}, "", "{", "[1,"])
                elif choice == 3 and isinstance(node[key], list):
                    node[key] = node[key] * r.choice([2, 100, 2000])
                elif choice == 4 and isinstance(node[key], str):
                    node[key] = node[key][: r.randrange(len(node[key]) + 1)]
                else:
                    node[key] = {"nested": node[key]}
            else:
                self._poke(node[key], depth + 1)
        elif isinstance(node, list) and node:
            i = r.randrange(len(node))
            if r.random() < 0.15:
                node.insert(i, copy.deepcopy(node[i]) if r.random() < 0.7 else r.choice([None, "x", 3, {}]))
            else:
                self._poke(node[i], depth + 1)
