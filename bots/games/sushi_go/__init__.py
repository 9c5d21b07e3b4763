"""Sushi Go!'s strategies and what they share (card values, a seat's memory, rollouts, the
learned bot's search), the learned network's weights (`learned_go.npz`) and the game's research
environments' parts (`_pz_encoding`, `_pz_table`, `_spiel`).

As every game's folder in `bots`, it exposes the names `bots._door` lists. The strategies are
imported when first named (`_cards.CARD_BUILTIN`), so importing this folder imports nothing else.
"""

from ._cards import CARD_BUILTIN as STRATEGIES

LEVELS = {
    # 2 players: greedy beats random 80%; heuristic beats greedy 91%; ismcts at 100 iterations
    # beats heuristic 89%; at its default 300 (about 85 ms a move) it is the strongest.
    "easy": "greedy",
    "medium": "heuristic",
    "hard": "ismcts@iterations=100",
    "expert": "ismcts",
}
"""The strategy behind each level (`bots.levels`)."""

DEFAULT = "heuristic"
"""The strategy behind ``default``."""

PETTINGZOO = "sushigo.bots.games.sushi_go._pz_table:SushiGoTable"
"""Its `bots.pettingzoo` table."""

OPENSPIEL = "sushigo.bots.games.sushi_go._spiel"
"""The module that registers ``python_sushi_go`` with OpenSpiel."""

__all__ = ["DEFAULT", "LEVELS", "OPENSPIEL", "PETTINGZOO", "STRATEGIES"]
