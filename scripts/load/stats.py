"""What a client process is told (`Settings`) and what it reports back (`Stats`, sent to the
parent as plain data)."""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Settings:
    """What every client worker needs to know."""

    port: int
    mode: str
    pick_seconds: float
    start: float
    """Wall-clock time (time.time()) the run started; the per-second samples count from it."""
    duration: float
    ramp_seconds: float
    strict: bool
    barrier: bool
    """Log every seat in before any quick matches."""
    seed: int
    start_seconds: float = 0.0
    """After the barrier: spread the seats' first quick matches over this long (0: at once)."""
    ports: tuple[int, ...] = ()
    """A cluster's nodes (``--nodes``): each group of four seats connects to one, in turn."""
    web: bool = False
    """The seats connect over WebSocket (``--web``): `port` is the server's web port."""


@dataclass
class Stats:
    """One worker's figures, sent back to the parent as plain data."""

    connected: int = 0
    games: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    latencies: array[float] = field(default_factory=lambda: array("d"))
    latency_at: array[float] = field(default_factory=lambda: array("d"))
    """When each latency sample was taken, in seconds after the start."""
    results_per_second: list[int] = field(default_factory=list)
    open_per_second: list[int] = field(default_factory=list)
    all_connected_at: float | None = None
    """Seconds after the start when this worker's last seat logged in."""
    logged_in: int = 0
    last_message: dict[str, int] = field(default_factory=dict)
    """How many seats last received each message type (where the stragglers are)."""
    cpu_seconds: float = 0.0
    """CPU time the worker process used."""
    back: array[float] = field(default_factory=lambda: array("d"))
    """Seconds from a seat's connection dying with its node to its next TURN_RESULT."""
    dropped: int = 0
    """Seats whose connection died with its node (``--kill-node-after``)."""
    killed_tables: dict[str, str] = field(default_factory=dict)
    """Each table whose seats lost their node: "lost" (no seat back yet), "back" (a seat played
    again) or "finished" (its game ended after the kill: it was not lost)."""
    lag: array[float] = field(default_factory=lambda: array("d"))
    """How late the worker's 100 ms sampler woke, each time (its event loop's lag: time that
    counts into the measured latency without being the server's)."""
    joined: array[float] = field(default_factory=lambda: array("d"))
    """Seconds from a seat's QUICK_MATCH to its TABLE_JOINED (redirects followed included)."""
    between: array[float] = field(default_factory=lambda: array("d"))
    """Seconds from a seat's GAME_OVER to its next GAME_STARTING: the time between games."""

    def error(self, what: str) -> None:
        self.errors[what] = self.errors.get(what, 0) + 1

    def to_data(self) -> dict[str, Any]:
        return {
            "connected": self.connected,
            "games": self.games,
            "errors": self.errors,
            "latencies": self.latencies.tobytes(),
            "latency_at": self.latency_at.tobytes(),
            "results_per_second": self.results_per_second,
            "open_per_second": self.open_per_second,
            "all_connected_at": self.all_connected_at,
            "logged_in": self.logged_in,
            "last_message": self.last_message,
            "cpu_seconds": self.cpu_seconds,
            "lag": self.lag.tobytes(),
            "joined": self.joined.tobytes(),
            "between": self.between.tobytes(),
            "back": self.back.tobytes(),
            "dropped": self.dropped,
            "killed_tables": self.killed_tables,
        }
