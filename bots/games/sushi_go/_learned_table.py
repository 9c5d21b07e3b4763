"""The `learned` strategy's search with three to five players: one turn ahead, the others' picks
predicted by the same network from their seats.

A one-ply rule scores the afterstate of each of our picks a. This search goes one turn further:
for each a it builds the position we would see next turn, with every other seat's pick b placed on
its tableau and the hands passed on (the hand we receive is our neighbour's less its pick b), and
scores our best next pick a' there, so a is worth max over a' of the network's value of
(a, b..., a'). That is the afterstate the network was trained on (our pick placed, the others' not
yet), one turn later; what it adds is the exact effect of the neighbour's pick on the hand we get
and of our pick on the one after (a wasabi with a squid to come, a second tempura in the next
hand).

Each other seat is predicted to play its own best afterstate by the network, from its seat's
point of view (the tableau blocks turned to start at its seat; its knowledge of the hands taken
to mirror ours, which is exact once the hands have gone round the table); the seat whose hand we
get next plays its best two, weighed by a softmax of their values (`neighbour_mix`). Hands this
seat cannot know yet (a round's first lap) are dealt from the cards it has not located
(`SeatMemory.unseen`) a few times and the values averaged over the deals.

Everything is batched as in the two-player search (`_learned_search.tables`: each action's effect
on a tableau block and on a hand is a row of a table), so a move is a few array operations and two
forward passes: one for our afterstates and the others' picks, one for our next positions.
"""

from __future__ import annotations

from typing import Any

from sushigo.engine.games.sushi_go.cards import NUM_KINDS

# The feature layout and the action tables are the two-player search's.
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

_KNOWN_BLOCK = NUM_KINDS + 1
_DUMMY = 6

MIX_FLOOR = 0.1
"""A pick of the seat whose hand we get less likely than this is left out of `neighbour_mix`."""

MAX_ROWS = 256
"""Our next-turn positions scored per move at most, over every deal. Past that our picks are cut
to the best by one ply (chopsticks ready make many pairs)."""


def _known(n: int, j: int) -> int:
    """Where the block of the hand at offset j (1 to n - 1) from the seat starts."""
    return _MINE + _TABLEAU * n + _KNOWN_BLOCK * (j - 1)


def _played(np: Any, rows: Matrix, picks: Matrix) -> Matrix:
    """`rows` (positions before the seat's pick, changed in place) with each row's pick of
    `picks` (table indexes) placed on the seat's tableau and taken out of its hand."""
    t = tables(np)
    wasabi = np.minimum(rows[:, _MINE + _OPEN], 2).astype(np.intp)
    rows[:, _MINE : _MINE + _TABLEAU] += t.block[wasabi, picks]
    rows[:, _HAND : _HAND + NUM_KINDS] += t.hand[picks]
    rows[:, _MINE + _READY] = rows[:, _MINE + _CHOP] > 0
    return rows


def their_rows(np: Any, base: Matrix, hands: Matrix, n: int) -> tuple[Matrix, Matrix, Matrix]:
    """The afterstates of every other seat's legal picks, from its own seat, for each deal.

    `base` is this seat's raw feature row before its pick (or one per deal); `hands[s, r]` the
    hand counts of the seat at offset r (0 is ours) in deal s. Returns the raw rows, the view
    each belongs to (deal s, offset r as ``s * (n - 1) + r - 1``) and the table index (`tables`)
    of its pick.
    """
    t = tables(np)
    deals = hands.shape[0]
    views = their_views(np, base, hands, n).reshape(deals * (n - 1), -1)
    their = hands[:, 1:].reshape(deals * (n - 1), NUM_KINDS)
    ready = views[:, _MINE + _CHOP] > 0
    can = t.holds(their) & (ready[:, None] | ~t.pair[None])
    v_idx, b_idx = np.nonzero(can)
    return _played(np, views[v_idx], b_idx), v_idx, b_idx


def best_picks(np: Any, values: Matrix, v_idx: Matrix, b_idx: Matrix, deals: int, n: int) -> Matrix:
    """Each view's pick of highest value (`their_rows`' rows valued), shape (deals, n), column 0
    unused."""
    order = np.lexsort((values, v_idx))  # by view, then value: each view's last is its best
    last = np.flatnonzero(np.r_[v_idx[order][1:] != v_idx[order][:-1], True])
    picks = np.zeros((deals, n), dtype=np.intp)
    picks[:, 1:] = b_idx[order][last].reshape(deals, n - 1)
    return picks  # type: ignore[no-any-return]


def neighbour_mix(
    np: Any,
    values: Matrix,
    v_idx: Matrix,
    b_idx: Matrix,
    picks: Matrix,
    n: int,
    src: int,
    temperature: float,
    width: int = 2,
    floor: float = MIX_FLOOR,
) -> tuple[Matrix, Matrix, Matrix]:
    """The picks of the seat at offset `src` (the one whose hand we get) weighed by a softmax of
    its values (`their_rows`' rows valued) at `temperature` over its best `width` picks, those
    less likely than `floor` left out, in each deal of `picks` (`best_picks`' rows): the deal of
    each (deal, pick) pair kept, its picks (`picks`' row, `src`'s column replaced) and its
    weight (a deal's weights sum to 1 over the deals' count). Its best is `best_picks`' pick."""
    deals = picks.shape[0]
    mine = np.flatnonzero(v_idx % (n - 1) == src - 1)
    deal = v_idx[mine] // (n - 1)
    v = values[mine].astype(np.float64)
    order = np.lexsort((v, deal))  # by deal, then value: each deal's last is its best
    count = np.bincount(deal, minlength=deals)
    below = np.cumsum(count)[deal[order]] - 1 - np.arange(len(order))  # picks better than it
    sel = order[below < width]
    d = deal[sel]
    e = np.exp((v[sel] - v[order][np.cumsum(count) - 1][d]) / temperature)
    w = e / np.bincount(d, weights=e, minlength=deals)[d]
    sel, d, w = sel[w >= floor], d[w >= floor], w[w >= floor]
    w = w / np.bincount(d, weights=w, minlength=deals)[d] / deals
    out = picks[d].copy()
    out[:, src] = b_idx[mine][sel]
    return d, out, w


def their_views(np: Any, base: Matrix, hands: Matrix, n: int) -> Matrix:
    """Each other seat's raw feature row before its pick, for each deal (shape (deals, n - 1,
    features)): `base` (one row, or one per deal) turned to start at that seat, its hand from
    `hands` (as `their_picks` takes it), and what it knows of the hands mirroring what this seat
    knows (the seat at offset j knows the hand at offset j from it when we know the hand at
    offset j from us)."""
    deals, features = hands.shape[0], base.shape[-1]
    bases = base if base.ndim == 2 else base[None]  # one row, or one per deal
    mine_known = tuple(
        bool(bases[0, _known(n, j) + NUM_KINDS] == 0) for j in range(1, n)
    )  # which offsets' hands we know: the others know theirs by the same symmetry
    columns = _view_columns(np, n, features, mine_known)
    source = np.concatenate(
        (
            np.broadcast_to(bases, (deals, features)),
            hands.reshape(deals, n * NUM_KINDS),
            np.zeros((deals, 1), dtype=bases.dtype),
        ),
        axis=1,
    )
    return source[:, columns]  # type: ignore[no-any-return]


_VIEW_COLUMNS: dict[tuple[int, int, tuple[bool, ...]], Matrix] = {}


def _view_columns(np: Any, n: int, features: int, mine_known: tuple[bool, ...]) -> Matrix:
    """`their_views` as one gather (cached): for each other seat's view (n - 1, features), the
    column of [base row, the hands by offset (n * 13), a zero] each of its features is."""
    key = (n, features, mine_known)
    found = _VIEW_COLUMNS.get(key)
    if found is not None:
        return found
    hand, zero = features, features + n * NUM_KINDS
    columns = np.tile(np.arange(features), (n - 1, 1))
    for q in range(1, n):
        c = columns[q - 1]
        c[_DUMMY] = zero
        c[_HAND : _HAND + NUM_KINDS] = hand + NUM_KINDS * q + np.arange(NUM_KINDS)
        for j in range(n):
            src = _MINE + _TABLEAU * ((q + j) % n)
            c[_MINE + _TABLEAU * j : _MINE + _TABLEAU * (j + 1)] = np.arange(src, src + _TABLEAU)
        for j in range(1, n):
            at = _known(n, j)
            if mine_known[j - 1]:
                c[at : at + NUM_KINDS] = hand + NUM_KINDS * ((q + j) % n) + np.arange(NUM_KINDS)
                c[at + NUM_KINDS] = zero
            else:
                c[at : at + NUM_KINDS] = zero
                c[at + NUM_KINDS] = _HAND_LEN
    _VIEW_COLUMNS[key] = columns
    return columns  # type: ignore[no-any-return]


def next_positions(
    np: Any,
    after: Matrix,
    hands: Matrix,
    picks: Matrix,
    n: int,
    direction: int,
) -> tuple[Matrix, Matrix]:
    """Raw feature rows of our next-turn afterstates (a, deal, a') and per row (a, deal).

    `after` holds our afterstate rows (one per pick a, as `GoFeatures.raw_rows` makes them),
    `hands` and `picks` as `their_picks` takes and returns them; hands pass from seat s to
    s + `direction`.
    """
    t = tables(np)
    deals = hands.shape[0]
    nxt = np.repeat(after[:, None, :], deals, axis=1)  # (a, deal, features)
    for r in range(1, n):
        at = _MINE + _TABLEAU * r
        wasabi = int(min(after[0, at + _OPEN], 2))
        nxt[:, :, at : at + _TABLEAU] += t.block[wasabi, picks[:, r]][None]
        nxt[:, :, at + _READY] = nxt[:, :, at + _CHOP] > 0
    size = after[0, _HAND_LEN] - 1
    left = hands + t.hand[picks]  # every hand after its holder's pick (ours is in `after`)
    for j in range(1, n):
        at = _known(n, j)
        src = (j - direction) % n
        if src == 0:
            nxt[:, :, at : at + NUM_KINDS] = after[:, None, _HAND : _HAND + NUM_KINDS]
            nxt[:, :, at + NUM_KINDS] = 0
            continue
        # What we know of it: the known cards less the pick (the rest came from the unknown).
        block = after[0, _known(n, src) : _known(n, src) + NUM_KINDS]
        known = np.maximum(block + t.hand[picks[:, src]], 0)
        nxt[:, :, at : at + NUM_KINDS] = known[None]
        nxt[:, :, at + NUM_KINDS] = size - known.sum(axis=1)[None]
    received = left[:, (-direction) % n]  # (deal, 13)
    nxt[:, :, _HAND : _HAND + NUM_KINDS] = received[None]
    nxt[:, :, _TURN] += 1
    nxt[:, :, _HAND_LEN] -= 1
    for r in range(n):
        nxt[:, :, _MINE + _TABLEAU * r + _HAND_SIZE] -= 1
    ready = after[:, _MINE + _CHOP] > 0
    has = t.holds(received)  # (deal, a')
    legal = has[None] & (ready[:, None, None] | ~t.pair[None, None])  # (a, deal, a')
    ia, idl, ic = np.nonzero(legal)
    return _played(np, nxt[ia, idl], ic), np.stack((ia, idl), axis=1)


def lookahead(
    np: Any,
    after: Matrix,
    base: Matrix,
    hands: Matrix,
    n: int,
    direction: int,
    score: Any,
    max_rows: int = MAX_ROWS,
    neighbour: float = 0.0,
) -> tuple[Matrix, Matrix]:
    """Each of our picks' value one turn ahead, averaged over the deals `hands` (see
    `their_rows`), and the indexes in `after` of the picks valued (when there are too many, the
    best by one ply). Our picks' afterstates and the others' are scored in one batch, our next
    positions in a second. The hands must hold two cards or more. With `neighbour` above 0, the
    seat whose hand we get plays its best two picks weighed by a softmax at that temperature
    (`neighbour_mix`) instead of its best."""
    t = tables(np)
    deals = hands.shape[0]
    rows, v_idx, b_idx = their_rows(np, base, hands, n)
    values = score(np.concatenate((after, rows)))
    first = values[: len(after)]
    picks = best_picks(np, values[len(after) :], v_idx, b_idx, deals, n)
    weights = np.full(deals, 1.0 / deals)
    if neighbour > 0:
        d, picks, weights = neighbour_mix(
            np, values[len(after) :], v_idx, b_idx, picks, n, (-direction) % n, neighbour
        )
        hands = hands[d]
        deals = len(d)
    received = (hands + t.hand[picks])[:, (-direction) % n]
    has = t.holds(received)
    singles = int(has[:, ~t.pair].sum())
    pairs = int(has[:, t.pair].sum())
    per_a = singles + pairs * (after[:, _MINE + _CHOP] > 0)
    a_idx = np.argsort(-first, kind="stable")
    keep = max(1, int(np.searchsorted(np.cumsum(per_a[a_idx]), max_rows, side="right")))
    a_idx = np.sort(a_idx[:keep])
    rows, cells = next_positions(np, after[a_idx], hands, picks, n, direction)
    values = score(rows)
    cell = cells[:, 0] * deals + cells[:, 1]
    starts = np.flatnonzero(np.r_[True, cell[1:] != cell[:-1]])
    best = np.maximum.reduceat(values, starts).reshape(len(a_idx), deals)
    return best @ weights, a_idx
