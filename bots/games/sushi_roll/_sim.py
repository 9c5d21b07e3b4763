"""A fast Sushi Roll simulator and rollout policy for the search bot: plain ints and lists.

`engine.games.sushi_roll.RollGame` is the authority, but it checks every action, builds events and
draws its dice from SHA-256; a search needs thousands of playouts a move. `SimState` keeps the
position as small ints, with trays kept as the counts scoring needs, draws chance from a
`random.Random` of the caller's and never checks an action (the search only plays actions it built
from the state itself); the rules it plays are the engine's own, stated on plain ints for both:
the order of play, dealing and the token supply (`engine.games.sushi_roll.turns`), the dice's
faces and numbers (`dice`), every race's scoring (`scoring`) and the places (`engine.api`).

`policy_action` is the rollout policy: `heuristic`'s valuation (`_values.heuristic_value`, the
same formulas over a per-move table of the 17 faces) with its re-roll and swap rules, for every
seat. Tests check the simulator against the engine and the policy against `heuristic`.
"""

from __future__ import annotations

import math
import random
from bisect import bisect_right
from collections.abc import Sequence
from typing import Any

from sushigo.engine.api import places_by
from sushigo.engine.games.sushi_roll import (
    BAG_ORDER,
    DIE_FACES,
    DieKind,
    Face,
    Reroll,
    RollAction,
    RollObservation,
    Swap,
    Take,
)
from sushigo.engine.games.sushi_roll.dice import (
    CHOPSTICKS_TOKENS,
    MAKI_ICONS,
    MENU_TOKENS,
    NIGIRI_POINTS,
    PUDDING_TOKENS,
    ROUNDS,
)
from sushigo.engine.games.sushi_roll.scoring import (
    appetizer_points,
    maki_award,
    nigiri_value,
    pudding_award,
    score_puddings,
    token_bonus,
)
from sushigo.engine.games.sushi_roll.turns import (
    NEXT_SEAT,
    SLIDE,
    after_take,
    deal,
    slide,
    slides_between_rounds,
    tokens_gained,
)

from ._values import TOKEN_POINTS, appetizer_value

# -- per-face tables, indexed by `Face` values ---------------------------------------------------

FACES = len(Face)
KIND_OF: tuple[int, ...] = tuple(
    next(int(kind) for kind in DieKind if face in DIE_FACES[kind]) for face in Face
)
"""The kind of die each face belongs to (every face is on exactly one kind)."""
KIND_FACES: tuple[tuple[int, ...], ...] = tuple(
    tuple(int(f) for f in DIE_FACES[kind]) for kind in DieKind
)
"""The six faces of each kind, in roll order."""
_BAG: tuple[int, ...] = tuple(int(kind) for kind in BAG_ORDER)
"""Every die's kind, as the bag holds them before a round's shuffle."""

_DUMPLING, _TEMPURA, _SASHIMI = int(Face.DUMPLING), int(Face.TEMPURA), int(Face.SASHIMI)
_WASABI = int(Face.WASABI)
_NIGIRI = tuple(NIGIRI_POINTS.get(Face(f), 0) for f in range(FACES))
_MAKI = tuple(MAKI_ICONS.get(Face(f), 0) for f in range(FACES))
_PUDDING = tuple(PUDDING_TOKENS.get(Face(f), 0) for f in range(FACES))
_MENU = tuple(MENU_TOKENS.get(Face(f), 0) for f in range(FACES))
_CHOP = tuple(CHOPSTICKS_TOKENS.get(Face(f), 0) for f in range(FACES))
_APPETIZERS = (Face.DUMPLING, Face.TEMPURA, Face.SASHIMI)


_MAX_LEFT = 8
"""Takes left in a round after the present one are at most dice per player - 1 (7)."""

_APP_VALUE = tuple(
    tuple(tuple(appetizer_value(f, have, left) for left in range(_MAX_LEFT)) for have in range(3))
    for f in _APPETIZERS
)
"""[appetizer 0-2][icons on the tray mod 3][takes left] -> heuristic value."""


def _top_two(values: Sequence[int], skip: int) -> tuple[int, int]:
    """The largest and the next distinct positive value of `values` without index `skip`."""
    top = second = 0
    for i, v in enumerate(values):
        if i == skip or v <= 0:
            continue
        if v > top:
            top, second = v, top
        elif top > v > second:
            second = v
    return top, second


_ORDER = ("n", "k", "round", "cycle", "to_move", "red", "moved")
"""`SimState`'s order of play: players, dice a player, where the round stands, who moves."""
_GAME = ("over", "stop", "halted", "menu_left", "chop_left")
"""`SimState`'s other values of the whole table: whether it is over or halted, the supplies."""
_SCALARS = _ORDER + _GAME
"""`SimState`'s attributes of one value (a copy shares them)."""
_TRAYS = ("dumpling", "tempura", "sashimi", "maki", "nigiri", "wasabi", "pudding")
_TOKENS = ("menu", "chop", "fresh_menu", "fresh_chop", "score")
_PER_SEAT = _TRAYS + _TOKENS
"""`SimState`'s lists by seat, trays as scoring counts then tokens and scores (a copy copies
them), besides the belts."""
_FROM_VIEW = (
    ("wasabi", "open_wasabi"),
    ("pudding", "puddings"),
    ("menu", "menu"),
    ("chop", "chopsticks"),
    ("fresh_menu", "fresh_menu"),
    ("fresh_chop", "fresh_chopsticks"),
    ("score", "score"),
)
"""`SimState`'s lists by seat that an observation shows as they are: (attribute, `PlayerView`
field)."""


class SimState:
    """A Sushi Roll position: the seat to move, belts of faces, trays as scoring counts, tokens.

    Mutable and cheap to `copy`. Indexed by seat everywhere; `belts[s]` is the belt seat s holds.
    """

    __slots__ = ("belts", *_SCALARS, *_PER_SEAT)

    n: int
    k: int
    round: int
    cycle: int
    to_move: int
    red: int
    moved: int
    over: bool
    stop: int
    """The last round to play: once it is scored (before the game's end) the state halts."""
    halted: bool
    """A round `stop` was scored: the next round is not set up, and nothing can be played."""
    menu_left: int
    chop_left: int
    belts: list[list[int]]
    dumpling: list[int]
    tempura: list[int]
    sashimi: list[int]
    maki: list[int]
    nigiri: list[int]
    """Nigiri points on the tray this round, wasabi included."""
    wasabi: list[int]
    """Open wasabi on the tray."""
    pudding: list[int]
    menu: list[int]
    chop: list[int]
    fresh_menu: list[int]
    fresh_chop: list[int]
    score: list[int]
    """Points of finished rounds; the final score once `over`."""

    @classmethod
    def of(cls, obs: RollObservation) -> SimState:
        """The position `obs` shows (which must not be over)."""
        if obs.is_over or obs.to_move is None:
            raise ValueError("the observed game is over")
        state = cls.__new__(cls)
        views = obs.players
        n = state.n = len(views)
        state.k = obs.options.dice_per_player
        state.round = obs.round
        state.cycle = obs.cycle
        state.to_move = obs.to_move
        state.red = obs.red_belt
        state.moved = (obs.to_move - obs.red_belt) % n
        state.over = False
        state.stop = ROUNDS
        state.halted = False
        state.menu_left = obs.menu_supply
        state.chop_left = obs.chopsticks_supply
        state.belts = [[int(d.face) for d in v.belt] for v in views]
        trays = [[int(d.face) for d in v.tray] for v in views]
        state.dumpling = [t.count(_DUMPLING) for t in trays]
        state.tempura = [t.count(_TEMPURA) for t in trays]
        state.sashimi = [t.count(_SASHIMI) for t in trays]
        state.maki = [sum(_MAKI[f] for f in t) for t in trays]
        state.nigiri = [
            sum(nigiri_value(_NIGIRI[f], i in v.on_wasabi) for i, f in enumerate(t))
            for t, v in zip(trays, views, strict=True)
        ]
        for mine, theirs in _FROM_VIEW:
            setattr(state, mine, [getattr(v, theirs) for v in views])
        assert n == obs.player_count
        return state

    def copy(self) -> SimState:
        """An independent copy."""
        other = SimState.__new__(SimState)
        for name in _SCALARS:
            setattr(other, name, getattr(self, name))
        other.belts = [b[:] for b in self.belts]
        for name in _PER_SEAT:
            setattr(other, name, getattr(self, name)[:])
        return other

    # -- actions (unchecked) ---------------------------------------------------------------------

    def reroll(self, positions: Sequence[int], rng: random.Random) -> None:
        """The seat to move pays a menu token and re-rolls `positions` of its belt."""
        s = self.to_move
        self.menu[s] -= 1
        self.menu_left += 1  # a spent token goes back to the supply
        belt = self.belts[s]
        rnd = rng.random
        for p in positions:
            belt[p] = KIND_FACES[KIND_OF[belt[p]]][int(rnd() * 6)]

    def swap(self, mine: int, other: int, theirs: int) -> None:
        """The seat to move pays a chopsticks token and swaps a die with seat `other`'s."""
        s = self.to_move
        self.chop[s] -= 1
        self.chop_left += 1
        a, b = self.belts[s], self.belts[other]
        a[mine], b[theirs] = b[theirs], a[mine]

    def take(self, position: int, rng: random.Random) -> None:
        """The seat to move takes the die at `position`; the game goes on to the next turn
        (sliding and rolling the belts, or scoring the round and starting the next one)."""
        self.place(self.belts[self.to_move].pop(position))
        self.advance(rng)

    def place(self, face: int) -> None:
        """The first half of a take: the seat to move puts `face` on its tray (the die is already
        off its belt) and counts as moved. The position between the halves is the afterstate the
        learned bot values (`_afterstate`); `advance` goes on."""
        s = self.to_move
        if face == _DUMPLING:
            self.dumpling[s] += 1
        elif face == _TEMPURA:
            self.tempura[s] += 1
        elif face == _SASHIMI:
            self.sashimi[s] += 1
        elif _NIGIRI[face]:
            self.nigiri[s] += nigiri_value(_NIGIRI[face], self.wasabi[s])
            if self.wasabi[s]:
                self.wasabi[s] -= 1
        elif _MAKI[face]:
            self.maki[s] += _MAKI[face]
        elif face == _WASABI:
            self.wasabi[s] += 1
        elif _PUDDING[face]:
            self.pudding[s] += _PUDDING[face]
        elif _MENU[face]:
            gained = tokens_gained(_MENU[face], self.menu_left)
            self.menu_left -= gained
            self.menu[s] += gained
            self.fresh_menu[s] += gained
        else:
            gained = tokens_gained(_CHOP[face], self.chop_left)
            self.chop_left -= gained
            self.chop[s] += gained
            self.fresh_chop[s] += gained
        self.moved += 1

    def advance(self, rng: random.Random) -> None:
        """The second half of a take: the next seat's turn, or the slide and the roll, or the
        round's scoring and the next round."""
        s = self.to_move
        n = self.n
        after = after_take(self.moved, n, self.belts[0])
        if after == NEXT_SEAT:
            self._begin_turn((s + 1) % n)
        elif after == SLIDE:
            self._slide()
            self._roll_belts(rng)
            self.cycle += 1
            self.moved = 0
            self._begin_turn(self.red)
        else:
            self._end_round(rng)

    def _begin_turn(self, seat: int) -> None:
        self.to_move = seat
        self.fresh_menu[seat] = 0
        self.fresh_chop[seat] = 0

    def _slide(self) -> None:
        self.belts, self.red = slide(self.belts, self.red)

    def _roll_belts(self, rng: random.Random) -> None:
        rnd = rng.random
        self.belts = [[KIND_FACES[KIND_OF[f]][int(rnd() * 6)] for f in belt] for belt in self.belts]

    def round_points(self) -> list[int]:
        """Each seat's points for the round so far, as if it were scored now."""
        return [self.seat_points(s) for s in range(self.n)]

    def seat_points(self, s: int) -> int:
        """Seat `s`'s points for the round so far, as if it were scored now."""
        dumpling, tempura, sashimi = _APPETIZERS
        maki = self.maki
        top, second = _top_two(maki, s)
        return (
            maki_award(maki[s], top, second)
            + appetizer_points(dumpling, self.dumpling[s])
            + appetizer_points(tempura, self.tempura[s])
            + appetizer_points(sashimi, self.sashimi[s])
            + self.nigiri[s]
        )

    def _end_round(self, rng: random.Random) -> None:
        n = self.n
        points = self.round_points()
        for s in range(n):
            self.score[s] += points[s]
        zero = [0] * n
        self.dumpling, self.tempura, self.sashimi = zero[:], zero[:], zero[:]
        self.maki, self.nigiri, self.wasabi = zero[:], zero[:], zero[:]
        if self.round >= ROUNDS:
            puddings = score_puddings(self.pudding)
            for s in range(n):
                self.score[s] += puddings[s] + token_bonus(self.menu[s], self.chop[s])
            self.fresh_menu, self.fresh_chop = zero[:], zero[:]
            self.over = True
            return
        if self.round >= self.stop:
            self.round += 1
            self.halted = True
            return
        if slides_between_rounds(n):
            self._slide()
        self.round += 1
        self.cycle = 1
        self.moved = 0
        bag = list(_BAG)
        rng.shuffle(bag)
        # Placeholder faces: `_roll_belts` rolls every drawn die.
        self.belts = [
            [KIND_FACES[kind][0] for kind in belt] for belt in deal(bag, n, self.k, self.red)
        ]
        self._roll_belts(rng)
        self._begin_turn(self.red)

    # -- reading -------------------------------------------------------------------------------

    def places(self) -> list[int]:
        """Per seat, 1 for first: most points, then most puddings (the engine's rule)."""
        return list(places_by(list(zip(self.score, self.pudding, strict=True))))


# -- the rollout policy --------------------------------------------------------------------------


_MAKI_CACHE: dict[tuple[int, int, int, bool], tuple[float, float, float]] = {}
_PUDDING_CACHE: dict[tuple[int, int, int, bool], tuple[float, float, float]] = {}


def _maki_values(mine: int, top: int, second: int, more: bool) -> tuple[float, float, float]:
    """`heuristic_value` of 1, 2 and 3 maki icons (`more`: takes are left after this one)."""
    key = (mine, top, second, more)
    cached = _MAKI_CACHE.get(key)
    if cached is None:
        before = maki_award(mine, top, second)
        factor, bonus = (0.7, 0.6) if more else (1.0, 0.0)
        cached = _MAKI_CACHE[key] = (
            (maki_award(mine + 1, top, second) - before) * factor + bonus,
            (maki_award(mine + 2, top, second) - before) * factor + 2 * bonus,
            (maki_award(mine + 3, top, second) - before) * factor + 3 * bonus,
        )
    return cached


def _pudding_values(mine: int, most: int, fewest: int, two: bool) -> tuple[float, float, float]:
    """`heuristic_value` of 1, 2 and 3 pudding tokens against the others' `most` and `fewest`."""
    key = (mine, most, fewest, two)
    cached = _PUDDING_CACHE.get(key)
    if cached is None:
        n = 2 if two else 3
        before = pudding_award(mine, most, fewest, n)
        cached = _PUDDING_CACHE[key] = (
            0.6 * (pudding_award(mine + 1, most, fewest, n) - before) + 0.8,
            0.6 * (pudding_award(mine + 2, most, fewest, n) - before) + 1.6,
            0.6 * (pudding_award(mine + 3, most, fewest, n) - before) + 2.4,
        )
    return cached


def face_values(state: SimState, seat: int) -> list[float]:
    """`heuristic_value` of every face (indexed by `Face`) for `seat`, the seat to move."""
    left = len(state.belts[seat]) - 1
    if left < 0:  # noqa: PLR1730 (faster than max)
        left = 0
    app = _APP_VALUE
    open_wasabi = state.wasabi[seat]
    nigiri = 3.0 if open_wasabi else 1.0
    maki = state.maki
    top, second = _top_two(maki, seat)
    maki1, maki2, maki3 = _maki_values(maki[seat], top, second, left > 0)
    puddings = state.pudding
    if state.n == 2:
        most = fewest = puddings[1 - seat]
    else:
        others = puddings[:seat] + puddings[seat + 1 :]
        most, fewest = max(others), min(others)
    pud1, pud2, pud3 = _pudding_values(puddings[seat], most, fewest, state.n == 2)
    rate = TOKEN_POINTS + 0.3 * (0.25 * (left if left < 3 else 3) + 0.5 * (ROUNDS - state.round))
    menu_left, chop_left = state.menu_left, state.chop_left
    return [
        app[0][state.dumpling[seat] % 3][left],
        app[1][state.tempura[seat] % 3][left],
        app[2][state.sashimi[seat] % 3][left],
        maki1,
        maki2,
        maki3,
        nigiri,
        2 * nigiri,
        3 * nigiri,
        (4.0 if left >= 3 else 4.0 * left / 3) / (1 + open_wasabi),
        rate if chop_left else 0.0,
        (2 if chop_left >= 2 else chop_left) * rate,
        rate if menu_left else 0.0,
        (2 if menu_left >= 2 else menu_left) * rate,
        pud1,
        pud2,
        pud3,
    ]


def expected_max(kept: float, spreads: Sequence[Sequence[float]]) -> float:
    """E[max(kept, X1, ..., Xk)], each X uniform over its six values (kept may be -inf)."""
    groups: dict[tuple[float, ...], int] = {}
    for spread in spreads:
        key = tuple(sorted(spread))
        groups[key] = groups.get(key, 0) + 1
    return _expected_max(kept, list(groups.items()))


def _expected_max(kept: float, groups: Sequence[tuple[Sequence[float], int]]) -> float:
    """`expected_max` over groups of equal spreads: (the six values sorted, how many dice)."""
    points = sorted({v for spread, _ in groups for v in spread if v > kept})
    if kept > -math.inf:
        points.insert(0, kept)
    expected, previous = 0.0, 0.0
    for v in points:
        cdf = 1.0
        for spread, count in groups:
            cdf *= (bisect_right(spread, v) / 6) ** count
        expected += v * (cdf - previous)
        previous = cdf
    return expected


def kind_spread(face: int, vals: Sequence[float]) -> list[float]:
    """The values (by `vals`) of the six faces a die showing `face` may roll."""
    return [vals[g] for g in KIND_FACES[KIND_OF[face]]]


def reroll_choice(
    belt: Sequence[int], vals: Sequence[float], beat: float = -math.inf
) -> tuple[list[int], float] | None:
    """`heuristic`'s re-roll: the positions worth less than their kind's average, and the
    expected best die afterwards; None if every die is worth at least its average, or if no
    outcome could make the best die worth more than `beat` (which saves the expectation)."""
    chosen: list[int] = []
    kept = ceiling = -math.inf
    # Per kind on the belt: its six values sorted, the average, and how many dice are chosen.
    kinds: dict[int, list[Any]] = {}
    for i, f in enumerate(belt):
        kind = KIND_OF[f]
        known = kinds.get(kind)
        if known is None:
            spread = sorted([vals[g] for g in KIND_FACES[kind]])
            known = kinds[kind] = [spread, sum(spread) / 6 - 1e-9, 0]
        if vals[f] < known[1]:
            chosen.append(i)
            known[2] += 1
            ceiling = max(ceiling, known[0][5])
        elif vals[f] > kept:
            kept = vals[f]
    if not chosen or max(kept, ceiling) <= beat:
        return None
    return chosen, _expected_max(kept, [(k[0], k[2]) for k in kinds.values() if k[2]])


def best_elsewhere(state: SimState, seat: int, vals: Sequence[float]) -> tuple[float, int, int]:
    """The most valuable die (by `vals`) on another seat's belt: (value, seat, position);
    value -inf if every other belt is empty. The first found wins ties."""
    top, where, at = -math.inf, -1, -1
    for other, belt in enumerate(state.belts):
        if other == seat:
            continue
        for j, f in enumerate(belt):
            if vals[f] > top:
                top, where, at = vals[f], other, j
    return top, where, at


REROLL_COST = 1.0
"""`heuristic`'s default: a re-roll must gain more than this over the best take."""
SWAP_MARGIN = 2.5
"""`heuristic`'s default: a swapped-in die must beat the best take by more than this."""


def policy_action(state: SimState) -> RollAction:
    """The action `heuristic` would play for the seat to move (the first of equal takes)."""
    s = state.to_move
    belt = state.belts[s]
    vals = face_values(state, s)
    best_i, best = 0, -math.inf
    for i, f in enumerate(belt):
        if vals[f] > best:
            best_i, best = i, vals[f]
    gain = 0.0
    # tuple.__new__ skips a NamedTuple's Python-level __new__ (a playout's hottest line).
    action: RollAction = tuple.__new__(Take, (best_i,))
    if state.chop[s] > state.fresh_chop[s]:
        top, other, theirs = best_elsewhere(state, s, vals)
        if top - best - SWAP_MARGIN > gain:
            gain = top - best - SWAP_MARGIN
            mine = min(range(len(belt)), key=lambda i: vals[belt[i]])
            action = Swap(mine, other, theirs)
    if state.menu[s] > state.fresh_menu[s]:
        reroll = reroll_choice(belt, vals, best + REROLL_COST + gain)
        if reroll is not None and reroll[1] - best - REROLL_COST > gain:
            action = Reroll(tuple(reroll[0]))
    return action


def apply(state: SimState, action: RollAction, rng: random.Random) -> None:
    """Play `action` (legal, unchecked) for the seat to move."""
    if type(action) is Take:  # exact types: a playout plays only the engine's action classes
        state.take(action.position, rng)
    elif type(action) is Reroll:
        state.reroll(action.dice, rng)
    elif type(action) is Swap:
        state.swap(action.mine, action.other_seat, action.theirs)


def policy_step(state: SimState, rng: random.Random) -> None:
    """The seat to move plays `policy_action`."""
    apply(state, policy_action(state), rng)


def play_round(state: SimState, rng: random.Random) -> None:
    """Play on with `policy_step` for every seat until the round is scored (then the state is
    `halted`, or `over` after the last round)."""
    state.stop = state.round
    choose, play = policy_action, apply  # local names: a playout's loop runs ~10^5 times a move
    while not state.over and not state.halted:
        play(state, choose(state), rng)
