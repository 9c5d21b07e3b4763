"""The duel search of the `learned` strategy with two players: the shipped duel network plays, the
child positions it values are the ones real play reaches, and its bound on them holds."""

from __future__ import annotations

import random

import numpy as np
import pytest

from sushigo.bots import get_strategy
from sushigo.bots._learned import LearnedStrategy, load_duel, load_nets
from sushigo.bots.games.sushi_go._learned_duel import children, features
from sushigo.bots.games.sushi_go._learned_endgame import (
    _BM,
    _BO,
    _CHOP,
    _HM,
    _HO,
    WIDTH,
    kept_index,
    position_of,
)
from sushigo.bots.games.sushi_go._memory import counts_of
from sushigo.engine import Game, GameOptions


def test_the_shipped_duel_network_plays_two_players_only() -> None:
    # The shipped weights come with a duel network; a two-player move spends its multiply-adds
    # (`last_work`), and `@duel=0` plays without it; three players never use it.
    duel = load_duel()
    assert duel is not None
    game = Game(GameOptions(2), bytes(8))
    bots = [LearnedStrategy(), LearnedStrategy(duel=0)]
    rng = random.Random(0)
    for _ in range(2):  # the first turn (hands dealt) and the second (hands known)
        acts = [bots[s].choose(game.observation(s), game.legal_actions(s), rng) for s in range(2)]
        assert bots[0].last_work[0] % duel.per_row == 0 < bots[0].last_work[0]
        assert bots[1].last_work[0] % load_nets()[2].per_row == 0
        game.apply(acts)
    three = Game(GameOptions(3), bytes(8))
    bot = LearnedStrategy()
    bot.choose(three.observation(0), three.legal_actions(0), rng)
    assert bot.last_work[0] % load_nets()[3].per_row == 0 < bot.last_work[0]


@pytest.mark.parametrize("seed", range(4))
def test_every_child_is_the_position_real_play_reaches(seed: int) -> None:
    # Two heuristic seats play; wherever both hands are known, the child the duel search builds
    # for the picks actually played equals the position seat 0 then sees (its hand, the
    # opponent's, both tableaus), as the duel network reads it.
    game = Game(GameOptions(2), seed.to_bytes(8, "big"))
    bots = [get_strategy("heuristic", game="sushi-go") for _ in range(2)]
    rng = random.Random(seed)
    checked = 0
    while not game.is_terminal():
        obs = [game.observation(s) for s in range(2)]
        acts = [bots[s].choose(obs[s], game.legal_actions(s), rng) for s in range(2)]
        cards = len(obs[0].hand)
        root = position_of(np, obs[0], counts_of(obs[1].hand)).row[None]
        found = children(np, root)
        game.apply(acts)
        if found is None or cards < 2 or game.round != obs[0].round:
            continue
        _, a, b, child = found
        pick = (a == kept_index(np, acts[0])) & (b == kept_index(np, acts[1]))
        assert pick.sum() == 1
        seen = position_of(np, game.observation(0), counts_of(game.observation(1).hand))
        leads = (np.zeros(1, np.float32), np.zeros(1, np.float32))
        assert np.array_equal(
            features(np, child[pick], *leads, seen.round),
            features(np, seen.row[None], *leads, seen.round),
        )
        checked += 1
    assert checked >= 20


def test_past_its_bound_the_chopsticks_pairs_go_theirs_first() -> None:
    # Both seats with chopsticks ready and varied hands: all pairs make many children; a bound
    # leaves out the opponent's pairs (kept action indexes past the 13 single cards), then ours,
    # and the chopsticks stay ready in the positions.
    row = np.zeros(WIDTH, dtype=np.float32)
    row[_HM : _HM + 13] = [1, 1, 1, 0, 1, 0, 1, 1, 0, 1, 0, 1, 0]
    row[_HO : _HO + 13] = [1, 1, 0, 1, 0, 1, 1, 1, 1, 0, 0, 0, 1]
    row[_BM + _CHOP] = row[_BO + _CHOP] = 1
    roots = row[None]
    full = children(np, roots)
    assert full is not None and (full[1] >= 13).any() and (full[2] >= 13).any()
    theirs = children(np, roots, len(full[0]) - 1)
    assert theirs is not None and (theirs[1] >= 13).any() and (theirs[2] < 13).all()
    both = children(np, roots, len(theirs[0]) - 1)
    assert both is not None and (both[1] < 13).all() and (both[2] < 13).all()
    assert len(both[0]) == 8 * 8 < len(theirs[0]) < len(full[0])
    assert (both[3][:, [_BM + _CHOP, _BO + _CHOP]] == 1).all()
    assert (theirs[3][:, _BO + _CHOP] == 1).all()
