"""The chaos runner (scripts/chaos.py) for a minute with a fixed seed: three real nodes on a real
PostgreSQL, waves of real `sushigo-bot` processes and tournaments, a person's terminal client,
and the faults the seed chooses (nodes killed, stopped, paused and restarted, one with a lagging
clock; PostgreSQL paused and restarted). Every check it makes holds: the bots played all their
games, the records match what each player saw and verify, no quick-match seat was auto-picked,
no players were kept apart, no node served a table it did not hold, no gauge went negative, no
log has a traceback or an unformatted line. On failure its output (the seed, what failed, the
players' and nodes' last lines) is the assertion's message: the same seed replays the run."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "chaos.py"
SEED = 20261128
SECONDS = 60
LIMIT = 900.0
"""The run's minute, the players' time to finish, and the nodes' and PostgreSQL's stops, with
room to spare on a loaded machine."""


@pytest.mark.timeout(LIMIT + 60)
async def test_a_minute_of_chaos_on_three_nodes_keeps_every_promise(tmp_path: Path) -> None:
    keep = tmp_path / "kept"
    proc = await asyncio.create_subprocess_exec(
        *(sys.executable, str(SCRIPT), "--nodes", "3", "--seconds", str(SECONDS)),
        *("--seed", str(SEED), "--keep", str(keep)),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    try:
        out, _ = await asyncio.wait_for(proc.communicate(), LIMIT)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    text = out.decode(errors="replace")
    assert proc.returncode == 0, text
    assert f"seed {SEED}: all checks hold" in text, text
