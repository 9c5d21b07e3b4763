"""Sushi Go!, the card game's rules: cards, actions, legal sets, scoring, observations, events,
records and the game. `sushigo.engine` re-exports its public names.

As every game's folder in the engine, it exposes ``RULES``, its `engine.api.Rules` (`engine.games`).
"""

from .rules import SUSHI_GO as RULES

__all__ = ["RULES"]
