"""Game options: player count and variants, chosen when a game is created."""

from __future__ import annotations

from dataclasses import dataclass

from sushigo.engine.errors import OptionsError
from sushigo.engine.rounds import TableOptions

from .cards import DUMMY_HAND_SIZE, HAND_SIZES

MIN_PLAYERS, MAX_PLAYERS = 2, 5


@dataclass(frozen=True, slots=True)
class GameOptions(TableOptions):
    """How a Sushi Go! game is set up: `players`, 2-5 (the dummy of the two-player variant is not
    a seat), and the variants. Invalid combinations raise `OptionsError`."""

    pass_both_ways: bool = False
    """Rounds 1 and 3 pass left, round 2 passes right."""
    dummy: bool = False
    """Two-player dummy variant: three hands of 9, the dummy controlled by alternating players."""
    soy_sauce: bool = False
    """Adds the soy sauce promo cards to the deck."""

    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS

    def __post_init__(self) -> None:
        TableOptions.__post_init__(self)  # (zero-argument super() fails in a slotted dataclass)
        for name in ("pass_both_ways", "dummy", "soy_sauce"):
            if type(getattr(self, name)) is not bool:
                raise OptionsError(f"{name} must be true or false, got {getattr(self, name)!r}")
        if self.dummy and self.players != 2:
            raise OptionsError(f"the dummy variant needs exactly 2 players, not {self.players}")

    @property
    def hand_size(self) -> int:
        """Cards dealt to each hand at the start of a round."""
        return DUMMY_HAND_SIZE if self.dummy else HAND_SIZES[self.players]

    @property
    def tableaus(self) -> int:
        """Tableaus at the table: one per seat, plus the dummy's."""
        return self.players + 1 if self.dummy else self.players

    def variants(self) -> tuple[str, ...]:
        """The names of the variants that are on, in a fixed order."""
        return tuple(
            name for name in ("pass_both_ways", "dummy", "soy_sauce") if getattr(self, name)
        )
