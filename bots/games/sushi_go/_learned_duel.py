"""The `learned` strategy with two players: a network that values a round's positions, searched
one turn deep.

From a round's second turn on both hands are known (`SeatMemory` follows them), so the rest of the
round is a game of perfect information, only played simultaneously; what lies past the round
depends on the points and puddings it leaves (`_learned_endgame.past_round`). `_learned_endgame`
solves that game exactly when few cards are left. Earlier the tree is too big, so the *duel
network* stands in for it: it reads a position (both hands, both tableaus, the round, the leads in
points and puddings from earlier rounds) and predicts its value by the same rule (a node's value
is the mean of its pure maximin and minimax, the leaves scored by the rules). It is trained on
those values themselves, not on games' outcomes (``scripts/train_learned.py``): exact ones for
positions with few cards, and for each bigger position the rule applied one turn deep over the
network's values of its children.

A move builds every pair (our pick a, theirs b), the position each leads to, and the network's
value of it: M[a, b]. The bot plays the row its opponent model likes best
(`_learned_search.choose_row`). On a round's first turn the opponent's hand is unknown: the bot
deals it a few hands from the unseen cards and averages each row's expectation over them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sushigo.engine.games.sushi_go.cards import NUM_KINDS, ROUNDS

# A position's row is the endgame's: both hands, then both tableau blocks.
from ._learned_endgame import (
    _BM,
    _BO,
    _CHOP,
    _HM,
    _PUDDING,
    _TABLEAU,
    WIDTH,
    maki_points,
    past_round,
    round_points,
    step,
)
from ._learned_search import row_values

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Matrix = npt.NDArray[np.float32]
else:
    Matrix = Any

_SHOWN = NUM_KINDS + 4  # of a tableau block: counts, nigiri on wasabi, open wasabi
FEATURES = 2 * NUM_KINDS + 2 * _SHOWN + 4 + 2 + ROUNDS + 1 + 3
"""A position's features: both hands, both tableaus (counts, nigiri on wasabi, open wasabi), each
tableau's points so far and maki icons, the leads in points and puddings kept from earlier rounds,
the round (one-hot), the cards left in each hand, and what the round would leave if it ended now:
the lead in points (the maki race scored as it stands), in puddings, and its value."""

MAX_ROWS = 512
"""Positions valued per move at most. Past that (chopsticks ready on both sides with varied hands)
the opponent's chopsticks pairs are left out of its columns."""


def features(np: Any, rows: Matrix, lead: Matrix, puddings: Matrix, round_: int) -> Matrix:
    """The duel network's input for positions `rows` (the endgame's layout) of round `round_`:
    `lead` and `puddings` are each position's leads from earlier rounds."""
    n = len(rows)
    x = np.empty((n, FEATURES), dtype=np.float32)
    x[:, : 2 * NUM_KINDS] = rows[:, : 2 * NUM_KINDS]
    col = 2 * NUM_KINDS
    for start in (_BM, _BO):
        x[:, col : col + _SHOWN] = rows[:, start : start + _SHOWN]
        col += _SHOWN
    for start in (_BM, _BO):
        points, icons = round_points(np, rows[:, start : start + _TABLEAU])
        x[:, col] = points
        x[:, col + 1] = icons
        col += 2
    x[:, col] = lead
    x[:, col + 1] = puddings
    col += 2
    x[:, col : col + ROUNDS] = 0.0
    x[:, col + round_ - 1] = 1.0
    col += ROUNDS
    x[:, col] = rows[:, _HM : _HM + NUM_KINDS].sum(axis=1)
    # The round ended now: the leaves' own scoring (`_learned_endgame.leaf_values_of`).
    pm, im, po, io = (x[:, c] for c in range(col - ROUNDS - 6, col - ROUNDS - 2))
    now = pm + maki_points(np, im, io) - po - maki_points(np, io, im) + lead
    pud = rows[:, _BM + _PUDDING] - rows[:, _BO + _PUDDING] + puddings
    x[:, col + 1] = now
    x[:, col + 2] = pud
    x[:, col + 3] = past_round(np, round_, now, pud)
    return x  # type: ignore[no-any-return]


def children(
    np: Any, roots: Matrix, max_rows: int = 0
) -> tuple[Matrix, Matrix, Matrix, Matrix] | None:
    """Every pair of picks from each of `roots` (hands of at least 2 cards, all alike in size):
    each child's root, our pick and theirs (kept action indexes), and the child positions. Past
    `max_rows` children (0: no limit) the opponent's chopsticks pairs are left out, then ours.
    None when the hands hold fewer than 2 cards."""
    cards = int(roots[0, _HM : _HM + NUM_KINDS].sum())
    if cards < 2:
        return None
    found = step(np, roots, cards)
    assert found is not None
    for hide in ((_BO,), (_BO, _BM)):
        if not max_rows or len(found[0]) <= max_rows:
            break
        # Too many: the opponent plays single cards only, then we do too (the chopsticks stay
        # ready in the positions, so the network still counts them).
        hidden = roots.copy()
        for start in hide:
            hidden[:, start + _CHOP] = 0
        found = step(np, hidden, cards)
        assert found is not None
        par, _, _, child = found
        for start in hide:
            child[:, start + _CHOP] += roots[par, start + _CHOP]
    return found


def position_values(
    np: Any, net: Any, rows: Matrix, lead: Matrix, puddings: Matrix, round_: int
) -> Matrix:
    """The duel network's values of positions (one each)."""
    return net(features(np, rows, lead, puddings, round_))[:, 0]  # type: ignore[no-any-return]


def search(
    np: Any,
    net: Any,
    roots: Matrix,
    lead: float,
    puddings: float,
    round_: int,
    temperature: float,
    max_rows: int = MAX_ROWS,
) -> tuple[Matrix, Matrix] | None:
    """Each of our picks' expectation against the opponent's likely replies (`row_values`),
    averaged over `roots` (one position per hand the opponent may hold; ours is the same in all),
    and the picks' kept action indexes. None when there is nothing to search."""
    found = children(np, roots, max_rows)
    if found is None:
        return None
    par, a, b, child = found
    n = len(child)
    values = position_values(
        np,
        net,
        child,
        np.full(n, lead, dtype=np.float32),
        np.full(n, puddings, dtype=np.float32),
        round_,
    )
    total: Any = None
    picks: Any = None
    for r in range(len(roots)):
        mine = par == r
        rows, a_pos = np.unique(a[mine], return_inverse=True)
        cols, b_pos = np.unique(b[mine], return_inverse=True)
        m = np.full((len(rows), len(cols)), np.nan, dtype=np.float32)
        m[a_pos, b_pos] = values[mine]
        expectation = row_values(np, m, temperature)
        total = expectation if total is None else total + expectation
        picks = rows
    assert total is not None and picks is not None
    return total / len(roots), picks


__all__ = ["FEATURES", "MAX_ROWS", "WIDTH", "children", "features", "position_values", "search"]
