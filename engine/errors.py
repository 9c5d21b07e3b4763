"""The exceptions every game's rules share. Each names what was wrong; the game state is unchanged
when one is raised. A game's own refusals extend these in its folder (`engine.games.sushi_go.errors`,
`engine.games.sushi_roll.errors`), so a caller that catches `EngineError` or `IllegalActionError`
handles every game alike."""

from __future__ import annotations


class EngineError(Exception):
    """Base of every error the engine raises for bad input."""


class OptionsError(EngineError, ValueError):
    """Game options that do not make a game (player count, a variant that needs 2 players, ...)."""


class RecordError(EngineError, ValueError):
    """A game record that is malformed, or whose actions are not legal when replayed."""


class GameOverError(EngineError):
    """An action was given to a game that has already ended."""


class IllegalActionError(EngineError):
    """An action that the rules do not allow for that seat now.

    `seat` is the offending seat (None when the problem is the set of actions as a whole).
    """

    def __init__(self, seat: int | None, message: str) -> None:
        super().__init__(message if seat is None else f"seat {seat}: {message}")
        self.seat = seat


class WrongSeatError(IllegalActionError):
    """Actions given for seats that do not exist, or missing for seats that must act."""


class MalformedActionError(IllegalActionError):
    """Not an action of the game at all (of the wrong type, or malformed)."""
