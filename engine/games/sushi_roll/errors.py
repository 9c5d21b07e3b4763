"""Errors of the dice game. Each names what was wrong; the game is unchanged when one is raised.

They extend the card game's hierarchy (`engine.errors`), so a caller that catches `EngineError` or
`IllegalActionError` handles both games alike. The card game's `GameOverError`, `WrongSeatError`,
`MalformedActionError`, `OptionsError` and `RecordError` are reused as they are.
"""

from __future__ import annotations

from sushigo.engine.errors import IllegalActionError


class NotYourTurnError(IllegalActionError):
    """An action from a seat that is not the one to move (play is sequential in Sushi Roll)."""


class AlreadyTakenError(NotYourTurnError):
    """A second take by a seat that has already taken its die this cycle."""


class NoTokenError(IllegalActionError):
    """A menu or chopsticks action without a usable token of that kind.

    `token` is ``"menu"`` or ``"chopsticks"``.
    """

    def __init__(self, seat: int | None, token: str, message: str) -> None:
        super().__init__(seat, message)
        self.token = token


class BadPositionError(IllegalActionError):
    """A belt position that holds no die, or a re-roll subset that is empty, unsorted or repeats a
    position."""


class BadTargetError(IllegalActionError):
    """A swap whose other seat is not another player with dice on their belt."""
