"""The terminal client's door to the games (`engine.door.Door`): each game's board and replay
drawer, by the game's kind.

A game's part here is the module of its folder (`client.tui.games.sushi_go`,
`client.tui.games.sushi_roll`), or for a plug-in the module (or object) its entry point in the
group ``sushigo.tui`` names. It may expose ``BOARD`` (a `board.Board` subclass: how the game looks
and is played in the terminal) and ``REPLAY_DRAWER`` (a `replay_draw.ReplayDrawer` subclass: how
a finished game looks in the replay viewer). A game without them, or not installed here at all,
gets the plain ones: the observation's fields and a numbered menu of the legal actions in the
rules' words, so any installed game is playable and replayable, if plainly.
"""

from __future__ import annotations

from typing import Any

from sushigo.client.tui.board import Board
from sushigo.client.tui.replay_draw import ReplayDrawer
from sushigo.client.tui.replay_state import Replay
from sushigo.engine import EngineError
from sushigo.engine.door import Door

__all__ = ["DOOR", "ENTRY_POINTS", "board_class", "drawer_class", "drawer_for"]

ENTRY_POINTS = "sushigo.tui"
"""The entry point group of plug-in games' terminal parts (name: the game's kind)."""

DOOR = Door(
    ENTRY_POINTS,
    {
        "sushi-go": "sushigo.client.tui.games.sushi_go",
        "sushi-roll": "sushigo.client.tui.games.sushi_roll",
    },
)
"""The built-in games' boards and drawers, by kind."""


def _named(kind: str, name: str, base: type[Any]) -> Any:
    try:
        found = getattr(DOOR.part(kind), name, None)
    except EngineError:
        return base  # a broken plug-in: the game is still playable on the plain board
    return found if isinstance(found, type) and issubclass(found, base) else base


def board_class(kind: str) -> type[Board]:
    """The board of the game `kind`: its own if it has one, else the plain `Board`."""
    found: type[Board] = _named(kind, "BOARD", Board)
    return found


def drawer_class(kind: str) -> type[ReplayDrawer]:
    """The replay drawer of the game `kind`: its own if it has one, else the plain one."""
    found: type[ReplayDrawer] = _named(kind, "REPLAY_DRAWER", ReplayDrawer)
    return found


def drawer_for(replay: Replay) -> ReplayDrawer:
    """The drawer of the replay's game, drawing through the game's board."""
    kind = replay.record.game
    return drawer_class(kind)(replay, board_class(kind))
