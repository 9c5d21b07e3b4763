"""Every example of docs/RESEARCH.md runs as written, with smaller numbers, so the page cannot rot:
its Python blocks in one process each, its commands as real processes."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pyspiel", reason="OpenSpiel is not installed (pip install sushigo[openspiel])")

PAGE = Path(__file__).resolve().parents[2] / "docs" / "RESEARCH.md"
BIN = Path(sys.executable).parent

SMALLER = {
    "GAMES, SIMULATIONS = 10, 100": "GAMES, SIMULATIONS = 1, 4",
    "ITERATIONS, GAMES = 2000, 20": "ITERATIONS, GAMES = 30, 2",
    "simulations=100,heuristic": "simulations=3,heuristic",
    "--games 20": "--games 1 --workers 1",
    "--num_train_episodes=2000 --eval_freq=1000 --num_eval_episodes=100": (
        "--num_train_episodes=20 --eval_freq=10 --num_eval_episodes=2"
    ),
}
"""Each example's numbers, made small enough for the test suite (each must be found)."""


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """`args` as a real process; its output kept."""
    return subprocess.run(args, check=False, capture_output=True, text=True, timeout=300, cwd=cwd)


def _blocks(language: str) -> list[str]:
    text = PAGE.read_text()
    return re.findall(rf"```{language}\n(.*?)```", text, flags=re.DOTALL)


def _smaller(code: str, used: set[str]) -> str:
    for big, small in SMALLER.items():
        if big in code:
            used.add(big)
            code = code.replace(big, small)
    return code


def test_the_python_examples_run(tmp_path: Path) -> None:
    used: set[str] = set()
    blocks = _blocks("python")
    assert len(blocks) == 5
    for number, code in enumerate(blocks):
        script = tmp_path / f"example{number}.py"
        script.write_text(_smaller(code, used))
        done = _run([sys.executable, str(script)], tmp_path)
        assert done.returncode == 0, done.stderr[-2000:]
        if "class Uniform" in code:  # a strategy: it plays in the arena, named by its file
            spec = f"{script}:Uniform,random"
            args = ["--strategies", spec, "--games", "1", "--workers", "1"]
            arena = _run([str(BIN / "sushigo-arena"), *args], tmp_path)
            assert arena.returncode == 0 and "Uniform" in arena.stdout, arena.stderr
        elif "env.agent_iter()" in code:
            assert "player_0" in done.stdout
        else:
            assert done.stdout.strip(), code
    assert {"GAMES, SIMULATIONS = 10, 100", "ITERATIONS, GAMES = 2000, 20"} <= used


def test_the_commands_run(tmp_path: Path) -> None:
    used: set[str] = set()
    commands = [
        _smaller(block.replace("\\\n", " "), used)
        for block in _blocks("sh")
        if not block.startswith("pip install")
    ]
    assert len(commands) == 3
    for command in commands:
        args = shlex.split(command)
        program = sys.executable if args[0] == "python" else str(BIN / args[0])
        done = _run([program, *args[1:]], tmp_path)
        assert done.returncode == 0, done.stderr[-2000:]
        assert (
            "Utility" in done.stdout
            or "rewards" in done.stderr + done.stdout
            or "win rate" in done.stdout
        )
    assert len(used) == 3
