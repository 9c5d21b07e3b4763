"""The `learned` strategy's exact endgame with two players: the rest of a round searched to its
end and scored by the rules.

From a round's second turn on both hands are known (`SeatMemory` follows them), so the rest of the
round is a game of perfect information, only played simultaneously: each turn both seats pick, then
the hands swap. When few cards are left the whole tree fits in the move's budget: every pair of
picks (chopsticks pairs included) down to the round's last card, where both tableaus are final and
the round is scored exactly (sets, nigiri on wasabi, the maki race), as
`engine.games.sushi_go.scoring` does; a test checks every value against real engine play-outs. What
lies past the round is valued by `past_round`: exactly in round 3 (the game's end, puddings and the
pudding tie-break included), by a model fitted to games' outcomes in rounds 1 and 2
(`scripts/fit_endgame.py`).

Each node is a small zero-sum game (with two players our value, the win share plus half the margin
over `MARGIN_SCALE`, is the opponent's one's complement). Inside the tree a node's value is the mean
of its pure maximin (we pick first and they answer) and its pure minimax (they pick first): the
bounds of the game's value, equal whenever one pick is best against every reply. At the root the
caller plays the row its opponent model (`_learned_search.choose_row`) likes best.

The tree is built level by level in numpy: all of a level's positions are one array, each pick's
effect on a hand and a tableau a row of the matrix search's `_Tables`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sushigo.engine import Action, Card, Observation, TableauView
from sushigo.engine.games.sushi_go import cards as rules
from sushigo.engine.games.sushi_go.cards import NUM_KINDS, ROUNDS

from ._learned_search import tables
from ._memory import counts_of

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Matrix = npt.NDArray[np.float32]
else:
    Matrix = Any

# A position's row: our hand, their hand, our tableau block, theirs (blocks as `_learned_search`).
_TABLEAU = NUM_KINDS + 8
_HM, _HO = 0, NUM_KINDS
_BM = 2 * NUM_KINDS
_BO = _BM + _TABLEAU
WIDTH = _BO + _TABLEAU
_ON_WASABI = NUM_KINDS
_OPEN = NUM_KINDS + 3
_TEMPURA, _SASHIMI, _DUMPLING, _MAKI1, _MAKI2, _MAKI3 = range(6)
_EGG, _SALMON, _SQUID, _CHOP, _PUDDING = 6, 7, 8, 10, 11

MAX_LEAVES = 2000
"""Leaves searched at most (the tree is dropped past that and the caller searches as before):
with 4 cards each and no chopsticks there are 576; with 5, up to 14,400, so only hands with
repeated kinds fit; a ready chopsticks card multiplies them."""

MARGIN_SCALE = 20.0
MARGIN_WEIGHT = 0.5

PAST_ROUND = {
    1: ((0.3242, 0.6702, 0.2454), (1.0582, 2.0288, 0.8824)),
    2: ((0.5091, 0.7237, 1.2882), (1.0456, 1.4204, 2.2644)),
}
"""Per round: the win's logit and the final margin as linear functions of (points lead, pudding
lead clipped to 3, the pudding lead's sign) when the round is scored (`scripts/fit_endgame.py`)."""


class Position:
    """What the endgame needs of a two-player position: both hands, both tableaus (counts, nigiri
    on wasabi, open wasabi), both seats' points from finished rounds and puddings kept from them,
    and the round."""

    __slots__ = ("puddings", "round", "row", "scores")

    def __init__(
        self,
        np: Any,
        hands: tuple[list[int], list[int]],
        tableaus: tuple[tuple[list[int], list[int], int], tuple[list[int], list[int], int]],
        scores: tuple[int, int],
        puddings: tuple[int, int],
        round_: int,
    ) -> None:
        row = np.zeros(WIDTH, dtype=np.float32)
        row[_HM : _HM + NUM_KINDS] = hands[0]
        row[_HO : _HO + NUM_KINDS] = hands[1]
        for start, (counts, on_wasabi, open_wasabi) in zip((_BM, _BO), tableaus, strict=True):
            row[start : start + NUM_KINDS] = counts
            row[start + _ON_WASABI : start + _ON_WASABI + 3] = on_wasabi
            row[start + _OPEN] = open_wasabi
        self.row = row
        self.scores = scores
        self.puddings = puddings
        """Puddings kept from earlier rounds (this round's are in the tableaus)."""
        self.round = round_


def position_of(np: Any, obs: Observation, theirs: list[int]) -> Position:
    """The endgame's position for the seat of `obs` (two players), the opponent holding `theirs`
    (counts by kind)."""
    assert obs.seat is not None
    me, them = obs.tableaus[obs.seat], obs.tableaus[1 - obs.seat]
    return Position(
        np,
        (counts_of(obs.hand), list(theirs)),
        (_tableau(me), _tableau(them)),
        (me.score, them.score),
        (_kept_puddings(me), _kept_puddings(them)),
        obs.round,
    )


def _tableau(view: TableauView) -> tuple[list[int], list[int], int]:
    """A tableau's card counts, nigiri on wasabi (egg, salmon, squid) and open wasabi."""
    on = view.on_wasabi
    nigiri = [on.count(Card(k)) for k in (_EGG, _SALMON, _SQUID)]
    return counts_of(view.cards), nigiri, view.open_wasabi


def _kept_puddings(view: TableauView) -> int:
    """Puddings kept from earlier rounds."""
    return view.puddings - view.cards.count(Card.PUDDING)


_KEPT: dict[Action, int] = {}


def kept_index(np: Any, action: Action) -> int:
    """The index of `action` among the search tables' kept actions (`_learned_search.tables`)."""
    found = _KEPT.get(action)
    if found is None:
        kept = {int(c): i for i, c in enumerate(tables(np).index)}
        first, second, _ = action
        if second is None:
            found = kept[first]
        else:
            # Of two orders that land alike the tables keep one.
            found = kept.get(first + NUM_KINDS * (second + 1))
            if found is None:
                found = kept[second + NUM_KINDS * (first + 1)]
        _KEPT[action] = found
    return found


_NIGIRI = tuple(float(rules.NIGIRI_POINTS[Card(k)]) for k in (_EGG, _SALMON, _SQUID))
"""Points of an egg, a salmon and a squid nigiri, and what each adds on a wasabi (below)."""
_ON_WASABI_EXTRA = tuple((rules.WASABI_MULTIPLIER - 1) * points for points in _NIGIRI)
_ICONS = tuple(float(rules.MAKI_ICONS[Card(k)]) for k in (_MAKI1, _MAKI2, _MAKI3))


def round_points(np: Any, blocks: Matrix) -> tuple[Matrix, Matrix]:
    """Points of each tableau block (the last axis, over rows or rows by seat) for its sets,
    dumplings and nigiri with their wasabi, and its maki icons: the engine's scoring
    (`engine.games.sushi_go.cards`) over the blocks' counts."""
    c = blocks
    f32 = np.float32
    points = (c[..., _TEMPURA] // rules.TEMPURA_SET) * rules.TEMPURA_POINTS
    points = points + (c[..., _SASHIMI] // rules.SASHIMI_SET) * rules.SASHIMI_POINTS
    dumplings = np.asarray(rules.DUMPLING_POINTS, dtype=f32)
    points = points + dumplings[np.minimum(c[..., _DUMPLING], len(dumplings) - 1).astype(np.intp)]
    points += c[..., _EGG : _SQUID + 1] @ np.asarray(_NIGIRI, dtype=f32)
    # The nigiri of each kind on a wasabi, egg to squid.
    points += c[..., _ON_WASABI : _ON_WASABI + 3] @ np.asarray(_ON_WASABI_EXTRA, dtype=f32)
    icons = c[..., _MAKI1 : _MAKI3 + 1] @ np.asarray(_ICONS, dtype=f32)
    return points, icons


_MAKI_MOST, _MAKI_LESS = float(rules.MAKI_FIRST), float(rules.MAKI_SECOND)
"""Two players' maki points: the most icons', and the fewer's (at least one). A tie for the
most splits its points, `MAKI_FIRST` / 2, which the rules make `MAKI_SECOND` as well."""


def maki_points(np: Any, mine: Matrix, theirs: Matrix) -> Matrix:
    """Our maki points against theirs, with two players: the most's points, the second's for
    fewer or as many, nothing without an icon."""
    points: Matrix = np.where(mine > 0, np.where(mine > theirs, _MAKI_MOST, _MAKI_LESS), 0.0)
    return points


def leaf_values(np: Any, pos: Position, rows: Matrix) -> Matrix:
    """Our value (win share plus `MARGIN_WEIGHT` times the margin over `MARGIN_SCALE`) at the end
    of the round, for rows of final tableaus."""
    lead = np.float32(pos.scores[0] - pos.scores[1])
    return leaf_values_of(np, pos.round, rows, lead, np.float32(pos.puddings[0] - pos.puddings[1]))


def leaf_values_of(np: Any, round_: int, rows: Matrix, lead: Any, puddings: Any) -> Matrix:
    """`leaf_values` with the lead in points and in puddings kept from earlier rounds given (a
    number, or one per row)."""
    pm, im = round_points(np, rows[:, _BM : _BM + _TABLEAU])
    po, io = round_points(np, rows[:, _BO : _BO + _TABLEAU])
    total = pm + maki_points(np, im, io) - po - maki_points(np, io, im) + lead
    pud = rows[:, _BM + _PUDDING] - rows[:, _BO + _PUDDING] + puddings
    return past_round(np, round_, total, pud)


def past_round(np: Any, round_: int, lead: Matrix, puddings: Matrix) -> Matrix:
    """Our value once round `round_` is scored, from our points lead and pudding lead."""
    if round_ >= ROUNDS:
        # With two players only the most puddings score.
        margin = lead + rules.PUDDING_MOST * np.sign(puddings)
        win = np.where(margin > 0, 1.0, np.where(margin < 0, 0.0, 0.5 + 0.5 * np.sign(puddings)))
        return win + MARGIN_WEIGHT * margin / MARGIN_SCALE  # type: ignore[no-any-return]
    (w_lead, w_pud, w_sign), (m_lead, m_pud, m_sign) = PAST_ROUND[round_]
    clipped = np.clip(puddings, -3.0, 3.0)
    sign = np.sign(puddings)
    logit = w_lead * lead + w_pud * clipped + w_sign * sign
    margin = m_lead * lead + m_pud * clipped + m_sign * sign
    win = 0.5 + 0.5 * np.tanh(0.5 * logit)
    return win + MARGIN_WEIGHT * margin / MARGIN_SCALE  # type: ignore[no-any-return]


def _legal(np: Any, t: Any, hands: Matrix, ready: Any) -> tuple[Matrix, Matrix]:
    """Every (position, action) pair with the action legal for a hand: single cards of the hand,
    and pairs where a chopsticks card is ready. Sorted by position, then action."""
    node, act = np.nonzero(hands > 0)  # the single cards are the first actions, by kind
    with_chop = np.flatnonzero(ready & (hands.sum(axis=1) >= 2))
    if len(with_chop) == 0:
        return node, act
    # A pair needs each of its kinds in the hand, two of the one kind if both are alike.
    held = hands[with_chop]
    first, second, same = _pair_kinds(np, t)
    can = (held[:, first] > 0) & (held[:, second] > same)
    pn, pa = np.nonzero(can)
    node = np.concatenate((node, with_chop[pn]))
    act = np.concatenate((act, np.flatnonzero(t.pair)[pa]))
    order = np.lexsort((act, node))
    return node[order], act[order]


_PAIR_KINDS: list[tuple[Any, Any, Any]] = []


def _pair_kinds(np: Any, t: Any) -> tuple[Any, Any, Any]:
    """Of each kept pair action (`t.pair`, in order): its first card's kind, its second's, and
    whether the two are alike (as 1, else 0)."""
    if not _PAIR_KINDS:
        index = t.index[t.pair]
        first = index % NUM_KINDS
        second = index // NUM_KINDS - 1
        _PAIR_KINDS.append((first, second, (first == second).astype(np.float32)))
    return _PAIR_KINDS[0]


def _pairs(np: Any, n: int, a_node: Matrix, a_act: Matrix, b_node: Matrix, b_act: Matrix) -> Any:
    """Every (position, a, b) of `n` positions, sorted: each of a position's a with each of its b."""
    cb = np.bincount(b_node, minlength=n)
    b_start = np.cumsum(cb) - cb
    reps = cb[a_node]
    ai = np.repeat(np.arange(len(a_node)), reps)
    offsets = np.arange(len(ai)) - np.repeat(np.cumsum(reps) - reps, reps)
    bi = b_start[a_node[ai]] + offsets
    return a_node[ai], a_act[ai], b_act[bi]


def step(
    np: Any, level: Matrix, cards: int, max_pairs: int = 0
) -> tuple[Any, Any, Any, Matrix] | None:
    """One turn from every position of `level` (rows as `Position.row`, each hand holding
    `cards`): for every child its parent's index, our pick and theirs (kept action indexes), and
    the children, the picks placed and the hands swapped. The last card is forced: one child each.
    None when there would be more than `max_pairs` children (0: no limit)."""
    t = tables(np)
    hm = level[:, _HM : _HM + NUM_KINDS]
    ho = level[:, _HO : _HO + NUM_KINDS]
    if cards == 1:
        par, a, b = np.arange(len(level)), hm.argmax(axis=1), ho.argmax(axis=1)
        child = level  # the last turn's positions are not kept: place the cards in them
    else:
        a_node, a_act = _legal(np, t, hm, level[:, _BM + _CHOP] > 0)
        b_node, b_act = _legal(np, t, ho, level[:, _BO + _CHOP] > 0)
        if max_pairs and _leaves_guess(np, len(level), a_node, b_node, cards) > max_pairs:
            return None
        par, a, b = _pairs(np, len(level), a_node, a_act, b_node, b_act)
        child = level[par]
    wm = np.minimum(child[:, _BM + _OPEN], 2).astype(np.intp)
    wo = np.minimum(child[:, _BO + _OPEN], 2).astype(np.intp)
    child[:, _BM : _BM + _TABLEAU] += t.block[wm, a]
    child[:, _BO : _BO + _TABLEAU] += t.block[wo, b]
    if cards > 1:
        # The hands swap: ours after our pick goes to them, theirs comes to us.
        mine_next = child[:, _HO : _HO + NUM_KINDS] + t.hand[b]
        child[:, _HO : _HO + NUM_KINDS] = child[:, _HM : _HM + NUM_KINDS] + t.hand[a]
        child[:, _HM : _HM + NUM_KINDS] = mine_next
    return par, a, b, child


def _pair_count(np: Any, n: int, a_node: Matrix, b_node: Matrix) -> int:
    """How many (a, b) pairs `_pairs` would make."""
    return int(np.bincount(a_node, minlength=n) @ np.bincount(b_node, minlength=n))


def _leaves_guess(np: Any, n: int, a_node: Matrix, b_node: Matrix, cards: int) -> float:
    """The leaves to expect below `n` positions holding `cards` each, from how many (a, b) pairs
    `_pairs` would make of them: each later turn branching as this one does, less the cards
    played (exact on the round's last choice, whose children are the leaves). A tree too big is
    dropped here, before its biggest levels are built."""
    pairs = _pair_count(np, n, a_node, b_node)
    guess = float(pairs)
    for left in range(2, cards):
        guess *= pairs / n * (left / cards) ** 2
    return guess


def _tree(
    np: Any, roots: Matrix, max_leaves: int
) -> tuple[list[tuple[Matrix, Matrix, Matrix]], Matrix, Matrix] | None:
    """Every level of the trees below `roots` (all with the same number of cards in hand) to the
    round's end: each level's (parent, a, b), the leaves (final positions) and each leaf's root.
    None when a level would pass `max_leaves` positions per root."""
    level = roots.copy()
    root = np.arange(len(roots))
    levels: list[tuple[Matrix, Matrix, Matrix]] = []
    cards = int(level[0, _HM : _HM + NUM_KINDS].sum())
    while cards > 0:
        found = step(np, level, cards, max_leaves * len(roots))
        if found is None:
            return None
        par, a, b, level = found
        if cards > 1:
            levels.append((par, a, b))
            root = root[par]
        cards -= 1
    return levels, level, root


def solve(
    np: Any, pos: Position, max_leaves: int = MAX_LEAVES
) -> tuple[Matrix, Any, Any, int] | None:
    """The root's matrix of values M[a, b] (a node's value inside the tree as the module says), with
    the kept action indexes (`_learned_search.tables(np).index`) of our rows a and their columns b,
    and the number of leaves searched. None when the tree would pass `max_leaves` leaves or there
    is nothing to choose."""
    tree = _tree(np, pos.row[None], max_leaves)
    if tree is None or not tree[0]:
        return None
    levels, leaves, _ = tree
    values = leaf_values(np, pos, leaves)
    width = len(tables(np).index)
    for par, a, b in reversed(levels[1:]):
        values = backup(np, values, par, a, b, width)
    par, a, b = levels[0]
    rows, a_pos = np.unique(a, return_inverse=True)
    cols, b_pos = np.unique(b, return_inverse=True)
    m = np.empty((len(rows), len(cols)), dtype=values.dtype)
    m[a_pos, b_pos] = values
    return m, rows, cols, len(leaves)


def root_values(
    np: Any, roots: Matrix, lead: Matrix, puddings: Matrix, round_: int, max_leaves: int
) -> Matrix | None:
    """The value of each of `roots` (rows as `Position.row`, every hand holding the same number of
    cards, at least 2) by the rule inside the tree: `lead` and `puddings` are each root's points
    lead from earlier rounds and its lead in puddings kept from them. None when a tree would pass
    `max_leaves` leaves a root on average."""
    tree = _tree(np, roots, max_leaves)
    if tree is None:
        return None
    levels, leaves, root = tree
    values = leaf_values_of(np, round_, leaves, lead[root], puddings[root])
    width = len(tables(np).index)
    for par, a, b in reversed(levels):
        values = backup(np, values, par, a, b, width)
    return values


def backup(np: Any, values: Matrix, par: Matrix, a: Matrix, b: Matrix, width: int) -> Matrix:
    """The parents' values from their children's (sorted by parent, a, b, as `step` makes them;
    `width` the number of kept actions): the mean of each parent's pure maximin and minimax."""
    key = par * width + a
    starts = _starts(np, key)
    row_min = np.minimum.reduceat(values, starts)
    maximin = np.maximum.reduceat(row_min, _starts(np, par[starts]))
    key = par * width + b
    order = np.argsort(key, kind="stable")
    key = key[order]
    starts = _starts(np, key)
    col_max = np.maximum.reduceat(values[order], starts)
    minimax = np.minimum.reduceat(col_max, _starts(np, par[order][starts]))
    return 0.5 * (maximin + minimax)  # type: ignore[no-any-return]


def _starts(np: Any, key: Any) -> Any:
    """Where each run of equal numbers in `key` starts."""
    found = np.empty(len(key), dtype=bool)
    found[0] = True
    np.not_equal(key[1:], key[:-1], out=found[1:])
    return np.flatnonzero(found)
