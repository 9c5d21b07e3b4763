"""The two-player matrix search of the `learned` strategy: the positions it imagines one turn
ahead are exactly what the seat then sees (checked against real games), and it plays differently
from the one-ply rule only where both hands are known."""

from __future__ import annotations

import random

import numpy as np
import pytest

from sushigo.bots import get_strategy
from sushigo.bots._learned import GoFeatures, LearnedStrategy
from sushigo.bots.games.sushi_go._learned_search import (
    MAX_ROWS,
    matrix,
    positions,
    row_values,
    sampled_values,
)
from sushigo.bots.games.sushi_go._pz_encoding import action_index
from sushigo.engine import Action, Game, GameOptions


@pytest.mark.parametrize("seed", range(6))
def test_the_imagined_next_turn_is_the_one_the_seat_sees(seed: int) -> None:
    # Two heuristic seats play (often with chopsticks and wasabi); seat 0's features are followed.
    # At every turn where the opponent's hand is known, the row the search builds for the moves
    # actually played (a by seat 0, b by seat 1, then a' by seat 0 next turn) must equal the
    # afterstate seat 0's features give for a' on that next turn.
    game = Game(GameOptions(2), seed.to_bytes(8, "big"))
    bots = [get_strategy("heuristic", game="sushi-go") for _ in range(2)]
    mine, probe = GoFeatures(), GoFeatures()
    rng = random.Random(seed)
    pending: list[tuple[np.ndarray, dict[tuple[int, int, int], int], Action, Action]] = []
    checked = 0
    while not game.is_terminal():
        obs = [game.observation(s) for s in range(2)]
        acts = [bots[s].choose(obs[s], game.legal_actions(s), rng) for s in range(2)]
        legal = game.legal_actions(0)
        after = mine.raw_rows(obs[0], legal)
        if pending:
            rows, where, a, b = pending.pop()
            key = (action_index(a), action_index(b), action_index(acts[0]))
            real = probe.raw_rows(obs[0], [acts[0]])[0]
            if key in where:
                assert np.array_equal(rows[where[key]], real), key
                checked += 1
        else:
            probe.raw_rows(obs[0], legal)
        probe.raw_rows(obs[0], legal)  # keep the probe's memory in step
        theirs = mine.memory.hands[1]
        if theirs.unknown == 0 and sum(theirs.known) >= 2:
            hand = np.array(theirs.known, dtype=np.float32)
            first = np.zeros(len(legal), dtype=np.float32)
            rows, kept, cells = positions(np, after, first, hand)
            i = legal.index(acts[0])
            if i in kept.tolist():
                # Cells count b within a's row: find this (a, b, a') by action indexes.
                k = kept.tolist().index(i)
                n_b = len({int(c) for c in cells[:, 1]})
                where = {
                    (action_index(legal[int(kept[c // n_b])]), int(bi), int(ci)): r
                    for r, (c, bi, ci) in enumerate(cells.tolist())
                    if c // n_b == k
                }
                pending.append((rows, where, acts[0], acts[1]))
        game.apply(acts)
    assert checked >= 10


def test_without_samples_the_first_turn_of_a_round_is_one_ply() -> None:
    # On each round's first turn the opponent's hand is unknown: with samples=0 the search plays
    # as one ply there.
    game = Game(GameOptions(2), bytes(8))
    searching = LearnedStrategy(samples=0)
    plain = LearnedStrategy(search=0)
    obs = game.observation(0)
    legal = game.legal_actions(0)
    assert searching.choose(obs, legal, random.Random(0)) == plain.choose(
        obs, legal, random.Random(0)
    )
    assert MAX_ROWS >= 100


@pytest.mark.parametrize("seed", range(4))
def test_hands_dealt_to_the_opponent_search_as_a_known_hand_would(seed: int) -> None:
    # The first-turn search against several dealt hands at once: with every dealt hand equal to
    # one hand, each action's value is that hand's matrix row value (`choose_row`'s); with
    # different hands, the mean of each hand's own.
    game = Game(GameOptions(2), seed.to_bytes(8, "big"))
    bot = LearnedStrategy()
    obs, legal = game.observation(0), game.legal_actions(0)
    after = bot._features.raw_rows(obs, legal)
    first = bot._score(after, 2)
    unseen = bot._features.memory.unseen()
    pool = [card for card, n in enumerate(unseen) for _ in range(n)]
    rng = random.Random(seed)
    hands = []
    for _ in range(2):
        hand = np.zeros(len(unseen), dtype=np.float32)
        for card in rng.sample(pool, 6):
            hand[card] += 1
        hands.append(hand)

    def score(rows: np.ndarray) -> np.ndarray:
        return bot._score(rows, 2)

    def alone(hand: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        found = matrix(np, after, first, hand, score, max_rows=10_000)
        assert found is not None
        return row_values(np, found[0]), found[1]

    for dealt in ([hands[0], hands[0]], hands):
        with_rows = sampled_values(np, after, first, np.array(dealt), score, rows=10_000)
        assert with_rows is not None
        values, kept = with_rows
        (v0, k0), (v1, k1) = alone(dealt[0]), alone(dealt[1])
        assert kept.tolist() == k0.tolist() == k1.tolist() == list(range(len(legal)))
        assert np.allclose(values, (v0 + v1) / 2, atol=1e-5)
    # The strategy itself plays a legal action on the first turn, the same for the same rng.
    again = LearnedStrategy()
    assert bot.choose(obs, legal, random.Random(1)) in legal
    assert again.choose(obs, legal, random.Random(1)) == LearnedStrategy().choose(
        obs, legal, random.Random(1)
    )
