"""Game.from_observation and Game.clone: the engine entry points of search bots."""

from __future__ import annotations

import random

import pytest

from sushigo.engine import Card, Game, GameOptions
from sushigo.engine.games.sushi_go.legal import unpack

OPTIONS = [
    GameOptions(2),
    GameOptions(3, pass_both_ways=True),
    GameOptions(4, soy_sauce=True),
    GameOptions(5),
    GameOptions(2, dummy=True),
]


def _hidden(game: Game) -> tuple[list[list[Card]], list[Card], list[Card]]:
    """The true hidden parts of a game (test-only access to private state)."""
    hands = [list(game.hand(s)) for s in range(game.players)]
    # The game keeps the deck and the dummy pile as packed codes of one card each.
    deck = [unpack(code)[0] for code in game._deck[game._deck_pos :]]
    pile = [unpack(code)[0] for code in game._dummy_pile[::-1]]
    return hands, deck, pile


def _play_out(game: Game, rng: random.Random) -> tuple[int, ...]:
    while not game.is_terminal():
        game.apply([rng.choice(game.legal_actions(s)) for s in range(game.players)])
    return game.scores()


@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_a_game_rebuilt_from_an_observation_plays_on_identically(options: GameOptions) -> None:
    rng = random.Random(7)
    game = Game(options, b"sim")
    while not game.is_terminal():
        seat = rng.randrange(options.players)
        copy = Game.from_observation(game.observation(seat), *_hidden(game))
        assert copy.observation(seat).hand == game.observation(seat).hand
        for s in range(options.players):
            assert copy.legal_actions(s) == game.legal_actions(s)
        assert copy.card_count() == game.card_count()
        # From here on both games get the same actions and must reach the same scores.
        state = rng.getstate()
        expected = _play_out(game.clone(), rng)
        rng.setstate(state)
        assert _play_out(copy, rng) == expected
        game.apply([rng.choice(game.legal_actions(s)) for s in range(options.players)])


def test_clone_is_independent_of_the_original() -> None:
    game = Game(GameOptions(4), b"clone")
    before = game.observation(0)
    copy = game.clone()
    _play_out(copy, random.Random(1))
    assert copy.is_terminal() and not game.is_terminal()
    assert game.observation(0) == before


def test_from_observation_refuses_a_hand_that_is_not_the_seats_own() -> None:
    game = Game(GameOptions(3), b"x")
    hands, deck, pile = _hidden(game)
    hands[0], hands[1] = hands[1], hands[0]
    with pytest.raises(ValueError, match="hand"):
        Game.from_observation(game.observation(0), hands, deck, pile)


def test_from_observation_refuses_hands_of_the_wrong_size() -> None:
    game = Game(GameOptions(3), b"x")
    hands, deck, pile = _hidden(game)
    hands[2] = hands[2][:-1]
    with pytest.raises(ValueError, match="seat 2"):
        Game.from_observation(game.observation(0), hands, deck, pile)
