"""Options of a Sushi Roll game: the player count (the game has no variants)."""

from __future__ import annotations

from dataclasses import dataclass

from sushigo.engine.rounds import TableOptions

from .dice import DICE_PER_PLAYER, MAX_PLAYERS, MIN_PLAYERS


@dataclass(frozen=True, slots=True)
class RollOptions(TableOptions):
    """How a Sushi Roll game is set up: `players`, 2-5. Invalid values raise `OptionsError`."""

    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS

    @property
    def dice_per_player(self) -> int:
        """Dice each player draws onto their belt at the start of a round."""
        return DICE_PER_PLAYER[self.players]
