"""The pure packages stay pure: engine, protocol and bots import no asyncio, socket or time, and
use no global `random` state (DESIGN.md). The arena, which reads a clock, lives in `client`."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PURE = sorted(p for pkg in ("engine", "protocol", "bots") for p in (ROOT / pkg).rglob("*.py"))
FORBIDDEN = {"asyncio", "socket", "time"}


@pytest.mark.parametrize("path", PURE, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_io_clock_or_global_random(path: Path) -> None:
    tree = ast.parse(path.read_text(), filename=str(path))
    allowed = FORBIDDEN
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
