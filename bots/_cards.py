"""Sushi Go!'s built-in strategies, by name (see docs/BOTS.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._heuristic import HeuristicStrategy
from ._ismcts import IsmctsStrategy
from ._learned import LearnedStrategy
from ._simple import GreedyStrategy, RandomStrategy

CARD_BUILTIN: dict[str, Callable[..., Any]] = {
    "random": RandomStrategy,
    "greedy": GreedyStrategy,
    "heuristic": HeuristicStrategy,
    "ismcts": IsmctsStrategy,
    "learned": LearnedStrategy,
}
"""The card game's built-in strategies by name."""
