"""The bots' door to the games (`engine.door.Door`): each game's strategies, levels and research
environments, by the game's kind.

A game's part here is the module of its folder (`bots.games.sushi_go`, `bots.games.sushi_roll`),
or for a plug-in the module (or object) its entry point in the group ``sushigo.bots`` names. It
exposes:

- ``STRATEGIES``: its built-in strategies, a mapping of names to classes (``random`` at least);
- ``LEVELS`` (optional): the strategy spec behind each level people choose from (`bots.LEVELS`:
  ``"easy"`` to ``"expert"``), such as ``{"hard": "ismcts@iterations=100"}``;
- ``DEFAULT`` (optional): the strategy behind ``default`` (server bots, auto-picks); without it,
  ``heuristic`` if the game has one, else its first;
- ``PETTINGZOO`` (optional): ``"module:Class"`` of its `bots.pettingzoo` table, made from the
  game's options (`SingleAgentEnv` plays any game that has one);
- ``OPENSPIEL`` (optional): the module that registers it with OpenSpiel when imported
  (`bots.openspiel`).

A game's folder is imported the first time its kind is asked for, and keeps its strategies' own
imports for when each is first named (`bots._lazy`).
"""

from __future__ import annotations

from typing import Any

from sushigo.engine import EngineError
from sushigo.engine.door import Door

from ._base import StrategyError

ENTRY_POINTS = "sushigo.bots"
"""The entry point group of plug-in games' bots (the entry point's name is the game's kind)."""

DOOR = Door(
    ENTRY_POINTS,
    {
        "sushi-go": "sushigo.bots.games.sushi_go",
        "sushi-roll": "sushigo.bots.games.sushi_roll",
    },
)
"""The built-in games' bots, by kind."""


def part(game: str) -> Any | None:
    """The bots' part of the game `game` (None: it has none installed); `StrategyError` naming a
    plug-in that fails to load."""
    try:
        return DOOR.part(game)
    except EngineError as exc:
        raise StrategyError(str(exc)) from None
