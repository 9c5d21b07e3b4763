"""A node's wall clock, set to the database's: the times one node of a cluster writes and another
reads (a resume token's end, a sanction's, a record's finish) are of one clock, so nodes whose
clocks differ by seconds behave the same (docs/ARCHITECTURE.md, "The cluster")."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Final

__all__ = ["CLOCK_SLACK_MS", "WallClock"]

CLOCK_SLACK_MS: Final = 100
"""The difference from the database's clock a node's wall clock lets be (`WallClock.align`)."""


class WallClock:
    """A node's wall clock in milliseconds, set to the database's (`offset_ms` added): every
    time a node writes that another reads (a token's end, a sanction's, a record's finish) is
    of one clock, so nodes whose clocks differ by seconds behave the same. A lone server's
    offset stays 0. `now_ns` is the machine's clock (tests pass their own)."""

    def __init__(self, now_ns: Callable[[], int] = time.time_ns) -> None:
        self.now_ns = now_ns
        self.offset_ms = 0

    def __call__(self) -> int:
        return self.now_ns() // 1_000_000 + self.offset_ms

    async def align(self, conn: Any) -> None:
        """Measure the database's clock against this one (to within half a round trip). Moves
        of less than `CLOCK_SLACK_MS` are jitter, not a clock that stepped: they are not
        followed, so this clock does not wander back and forth."""
        before = self.now_ns()
        theirs = await conn.fetchval(
            "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint"
        )
        after = self.now_ns()
        offset = int(theirs) - (before + after) // 2_000_000
        if abs(offset - self.offset_ms) > CLOCK_SLACK_MS:
            self.offset_ms = offset
