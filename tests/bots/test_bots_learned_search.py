"""The two-player matrix search of the `learned` strategy: the positions it imagines one turn
ahead are exactly what the seat then sees (checked against real games), and it plays differently
from the one-ply rule only where both hands are known."""

from __future__ import annotations

import random

import numpy as np
import pytest

from sushigo.bots import get_strategy
from sushigo.bots._learned import GoFeatures, LearnedStrategy
from sushigo.bots._learned_search import MAX_ROWS, positions
from sushigo.bots.pettingzoo._go_encoding import action_index
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


def test_it_searches_only_two_player_turns_with_both_hands_known() -> None:
    # On each round's first turn the opponent's hand is unknown: the search plays as one ply.
    game = Game(GameOptions(2), bytes(8))
    searching = LearnedStrategy()
    plain = LearnedStrategy(search=0)
    rng = random.Random(0)
    obs = game.observation(0)
    legal = game.legal_actions(0)
    assert searching.choose(obs, legal, rng) == plain.choose(obs, legal, random.Random(0))
    assert MAX_ROWS >= 100
