"""Bots by level, for people: easy, medium, hard and expert, each a built-in strategy of the game.

A person choosing an opponent thinks in how hard it plays, not in algorithms, so the terminal
client, quick games against bots and `scripts/play` offer levels; every other place that takes a
strategy name (`--strategy`, the arena, a table's `add_bot`) takes a level too. Each game names
the strategy spec behind each of its levels (its ``LEVELS``, `bots._door`), chosen from the
strength tables in docs/BENCHMARKS.md: each level beats the one below it in most games, and expert is the
strongest bot we have that still answers well within a second a move (a server bot thinks on the
server's event loop, so its budget is counted in iterations, never in time).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from ._base import StrategyError
from ._door import part

LEVELS: Final = ("easy", "medium", "hard", "expert")
"""The levels, weakest first."""

DEFAULT_LEVEL: Final = "medium"
"""The level offered first."""


def _specs(game: str) -> Mapping[str, str]:
    try:
        found = getattr(part(game), "LEVELS", None)
    except StrategyError:
        return {}
    return found if isinstance(found, Mapping) else {}


def levels(game: str) -> tuple[str, ...]:
    """The levels the game offers, weakest first (none for a game without level specs)."""
    specs = _specs(game)
    return tuple(level for level in LEVELS if level in specs)


def level_spec(level: str, game: str) -> str | None:
    """The strategy spec that plays `level` at `game`, or None when `level` is not one of its
    levels."""
    spec = _specs(game).get(level)
    return spec if isinstance(spec, str) else None
