"""A table's phases and the one table of moves between them (STYLE.md item 4)."""

from __future__ import annotations

from enum import StrEnum


class TablePhase(StrEnum):
    """Where a table's game is."""

    OPEN = "open"
    """No game yet: seats are being taken."""
    SEEDING = "seeding"
    """GAME_STARTING sent; collecting every seat's seed."""
    COMMITTING = "committing"
    """A secret step's TURN_START sent; collecting commitments."""
    REVEALING = "revealing"
    """COMMITMENTS sent; collecting reveals."""
    MOVING = "moving"
    """An open step's TURN_START sent: its seat acts until its turn is over."""
    OVER = "over"
    """The game ended; the host may start another."""


TRANSITIONS: dict[tuple[TablePhase, str], TablePhase] = {
    (TablePhase.OPEN, "start"): TablePhase.SEEDING,
    (TablePhase.OVER, "start"): TablePhase.SEEDING,
    (TablePhase.SEEDING, "secret_step"): TablePhase.COMMITTING,
    (TablePhase.SEEDING, "open_step"): TablePhase.MOVING,
    (TablePhase.COMMITTING, "committed"): TablePhase.REVEALING,
    (TablePhase.REVEALING, "secret_step"): TablePhase.COMMITTING,
    (TablePhase.REVEALING, "open_step"): TablePhase.MOVING,
    (TablePhase.REVEALING, "game_over"): TablePhase.OVER,
    # An open step's seat acts any number of times; the next step may be either kind.
    (TablePhase.MOVING, "open_step"): TablePhase.MOVING,
    (TablePhase.MOVING, "secret_step"): TablePhase.COMMITTING,
    (TablePhase.MOVING, "game_over"): TablePhase.OVER,
}
"""Every legal (phase, event) -> phase of a table."""

IN_GAME = frozenset(
    {TablePhase.SEEDING, TablePhase.COMMITTING, TablePhase.REVEALING, TablePhase.MOVING}
)
"""The phases of a game in progress."""
COMMITTING, REVEALING, MOVING = TablePhase.COMMITTING, TablePhase.REVEALING, TablePhase.MOVING
"""As module constants, for the hot path (an enum's class attribute is slow in Python 3.11)."""
