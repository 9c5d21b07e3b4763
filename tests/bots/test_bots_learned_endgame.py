"""The exact endgame of the `learned` strategy: its tree, its round scoring and its value past the
round equal a brute force over real engine play-outs, on positions of real games."""

from __future__ import annotations

import random

import numpy as np
import pytest

from sushigo.bots import get_strategy
from sushigo.bots._learned import LearnedStrategy
from sushigo.bots.games.sushi_go._learned_endgame import (
    MARGIN_SCALE,
    MARGIN_WEIGHT,
    kept_index,
    maki_points,
    past_round,
    position_of,
    round_points,
    solve,
)
from sushigo.engine import Action, Card, Game, GameOptions
from sushigo.engine.games.sushi_go.scoring import round_breakdown


def _engine_value(game: Game, round_: int) -> float:
    """Seat 0's value once the round is over, from the engine's own scores."""
    scores = game.scores()
    lead = scores[0] - scores[1]
    if game.is_terminal():
        places = game.places()
        win = 0.5 if places[0] == places[1] else 1.0 if places[0] == 1 else 0.0
        return win + MARGIN_WEIGHT * lead / MARGIN_SCALE
    puddings = game.puddings()
    found = past_round(np, round_, np.array([float(lead)]), np.array([puddings[0] - puddings[1]]))
    return float(found[0])


def _brute(game: Game, round_: int) -> float:
    """The value of a node by the endgame's rule, over every pair of the engine's legal actions."""
    if game.is_terminal() or game.round != round_:
        return _engine_value(game, round_)
    m = _matrix(game, round_)
    maximin = max(min(row.values()) for row in m.values())
    columns = {b for row in m.values() for b in row}
    minimax = min(max(row[b] for row in m.values()) for b in columns)
    return 0.5 * (maximin + minimax)


def _matrix(game: Game, round_: int) -> dict[Action, dict[Action, float]]:
    out: dict[Action, dict[Action, float]] = {}
    for a in game.legal_actions(0):
        out[a] = {}
        for b in game.legal_actions(1):
            child = game.clone()
            child.apply([a, b])
            out[a][b] = _brute(child, round_)
    return out


def _positions(cards: int, seeds: range) -> list[Game]:
    """Games of two heuristic seats stopped where each hand holds `cards` cards."""
    found = []
    for seed in seeds:
        game = Game(GameOptions(2), seed.to_bytes(8, "big"))
        bots = [get_strategy("heuristic", game="sushi-go") for _ in range(2)]
        rng = random.Random(seed)
        stop_round = 1 + seed % 3
        while not (game.round == stop_round and len(game.hand(0)) == cards):
            game.apply(
                [bots[s].choose(game.observation(s), game.legal_actions(s), rng) for s in range(2)]
            )
        found.append(game)
    return found


@pytest.mark.parametrize("cards", [2, 3, 4])
def test_the_root_matrix_equals_real_play_outs(cards: int) -> None:
    # Every cell of the solver's root matrix (our pick a, theirs b, then the rest of the round by
    # the node rule) equals the same search over real engine games; rounds 1-3 all occur.
    chopsticks = 0
    for game in _positions(cards, range(9 if cards < 4 else 6)):
        obs = game.observation(0)
        theirs = [game.hand(1).count(Card(k)) for k in range(len(Card))]
        found = solve(np, position_of(np, obs, theirs))
        assert found is not None
        m, rows, cols, _ = found
        chopsticks += obs.tableaus[0].chopsticks_ready or obs.tableaus[1].chopsticks_ready
        real = _matrix(game, game.round)
        assert sorted({kept_index(np, a) for a in real}) == rows.tolist()
        assert sorted({kept_index(np, b) for row in real.values() for b in row}) == cols.tolist()
        for a, row in real.items():
            for b, value in row.items():
                i = rows.tolist().index(kept_index(np, a))
                j = cols.tolist().index(kept_index(np, b))
                assert m[i, j] == pytest.approx(value, abs=1e-4), (a, b)
    assert cards == 2 or chopsticks >= 1


def test_round_points_equal_the_engines() -> None:
    # Random tableaus in a random play order: sets, nigiri on wasabi and the maki race.
    rng = random.Random(3)
    kinds = [Card(k) for k in range(12)]  # no soy sauce: the endgame leaves that variant alone
    for _ in range(300):
        tableaus = [[rng.choice(kinds) for _ in range(rng.randrange(11))] for _ in range(2)]
        blocks = np.zeros((2, 21), dtype=np.float32)
        for t, cards in enumerate(tableaus):
            open_wasabi = 0
            for card in cards:
                blocks[t, card] += 1
                if card == Card.WASABI:
                    open_wasabi += 1
                elif Card.EGG <= card <= Card.SQUID and open_wasabi:
                    open_wasabi -= 1
                    blocks[t, 13 + card - Card.EGG] += 1
        points, icons = round_points(np, blocks)
        real = round_breakdown(tableaus)
        for t in range(2):
            maki = maki_points(np, icons[t : t + 1], icons[1 - t : 2 - t])[0]
            assert points[t] + maki == real[t].total, tableaus


def test_too_big_a_tree_is_left_to_the_matrix_search() -> None:
    game = _positions(4, range(1))[0]
    theirs = [game.hand(1).count(Card(k)) for k in range(len(Card))]
    assert solve(np, position_of(np, game.observation(0), theirs), max_leaves=3) is None


def test_without_the_endgame_it_plays_as_before_and_with_it_legally() -> None:
    # endgame=0 keeps the previous behaviour; with the endgame every move is still legal.
    for seed in range(3):
        game = Game(GameOptions(2), seed.to_bytes(8, "big"))
        bots = [LearnedStrategy(), LearnedStrategy(endgame=0)]
        rng = random.Random(seed)
        while not game.is_terminal():
            acts = []
            for s in range(2):
                legal = game.legal_actions(s)
                acts.append(bots[s].choose(game.observation(s), legal, rng))
                assert acts[-1] in legal
            game.apply(acts)
