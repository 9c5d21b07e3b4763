"""A search bot's budget per decision, the same in every game: a number of iterations (the
default, so that a seed decides the game) or milliseconds measured with a clock the caller passes
in (`bots` never reads the time itself, DESIGN.md)."""

from __future__ import annotations

from collections.abc import Callable

Clock = Callable[[], float]
"""Seconds from any fixed point, e.g. `time.perf_counter`; injected by the caller."""


class SearchBudget:
    """The budget of a search strategy (a base class): `iterations` a decision, or with `ms`,
    that many milliseconds by `clock`. `ValueError` for a time that is not positive or that comes
    without a clock."""

    iterations: int
    seconds: float | None
    """The time budget a decision, in seconds; None: `iterations` is the budget."""
    clock: Clock | None

    def _set_budget(self, iterations: int, ms: float | None, clock: Clock | None) -> None:
        if ms is not None:
            if ms <= 0:
                raise ValueError(f"ms must be positive, got {ms}")
            if clock is None:
                raise ValueError("a time budget (ms) needs a clock: pass clock=time.perf_counter")
        self.iterations = iterations
        self.seconds = None if ms is None else ms / 1000
        self.clock = clock

    def _deadline(self) -> float | None:
        """When a decision begun now must be made, by `clock`; None under an iteration budget."""
        return None if self.seconds is None or self.clock is None else self.clock() + self.seconds

    def _spent(self, deadline: float | None, rounds: int, iterations: int) -> bool:
        """Whether a search that has run `rounds` rounds and `iterations` iterations toward
        `deadline` (`_deadline`) must stop: under a time budget it runs one round at least."""
        if deadline is not None:
            return rounds > 0 and self.clock is not None and self.clock() >= deadline
        return iterations >= self.iterations
