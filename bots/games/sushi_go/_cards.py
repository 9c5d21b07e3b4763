"""Sushi Go!'s built-in strategies, by name (see docs/BOTS.md)."""

from __future__ import annotations

from sushigo.bots._lazy import LazyTable

CARD_BUILTIN = LazyTable(
    {
        "random": "sushigo.bots.games.sushi_go._simple:RandomStrategy",
        "greedy": "sushigo.bots.games.sushi_go._greedy:GreedyStrategy",
        "heuristic": "sushigo.bots.games.sushi_go._heuristic:HeuristicStrategy",
        "ismcts": "sushigo.bots.games.sushi_go._ismcts:IsmctsStrategy",
        "learned": "sushigo.bots._learned:LearnedStrategy",
    }
)
"""The card game's built-in strategies by name, each imported when first looked up (a run of
`random` never imports the search bots or the learned bot)."""
