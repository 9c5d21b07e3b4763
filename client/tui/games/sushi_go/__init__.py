"""Sushi Go! in the terminal client: how cards look (`cards`), the board's state (`card_state`),
its drawing (`card_board`) and the replay viewer's drawer (`card_replay`).

As every game's folder in the terminal client, it exposes ``BOARD`` and ``REPLAY_DRAWER``
(`client.tui.games`).
"""

from .card_board import CardBoard as BOARD
from .card_replay import CardDrawer as REPLAY_DRAWER

__all__ = ["BOARD", "REPLAY_DRAWER"]
