"""Bots by level, for people: easy, medium, hard and expert, each a built-in strategy of the game.

A person choosing an opponent thinks in how hard it plays, not in algorithms, so the terminal
client, quick games against bots and `scripts/play` offer levels; every other place that takes a
strategy name (`--strategy`, the arena, a table's `add_bot`) takes a level too. Each level is the
strategy spec below, chosen from the strength tables in docs/BOTS.md: each level beats the one
below it in most games, and expert is the strongest bot we have that still answers well within a
second a move (a server bot thinks on the server's event loop, so its budget is counted in
iterations, never in time).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

LEVELS: Final = ("easy", "medium", "hard", "expert")
"""The levels, weakest first."""

DEFAULT_LEVEL: Final = "medium"
"""The level offered first."""

_SPECS: Final[Mapping[str, Mapping[str, str]]] = {
    # 2 players: greedy beats random 80%; heuristic beats greedy 91%; ismcts at 100 iterations
    # beats heuristic 89%; at its default 300 (about 85 ms a move) it is the strongest.
    "sushi-go": {
        "easy": "greedy",
        "medium": "heuristic",
        "hard": "ismcts@iterations=100",
        "expert": "ismcts",
    },
    # ismcts at its default 160 iterations wins 89% of 2-player games against heuristic; at half
    # that budget it is a step below.
    "sushi-roll": {
        "easy": "greedy",
        "medium": "heuristic",
        "hard": "ismcts@iterations=60",
        "expert": "ismcts",
    },
}


def levels(game: str) -> tuple[str, ...]:
    """The levels the game offers, weakest first (none for a game without level specs)."""
    specs = _SPECS.get(game)
    return tuple(level for level in LEVELS if specs and level in specs)


def level_spec(level: str, game: str) -> str | None:
    """The strategy spec that plays `level` at `game`, or None when `level` is not one of its
    levels."""
    return _SPECS.get(game, {}).get(level)
