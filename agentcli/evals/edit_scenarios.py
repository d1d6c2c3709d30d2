"""Multi-hunk edit scenarios, one per edit tool form (apply_patch, str_replace, edit_file).

The same change (two hunks in one file, one in another) made with each form, so the report's
per-edit-tool rows compare like with like: success, and the turns each form needs. A scenario
names its form (`edit_tool`), which the trial's profile then offers, whatever the model's own
family would get; `--live` runs measure how a real model does with each form.
"""

from __future__ import annotations

from collections.abc import Callable

from agentcli.evals.scenario import Outcome, Scenario, answered
from agentcli.providers.scripted.model import Call, Step, linear

GOAL = ("In cart.py, make total() apply the discount (subtract it) and make count() count quantities, not "
        "lines; in VERSION bump 1.4.0 to 1.5.0.")

CART = '''"""A shopping cart."""


class Cart:
    def __init__(self):
        self.lines = []
        self.discount = 0

    def add(self, name, price, qty=1):
        self.lines.append((name, price, qty))

    def total(self):
        subtotal = sum(price * qty for _, price, qty in self.lines)
        return subtotal

    def count(self):
        return len(self.lines)

    def clear(self):
        self.lines = []
'''

FIXED = CART.replace("        return subtotal\n", "        return subtotal - self.discount\n").replace(
    "        return len(self.lines)\n", "        return sum(qty for _, _, qty in self.lines)\n")

FILES = {"cart.py": CART, "VERSION": "1.4.0\n"}
EXPECTED = {"cart.py": FIXED, "VERSION": "1.5.0\n"}

PATCH = """*** Begin Patch
*** Update File: cart.py
@@     def total(self):
         subtotal = sum(price * qty for _, price, qty in self.lines)
-        return subtotal
+        return subtotal - self.discount
@@     def count(self):
-        return len(self.lines)
+        return sum(qty for _, _, qty in self.lines)
*** Update File: VERSION
@@
-1.4.0
+1.5.0
*** End Patch
"""

ANSWER = "total() now subtracts the discount, count() sums quantities, and VERSION is 1.5.0."


def _check(o: Outcome) -> str | None:
    if (why := answered(o)) is not None:
        return why
    for rel, want in EXPECTED.items():
        got = o.read(rel)
        if got != want:
            return f"{rel} is {(got or '')[:120]!r}"
    return None


def _scenario(form: str, what: str, steps: list[Step], tools: set[str]) -> Scenario:
    return Scenario(
        f"multi_hunk_{form}", f"two hunks in one file and one in another, with {what}", GOAL, linear(steps),
        _check, frozenset(tools | {"read_file", "submit"}), files=dict(FILES), tier="walk", edit_tool=form,
    )


def _apply_patch() -> Scenario:
    return _scenario("apply_patch", "one V4A apply_patch call", [
        Step([Call("read_file", {"path": "cart.py"})]),
        Step([Call("apply_patch", {"input": PATCH})]),
        Step(answer=ANSWER),
    ], {"apply_patch"})


def _str_replace() -> Scenario:
    edit = "str_replace_based_edit_tool"
    return _scenario("str_replace", "the text editor (view, then one str_replace per hunk)", [
        Step([Call(edit, {"command": "view", "path": "cart.py", "view_range": [12, 17]})]),
        Step([Call(edit, {"command": "str_replace", "path": "cart.py", "old_str": "        return subtotal\n",
                          "new_str": "        return subtotal - self.discount\n"})]),
        Step([Call(edit, {"command": "str_replace", "path": "cart.py", "old_str": "return len(self.lines)",
                          "new_str": "return sum(qty for _, _, qty in self.lines)"})]),
        Step([Call(edit, {"command": "str_replace", "path": "VERSION", "old_str": "1.4.0",
                          "new_str": "1.5.0"})]),
        Step(answer=ANSWER),
    ], {edit})


def _edit_file() -> Scenario:
    return _scenario("edit_file", "edit_file (one find-and-replace per hunk)", [
        Step([Call("read_file", {"path": "cart.py"})]),
        Step([Call("edit_file", {"path": "cart.py", "old_content": "        return subtotal\n",
                                 "new_content": "        return subtotal - self.discount\n"})]),
        Step([Call("edit_file", {"path": "cart.py", "old_content": "return len(self.lines)",
                                 "new_content": "return sum(qty for _, _, qty in self.lines)"})]),
        Step([Call("edit_file", {"path": "VERSION", "old_content": "1.4.0", "new_content": "1.5.0"})]),
        Step(answer=ANSWER),
    ], {"edit_file"})


EDIT_SCENARIOS: dict[str, Callable[[], Scenario]] = {
    "multi_hunk_apply_patch": _apply_patch,
    "multi_hunk_str_replace": _str_replace,
    "multi_hunk_edit_file": _edit_file,
}
