"""Sushi Roll in the terminal client: how dice look (`dice`), a turn's keys (`roll`), the board's
state (`roll_state`), its drawing (`roll_board`) and the replay viewer's drawer (`roll_replay`).

As every game's folder in the terminal client, it exposes ``BOARD`` and ``REPLAY_DRAWER``
(`client.tui.games`).
"""

from .roll_board import RollBoard as BOARD
from .roll_replay import RollDrawer as REPLAY_DRAWER

__all__ = ["BOARD", "REPLAY_DRAWER"]
