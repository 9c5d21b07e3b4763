"""The `learned` strategy's two-player search over the rest of a turn: a matrix of our picks
against the opponent's.

With two players the hand a seat passes is the hand the other holds next turn, so from a round's
second turn on both hands are known (`SeatMemory` follows them). What remains hidden is only the
opponent's pick of this turn, made at the same time as ours. For every pair (our pick a, their
pick b) the search builds the position we would see next turn (our tableau with a, theirs with b,
their hand less b in our hands, ours less a in theirs) and lets the value network score our best
next pick a' there, so M[a, b] = max over a' of the network's value of (a, b, a'). That value is
the afterstate the network was trained on (our pick placed, the opponent's not yet), one turn
later. We then play the a whose row is best against the opponent's likely replies (`choose_row`).
On a round's first turn the opponent's hand is unknown: `sampled_values` searches a few hands dealt
from the unseen cards at once and averages each of our picks' expectation over them.

Everything is batched: each action's effect on a tableau block and on the hand is a row of a table
worked out once (`_Tables`), so a turn's few hundred positions are built by indexing and adding
arrays, and scored in one forward pass.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sushigo.engine.games.sushi_go.cards import NUM_KINDS

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Matrix = npt.NDArray[np.float32]
else:
    Matrix = Any

_GLOBAL = 8
_TABLEAU = NUM_KINDS + 8
_TURN, _HAND_LEN = 3, 4
_HAND = _GLOBAL
_MINE = _GLOBAL + NUM_KINDS
_THEIRS = _MINE + _TABLEAU
_KNOWN = _THEIRS + _TABLEAU  # the opponent's hand as we know it: 13 counts, then unknown
_ON_WASABI = NUM_KINDS
_OPEN = NUM_KINDS + 3
_READY = NUM_KINDS + 4
_PUDDINGS = NUM_KINDS + 5
_HAND_SIZE = NUM_KINDS + 7
_EGG, _SQUID, _WASABI, _CHOP, _PUDDING = 6, 8, 9, 10, 11

MAX_ROWS = 512
"""Positions scored per move at most. Past that (chopsticks ready on both sides make hundreds of
pairs), our next pick a' is restricted to single cards, then the opponent's picks to their singles
(the network still sees a ready chopsticks card in the tableau), then our own picks to the best by
one ply. 512 rows take about 0.4 ms on one core."""


class _Tables:
    """Every plain action's requirement and effects (index ``first + 13 * (second + 1)``)."""

    def __init__(self, np: Any) -> None:
        actions: list[tuple[int, int | None]] = [(c, None) for c in range(NUM_KINDS)]
        actions += [(x, y) for y in range(NUM_KINDS) for x in range(NUM_KINDS)]
        need = np.zeros((len(actions), NUM_KINDS), dtype=np.float32)
        hand = np.zeros((len(actions), NUM_KINDS), dtype=np.float32)
        block = np.zeros((3, len(actions), _TABLEAU), dtype=np.float32)
        for i, (first, second) in enumerate(actions):
            need[i, first] += 1
            if second is not None:
                need[i, second] += 1
            hand[i] = -need[i]
            for wasabi in range(3):
                row = np.zeros(_TABLEAU, dtype=np.float32)
                row[_OPEN] = wasabi
                _place(row, first)
                if second is not None:
                    _place(row, second)
                    row[_CHOP] -= 1
                row[_OPEN] -= wasabi
                block[wasabi, i] = row
            if second is not None:
                hand[i, _CHOP] += 1
        pair = np.array([s is not None for _, s in actions])
        # Two cards in either order land the same, but for a wasabi and a nigiri: keep one order.
        keep = [
            s is None
            or f <= s
            or not np.array_equal(block[:, i], block[:, s + NUM_KINDS * (f + 1)])
            for i, (f, s) in enumerate(actions)
        ]
        index = np.flatnonzero(np.array(keep))
        self.index = index
        """The action index of each kept action."""
        self.need = need[index]
        self.pair = pair[index]
        self.hand = hand[index]
        self.block = block[:, index]
        # A kept action needs at most two kinds: its first card's and its second's (the same
        # kind twice for a pair of one kind, or for a single card).
        kept = [actions[i] for i in index]
        self._first = np.array([f for f, _ in kept], dtype=np.intp)
        self._second = np.array([f if s is None else s for f, s in kept], dtype=np.intp)
        self._first_need = self.need[np.arange(len(kept)), self._first]
        self._second_need = self.need[np.arange(len(kept)), self._second]

    def holds(self, hands: Matrix) -> Matrix:
        """Whether each hand of `hands` (counts, the last axis) holds each kept action's cards:
        ``(hands[..., None, :] >= need).all(-1)``, two lookups instead of thirteen."""
        return (hands[..., self._first] >= self._first_need) & (  # type: ignore[no-any-return]
            hands[..., self._second] >= self._second_need
        )


def _place(row: Any, card: int) -> None:
    """Put `card` on a tableau block as the engine places it (as `_learned._place`)."""
    row[card] += 1
    if _EGG <= card <= _SQUID:
        if row[_OPEN] > 0:
            row[_OPEN] -= 1
            row[_ON_WASABI + card - _EGG] += 1
    elif card == _WASABI:
        row[_OPEN] += 1
    elif card == _PUDDING:
        row[_PUDDINGS] += 1


_TABLES: list[_Tables] = []


def tables(np: Any) -> _Tables:
    """The action tables, worked out once per process."""
    if not _TABLES:
        _TABLES.append(_Tables(np))
    return _TABLES[0]


def matrix(
    np: Any, after: Matrix, first: Matrix, their_hand: Matrix, score: Any, max_rows: int = MAX_ROWS
) -> tuple[Matrix, Matrix] | None:
    """M[a, b] for our afterstates `after` (one raw feature row per legal action of ours, without
    the provisional points; `first` their one-ply values) and the opponent's hand counts
    `their_hand`; `score` maps raw rows to values (the network with the points appended). Also
    returns the indexes of our actions kept as rows (all of them unless the position has too many,
    see `MAX_ROWS`). None when there is nothing to search (the round's last card)."""
    if int(their_hand.sum()) < 2:
        return None
    rows, a_idx, cells = positions(np, after, first, their_hand, max_rows)
    values = score(rows)
    starts = np.flatnonzero(np.r_[True, cells[1:, 0] != cells[:-1, 0]])
    best = np.maximum.reduceat(values, starts)
    return best.reshape(len(a_idx), -1), a_idx


def positions(
    np: Any, after: Matrix, first: Matrix, their_hand: Matrix, max_rows: int = MAX_ROWS
) -> tuple[Matrix, Any, Any]:
    """The raw feature rows of `matrix`'s afterstates (a, b, a'), the kept rows of `after`, and per
    row its cell (a * number of b + b), and the action indexes (`action_index`) of b and a'."""
    rows, a_idx, cells, _ = dealt_positions(np, after, first, their_hand[None], max_rows)
    return rows, a_idx, cells


def dealt_positions(
    np: Any, after: Matrix, first: Matrix, their_hands: Matrix, max_rows: int = MAX_ROWS
) -> tuple[Matrix, Any, Any, Any]:
    """`positions` for several possible hands of the opponent at once (one row of counts each):
    the columns b run over every hand's picks, and the last array names each column's hand."""
    t = tables(np)
    theirs = after[0, _THEIRS : _THEIRS + _TABLEAU]
    ready_b = theirs[_CHOP] > 0
    can = (their_hands[:, None, :] >= t.need[None]).all(axis=2) & (ready_b | ~t.pair)[None]
    b_src, b_idx = np.nonzero(can)
    new_hand = their_hands[b_src] + t.hand[b_idx]  # our next hand, for each b
    ready_a = after[:, _MINE + _CHOP] > 0
    has = (new_hand[:, None, :] >= t.need[None]).all(axis=2)  # (b, a')
    legal = has[None] & (ready_a[:, None, None] | ~t.pair[None, None])  # (a, b, a')
    a_idx = np.arange(after.shape[0])
    if legal.sum() > max_rows:
        legal = legal & ~t.pair[None, None]
    if legal.sum() > max_rows:
        single = ~t.pair[b_idx]
        b_idx, b_src, new_hand, legal = (
            b_idx[single],
            b_src[single],
            new_hand[single],
            legal[:, single],
        )
    total = legal.sum()
    if total > max_rows:
        # Too many of our own picks (chopsticks with a varied hand): the best by one ply only.
        keep = max(1, int(len(a_idx) * max_rows // total))
        a_idx = np.sort(np.argsort(-first, kind="stable")[:keep])
        legal = legal[a_idx]
    after = after[a_idx]
    # The positions after (a, b), as we would see them on the next turn.
    nxt = np.repeat(after[:, None, :], len(b_idx), axis=1)  # (a, b, features)
    nxt[:, :, _THEIRS : _THEIRS + _TABLEAU] += t.block[int(min(theirs[_OPEN], 2)), b_idx][None]
    nxt[:, :, _THEIRS + _READY] = nxt[:, :, _THEIRS + _CHOP] > 0
    nxt[:, :, _KNOWN : _KNOWN + NUM_KINDS] = after[:, None, _HAND : _HAND + NUM_KINDS]
    nxt[:, :, _KNOWN + NUM_KINDS] = 0
    nxt[:, :, _HAND : _HAND + NUM_KINDS] = new_hand[None]
    nxt[:, :, _TURN] += 1
    nxt[:, :, _HAND_LEN] -= 1
    nxt[:, :, _MINE + _HAND_SIZE] -= 1
    nxt[:, :, _THEIRS + _HAND_SIZE] -= 1
    # Our next picks a' from each of those positions.
    ia, ib, ic = np.nonzero(legal)
    rows = nxt[ia, ib]
    wasabi_a = np.minimum(rows[:, _MINE + _OPEN], 2).astype(np.intp)
    rows[:, _MINE : _MINE + _TABLEAU] += t.block[wasabi_a, ic]
    rows[:, _HAND : _HAND + NUM_KINDS] += t.hand[ic]
    rows[:, _MINE + _READY] = rows[:, _MINE + _CHOP] > 0
    cells = np.stack((ia * len(b_idx) + ib, t.index[b_idx][ib], t.index[ic]), axis=1)
    return rows, a_idx, cells, b_src


TEMPERATURE = 0.05
"""How sharply the opponent is expected to prefer its better picks (in value units: a win chance
plus half a margin over 20)."""


def choose_row(np: Any, m: Matrix, temperature: float = TEMPERATURE) -> int:
    """Our row against an opponent who mostly plays its best replies: each column's weight is a
    softmax of how bad it is for us on average over our rows, and the row with the best expectation
    under those weights wins."""
    return int(np.argmax(row_values(np, m, temperature)))


SAMPLED_ROWS = 384
"""Positions scored at most on a round's first turn, over all the opponent's dealt hands. A first
turn has the most distinct cards, so past this our picks are cut to the best few by one ply
(`positions`); 384 keep the first turn near the other turns' cost (about 1.4 ms of CPU time on
the loaded machine)."""


def sampled_values(
    np: Any,
    after: Matrix,
    first: Matrix,
    hands: Matrix,
    score: Any,
    temperature: float = TEMPERATURE,
    rows: int = SAMPLED_ROWS,
) -> tuple[Matrix, Matrix] | None:
    """On a round's first turn the opponent's hand is unknown: the matrix search against each of
    `hands` (rows of counts: the opponent's hand dealt from the unseen cards), in one batch.
    Returns each kept action's expectation (`choose_row`'s row values) averaged over the hands,
    and the indexes of those actions in `after`; None when there is nothing to search. At most
    `rows` positions are scored (past that as `positions` limits them)."""
    if len(hands) == 0 or int(hands[0].sum()) < 2:
        return None
    found, a_idx, cells, b_src = dealt_positions(np, after, first, hands, rows)
    values = score(found)
    starts = np.flatnonzero(np.r_[True, cells[1:, 0] != cells[:-1, 0]])
    m = np.maximum.reduceat(values, starts).reshape(len(a_idx), -1)
    total = np.zeros(len(a_idx))
    for s in range(len(hands)):
        total += row_values(np, m[:, b_src == s], temperature)
    return total / len(hands), a_idx


def row_values(np: Any, m: Matrix, temperature: float = TEMPERATURE) -> Matrix:
    """Each row's expectation against an opponent who mostly plays its best replies: each
    column's weight is a softmax of how bad it is for us on average over our rows."""
    col = m.mean(axis=0)
    w = np.exp(-(col - col.min()) / temperature)
    w /= w.sum()
    return m @ w  # type: ignore[no-any-return]
