"""The `heuristic` strategy: expected-value card picks with card tracking."""

from __future__ import annotations

import random
from collections.abc import Sequence

from sushigo.engine import Action, Observation

from ._memory import SeatMemory
from ._values import ICONS, PUDDING, Context, Tuning, action_value, card_value

_TWO_PLAYER = Tuning(deny=0.35)
_MANY_PLAYERS = Tuning(deny=0.1)


class HeuristicStrategy:
    """Picks the action with the best expected points, from card values that look ahead.

    Each card is valued by what it should add to the final score (see
    `bots.games.sushi_go._values`): unfinished sets by the odds of completing them from the cards
    still unseen and the picks left, maki and pudding by the change in the races against every other
    tableau's projected total, wasabi by the nigiri likely to land on it, chopsticks by the picks
    left to use them. A small share of a card's value to the seat that receives this hand next is
    added (taking it denies it to them). With chopsticks it compares every pair against the best
    single card; controlling the dummy, it gives the dummy the card the opponent would want most.

    It remembers the hands it has seen passing (`SeatMemory`), so it knows which cards are still
    around. `tuning` overrides the value model's knobs (by default they depend on the player count).
    """

    name = "heuristic"

    def __init__(self, tuning: Tuning | None = None) -> None:
        self._tuning = tuning
        self._memory = SeatMemory()

    def reset(self) -> None:
        """Forget the previous game's cards."""
        self._memory.reset()

    def choose(
        self, observation: Observation, legal: Sequence[Action], rng: random.Random
    ) -> Action:
        """The legal action of highest value; ties broken at random."""
        self._memory.observe(observation)
        if len(legal) == 1:
            return legal[0]
        tuning = self._tuning or (_TWO_PLAYER if observation.players == 2 else _MANY_PLAYERS)
        ctx = Context(observation, self._memory, tuning)
        ranked = rank_actions(ctx, legal)
        top = ranked[0][0]
        best = [action for value, action in ranked if value > top - 1e-9]
        return best[rng.randrange(len(best))] if len(best) > 1 else best[0]


def rank_actions(ctx: Context, legal: Sequence[Action]) -> list[tuple[float, Action]]:
    """Every legal action with its heuristic value, best first (stable for equal values)."""
    me = ctx.seat
    n = ctx.views.players
    receiver = (me + ctx.views.pass_direction) % n
    deny = ctx.tuning.deny if receiver != me else 0.0
    own: dict[tuple[int, ...], float] = {}
    denial: dict[int, float] = {}
    dummy_t = n  # the dummy's tableau index, when there is one

    def deny_value(card: int) -> float:
        if card not in denial:
            denial[card] = card_value(ctx, receiver, card) if deny else 0.0
        return denial[card]

    scored: list[tuple[float, Action]] = []
    for action in legal:
        cards = (action.first,) if action.second is None else (action.first, action.second)
        if cards not in own:
            own[cards] = action_value(ctx, me, cards) + deny * sum(deny_value(c) for c in cards)
        value = own[cards]
        if action.dummy is not None:
            # The dummy's card leaves the hand the opponent gets next: deny them their best card,
            # but mind that maki and pudding given to the dummy also compete with us.
            d = int(action.dummy)
            value += 0.5 * deny_value(d) if deny else 0.0
            value -= 0.3 * max(0.0, card_value(ctx, dummy_t, d)) * _race_card(d)
        scored.append((value, action))
    scored.sort(key=lambda pair: -pair[0])
    return scored


def _race_card(card: int) -> int:
    """1 for the cards that only matter through races the dummy takes part in (maki, pudding)."""
    return 1 if ICONS[card] or card == PUDDING else 0
