"""Sushi Roll strategies: always legal, always finish, resolved by name for the game kind."""

from __future__ import annotations

import random

import pytest
from bots_helpers import play_roll

from sushigo import bots
from sushigo.bots import (
    GreedyStrategy,
    HeuristicStrategy,
    RandomStrategy,
    StrategyError,
    get_strategy,
    strategy_factory,
)
from sushigo.bots.games.sushi_roll import (
    ROLL_BUILTIN,
    RollGreedyStrategy,
    RollHeuristicStrategy,
    RollRandomStrategy,
    RollStrategy,
)
from sushigo.engine.games.sushi_roll import Reroll, RollGame, RollOptions, Swap, Take

NAMES = sorted(set(ROLL_BUILTIN) - {"ismcts"})  # the search bot has its own, budgeted tests


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("name", NAMES)
def test_every_strategy_plays_legal_actions_and_finishes(name: str, players: int) -> None:
    for seed in range(4):
        game, _ = play_roll(players, [name, "random"], seed)
        assert len(game.returns()) == players and game.winners()


@pytest.mark.parametrize("players", [2, 4, 5])
def test_a_table_of_every_strategy(players: int) -> None:
    game, _ = play_roll(players, NAMES, 11)
    assert game.is_terminal()


def test_names_resolve_to_the_game_kinds_implementation() -> None:
    pairs = {
        "random": (RandomStrategy, RollRandomStrategy),
        "greedy": (GreedyStrategy, RollGreedyStrategy),
        "heuristic": (HeuristicStrategy, RollHeuristicStrategy),
    }
    for name, (card, roll) in pairs.items():
        assert type(bots.get_strategy(name, game="sushi-go")) is card
        assert type(bots.get_strategy(name, game="sushi-go")) is card
        assert type(bots.get_strategy(name, game="sushi-roll")) is roll
        assert type(get_strategy(name, game="sushi-roll")) is roll
        assert isinstance(get_strategy(name, game="sushi-roll"), RollStrategy)
    assert (
        type(strategy_factory("heuristic@swap_margin=3", game="sushi-roll")())
        is RollHeuristicStrategy
    )
    with pytest.raises(StrategyError, match="unknown strategy"):
        get_strategy("alphazero", game="sushi-roll")
    with pytest.raises(StrategyError, match=r"no strategies for the game .chess."):
        bots.get_strategy("random", game="chess")


def test_greedy_never_spends_tokens_and_heuristic_does() -> None:
    spent = {"greedy": 0, "heuristic": 0}
    for name in spent:
        for seed in range(6):
            game, _ = play_roll(4, [name], seed)
            spent[name] += sum(type(a) is not Take for _, a in game.history)
    assert spent["greedy"] == 0
    assert spent["heuristic"] > 0


def test_random_takes_often_enough_that_games_end() -> None:
    rng = random.Random(3)
    game = RollGame(RollOptions(4), b"seed")
    seat = game.to_move
    assert seat is not None
    legal = game.legal_actions(seat)
    assert any(type(a) is Reroll for a in legal) and any(type(a) is Swap for a in legal)
    picks = [RollRandomStrategy().choose(game.observation(seat), legal, rng) for _ in range(400)]
    takes = sum(type(a) is Take for a in picks)
    assert 0.45 < takes / len(picks) < 0.7


def test_heuristic_swaps_for_a_much_better_die_and_rerolls_a_poor_belt() -> None:
    strategy = RollHeuristicStrategy()
    rng = random.Random(0)
    kinds = {"swap": 0, "reroll": 0}
    for seed in range(10):
        game, _ = play_roll(4, ["heuristic"], seed)
        for _, action in game.history:
            if type(action) is Swap:
                kinds["swap"] += 1
            elif type(action) is Reroll:
                kinds["reroll"] += 1
    assert kinds["swap"] > 0 and kinds["reroll"] > 0
    strategy.reset()
    game = RollGame(RollOptions(2), b"x")
    seat = game.to_move
    assert seat is not None
    assert strategy.choose(game.observation(seat), game.legal_actions(seat), rng) in (
        game.legal_actions(seat)
    )
