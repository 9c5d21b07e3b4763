"""Rock-paper-scissors in the terminal client: its part there, ``REPLAY_DRAWER`` (no ``BOARD``:
the game is played on the plain board)."""

from __future__ import annotations

from typing import Any

from sushigo.client.tui.board import Fragments
from sushigo.client.tui.replay_draw import ReplayDrawer, joined

from .engine import BEATS, ROUNDS, RoundWon

SIGNS = {"rock": "✊", "paper": "✋", "scissors": "✌"}
"""Each throw's sign, before its name."""


class RpsDrawer(ReplayDrawer):
    """Each throw with its sign, and the round's winner in words."""

    def where(self) -> str:
        step = self.replay.step
        return super().where() if step is None else f"round {step.round} of {ROUNDS}"

    def action(self, action: Any) -> Fragments:
        return [("class:title", f"{SIGNS.get(str(action), '?')} {action}")]

    def happened(self) -> Fragments:
        lines = [super().happened()] if self.replay.index else []
        for event in self.replay.previous_events:
            if isinstance(event, RoundWon):
                lines.append(self._won(event))
        return joined([line for line in lines if line])

    def _won(self, event: RoundWon) -> Fragments:
        if event.winner is None:
            return [("class:log.dim", f"round {event.round}: a draw")]
        mine, theirs = event.throws[event.winner], event.throws[1 - event.winner]
        name = self.shell.name_of(event.winner)
        assert BEATS[mine] == theirs
        return [("class:log.name", name), ("", f" wins round {event.round}: {mine} beats {theirs}")]


REPLAY_DRAWER = RpsDrawer
