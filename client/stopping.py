"""A clean stop on SIGTERM for the client's commands that run a coroutine (`sushigo-bot`,
`sushigo-tournament`, `sushigo-admin`, and `sushigo-replay`'s fetch): a supervisor or `kill`
stops one as Ctrl-C does, and it exits 0 after one line ``PROG: stopped`` (README, "Exit
codes"; the server and the terminal client handle SIGTERM themselves)."""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import Awaitable

STOPPED = 0
"""The exit code after a SIGTERM: a clean stop, as the server's."""


async def stoppable(prog: str, job: Awaitable[int]) -> int:
    """`job`'s exit code; or `STOPPED` once a SIGTERM cancelled it (so it leaves what it is in,
    a quick match's queue say, and closes its connection), saying so on stderr. Ctrl-C is left
    to `asyncio.run`, which raises KeyboardInterrupt for it."""
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    assert task is not None
    stopped = False

    def stop() -> None:
        nonlocal stopped
        stopped = True
        task.cancel()

    try:
        loop.add_signal_handler(signal.SIGTERM, stop)
    except (ValueError, RuntimeError):  # a loop outside the main thread: no signal is ours
        return await job
    try:
        return await job
    except asyncio.CancelledError:
        if not stopped:
            raise
        task.uncancel()
        print(f"{prog}: stopped", file=sys.stderr)
        return STOPPED
    finally:
        loop.remove_signal_handler(signal.SIGTERM)
