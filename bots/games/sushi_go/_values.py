"""Card values for the greedy and heuristic strategies: expected points of taking a card now.

A card's value is what it adds to its owner's final score, in expectation over how the rest of the
round may go. Sets that are not complete yet are worth their points times the odds of completing
them; those odds come from how many cards of the kind are still around (from the seat's memory of
unseen cards) and how many picks are left. Maki and pudding are races, so their value is the change
in the race's expected payout against the other tableaus' projected totals.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sushigo.engine import Card, Observation, score_puddings
from sushigo.engine.games.sushi_go import cards as rules

from ._memory import Counts, SeatMemory, counts_of

TEMPURA, SASHIMI, DUMPLING = int(Card.TEMPURA), int(Card.SASHIMI), int(Card.DUMPLING)
MAKI1, MAKI2, MAKI3 = int(Card.MAKI1), int(Card.MAKI2), int(Card.MAKI3)
EGG, SALMON, SQUID = int(Card.EGG), int(Card.SALMON), int(Card.SQUID)
WASABI, CHOPSTICKS = int(Card.WASABI), int(Card.CHOPSTICKS)
PUDDING, SOY = int(Card.PUDDING), int(Card.SOY_SAUCE)
ICONS = [rules.MAKI_ICONS.get(Card(k), 0) for k in range(rules.NUM_KINDS)]
NIGIRI = [rules.NIGIRI_POINTS.get(Card(k), 0) for k in range(rules.NUM_KINDS)]
_FAMILY = [0, 1, 2, 3, 3, 3, 4, 4, 4, 4, 5, 6, 7]
"""Soy sauce colour family per kind (engine.games.sushi_go.cards.COLOUR_FAMILIES as small ints)."""
_SMOOTH = ((-2.0, 1.0), (-1.0, 2.0), (0.0, 3.0), (1.0, 2.0), (2.0, 1.0))
"""Offsets and weights that blur a race's projected totals, so a race has no cliff edges."""


@dataclass(frozen=True, slots=True)
class Tuning:
    """The knobs of the value model (found by arena runs against the other strategies)."""

    supply: float = 0.45
    """Share of the cards of a kind passing through a seat's hands that it can expect to get."""
    chopsticks: float = 0.8
    """Points per remaining pick (beyond the first two) a ready chopsticks card is worth."""
    maki_share: float = 0.5
    """Share of the maki icons still in the hands that a tableau is projected to get."""
    pudding_weight: float = 1.0
    """Multiplier on the pudding race's value."""
    deny: float = 0.0
    """Weight on a card's value to the seat the hand goes to next (hate-drafting)."""


@dataclass(slots=True)
class TableauState:
    """One tableau's this-round state, as the value model needs it."""

    counts: Counts
    open_wasabi: int
    chopsticks_ready: bool
    puddings: int
    score: int

    def copy(self) -> TableauState:
        """An independent copy."""
        return TableauState(
            list(self.counts), self.open_wasabi, self.chopsticks_ready, self.puddings, self.score
        )

    def add(self, card: int) -> None:
        """Play `card` into this tableau."""
        self.counts[card] += 1
        if card == WASABI:
            self.open_wasabi += 1
        elif NIGIRI[card] and self.open_wasabi:
            self.open_wasabi -= 1
        elif card == PUDDING:
            self.puddings += 1

    @property
    def icons(self) -> int:
        """Maki icons this round."""
        c = self.counts
        return c[MAKI1] + 2 * c[MAKI2] + 3 * c[MAKI3]


class Context:
    """Everything the value model needs about one decision, computed once per turn."""

    __slots__ = (
        "density",
        "in_hands",
        "n",
        "picks_left",
        "pool_pudding",
        "rounds_left",
        "seat",
        "tableaus",
        "tuning",
        "views",
    )

    def __init__(self, obs: Observation, memory: SeatMemory | None, tuning: Tuning) -> None:
        assert obs.seat is not None
        self.tuning = tuning
        self.seat = obs.seat
        self.n = len(obs.tableaus)
        self.tableaus = [
            TableauState(counts_of(v.cards), v.open_wasabi, v.chopsticks_ready, v.puddings, v.score)
            for v in obs.tableaus
        ]
        # Picks this seat makes after this one, this round.
        self.picks_left = obs.options.hand_size - obs.turn
        self.rounds_left = rules.ROUNDS - obs.round
        # Expected cards of each kind in all hands now: the known ones, plus the unknown ones
        # spread over the kinds in proportion to the unseen cards.
        in_hands = [0.0] * rules.NUM_KINDS
        unknown = 0
        if memory is not None and memory.last is obs:
            for hand in memory.hands:
                unknown += hand.unknown
                for k in range(rules.NUM_KINDS):
                    in_hands[k] += hand.known[k]
            unseen = memory.unseen()
        else:
            for k in obs.hand:
                in_hands[k] += 1
            unknown = sum(v.hand_size for v in obs.tableaus[: obs.players]) - len(obs.hand)
            unseen = _unseen_without_memory(obs)
        total_unseen = sum(unseen) or 1
        for k in range(rules.NUM_KINDS):
            in_hands[k] += unknown * unseen[k] / total_unseen
        self.in_hands = in_hands
        cards = sum(in_hands) or 1.0
        self.density = [x / cards for x in in_hands]
        self.pool_pudding = unseen[PUDDING] / total_unseen
        self.views = obs

    # -- supply ------------------------------------------------------------------------------

    def expected_more(self, kind: int, picks: int | None = None) -> float:
        """Expected further cards of `kind` the seat can get in its remaining picks."""
        t = self.picks_left if picks is None else picks
        if t <= 0:
            return 0.0
        hand = self.picks_left + 1
        # Cards passing through the seat's hands over its remaining turns (hands shrink by one a
        # turn), of which it gets a share: others want the same cards, and it has one pick a turn.
        passing = t * hand - t * (t + 1) / 2
        return min(float(t), self.tuning.supply * self.density[kind] * passing)

    def odds(self, kind: int, need: int) -> float:
        """Probability of getting at least `need` more cards of `kind` this round (Poisson)."""
        if need <= 0:
            return 1.0
        if self.picks_left < need:
            return 0.0
        lam = self.expected_more(kind)
        term = math.exp(-lam)
        below = term
        for i in range(1, need):
            term *= lam / i
            below += term
        return max(0.0, 1.0 - below)


def card_value(ctx: Context, t: int, card: int, state: TableauState | None = None) -> float:
    """Expected points tableau `t` gains by taking `card` now (its state: `state` or the current)."""
    s = ctx.tableaus[t] if state is None else state
    c = s.counts
    if card == TEMPURA:
        return (
            float(rules.TEMPURA_POINTS)
            if c[TEMPURA] % 2
            else rules.TEMPURA_POINTS * ctx.odds(TEMPURA, 1)
        )
    if card == SASHIMI:
        need = 2 - c[SASHIMI] % 3
        return rules.SASHIMI_POINTS * ctx.odds(SASHIMI, need)
    if card == DUMPLING:
        return _dumpling_value(ctx, c[DUMPLING])
    if NIGIRI[card]:
        return float(NIGIRI[card] * (3 if s.open_wasabi else 1))
    if card == WASABI:
        return _wasabi_value(ctx, s.open_wasabi)
    if card == CHOPSTICKS:
        extra = ctx.picks_left - 2
        return 0.0 if extra <= 0 or s.chopsticks_ready else min(3.0, ctx.tuning.chopsticks * extra)
    if ICONS[card]:
        return maki_value(ctx, t, ICONS[card], s)
    if card == PUDDING:
        return pudding_value(ctx, t, 1, s)
    if card == SOY:
        return _soy_value(ctx, t, s)
    return 0.0


def _dumpling_value(ctx: Context, have: int) -> float:
    """The expected final gain of one more dumpling, given the dumplings still to come."""
    if have >= 5:
        return 0.0
    lam = ctx.expected_more(DUMPLING)
    value = 0.0
    prob = math.exp(-lam)
    top = len(rules.DUMPLING_POINTS) - 1
    for more in range(6):
        p = prob if more < 5 else max(0.0, 1.0 - value_mass(lam, 5))
        a, b = min(have + more, top), min(have + more + 1, top)
        value += p * (rules.DUMPLING_POINTS[b] - rules.DUMPLING_POINTS[a])
        prob *= lam / (more + 1)
    return value


def value_mass(lam: float, upto: int) -> float:
    """P(X < upto) for X ~ Poisson(lam)."""
    term = math.exp(-lam)
    total = term
    for i in range(1, upto):
        term *= lam / i
        total += term
    return total


def _wasabi_value(ctx: Context, open_wasabi: int) -> float:
    """The extra points a wasabi should bring: twice the best nigiri likely to land on it."""
    if ctx.picks_left <= 0:
        return 0.0
    # Each open wasabi needs a nigiri of its own: later wasabi see fewer of them.
    share = 1.0 / (1 + open_wasabi)
    value, miss = 0.0, 1.0
    for kind in (SQUID, SALMON, EGG):
        p = 1.0 - math.exp(-share * ctx.expected_more(kind))
        value += miss * p * 2 * NIGIRI[kind]
        miss *= 1 - p
    return value


def maki_points(icons: Sequence[float], t: int) -> float:
    """Maki points of tableau `t` for these icon totals (float totals: ties only when equal)."""
    mine = icons[t]
    if mine <= 0:
        return 0.0
    top = max(icons)
    if mine == top:
        return float(rules.MAKI_FIRST // sum(1 for x in icons if x == top))
    if sum(1 for x in icons if x == top) > 1:
        return 0.0  # a tie for first awards no second place
    second = max(x for x in icons if x < top)
    if mine == second:
        return float(rules.MAKI_SECOND // sum(1 for x in icons if x == second))
    return 0.0


def maki_value(ctx: Context, t: int, icons: int, state: TableauState | None = None) -> float:
    """Expected change in `t`'s maki points from `icons` more icons, against projected rivals."""
    s = ctx.tableaus[t] if state is None else state
    maki_left = ctx.in_hands[MAKI1] + 2 * ctx.in_hands[MAKI2] + 3 * ctx.in_hands[MAKI3]
    future = ctx.tuning.maki_share * maki_left / ctx.n if ctx.picks_left > 0 else 0.0
    base = [float(ts.icons) + future for ts in ctx.tableaus]
    base[t] = s.icons + future
    if future == 0:
        now = maki_points(base, t)
        base[t] += icons
        return maki_points(base, t) - now
    return _smoothed_gain(maki_points, base, t, icons, 1.0 + future / 2, _SMOOTH)


def pudding_value(ctx: Context, t: int, more: int, state: TableauState | None = None) -> float:
    """Expected change in `t`'s end-of-game pudding points from `more` puddings."""
    s = ctx.tableaus[t] if state is None else state
    # Puddings each tableau may still get: a share of those in the hands now, and of the ones the
    # later rounds will deal.
    hand_size = ctx.views.options.hand_size
    later = ctx.rounds_left * hand_size * ctx.pool_pudding
    future = (ctx.in_hands[PUDDING] + later * ctx.n) / ctx.n * 0.6
    base = [float(ts.puddings) + future for ts in ctx.tableaus]
    base[t] = s.puddings + future
    offsets = _SMOOTH if future > 0 else ((0.0, 1.0),)
    spread, scale = 0.5 + future / 2, ctx.tuning.pudding_weight
    # A pudding also breaks ties for the win.
    return _smoothed_gain(pudding_points, base, t, more, spread, offsets, scale) + 0.2 * more


def _smoothed_gain(
    points: Callable[[Sequence[float], int], float],
    base: list[float],
    t: int,
    more: float,
    spread: float,
    offsets: Sequence[tuple[float, float]],
    scale: float = 1.0,
) -> float:
    """The expected change in `points(counts, t)` when tableau `t` gains `more`, its own count
    uncertain by the weighted `offsets` (times `spread`) around `base[t]` (a race's standing at
    the round's end is not known yet); times `scale`."""
    value = weight = 0.0
    for offset, w in offsets:
        trial = list(base)
        trial[t] += offset * spread
        now = points(trial, t)
        trial[t] += more
        value += w * (points(trial, t) - now)
        weight += w
    return scale * value / weight


def pudding_points(puddings: Sequence[float], t: int) -> float:
    # score_puddings takes ints; rank the floats and pass their ranks, which preserves order and ties.
    ranks = {x: i for i, x in enumerate(sorted(set(puddings)))}
    return float(score_puddings([ranks[x] for x in puddings])[t])


def _soy_value(ctx: Context, t: int, s: TableauState) -> float:
    """Soy sauce: 4 for most colours; worth something only to a seat that can lead on colours."""
    if s.counts[SOY]:
        return 0.0
    colours = [
        len({_FAMILY[k] for k in range(rules.NUM_KINDS) if ts.counts[k]}) for ts in ctx.tableaus
    ]
    mine = len({_FAMILY[k] for k in range(rules.NUM_KINDS) if s.counts[k]} | {_FAMILY[SOY]})
    best_other = max((x for i, x in enumerate(colours) if i != t), default=0)
    lead = mine - best_other + 0.5 * ctx.picks_left / max(1, ctx.n - 1)
    p = 1 / (1 + math.exp(-lead))
    return rules.SOY_SAUCE_POINTS * p * 0.8


def action_value(ctx: Context, t: int, cards: Sequence[int]) -> float:
    """Value of taking `cards` in order (one, or two with chopsticks) into tableau `t`."""
    state = ctx.tableaus[t].copy()
    value = 0.0
    for card in cards:
        value += card_value(ctx, t, card, state)
        state.add(card)
    if len(cards) == 2:
        # The used chopsticks go back into the hand: their future use is lost, and the next seat
        # gets them.
        value -= max(0.0, ctx.tuning.chopsticks * (ctx.picks_left - 3)) * 0.5
    return value


def _unseen_without_memory(obs: Observation) -> Counts:
    """Unseen cards from one observation alone: the deck less the hand and this round's tableaus."""
    total = counts_of(rules.deck(obs.options.soy_sauce))
    for card in obs.hand:
        total[card] -= 1
    for view in obs.tableaus:
        for card in view.cards:
            total[card] -= 1
    return [max(0, x) for x in total]
