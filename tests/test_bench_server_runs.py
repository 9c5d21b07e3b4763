"""`scripts/bench_server.py` drives the sans-IO hub the way the server's adapter does, so it must
keep up with what the adapter does (a login's read of the registered names, run off the event
loop, is one): a short run plays its games to the end and prints its figures. Its speed is not
tested here (docs/BENCHMARKS.md has the figures)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "bench_server.py"


def test_a_short_bench_run_plays_its_turns() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--tables", "2", "--turns", "24", "--memory"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("24 four-player turns, 2 games"), done.stdout
    assert "turns per CPU-second" in done.stdout
