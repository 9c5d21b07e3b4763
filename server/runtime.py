"""The server process's tuning of its runtime: the open-file limit, the cyclic garbage
collector and the C allocator, so that thousands of players neither hit a limit nor wait on a
long pause."""

from __future__ import annotations

import asyncio
import ctypes
import gc
import resource
import sys
from collections.abc import Callable


def raise_fd_limit() -> int:
    """Raise the soft limit on open files to the hard limit (every connection is a file) and
    return the soft limit now. The usual soft default of 1024 would cap the server far below
    ``--max-connections``."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    # An unlimited hard limit (macOS) cannot be the soft one; take a large finite value instead.
    for want in (hard, 1 << 20, 65536, 10240):
        if want == resource.RLIM_INFINITY or (hard != resource.RLIM_INFINITY and want > hard):
            continue
        if want <= soft:
            break
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
        except (ValueError, OSError):
            continue
        return want
    return soft


GC_SWEEP_SECONDS = 600.0
"""How often the cyclic collector walks every object, frozen ones included (see `tune_gc`)."""


def tune_gc(loop: asyncio.AbstractEventLoop) -> None:
    """Keep the cyclic garbage collector's pauses short while thousands of players play.

    A full collection walks every tracked object: every session, table and game, a few hundred
    milliseconds with thousands of players, during which no table moves. So whatever survives a
    collection of the middle generation (it has lived through a dozen young collections) is
    frozen (`gc.freeze`): the oldest generation stays empty, and no collection walks the players'
    objects. Frozen objects still die by reference counting; only cyclic garbage among them would
    wait, and the server makes none as it plays (measured with scripts/bench_server.py; a closed
    connection's objects are unlinked by the adapter). As a safety net, every `GC_SWEEP_SECONDS`
    everything is unfrozen and walked once: the one long pause, a few hundred milliseconds with
    thousands of players.
    """
    gc.collect()
    gc.freeze()  # modules, keys and configuration: frozen for good, until the sweeps

    def frozen_after(phase: str, info: dict[str, int]) -> None:
        if phase == "stop" and info["generation"] >= 1:
            gc.freeze()

    def sweep() -> None:
        gc.unfreeze()
        gc.collect()  # freezes again when it stops
        loop.call_later(GC_SWEEP_SECONDS, sweep)

    gc.callbacks.append(frozen_after)
    loop.call_later(GC_SWEEP_SECONDS, sweep)


TRIM_SECONDS = 60.0
"""How often the C allocator is asked to give free memory back to the system (`tidy_memory`)."""


def tidy_memory(loop: asyncio.AbstractEventLoop, trim: Callable[[int], int] | None) -> None:
    """Every `TRIM_SECONDS`, give the memory freed since back to the system (glibc's
    ``malloc_trim``; `trim` None: not on this platform).

    Python frees its objects, but the C allocator keeps the pages they were on: after a crowd
    (or a flood) has gone, the server's resident memory would stay at its peak for good. A trim
    walks the allocator's free lists, about a millisecond for this server's heap."""
    if trim is None:
        return

    def tick() -> None:
        trim(0)
        loop.call_later(TRIM_SECONDS, tick)

    loop.call_later(TRIM_SECONDS, tick)


def malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None where there is none (macOS, musl, Windows)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        trim: Callable[[int], int] = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None
    return trim
