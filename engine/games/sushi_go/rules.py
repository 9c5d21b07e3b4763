"""Sushi Go!'s rules as the layers above see every game (`engine.api.Rules`): `SUSHI_GO`."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sushigo.engine.api import ValueRules, check_variants
from sushigo.engine.rounds import RoundScored

from .actions import Action
from .game import Game
from .options import MAX_PLAYERS, MIN_PLAYERS, GameOptions

KIND = "sushi-go"
VARIANTS = ("pass_both_ways", "dummy", "soy_sauce")
"""The card game's variants, as `GameOptions` names them (docs/RULES.md)."""


class SushiGoRules(ValueRules):
    """`engine.api.Rules` of Sushi Go!: simultaneous secret picks, three rounds of cards."""

    kind = KIND
    title = "Sushi Go!"
    players = range(MIN_PLAYERS, MAX_PLAYERS + 1)
    variants = VARIANTS
    secret = True
    options_type = GameOptions
    game_type = Game
    round_scored = RoundScored

    def options(self, players: int, variants: Iterable[str] = ()) -> GameOptions:
        """`GameOptions` for `players` with the named variants on (`OptionsError` otherwise)."""
        on = check_variants(self.kind, VARIANTS, variants)
        return GameOptions(players, *(name in on for name in VARIANTS))

    def describe_options(self, options: GameOptions) -> tuple[int, tuple[str, ...]]:
        """(players, variants on)."""
        return options.players, options.variants()

    def action_from_data(self, data: Any) -> Action:
        """`Action.from_data`."""
        return Action.from_data(data)


SUSHI_GO = SushiGoRules()
"""The rules of Sushi Go!."""
