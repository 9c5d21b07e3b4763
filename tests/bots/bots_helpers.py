"""Shared helpers for the bots tests, imported as ``bots_helpers`` (a name unique across test folders)."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

import pytest

from sushigo.bots import Strategy, get_strategy
from sushigo.engine import Game, GameOptions
from sushigo.engine.games.sushi_roll import RollGame, RollOptions

ALL_OPTIONS = [
    GameOptions(2),
    GameOptions(3),
    GameOptions(4),
    GameOptions(5),
    GameOptions(2, dummy=True),
    GameOptions(3, pass_both_ways=True),
    GameOptions(4, soy_sauce=True),
    GameOptions(2, pass_both_ways=True, dummy=True, soy_sauce=True),
    GameOptions(5, pass_both_ways=True, soy_sauce=True),
]
"""Every player count and every variant, alone and together."""

needs_from_observation = pytest.mark.skipif(
    not hasattr(Game, "from_observation"),
    reason="the engine has no Game.from_observation yet (ismcts needs it)",
)


def random_game(options: GameOptions, seed: int) -> Iterator[Game]:
    """A game played with random legal actions, yielded before every turn."""
    game = Game(options, seed.to_bytes(8, "big"))
    rng = random.Random(seed)
    while not game.is_terminal():
        yield game
        game.apply(
            [
                (legal := game.legal_actions(s))[rng.randrange(len(legal))]
                for s in range(options.players)
            ]
        )


def play(options: GameOptions, strategies: Sequence[Strategy], seed: int = 0) -> Game:
    """Play a whole game with `strategies` (one per seat), checking every action is legal."""
    game = Game(options, seed.to_bytes(8, "big"))
    rngs = [random.Random(seed * 10 + s) for s in range(options.players)]
    for strategy in strategies:
        strategy.reset()
    while not game.is_terminal():
        actions = []
        for s in range(options.players):
            legal = game.legal_actions(s)
            action = strategies[s].choose(game.observation(s), legal, rngs[s])
            assert action in legal, (s, action, legal)
            actions.append(action)
        game.apply(actions)
    return game


def play_roll(
    players: int, names: Sequence[str], seed: int, game_seed: bytes | None = None
) -> tuple[RollGame, int]:
    """A whole Sushi Roll game of the strategies `names` (seat s plays names[s % len(names)]),
    every action checked legal; the game and how many actions it took."""
    game = RollGame(RollOptions(players), game_seed or seed.to_bytes(8, "big"))
    strategies = [get_strategy(names[s % len(names)], game="sushi-roll") for s in range(players)]
    rngs = [random.Random(seed * 10 + s) for s in range(players)]
    actions = 0
    while not game.is_terminal():
        seat = game.to_move
        assert seat is not None
        legal = game.legal_actions(seat)
        action = strategies[seat].choose(game.observation(seat), legal, rngs[seat])
        assert action in legal
        game.apply(seat, action)
        actions += 1
        assert actions < 5000, "a game that never ends"
    return game, actions
