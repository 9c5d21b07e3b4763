"""Sushi Roll's learned bot: the afterstates it scores are the positions the rules make, and it
plays its search's candidates."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from sushigo.bots import StrategyError, get_strategy
from sushigo.bots.games.sushi_roll._afterstate import Afterstates, encode, size
from sushigo.bots.games.sushi_roll._search import candidates_of
from sushigo.bots.games.sushi_roll._sim import SimState, apply, policy_action
from sushigo.engine.games.sushi_roll import Reroll, RollGame, RollOptions, Swap, Take


def _positions(players: int, seed: int) -> list[SimState]:
    """Every position of a game the rollout policy plays in the simulator, with tokens kept
    unspent for a while so that swaps and re-rolls are candidates."""
    game = RollGame(RollOptions(players), seed.to_bytes(8, "big"))
    state = SimState.of(game.observation(0))
    rng = random.Random(seed)
    out = []
    while not state.over:
        out.append(state.copy())
        action = policy_action(state)
        if not isinstance(action, Take) and rng.random() < 0.7:
            action = Take(0)
        apply(state, action, rng)
    return out


def _after_take(state: SimState, face: int) -> list[float]:
    """The afterstate the rules make when the seat to move takes a die showing `face`."""
    me = state.to_move
    state.belts[me].remove(face)
    state.place(face)
    return encode(state, me)


@pytest.mark.parametrize("players", [2, 3, 5])
def test_every_row_is_the_afterstate_the_rules_make(players: int) -> None:
    # Each candidate's rows, laid out from one encoding per face plus changes, equal the encoding
    # of the position the simulator reaches by playing the candidate and then each take.
    checked = {Take: 0, Swap: 0, Reroll: 0}
    for state in _positions(players, 11 + players)[::3]:
        me = state.to_move
        for action in candidates_of(state):
            after = Afterstates(state)
            after.add(action, 4, random.Random(1))
            rows = after.matrix()
            assert rows.shape[1] == size(players)
            if isinstance(action, Take):
                face = state.belts[me][action.position]
                expected = [_after_take(state.copy(), face)]
            elif isinstance(action, Swap):
                swapped = state.copy()
                apply(swapped, action, random.Random(0))
                expected = [_after_take(swapped.copy(), f) for f in sorted(set(swapped.belts[me]))]
            else:
                if state.menu_left == 0:
                    continue  # a menu face's gain is counted with the supply before the re-roll
                expected = []
                for counts in after.outcomes():
                    rolled = state.copy()
                    rolled.menu[me] -= 1
                    rolled.menu_left += 1
                    rolled.belts[me] = [f for f in range(len(counts)) for _ in range(counts[f])]
                    expected += [_after_take(rolled.copy(), f) for f in np.flatnonzero(counts)]
            assert np.array_equal(rows, np.array(expected, dtype=np.float32)), action
            checked[type(action)] += 1
    assert all(checked.values()), checked


def test_a_reroll_is_worth_its_outcomes_mean_of_the_best_take() -> None:
    state = next(s for s in _positions(2, 5) if s.menu[s.to_move] > s.fresh_menu[s.to_move])
    me = state.to_move
    take, reroll = Take(0), Reroll((0, 1))
    after = Afterstates(state)
    after.add(take, 3, random.Random(2))
    after.add(reroll, 3, random.Random(2))
    rows = after.matrix()
    scores = np.arange(len(rows), dtype=np.float64)  # later rows score higher
    outcomes = after.outcomes()
    best, start = [], 1
    for counts in outcomes:
        start += len(np.flatnonzero(counts))
        best.append(start - 1)  # each outcome's last row is its best
    assert after.values(scores) == [0.0, float(np.mean(best))]
    assert len(outcomes) == 3
    assert all(counts.sum() == len(state.belts[me]) for counts in outcomes)


def test_it_plays_only_legal_actions_and_repeats_from_a_seed() -> None:
    for players in (2, 4):
        records = []
        for _ in range(2):
            game = RollGame(RollOptions(players), b"learned")
            bots = [get_strategy("learned", game="sushi-roll") for _ in range(players)]
            rng = random.Random(7)
            moves = []
            while (seat := game.to_move) is not None:
                legal = game.legal_actions(seat)
                action = bots[seat].choose(game.observation(seat), legal, rng)
                assert action in legal
                moves.append(action)
                game.apply(seat, action)
            records.append(moves)
        assert records[0] == records[1]
        kinds = {type(a) for a in records[0]}
        assert Take in kinds
        assert kinds & {Reroll, Swap}  # it spends tokens, not only takes


def test_weights_of_another_network_or_a_bad_sample_count_are_refused_in_one_line() -> None:
    go = Path(__file__).parents[2] / "bots" / "games" / "sushi_go" / "learned_go.npz"
    with pytest.raises(StrategyError, match="holds no Sushi Roll afterstate network for 2 players"):
        get_strategy(f"learned@weights={go}", game="sushi-roll")
    with pytest.raises(StrategyError, match="samples must be at least 1"):
        get_strategy("learned@samples=0", game="sushi-roll")
