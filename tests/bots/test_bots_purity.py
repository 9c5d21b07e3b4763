"""Strategies are pure: no asyncio, socket or time, and no global `random` state (DESIGN.md).

The arena module alone reads a clock, to inject it into strategies with a time budget and to time
the run; it plays no part in any strategy's decisions.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

BOTS = Path(__file__).resolve().parents[2] / "bots"
FORBIDDEN = {"asyncio", "socket", "time"}
CLOCK_READERS = {"arena.py"}


@pytest.mark.parametrize("path", sorted(BOTS.glob("*.py")), ids=lambda p: p.name)
def test_no_io_clock_or_global_random(path: Path) -> None:
    tree = ast.parse(path.read_text(), filename=str(path))
    allowed = FORBIDDEN - {"time"} if path.name in CLOCK_READERS else FORBIDDEN
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                root = alias.name.split(".")[0]
                assert root not in allowed, f"{path.name} imports {alias.name}"
        elif isinstance(node, ast.ImportFrom) and node.module:
            root = node.module.split(".")[0]
            assert root not in allowed, f"{path.name} imports from {node.module}"
            if root == "random":
                assert {a.name for a in node.names} <= {"Random"}, path.name
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "random"
        ):
            assert node.attr == "Random", f"{path.name} uses random.{node.attr}"
