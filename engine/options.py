"""Game options: player count and variants, chosen when a game is created."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from .cards import DUMMY_HAND_SIZE, HAND_SIZES
from .errors import OptionsError

MIN_PLAYERS, MAX_PLAYERS = 2, 5


@dataclass(frozen=True, slots=True)
class GameOptions:
    """How a Sushi Go! game is set up. Invalid combinations raise `OptionsError`."""

    players: int = 4
    """Seats at the table, 2-5 (the dummy of the two-player variant is not a seat)."""
    pass_both_ways: bool = False
    """Rounds 1 and 3 pass left, round 2 passes right."""
    dummy: bool = False
    """Two-player dummy variant: three hands of 9, the dummy controlled by alternating players."""
    soy_sauce: bool = False
    """Adds the soy sauce promo cards to the deck."""

    def __post_init__(self) -> None:
        if type(self.players) is not int or not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise OptionsError(
                f"players must be an integer from {MIN_PLAYERS} to {MAX_PLAYERS}, "
                f"got {self.players!r}"
            )
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

    def to_data(self) -> dict[str, Any]:
        """Plain data for msgpack or JSON."""
        return asdict(self)

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> GameOptions:
        """Options from `to_data` output; unknown keys are an error, missing ones take defaults."""
        if not isinstance(data, Mapping):
            raise OptionsError(f"options must be a map, got {type(data).__name__}")
        unknown = set(data) - {"players", "pass_both_ways", "dummy", "soy_sauce"}
        if unknown:
            raise OptionsError(f"unknown option(s): {', '.join(sorted(map(str, unknown)))}")
        return cls(**data)
