"""Bad input: each illegal action raises its specific error and leaves the game exactly as it was
(observation, history and the future rolls)."""

from __future__ import annotations

from typing import Any

import pytest
from roll_helpers import crafted

from sushigo.engine.errors import (
    EngineError,
    GameOverError,
    IllegalActionError,
    MalformedActionError,
    OptionsError,
    WrongSeatError,
)
from sushigo.engine.games.sushi_roll import (
    AlreadyTakenError,
    BadPositionError,
    BadTargetError,
    NoTokenError,
    NotYourTurnError,
    Reroll,
    RollGame,
    RollOptions,
    Swap,
    Take,
)


def position() -> RollGame:
    """Seat 1 to move (seat 0 has taken), seat 1 has no chopsticks; seat 2's belt is full."""
    return crafted(
        [["egg", "maki1"], ["tempura", "maki3", "squid"], ["pudding2", "wasabi", "salmon"]],
        to_move=1,
        chopsticks=[2, 0, 2],
    )


BAD: list[tuple[int, Any, type[EngineError], str]] = [
    (7, Take(0), WrongSeatError, "no seat 7"),
    (-1, Take(0), WrongSeatError, "no seat -1"),
    (2, Take(0), NotYourTurnError, "seat 1's turn"),
    (0, Take(0), AlreadyTakenError, "already took"),
    (1, Take(3), BadPositionError, "no die at position 3"),
    (1, Take(-1), BadPositionError, "no die at position -1"),
    (1, Take("0"), MalformedActionError, "integer"),
    (1, Take(True), MalformedActionError, "integer"),
    (1, (0,), MalformedActionError, "expected a Reroll, Swap or Take"),
    (1, "take 0", MalformedActionError, "expected a Reroll, Swap or Take"),
    (1, Reroll(()), BadPositionError, "at least one die"),
    (1, Reroll((1, 0)), BadPositionError, "strictly increasing"),
    (1, Reroll((1, 1)), BadPositionError, "strictly increasing"),
    (1, Reroll((0, 3)), BadPositionError, "no die at position 3"),
    (1, Reroll([0]), MalformedActionError, "tuple of positions"),
    (1, Swap(0, 2, 0), NoTokenError, "no chopsticks token"),
]


@pytest.mark.parametrize(("seat", "action", "error", "message"), BAD)
def test_bad_action_raises_and_changes_nothing(
    seat: int, action: Any, error: type[EngineError], message: str
) -> None:
    game = position()
    before = game.observation(None), game.history, game.legal_actions(1)
    twin = game.clone()
    with pytest.raises(error, match=message) as info:
        game.apply(seat, action)
    assert isinstance(info.value, IllegalActionError)
    assert (game.observation(None), game.history, game.legal_actions(1)) == before
    # The roll stream did not move either: the same re-roll gives the same dice as on a twin.
    assert game.apply(1, Reroll((0, 1, 2))) == twin.apply(1, Reroll((0, 1, 2)))


SWAPS: list[tuple[Swap, type[EngineError], str]] = [
    (Swap(0, 2, 0), BadTargetError, "another player's belt"),
    (Swap(0, 5, 0), BadTargetError, "no seat 5"),
    (Swap(0, 1, 0), BadTargetError, "seat 1's belt is empty"),
    (Swap(2, 0, 0), BadPositionError, "position 2 of your belt"),
    (Swap(0, 0, 1), BadPositionError, "position 1 of seat 0's belt"),
    (Swap(0, 0, "x"), MalformedActionError, "theirs must be an integer"),  # type: ignore[arg-type]
]


@pytest.mark.parametrize(("action", "error", "message"), SWAPS)
def test_bad_swaps(action: Swap, error: type[EngineError], message: str) -> None:
    # Last cycle: seat 1 has taken (empty belt); seat 2 to move with 1 die; seat 0 still has 1.
    game = crafted([["egg"], [], ["squid"]], to_move=2, red=1)
    before = game.observation(None)
    with pytest.raises(error, match=message):
        game.apply(2, action)
    assert game.observation(None) == before
    assert all(a.other_seat == 0 for a in game.legal_actions(2) if isinstance(a, Swap))


def test_no_menu_token() -> None:
    game = crafted([["egg"], ["squid"]], menu=[0, 3])
    with pytest.raises(NoTokenError, match="no menu token") as info:
        game.apply(0, Reroll((0,)))
    assert info.value.token == "menu" and info.value.seat == 0
    assert not any(isinstance(a, Reroll) for a in game.legal_actions(0))


def test_game_over_and_seat_checks() -> None:
    game = crafted([["egg"], ["squid"]], round_=3)
    game.apply(0, Take(0))
    game.apply(1, Take(0))
    with pytest.raises(GameOverError):
        game.apply(0, Take(0))
    with pytest.raises(WrongSeatError):
        game.legal_actions(2)
    with pytest.raises(WrongSeatError):
        game.observation(True)  # type: ignore[arg-type]
    fresh = RollGame(RollOptions(2), b"x")
    with pytest.raises(GameOverError):
        fresh.returns()
    with pytest.raises(GameOverError):
        fresh.places()


@pytest.mark.parametrize("players", [1, 6, 0, "4", True])
def test_bad_options(players: Any) -> None:
    with pytest.raises(OptionsError):
        RollOptions(players)


def test_bad_constructor_arguments() -> None:
    with pytest.raises(TypeError):
        RollGame(RollOptions(2), "seed")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        RollGame(2, b"seed")  # type: ignore[arg-type]
