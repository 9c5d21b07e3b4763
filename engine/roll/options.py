"""Options of a Sushi Roll game: the player count (the game has no variants)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from sushigo.engine.errors import OptionsError

from .dice import DICE_PER_PLAYER, MAX_PLAYERS, MIN_PLAYERS


@dataclass(frozen=True, slots=True)
class RollOptions:
    """How a Sushi Roll game is set up. Invalid values raise `OptionsError`."""

    players: int = 4
    """Seats at the table, 2-5."""

    def __post_init__(self) -> None:
        if type(self.players) is not int or not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise OptionsError(
                f"players must be an integer from {MIN_PLAYERS} to {MAX_PLAYERS}, "
                f"got {self.players!r}"
            )

    @property
    def dice_per_player(self) -> int:
        """Dice each player draws onto their belt at the start of a round."""
        return DICE_PER_PLAYER[self.players]

    @property
    def tableaus(self) -> int:
        """Tableaus at the table (trays): one per seat."""
        return self.players

    def to_data(self) -> dict[str, Any]:
        """Plain data for msgpack or JSON."""
        return asdict(self)

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> RollOptions:
        """Options from `to_data` output; unknown keys are an error, missing ones take defaults."""
        if not isinstance(data, Mapping):
            raise OptionsError(f"options must be a map, got {type(data).__name__}")
        unknown = set(data) - {"players"}
        if unknown:
            raise OptionsError(f"unknown option(s): {', '.join(sorted(map(str, unknown)))}")
        return cls(**data)
