"""Bad input to the engine's API: each raises its specific exception from engine.errors, names what
was wrong, and leaves the game exactly as it was."""

from __future__ import annotations

from typing import Any

import pytest
from engine_helpers import (
    CHOP,
    find,
    first_legal,
    play_out,
    play_turn,
    seeded_policy,
    snapshot,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from sushigo.engine import (
    Action,
    Card,
    CardNotInHandError,
    ChopsticksUnavailableError,
    EngineError,
    Game,
    GameOptions,
    GameOverError,
    GameRecord,
    IllegalActionError,
    MalformedActionError,
    RecordError,
    WrongSeatError,
    replay,
)


def missing_card(game: Game, seat: int) -> Card:
    return next(c for c in Card if c not in game.hand(seat))


def refused(game: Game, actions: Any, error: type[Exception]) -> Exception:
    """Apply `actions`, expect `error`, and check that nothing changed."""
    before = snapshot(game)
    with pytest.raises(error) as info:
        game.apply(actions)
    assert snapshot(game) == before
    return info.value


@pytest.fixture
def game() -> Game:
    game = Game(GameOptions(3), b"bad-input")
    play_turn(game, first_legal)  # not the very first turn: some history to keep unchanged
    return game


def test_every_engine_error_is_an_engine_error() -> None:
    for error in (
        CardNotInHandError,
        ChopsticksUnavailableError,
        GameOverError,
        IllegalActionError,
        MalformedActionError,
        RecordError,
        WrongSeatError,
    ):
        assert issubclass(error, EngineError)
    for error in (CardNotInHandError, ChopsticksUnavailableError, MalformedActionError):
        assert issubclass(error, IllegalActionError)


def test_card_not_in_hand(game: Game) -> None:
    card = missing_card(game, 1)
    actions = [first_legal(game, 0), Action(card), first_legal(game, 2)]
    error = refused(game, actions, CardNotInHandError)
    assert isinstance(error, IllegalActionError)
    assert error.seat == 1  # type: ignore[attr-defined]
    assert card.label in str(error)
    assert "seat 1" in str(error)


def test_second_pick_without_chopsticks(game: Game) -> None:
    assert not game.observation(0).tableaus[2].chopsticks_ready
    hand = game.hand(2)
    actions = [first_legal(game, 0), first_legal(game, 1), Action(hand[0], hand[-1])]
    error = refused(game, actions, ChopsticksUnavailableError)
    assert error.seat == 2  # type: ignore[attr-defined]
    assert "chopsticks" in str(error)


def test_a_bad_action_of_a_later_seat_changes_nothing_for_earlier_seats(game: Game) -> None:
    """Every action is checked before any is applied."""
    actions = [first_legal(game, 0), first_legal(game, 1), Action(missing_card(game, 2))]
    refused(game, actions, CardNotInHandError)
    game.apply([first_legal(game, s) for s in range(3)])  # and the turn can still be played


@pytest.mark.parametrize("count", [0, 2, 4])
def test_wrong_number_of_actions(game: Game, count: int) -> None:
    actions = [first_legal(game, s % 3) for s in range(count)]
    error = refused(game, actions, WrongSeatError)
    assert "3" in str(error)


BAD_SEATS = [-1, 3, 7, "0", None, 1.0, True]


@pytest.mark.parametrize("seat", BAD_SEATS)
@pytest.mark.parametrize("ask", ["legal_actions", "hand"])
def test_wrong_seat_for_legal_actions_or_a_hand(game: Game, ask: str, seat: Any) -> None:
    before = snapshot(game)
    with pytest.raises(WrongSeatError):
        getattr(game, ask)(seat)
    assert snapshot(game) == before


@pytest.mark.parametrize("seat", [-1, 3, "1", True])
def test_wrong_seat_for_an_observation(game: Game, seat: Any) -> None:
    with pytest.raises(WrongSeatError):
        game.observation(seat)


@pytest.mark.parametrize(
    "bad",
    [
        "tempura",
        None,
        3,
        Card.TEMPURA,
        ["tempura"],
        {"cards": ["tempura"]},
        ("tempura", None, None),
    ],
)
def test_malformed_action(game: Game, bad: Any) -> None:
    actions = [first_legal(game, 0), bad, first_legal(game, 2)]
    error = refused(game, actions, MalformedActionError)
    assert error.seat == 1  # type: ignore[attr-defined]


@pytest.mark.parametrize("first", ["tempura", None, 2.5, b"x"])
def test_action_whose_first_card_is_not_a_card(game: Game, first: Any) -> None:
    bad = Action(first)
    error = refused(game, [first_legal(game, 0), bad, first_legal(game, 2)], MalformedActionError)
    assert error.seat == 1  # type: ignore[attr-defined]


def test_an_accepted_action_is_recorded_with_cards(game: Game) -> None:
    """An action equal to a legal one (a plain tuple, or ints for cards) may be accepted, but
    the history and the events then hold the proper `Action` of `Card`s."""
    card = game.hand(1)[0]
    actions: list[Any] = [first_legal(game, 0), (int(card), None, None), first_legal(game, 2)]
    events = game.apply(actions)
    recorded = game.history[-1][1]
    assert type(recorded) is Action
    assert type(recorded.first) is Card
    assert recorded == Action(card)
    assert events[0].actions[1] == Action(card)  # type: ignore[union-attr]
    assert type(events[0].actions[1].first) is Card  # type: ignore[union-attr]


def test_action_whose_second_card_is_not_a_card() -> None:
    options = GameOptions(3)
    _, game, _ = find(options, lambda g: CHOP in g.hand(0) and len(set(g.hand(0))) > 1)
    play_turn(game, first_legal, {0: Action(CHOP)})
    assert game.observation(0).tableaus[0].chopsticks_ready
    bad = Action(game.hand(0)[0], "squid")  # type: ignore[arg-type]
    refused(game, [bad, first_legal(game, 1), first_legal(game, 2)], MalformedActionError)


def test_two_picks_of_a_kind_need_two_in_hand() -> None:
    def ready_with_a_single_copy(g: Game) -> bool:
        if CHOP not in g.hand(0):
            return False
        play_turn(g, first_legal, {0: Action(CHOP)})
        return any(g.hand(0).count(c) == 1 for c in g.hand(0)) and len(g.hand(0)) >= 2

    _, game, _ = find(GameOptions(4), ready_with_a_single_copy)
    single = next(c for c in game.hand(0) if game.hand(0).count(c) == 1)
    assert Action(single, single) not in game.legal_actions(0)
    actions = [Action(single, single)] + [first_legal(game, s) for s in (1, 2, 3)]
    error = refused(game, actions, CardNotInHandError)
    assert "second" in str(error)


def test_finished_game_refuses_actions() -> None:
    game = Game(GameOptions(2), b"finished")
    play_out(game, first_legal)
    last_turn = list(game.history[-1])
    refused(game, last_turn, GameOverError)
    refused(game, [], GameOverError)
    assert game.legal_actions(0) == ()


def test_no_final_scores_or_places_before_the_end() -> None:
    game = Game(GameOptions(2), b"not-yet")
    with pytest.raises(GameOverError):
        game.returns()
    with pytest.raises(GameOverError):
        game.places()
    with pytest.raises(GameOverError):
        game.winners()


# -- every action the legal list leaves out is refused, every one it includes is accepted -------

CARDS = list(Card)
ANY_ACTION = st.builds(
    Action,
    st.sampled_from(CARDS),
    st.one_of(st.none(), st.sampled_from(CARDS)),
    st.one_of(st.none(), st.sampled_from(CARDS)),
)
VARIANTS = st.sampled_from(
    [
        GameOptions(2),
        GameOptions(3, soy_sauce=True),
        GameOptions(4, pass_both_ways=True),
        GameOptions(5),
        GameOptions(2, dummy=True),
        GameOptions(2, dummy=True, soy_sauce=True, pass_both_ways=True),
    ]
)


@settings(max_examples=40, deadline=None)
@given(
    VARIANTS,
    st.binary(min_size=1, max_size=8),
    st.integers(min_value=0, max_value=26),
    st.lists(ANY_ACTION, min_size=1, max_size=8),
)
def test_apply_accepts_exactly_the_legal_actions(
    options: GameOptions, seed: bytes, turns: int, tries: list[Action]
) -> None:
    game = Game(options, seed)
    policy = seeded_policy(seed)
    for _ in range(turns):
        if game.is_terminal():
            return
        play_turn(game, policy)
    if game.is_terminal():
        return
    seat = turns % options.players
    legal = set(game.legal_actions(seat))
    for action in tries:
        actions = [policy(game, s) for s in range(options.players)]
        actions[seat] = action
        if action in legal:
            game.apply(actions)
            return
        before = snapshot(game)
        with pytest.raises(IllegalActionError) as info:
            game.apply(actions)
        assert info.value.seat == seat
        assert snapshot(game) == before


# -- records ----------------------------------------------------------------------------------


def test_record_from_bad_data_is_refused() -> None:
    game = Game(GameOptions(3), b"record")
    play_turn(game, first_legal)
    good = GameRecord.of(game).to_data()
    bad_variants: list[Any] = [
        [],
        {**good, "game": "chess"},
        {**good, "version": 99},
        {**good, "seed": 42},
        {**good, "seed": "not hex"},
        {**good, "turns": "none"},
        {**good, "turns": ["x"]},
        {**good, "turns": [[{"cards": ["nori"]}] * 3]},
        {**good, "turns": [[{"cards": []}] * 3]},
        {**good, "options": {"players": 9}},
    ]
    for data in bad_variants:
        with pytest.raises(RecordError):
            GameRecord.from_data(data)


def test_replay_of_an_illegal_record_names_the_turn() -> None:
    game = Game(GameOptions(3), b"illegal-record")
    play_turn(game, first_legal)
    play_turn(game, first_legal)
    data = GameRecord.of(game).to_data()
    data["turns"][1][0] = {"cards": [missing_card(rebuild_turn(game, 1), 0).label]}
    with pytest.raises(RecordError, match="turn 2"):
        replay(GameRecord.from_data(data))


def rebuild_turn(game: Game, turns: int) -> Game:
    """The game after its first `turns` turns."""
    again = Game(game.options, game.seed)
    for turn in game.history[:turns]:
        again.apply(list(turn))
    return again
