"""The server's garbage-collector tuning (`server.runtime.tune_gc`): what survives a collection of the
middle generation is frozen, so no collection walks the players' objects; the periodic sweep still
frees cyclic garbage among frozen objects. Run in a child process: it changes the interpreter's
collector."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from sushigo.server import runtime as cli

ROOT = Path(__file__).resolve().parents[2]

_CHILD = """
import asyncio, gc, weakref
import sushigo.server.runtime as cli

class Node:
    def __init__(self):
        self.other = None

async def main():
    loop = asyncio.get_running_loop()
    cli.GC_SWEEP_SECONDS = 0.05
    cli.tune_gc(loop)
    base = gc.get_freeze_count()
    assert base > 0
    keep = [Node() for _ in range(1000)]
    gc.collect(0)  # a young collection freezes nothing
    assert gc.get_freeze_count() == base
    gc.collect(1)  # a middle one: its survivors are frozen, the oldest generation stays empty
    assert gc.get_freeze_count() >= base + 1000, (gc.get_freeze_count(), base)
    assert gc.get_count()[2] == 0 and len(gc.get_objects(2)) == 0
    a, b = Node(), Node()
    a.other, b.other = b, a
    gc.collect()  # the pair is alive: frozen with the rest
    freed = asyncio.Event()
    ref = weakref.ref(a, lambda _: freed.set())
    del a, b  # now cyclic garbage, frozen: only a sweep can free it
    assert gc.collect() == 0 and ref() is not None
    await asyncio.wait_for(freed.wait(), 10)
    assert gc.get_freeze_count() >= 1000  # the sweep froze the survivors again
    print("ok", len(keep))

asyncio.run(main())
"""


def test_survivors_are_frozen_and_sweeps_free_frozen_cycles() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD],
        check=False,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok 1000"


async def test_freed_memory_is_given_back_to_the_system_on_a_timer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(cli, "TRIM_SECONDS", 0.01)
    calls: list[int] = []
    twice = asyncio.Event()

    def trim(pad: int) -> int:
        calls.append(pad)
        if len(calls) == 2:
            twice.set()
        return 1

    cli.tidy_memory(asyncio.get_running_loop(), trim)
    await asyncio.wait_for(twice.wait(), 5)
    assert calls[:2] == [0, 0]  # everything free given back, again and again
    if sys.platform.startswith("linux"):
        assert cli.malloc_trim() is not None
