"""No function of the package above cyclomatic complexity 25, as radon counts it (issue 19:
small functions). A function that grows past it is split into named steps."""

from __future__ import annotations

from pathlib import Path

from radon.complexity import cc_visit

PKG = Path(__file__).resolve().parents[2] / "mqtool"
LIMIT = 25


def too_complex() -> list[str]:
    """``file:line name (CC)`` of every function or method above ``LIMIT``."""
    found = []
    for path in sorted(PKG.rglob("*.py")):
        for block in cc_visit(path.read_text(encoding="utf-8")):
            if block.complexity > LIMIT:
                found.append(f"{path.relative_to(PKG.parent)}:{block.lineno} "
                             f"{block.fullname} ({block.complexity})")
    return found


def test_no_function_above_complexity_25() -> None:
    assert too_complex() == []


def test_the_check_sees_a_complex_function() -> None:
    branches = "".join(f"    if x == {i}:\n        return {i}\n" for i in range(LIMIT + 1))
    blocks = cc_visit(f"def f(x):\n{branches}    return -1\n")
    assert [(b.name, b.complexity) for b in blocks] == [("f", LIMIT + 2)]
