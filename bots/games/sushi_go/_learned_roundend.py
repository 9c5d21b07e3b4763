"""The `learned` strategy's round end with three to five players: a round's last choice searched
to the round's end, the others' picks weighed by the network.

With two cards in each hand every seat makes its last choice of the round (the card after it is
forced), and once the hands have gone round the table every hand is known (`SeatMemory`). For
each of our picks a, every combination of the others' picks b (each seat's two cards, or both with
chopsticks ready) is played out to the round's end: the hands pass, everyone places its forced
last card. Each combination is weighed by how likely the network (`_learned_table.their_rows`, from
each seat's point of view) makes it: a softmax of each seat's afterstate values at `temperature`,
the seats taken as independent (0: each seat's best pick only, as the look-ahead predicts it).

What a final position is worth: in round 3 the game's end, exactly (the round scored as
`engine.games.sushi_go.scoring` scores it, the puddings' points, the winners by points then
puddings): our share of the win plus the margin's share, the network's own scale. In rounds 1 and
2 the network values our final afterstate (it sees the others' last cards, which our memory holds).
"""

from __future__ import annotations

from typing import Any

from sushigo.engine import Card, Observation, score_puddings
from sushigo.engine.games.sushi_go.cards import NUM_KINDS, ROUNDS
from sushigo.engine.games.sushi_go.scoring import round_breakdown

from ._learned_endgame import round_points
from ._learned_search import _CHOP, _HAND, _MINE, _OPEN, _TABLEAU, Matrix, tables
from ._learned_table import _played, best_picks, next_bases, next_positions, their_rows

MARGIN_SCALE = 20.0
"""The network's margin unit (final points over the others' mean, divided by this)."""

_PUDDING = int(Card.PUDDING)
_MAKI1 = (Card.MAKI1,)


def combinations(
    np: Any, values: Matrix, v_idx: Matrix, b_idx: Matrix, n: int, temperature: float
) -> tuple[Matrix, Matrix]:
    """Every combination of the other seats' picks (one deal; `their_rows`' rows, valued): the
    picks, shape (combinations, n) with column 0 unused, and each combination's weight (the
    product of each seat's softmax of its values at `temperature`; 0: its best pick, weight 1)."""
    picks = np.zeros((1, n), dtype=np.intp)
    weights = np.ones(1)
    for q in range(1, n):
        mine = v_idx == q - 1
        b, v = b_idx[mine], values[mine].astype(np.float64)
        if temperature <= 0:
            keep = int(np.argmax(v))
            b, w = b[keep : keep + 1], np.ones(1)
        else:
            w = np.exp((v - v.max()) / temperature)
            w /= w.sum()
        picks = np.repeat(picks, len(b), axis=0)
        picks[:, q] = np.tile(b, len(picks) // len(b))
        weights = np.repeat(weights, len(b)) * np.tile(w, len(weights))
    return picks, weights


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


def game_end_values(np: Any, blocks: Matrix, scores: Matrix, kept: Matrix, margin: float) -> Matrix:
    """Our value at the game's end for rows of final tableau blocks (rows, n, block), seat 0
    ours: `scores` each seat's points from the earlier rounds, `kept` its puddings from them. The
    share of the win (most points, then most puddings; still tied seats share it) plus `margin`
    times the final margin over the others' mean, over `MARGIN_SCALE`."""
    points, icons = round_points(np, blocks)
    puddings = kept[None] + blocks[:, :, _PUDDING]
    icon_rows = icons.astype(np.int64).tolist()
    pudding_rows = puddings.astype(np.int64).tolist()
    extra = np.array(
        [
            [m + p for m, p in zip(maki_points(tuple(i)), pudding_points(tuple(d)), strict=True)]
            for i, d in zip(icon_rows, pudding_rows, strict=True)
        ],
        dtype=np.float64,
    )
    final = scores[None] + points + extra
    n = blocks.shape[1]
    key = final * 64 + puddings  # points first, then puddings (fewer than 64)
    top = key.max(axis=1)
    share = np.where(key[:, 0] == top, 1.0 / (key == top[:, None]).sum(axis=1), 0.0)
    lead = final[:, 0] - (final[:, 1:].sum(axis=1)) / (n - 1)
    return share + margin * lead / MARGIN_SCALE  # type: ignore[no-any-return]


def final_blocks(
    np: Any, rows: Matrix, after: Matrix, hands: Matrix, picks: Matrix, n: int, direction: int
) -> Matrix:
    """The tableau blocks (rows, n, block) at the round's end: `rows` are `next_positions`' rows
    (our last card placed), one per (a, combination), `after` our afterstates a, `hands` and
    `picks` per combination; each other seat's forced last card is placed on its block."""
    t = tables(np)
    combos = hands.shape[0]
    blocks = rows[:, _MINE : _MINE + _TABLEAU * n].reshape(len(rows), n, _TABLEAU).copy()
    left = hands + t.hand[picks]  # (combination, n, kinds): each hand after its holder's pick
    a_of = np.repeat(np.arange(len(after)), combos)
    c_of = np.tile(np.arange(combos), len(after))
    for r in range(1, n):
        src = (r - direction) % n
        got = after[a_of, _HAND : _HAND + NUM_KINDS] if src == 0 else left[c_of, src]
        card = got.argmax(axis=1)
        wasabi = np.minimum(blocks[:, r, _OPEN], 2).astype(np.intp)
        blocks[:, r] += t.block[wasabi, card]
    return blocks


def round_end(
    np: Any,
    obs: Observation,
    after: Matrix,
    base: Matrix,
    hands: Matrix,
    score: Any,
    temperature: float,
    margin: float,
) -> tuple[Matrix, Matrix, Matrix]:
    """The value of each of our picks (`after`, their raw afterstate rows) against each
    combination of the others' picks at the round's end (a matrix, our picks by combinations),
    the combinations' picks (`combinations`) and their weights, as the module says: our pick's
    value is its row times the weights. `base` is our raw row before the pick, `hands` every
    hand's counts (1, n, kinds; offset 0 ours), each of two cards; `score` maps raw rows to the
    network's values."""
    return round_ends(np, obs, [(after, base, hands)], score, temperature, margin)[0]


def round_ends(
    np: Any,
    obs: Observation,
    nodes: list[tuple[Matrix, Matrix, Matrix]],
    score: Any,
    temperature: float,
    margin: float,
) -> list[tuple[Matrix, Matrix, Matrix]]:
    """`round_end` of several positions of the round's last choice (each `(after, base, hands)`)
    at once: two forward passes of the network in all."""
    n = obs.players
    direction = obs.pass_direction
    theirs = [their_rows(np, base, hands, n) for _, base, hands in nodes]
    values = score(np.concatenate([rows for rows, _, _ in theirs]))
    found = []
    at = 0
    for (after, _, hands), (rows, v_idx, b_idx) in zip(nodes, theirs, strict=True):
        picks, weights = combinations(np, values[at : at + len(rows)], v_idx, b_idx, n, temperature)
        at += len(rows)
        dealt = np.repeat(hands, len(picks), axis=0)
        nxt, _ = next_positions(np, after, dealt, picks, n, direction)
        # One row per (a, combination), in that order: the last card is forced.
        assert len(nxt) == len(after) * len(picks)
        found.append((after, dealt, picks, weights, nxt))
    leaves = np.concatenate([nxt for *_, nxt in found])
    if obs.round >= ROUNDS:
        seat = obs.seat
        assert seat is not None
        views = [obs.tableaus[(seat + r) % n] for r in range(n)]
        scores = np.array([v.score for v in views], dtype=np.float64)
        kept = np.array([v.puddings - v.cards.count(Card.PUDDING) for v in views], np.float64)
        blocks = np.concatenate(
            [
                final_blocks(np, nxt, after, dealt, picks, n, direction)
                for after, dealt, picks, _, nxt in found
            ]
        )
        values = game_end_values(np, blocks, scores, kept, margin)
    else:
        values = score(leaves)
    out = []
    at = 0
    for after, _, picks, weights, nxt in found:
        out.append((values[at : at + len(nxt)].reshape(len(after), len(picks)), picks, weights))
        at += len(nxt)
    return out


def two_turns(
    np: Any,
    obs: Observation,
    after: Matrix,
    base: Matrix,
    hands: Matrix,
    score: Any,
    temperature: float,
    margin: float,
) -> Matrix:
    """With three cards in each hand: the value of each of our picks (`after`) when the others
    play their best picks by the network now (as the look-ahead predicts them) and the round's
    last choice that follows is searched by `round_end`, where we play our best pick."""
    t = tables(np)
    n = obs.players
    direction = obs.pass_direction
    rows, v_idx, b_idx = their_rows(np, base, hands, n)
    picks = best_picks(np, score(rows), v_idx, b_idx, 1, n)
    bases, _ = next_bases(np, after, hands, picks, n, direction)
    left = hands[0] + t.hand[picks[0]]  # (n, kinds): every hand after its holder's pick
    nodes = []
    for a in range(len(after)):
        left[0] = after[a, _HAND : _HAND + NUM_KINDS]
        node = left[(np.arange(n) - direction) % n][None]  # the hands each seat receives
        position = bases[a, 0]
        can = (node[0, 0] >= t.need).all(axis=1) & ((position[_MINE + _CHOP] > 0) | ~t.pair)
        ours = np.flatnonzero(can)
        nodes.append(
            (_played(np, np.repeat(position[None], len(ours), axis=0), ours), position, node)
        )
    found = round_ends(np, obs, nodes, score, temperature, margin)
    return np.array([float((m @ weights).max()) for m, _, weights in found])  # type: ignore[no-any-return]
