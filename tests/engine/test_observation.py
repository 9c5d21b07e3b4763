"""Per-seat observations: exactly what a seat may see, immutable."""

from __future__ import annotations

import dataclasses

import pytest
from engine_helpers import first_legal, play_out, play_turn, public_part, seeded_policy

from sushigo.engine import Card, Game, GameOptions, Observation, TableauView
from sushigo.engine.games.sushi_go.observation import make_tableau_view

OBSERVATION_FIELDS = {
    "options",
    "seat",
    "round",
    "turn",
    "hand",
    "tableaus",
    "pass_direction",
    "dummy_controller",
    "is_over",
}
TABLEAU_FIELDS = {
    "cards",
    "on_wasabi",
    "open_wasabi",
    "puddings",
    "score",
    "round_scores",
    "hand_size",
    "chopsticks_ready",
    "is_dummy",
}


def test_observation_holds_exactly_the_agreed_fields() -> None:
    """A new field could leak hidden information: adding one must be a deliberate change here."""
    assert {f.name for f in dataclasses.fields(Observation)} == OBSERVATION_FIELDS
    assert {f.name for f in dataclasses.fields(TableauView)} == TABLEAU_FIELDS


@pytest.mark.parametrize(
    "options",
    [GameOptions(2), GameOptions(4, pass_both_ways=True), GameOptions(2, dummy=True)],
)
def test_a_seat_sees_its_own_hand_and_the_public_state_only(options: GameOptions) -> None:
    game = Game(options, b"own-hand")
    policy = seeded_policy(b"own-hand")
    while not game.is_terminal():
        spectator = game.observation(None)
        assert spectator.seat is None
        assert spectator.hand == ()
        for seat in range(options.players):
            obs = game.observation(seat)
            assert obs.seat == seat
            assert obs.hand == game.hand(seat)
            # Blank the seat's own hand and the rest is exactly what a spectator sees.
            assert public_part(obs) == spectator
        play_turn(game, policy)


def test_observation_shows_round_turn_direction_sizes_puddings_and_scores() -> None:
    options = GameOptions(3, pass_both_ways=True)
    game = Game(options, b"public")
    while game.round == 1:
        play_turn(game, first_legal)
    play_turn(game, first_legal)
    obs = game.observation(2)
    assert (obs.round, obs.turn, obs.pass_direction) == (2, 2, -1)
    assert obs.options == options
    assert obs.players == 3
    assert obs.dummy_controller is None
    assert not obs.is_over
    for s, view in enumerate(obs.tableaus):
        assert view.hand_size == len(game.hand(s)) == 8
        assert view.score == game.scores()[s]
        assert view.puddings == game.puddings()[s]
        assert view.round_scores == (game.round_points()[0][s].total,)
        assert len(view.cards) == 1
        assert not view.is_dummy


def test_observation_legal_actions_equal_the_games() -> None:
    for options in (GameOptions(3), GameOptions(2, dummy=True)):
        game = Game(options, b"legal-from-observation")
        policy = seeded_policy(b"legal")
        while not game.is_terminal():
            for s in range(options.players):
                assert game.observation(s).legal_actions() == game.legal_actions(s)
            assert game.observation(None).legal_actions() == ()
            play_turn(game, policy)
        assert game.observation(0).legal_actions() == ()


def test_observations_are_immutable_values() -> None:
    game = Game(GameOptions(3), b"immutable")
    obs = game.observation(0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        obs.hand = ()  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        obs.tableaus[0].score = 99  # type: ignore[misc]
    assert isinstance(obs.hand, tuple)
    assert isinstance(obs.tableaus, tuple)
    assert all(isinstance(v.cards, tuple) for v in obs.tableaus)
    hash(obs)  # a value: hashable
    copy = game.observation(0)
    play_turn(game, first_legal)
    assert obs == copy  # an observation does not change as the game goes on
    assert game.observation(0) != obs


def test_observations_built_through_the_slots_equal_the_dataclass_constructors() -> None:
    """The game builds observations with `positional` constructors: each must give exactly what
    the dataclass's own constructor gives, field for field, and stay frozen."""
    game = Game(GameOptions(4, soy_sauce=True), b"positional")
    policy = seeded_policy(b"slots")
    for _ in range(9):  # into round 2: finished rounds' scores, wasabi and puddings are likely
        play_turn(game, policy)
    for seat in (0, 3, None):
        obs = game.observation(seat)
        values = {f.name: getattr(obs, f.name) for f in dataclasses.fields(Observation)}
        assert type(obs) is Observation
        assert obs == Observation(**values)
        assert hash(obs) == hash(Observation(**values))
        for view in obs.tableaus:
            fields = {f.name: getattr(view, f.name) for f in dataclasses.fields(TableauView)}
            assert type(view) is TableauView
            assert view == TableauView(**fields)
    view = make_tableau_view(
        (Card.WASABI, Card.SQUID), (Card.SQUID,), 0, 1, 2, (3,), 4, True, False
    )
    assert view == TableauView(
        cards=(Card.WASABI, Card.SQUID),
        on_wasabi=(Card.SQUID,),
        open_wasabi=0,
        puddings=1,
        score=2,
        round_scores=(3,),
        hand_size=4,
        chopsticks_ready=True,
        is_dummy=False,
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.score = 5  # type: ignore[misc]
    with pytest.raises(TypeError):
        make_tableau_view((), (), 0)  # every field must be given


def test_game_over_observation() -> None:
    game = Game(GameOptions(2), b"over-obs")
    play_out(game, first_legal)
    obs = game.observation(1)
    assert obs.is_over
    assert obs.round == 3
    assert obs.hand == ()
    assert [v.score for v in obs.tableaus] == list(game.returns())
    assert not any(v.chopsticks_ready for v in obs.tableaus)


def test_dummy_state_in_observations() -> None:
    game = Game(GameOptions(2, dummy=True), b"dummy-obs")
    obs = game.observation(1)
    dummy = obs.tableaus[2]
    assert dummy.is_dummy
    assert dummy.hand_size == 8  # the pile after seat 0's draw
    assert obs.dummy_controller == 0
    assert obs.tableaus[0].hand_size == 10  # the controller's hand includes the drawn card
    assert obs.tableaus[1].hand_size == 9
    assert len(obs.hand) == 9
    assert not dummy.chopsticks_ready


def test_observation_shows_wasabi_placements() -> None:
    nigiri = {Card.EGG, Card.SALMON, Card.SQUID}
    seen_on_wasabi = 0
    for seed in (b"wasabi-view-1", b"wasabi-view-2", b"wasabi-view-3"):
        game = Game(GameOptions(5), seed)
        policy = seeded_policy(seed)
        while not game.is_terminal():
            for view in game.observation(None).tableaus:
                waiting, on = 0, []
                for card in view.cards:
                    if card == Card.WASABI:
                        waiting += 1
                    elif card in nigiri and waiting:
                        waiting -= 1
                        on.append(card)
                assert view.on_wasabi == tuple(on)
                assert view.open_wasabi == waiting
                seen_on_wasabi += len(on)
            play_turn(game, policy)
    assert seen_on_wasabi > 0
