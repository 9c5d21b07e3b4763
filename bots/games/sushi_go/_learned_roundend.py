"""The `learned` strategy's round end with three to five players: the last turns of a round
searched to its end, the others' picks predicted by the network.

Once the hands have gone round the table every hand is known (`SeatMemory`), so the rest of the
round is a game of perfect information, played simultaneously. With two cards in each hand every
seat makes its last choice (the card after it is forced): for each of our picks a, every
combination of the others' picks b (each seat's two cards, or both with chopsticks ready) is played
out to the round's end, the hands passed and every forced last card placed. Each combination is
weighed by how likely the network (`_learned_table.their_rows`, from each seat's point of view)
makes it: a softmax of each seat's afterstate values at `temperature`, the seats taken as
independent (0: each seat's best pick only). With more cards in hand (`search`), the others play
their best picks by the network, as the look-ahead predicts them, and the position we then reach
is worth our best pick there, searched the same way down to the last choice.

What a final position is worth: in round 3 the game's end, exactly (the round scored as
`engine.games.sushi_go.scoring` scores it, the puddings' points, the winners by points then
puddings): our share of the win plus the margin's share, the network's own scale. In rounds 1 and
2 the network values our final afterstate (it sees the others' last cards, which our memory holds).

Each level of the tree is batched over all its positions: one forward pass for the others' picks,
one more for the leaves; a tree that would score more than `MAX_ROWS` rows is left to the
look-ahead, dropped as soon as its rows are counted (the last choice's before it is built).
"""

from __future__ import annotations

from typing import Any

from sushigo.engine import Card, Observation, score_puddings
from sushigo.engine.games.sushi_go.cards import NUM_KINDS, ROUNDS
from sushigo.engine.games.sushi_go.scoring import round_breakdown

from ._learned_endgame import round_points
from ._learned_search import (
    _CHOP,
    _HAND,
    _HAND_LEN,
    _HAND_SIZE,
    _MINE,
    _OPEN,
    _READY,
    _TABLEAU,
    _TURN,
    Matrix,
    tables,
)
from ._learned_table import _known, _played, best_picks, their_rows

MARGIN_SCALE = 20.0
"""The network's margin unit (final points over the others' mean, divided by this)."""

_PUDDING = int(Card.PUDDING)
_MAKI1 = (Card.MAKI1,)


def combinations(
    np: Any,
    values: Matrix,
    v_idx: Matrix,
    b_idx: Matrix,
    positions: int,
    n: int,
    temperature: float,
) -> tuple[Matrix, Matrix, Matrix]:
    """Every combination of the other seats' picks at each of `positions` (`their_rows`' rows,
    valued): the position of each combination, its picks (shape (combinations, n), column 0
    unused) and its weight, the product of each seat's softmax of its values at `temperature`
    (0: its best pick only, as `best_picks` finds it, weight 1). Sorted by position."""
    views = positions * (n - 1)
    count = np.bincount(v_idx, minlength=views)
    start = np.cumsum(count) - count
    rank = np.arange(len(v_idx)) - start[v_idx]
    width = int(count.max())
    picks = np.zeros((views, width), dtype=np.intp)
    weights = np.zeros((views, width))
    picks[v_idx, rank] = b_idx
    if temperature <= 0:
        best = best_picks(np, values, v_idx, b_idx, positions, n)[:, 1:].reshape(views)
        weights[v_idx, rank] = b_idx == best[v_idx]
    else:
        v = values.astype(np.float64)
        top = np.maximum.reduceat(v, start)
        e = np.exp((v - top[v_idx]) / temperature)
        weights[v_idx, rank] = e / np.bincount(v_idx, weights=e, minlength=views)[v_idx]
    picks = picks.reshape(positions, n - 1, width)
    weights = weights.reshape(positions, n - 1, width)
    # Every index tuple (one pick index a seat), then each position's tuples of nonzero weight.
    grid = np.indices((width,) * (n - 1)).reshape(n - 1, -1)
    seats = np.arange(n - 1)[:, None]
    both = weights[:, seats, grid].prod(axis=1)  # (positions, tuples)
    where, tuple_ = np.nonzero(both > 0)
    out = np.zeros((len(where), n), dtype=np.intp)
    out[:, 1:] = picks[where[:, None], np.arange(n - 1)[None], grid[:, tuple_].T]
    return where, out, both[where, tuple_]


_MAKI: dict[tuple[int, ...], tuple[int, ...]] = {}
_PUDDINGS: dict[tuple[int, ...], tuple[int, ...]] = {}


def maki_points(icons: tuple[int, ...]) -> tuple[int, ...]:
    """Each tableau's maki points for its icons, as the engine scores them (cached)."""
    found = _MAKI.get(icons)
    if found is None:
        found = _MAKI[icons] = tuple(
            p.maki for p in round_breakdown([list(_MAKI1 * i) for i in icons])
        )
    return found


def pudding_points(puddings: tuple[int, ...]) -> tuple[int, ...]:
    """Each seat's end-of-game pudding points (the engine's `score_puddings`, cached)."""
    found = _PUDDINGS.get(puddings)
    if found is None:
        found = _PUDDINGS[puddings] = tuple(score_puddings(list(puddings)))
    return found


def game_end_values(
    np: Any, blocks: Matrix, scores: Matrix, kept: Matrix, margin: float, best: float = 0.0
) -> Matrix:
    """Our value at the game's end for rows of final tableau blocks (rows, n, block), seat 0
    ours: `scores` each seat's points from the earlier rounds, `kept` its puddings from them. The
    share of the win (most points, then most puddings; still tied seats share it) plus `margin`
    times the final margin over the others' mean, over `MARGIN_SCALE` (with `best` > 0, that share
    of the margin over the best other seat instead)."""
    points, icons = round_points(np, blocks)
    puddings = kept[None] + blocks[:, :, _PUDDING]
    # The maki and pudding points of each distinct (icons, puddings) row only: a leaf's key packs
    # every seat's icons and puddings (each fewer than 64) into one integer.
    counts = np.concatenate((icons, puddings), axis=1).astype(np.int64)
    key = counts @ (64 ** np.arange(counts.shape[1], dtype=np.int64))
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    n = blocks.shape[1]
    extra = np.array(
        [
            [
                m + p
                for m, p in zip(
                    maki_points(tuple(c[:n])), pudding_points(tuple(c[n:])), strict=True
                )
            ]
            for c in counts[first].tolist()
        ],
        dtype=np.float64,
    )[inverse.reshape(-1)]
    final = scores[None] + points + extra
    key = final * 64 + puddings  # points first, then puddings (fewer than 64)
    top = key.max(axis=1)
    share = np.where(key[:, 0] == top, 1.0 / (key == top[:, None]).sum(axis=1), 0.0)
    lead = final[:, 0] - (final[:, 1:].sum(axis=1)) / (n - 1)
    if best:
        lead = (1.0 - best) * lead + best * (final[:, 0] - final[:, 1:].max(axis=1))
    return share + margin * lead / MARGIN_SCALE  # type: ignore[no-any-return]


def advance(
    np: Any, after: Matrix, hands: Matrix, picks: Matrix, n: int, direction: int
) -> tuple[Matrix, Matrix]:
    """Our raw rows before our next pick, one per row of `after` (our afterstates), every hand
    known: `hands[i]` the hands before the picks (by offset, 0 ours), `picks[i]` the others' picks
    (table indexes; column 0 unused). Also the hand each offset then holds (rows, n, kinds)."""
    t = tables(np)
    nxt = after.copy()
    rows = len(after)
    # The tableau blocks lie side by side, and so do the blocks of the hands we know.
    blocks = nxt[:, _MINE : _MINE + _TABLEAU * n].reshape(rows, n, _TABLEAU)
    theirs = blocks[:, 1:]
    wasabi = np.minimum(theirs[..., _OPEN], 2).astype(np.intp)
    theirs += t.block[wasabi, picks[:, 1:]]
    theirs[..., _READY] = theirs[..., _CHOP] > 0
    blocks[..., _HAND_SIZE] -= 1
    left = hands + t.hand[picks]  # every hand after its holder's pick
    left[:, 0] = after[:, _HAND : _HAND + NUM_KINDS]
    held = left[:, (np.arange(n) - direction) % n]  # offset j gets offset j - direction's hand
    at = _known(n, 1)
    known = nxt[:, at : at + (NUM_KINDS + 1) * (n - 1)].reshape(rows, n - 1, NUM_KINDS + 1)
    known[..., :NUM_KINDS] = held[:, 1:]
    known[..., NUM_KINDS] = 0
    nxt[:, _HAND : _HAND + NUM_KINDS] = held[:, 0]
    nxt[:, _TURN] += 1
    nxt[:, _HAND_LEN] -= 1
    return nxt, held


def our_picks(np: Any, bases: Matrix, hands: Matrix) -> tuple[Matrix, Matrix]:
    """Our legal picks at each of `bases` (our raw rows before the pick, `hands[:, 0]` our hand):
    each pick's afterstate row and the index of its base."""
    t = tables(np)
    ready = bases[:, _MINE + _CHOP] > 0
    can = t.holds(hands[:, 0]) & (ready[:, None] | ~t.pair[None])
    owner, pick = np.nonzero(can)
    return _played(np, bases[owner], pick), owner


MAX_ROWS = 400
"""Rows the network scores at most in one search; a bigger tree (chopsticks make many pairs) is
dropped and the look-ahead plays instead."""


class _TooBig(Exception):
    """The search would score more than its rows."""


def search(
    np: Any,
    obs: Observation,
    bases: Matrix,
    hands: Matrix,
    after: Matrix,
    owner: Matrix,
    score: Any,
    temperature: float,
    margin: float,
    max_rows: int = MAX_ROWS,
    best: float = 0.0,
) -> Matrix | None:
    """The value of each of our afterstates `after` (its position: `bases[owner]`, every hand
    `hands[owner]`, by offset) to the round's end: with two cards in hand by `last_choice`; with
    more, the others play their best picks by the network and each next position is worth our
    best pick there, searched the same way. None when the network would score more than
    `max_rows` rows."""
    left = [max_rows]

    def limited(rows: Matrix) -> Matrix:
        left[0] -= len(rows)
        if left[0] < 0:
            raise _TooBig
        return score(rows)  # type: ignore[no-any-return]

    def check(rows: int) -> None:
        if left[0] < rows:
            raise _TooBig

    try:
        return _search(
            np, obs, bases, hands, after, owner, limited, check, temperature, margin, best
        )
    except _TooBig:
        return None


def _search(
    np: Any,
    obs: Observation,
    bases: Matrix,
    hands: Matrix,
    after: Matrix,
    owner: Matrix,
    score: Any,
    check: Any,
    temperature: float,
    margin: float,
    best: float = 0.0,
) -> Matrix:
    n = obs.players
    cards = int(hands[0, 0].sum())
    if cards <= 2:
        return last_choice(np, obs, bases, hands, after, owner, score, temperature, margin, best)[0]
    rows, v_idx, b_idx = their_rows(np, bases, hands, n)
    picks = best_picks(np, score(rows), v_idx, b_idx, len(bases), n)[owner]
    nxt, held = advance(np, after, hands[owner], picks, n, obs.pass_direction)
    mine, below = our_picks(np, nxt, held)
    if cards == 3:
        check(last_rows(np, obs, nxt, held, below, temperature))
    values = _search(np, obs, nxt, held, mine, below, score, check, temperature, margin, best)
    starts = np.flatnonzero(np.r_[True, below[1:] != below[:-1]])
    return np.maximum.reduceat(values, starts)  # type: ignore[no-any-return]


def last_rows(
    np: Any, obs: Observation, bases: Matrix, hands: Matrix, owner: Matrix, temperature: float
) -> int:
    """The rows `last_choice` scores for these arguments (`search`'s), counted before any is
    made: every other seat's legal picks, and in rounds 1 and 2 one leaf per our afterstate and
    combination of the others' picks (`combinations`: every legal pick weighs more than 0 above
    temperature 0, a seat's best only at 0)."""
    t = tables(np)
    n = obs.players
    ready = bases[:, _MINE + _TABLEAU : _MINE + _TABLEAU * n].reshape(len(bases), n - 1, _TABLEAU)
    legal = t.holds(hands[:, 1:]) & ((ready[..., _CHOP] > 0)[..., None] | ~t.pair)
    count = legal.sum(axis=2)  # (positions, seats)
    rows = int(count.sum())
    if obs.round < ROUNDS:
        combos = count.prod(axis=1) if temperature > 0 else np.ones(len(bases), dtype=np.intp)
        rows += int(combos[owner].sum())
    return rows


def last_choice(
    np: Any,
    obs: Observation,
    bases: Matrix,
    hands: Matrix,
    after: Matrix,
    owner: Matrix,
    score: Any,
    temperature: float,
    margin: float,
    best: float = 0.0,
) -> tuple[Matrix, Matrix, Matrix, Matrix, Matrix]:
    """The round's last choice (two cards in every hand), as the module says: each of `after`'s
    value (`search`'s arguments), and its leaves, one per (afterstate, combination of the others'
    picks): the afterstate's index, the picks (`combinations`), the weight and the value."""
    n = obs.players
    direction = obs.pass_direction
    rows, v_idx, b_idx = their_rows(np, bases, hands, n)
    values = score(rows)
    where, all_picks, all_weights = combinations(
        np, values, v_idx, b_idx, len(bases), n, temperature
    )
    count = np.bincount(where, minlength=len(bases))
    first = np.cumsum(count) - count
    # One leaf per (afterstate, combination of its position).
    leaf_after = np.repeat(np.arange(len(after)), count[owner])
    offsets = np.arange(len(leaf_after)) - np.repeat(
        np.cumsum(count[owner]) - count[owner], count[owner]
    )
    leaf_combo = first[owner][leaf_after] + offsets
    picks = all_picks[leaf_combo]
    nxt, held = advance(np, after[leaf_after], hands[owner][leaf_after], picks, n, direction)
    t = tables(np)
    leaves = _played(np, nxt, held[:, 0].argmax(axis=1))  # our last card: forced
    if obs.round >= ROUNDS:
        seat = obs.seat
        assert seat is not None
        views = [obs.tableaus[(seat + r) % n] for r in range(n)]
        scores = np.array([v.score for v in views], dtype=np.float64)
        kept = np.array([v.puddings - v.cards.count(Card.PUDDING) for v in views], np.float64)
        blocks = leaves[:, _MINE : _MINE + _TABLEAU * n].reshape(len(leaves), n, _TABLEAU).copy()
        for r in range(1, n):  # everyone's last card: forced too
            wasabi = np.minimum(blocks[:, r, _OPEN], 2).astype(np.intp)
            blocks[:, r] += t.block[wasabi, held[:, r].argmax(axis=1)]
        leaf_values = game_end_values(np, blocks, scores, kept, margin, best)
    else:
        leaf_values = score(leaves)
    weights = all_weights[leaf_combo]
    mine = np.bincount(leaf_after, weights=weights * leaf_values, minlength=len(after))
    return mine, leaf_after, picks, weights, leaf_values
