"""Sushi Roll's rules as the layers above see every game (`engine.api.Rules`): `SUSHI_ROLL`."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sushigo.engine.api import ValueRules, check_variants
from sushigo.engine.rounds import RoundScored

from .actions import RollAction, action_from_data
from .dice import MAX_PLAYERS, MIN_PLAYERS
from .events import Taken
from .game import RollGame
from .options import RollOptions

KIND = "sushi-roll"


class SushiRollRules(ValueRules):
    """`engine.api.Rules` of Sushi Roll: one seat moves at a time, in the open; no variants."""

    kind = KIND
    title = "Sushi Roll"
    step_word = "cycle"
    players = range(MIN_PLAYERS, MAX_PLAYERS + 1)
    variants = ()
    secret = False
    options_type = RollOptions
    game_type = RollGame
    round_scored = RoundScored

    def options(self, players: int, variants: Iterable[str] = ()) -> RollOptions:
        """`RollOptions` for `players` (`OptionsError` for any variant: the game has none)."""
        check_variants(self.kind, (), variants)
        return RollOptions(players)

    def describe_options(self, options: RollOptions) -> tuple[int, tuple[str, ...]]:
        """(players, no variants)."""
        return options.players, ()

    def describe_event(self, event: Any) -> str | None:
        """A die taken, or a round's scores."""
        if isinstance(event, Taken):
            return f"seat {event.seat + 1} took {event.die.describe()}"
        return super().describe_event(event)

    def action_from_data(self, data: Any) -> RollAction:
        """`engine.games.sushi_roll.action_from_data`."""
        return action_from_data(data)


SUSHI_ROLL = SushiRollRules()
"""The rules of Sushi Roll."""
