"""What the server counts for its operators, in plain numbers (sans-IO, no metrics library).

The core (`server.hub.core` and what it calls) and the adapter add to one `Stats` as things happen:
an attribute increment per frame, a dict entry per turn. Nothing here formats or exports;
`server.net.metrics` (the adapter's layer) reads these numbers when Prometheus scrapes, together
with what is counted by looking (connections, sessions, tables). So the hot path pays a few
nanoseconds per event, and the core never imports prometheus_client.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable


def _one_two_five(first: int, last: int) -> tuple[float, ...]:
    """1, 2.5 and 5 times each power of ten from 10**first to 10**last: buckets as Prometheus'
    own defaults space them."""
    return tuple(round(m * 10.0**e, 12) for e in range(first, last + 1) for m in (1, 2.5, 5))


TURN_LATENCY_BOUNDS: tuple[float, ...] = (*_one_two_five(-3, 0), 10.0, 30.0, 60.0)
"""Upper bounds (seconds) of the buckets of a turn's latency, from its last commitment to its
result: a few milliseconds with bots on a quiet server, a person's reveal round trip (fractions
of a second), up to a turn timer's auto-pick."""
STORAGE_WRITE_BOUNDS: tuple[float, ...] = (*_one_two_five(-4, -1), 1.0, 5.0)
"""Upper bounds (seconds) of the buckets of a storage write's latency: from a batch's writes
being handed to the storage to their being durable (an SQLite commit takes microseconds, a
PostgreSQL one a round trip; an outage seconds)."""


class Histogram:
    """Counts of observed values per bucket, and their sum (what a Prometheus histogram
    exports). `counts[i]` counts the values in ``(bounds[i-1], bounds[i]]``; the last, those
    above every bound."""

    __slots__ = ("bounds", "counts", "sum")

    def __init__(self, bounds: Iterable[float]) -> None:
        self.bounds = tuple(bounds)
        self.counts = [0] * (len(self.bounds) + 1)
        self.sum = 0.0

    def observe(self, value: float) -> None:
        """Count one value."""
        self.counts[bisect_left(self.bounds, value)] += 1
        self.sum += value

    @property
    def count(self) -> int:
        """Values observed."""
        return sum(self.counts)

    def cumulative(self) -> list[tuple[float, int]]:
        """``(upper bound, values at or below it)`` per bucket, the last bound infinity."""
        out: list[tuple[float, int]] = []
        total = 0
        for bound, count in zip((*self.bounds, float("inf")), self.counts, strict=True):
            total += count
            out.append((bound, total))
        return out


class Stats:
    """The server's counters since it started. Each only ever grows (Prometheus counters);
    what goes up and down (connections, tables) is read off the server when scraped."""

    __slots__ = (
        "bot_takeovers",
        "bytes_in",
        "bytes_out",
        "chat_messages",
        "connections_opened",
        "errors",
        "frames_in",
        "frames_out",
        "games_finished",
        "rejected",
        "resumes",
        "storage_write",
        "turn_latency",
        "turns",
    )

    def __init__(self) -> None:
        self.frames_in = 0
        """Frames received that the protocol read (whole, well-formed or refused)."""
        self.frames_out = 0
        """Frames written to clients (by the adapter)."""
        self.bytes_in = 0
        """Bytes received from clients (by the adapter; TLS records excluded)."""
        self.bytes_out = 0
        """Bytes written to clients (by the adapter)."""
        self.connections_opened = 0
        """Connections admitted."""
        self.rejected: dict[str, int] = {}
        """Connections refused, by reason (`server.sessions.limits.Limits.admit`'s keys, and ``tls``
        for a failed TLS handshake)."""
        self.errors: dict[int, int] = {}
        """ERROR frames sent to clients, by error code (fatal ones included)."""
        self.turns: dict[str, int] = {}
        """Steps played to their end, by game kind (a secret step, or an open step's turn)."""
        self.turn_latency: dict[str, Histogram] = {}
        """Per game kind with secret steps: seconds from a step's last commitment to its
        result (the reveals' round trip, and the server's own work)."""
        self.games_finished: dict[str, int] = {}
        """Games played to their end, by kind."""
        self.resumes = 0
        """Sessions resumed (after a drop, or a restart)."""
        self.bot_takeovers: dict[tuple[str, str], int] = {}
        """Seats a bot took over, by (game kind, why: ``missed`` turns or ``left`` the game)."""
        self.chat_messages = 0
        """Chat messages accepted and passed on."""
        self.storage_write = Histogram(STORAGE_WRITE_BOUNDS)
        """Seconds from a batch of writes handed to the storage to their being durable (by the
        adapter, for the batches that held frames back)."""

    def count(self, counts: dict[str, int], key: str) -> None:
        """One more of `key` in `counts`."""
        counts[key] = counts.get(key, 0) + 1

    def error(self, code: int) -> None:
        """An ERROR with `code` was sent."""
        errors = self.errors
        errors[code] = errors.get(code, 0) + 1

    def turn_done(self, kind: str, since_commit: float | None) -> None:
        """A step of a `kind` game ended; `since_commit`: seconds since its last commitment (a
        secret step), else None."""
        turns = self.turns
        turns[kind] = turns.get(kind, 0) + 1
        if since_commit is not None:
            histogram = self.turn_latency.get(kind)
            if histogram is None:
                histogram = self.turn_latency[kind] = Histogram(TURN_LATENCY_BOUNDS)
            histogram.observe(since_commit)

    def takeover(self, kind: str, why: str) -> None:
        """A bot took a seat of a `kind` game over (`why`: ``missed`` or ``left``)."""
        key = (kind, why)
        self.bot_takeovers[key] = self.bot_takeovers.get(key, 0) + 1
