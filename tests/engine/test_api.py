"""The game interface (`engine.api`), checked the same way for every installed game: random
playouts through `Rules` and `GameState` alone, with the invariants every layer above relies on."""

from __future__ import annotations

import random

import pytest

from sushigo.engine import (
    SUSHI_GO,
    EngineError,
    GameState,
    OptionsError,
    RecordError,
    Rules,
    UnknownGameError,
    kinds,
    play_steps,
    rules,
)
from sushigo.engine.games.sushi_roll import SUSHI_ROLL


def test_the_built_in_games_are_found_by_kind() -> None:
    assert kinds()[:2] == ("sushi-go", "sushi-roll")
    assert rules("sushi-go") is SUSHI_GO and rules("sushi-roll") is SUSHI_ROLL
    for kind in kinds():
        assert isinstance(rules(kind), Rules)
        assert rules(kind).kind == kind


def test_an_unknown_kind_names_the_installed_ones() -> None:
    with pytest.raises(UnknownGameError, match=r"no game .chess. is installed.*sushi-go"):
        rules("chess")


@pytest.mark.parametrize("kind", ["sushi-go", "sushi-roll"])
def test_options_round_trip_and_refuse_what_makes_no_game(kind: str) -> None:
    game_rules = rules(kind)
    for players in game_rules.players:
        options = game_rules.options(players)
        assert game_rules.describe_options(options) == (players, ())
        assert game_rules.options_from_data(game_rules.options_to_data(options)) == options
    with pytest.raises(OptionsError):
        game_rules.options(max(game_rules.players) + 1)
    with pytest.raises(OptionsError, match="no variant 'jelly'"):
        game_rules.options(2, ["jelly"])


def test_card_variants_by_name() -> None:
    options = SUSHI_GO.options(2, ["dummy", "soy_sauce"])
    assert (options.dummy, options.soy_sauce, options.pass_both_ways) == (True, True, False)
    assert SUSHI_GO.describe_options(options) == (2, ("dummy", "soy_sauce"))
    with pytest.raises(OptionsError, match="dummy variant needs exactly 2 players"):
        SUSHI_GO.options(3, ["dummy"])


def _playout(game_rules: Rules, options: object, seed: bytes, rng: random.Random) -> list[tuple]:
    game = game_rules.new_game(options, seed)
    assert isinstance(game, GameState)
    steps = []
    while not game.is_terminal():
        acting = game.to_act()
        assert acting and list(acting) == sorted(set(acting))
        # Sushi Go!: every seat at once, in secret; Sushi Roll: the mover alone.
        assert len(acting) == (game.players if game_rules.secret else 1)
        for seat in range(game.players):
            assert bool(game.legal_actions(seat)) == (seat in acting)
        actions = tuple(rng.choice(list(game.legal_actions(seat))) for seat in acting)
        for action in actions:
            again = game_rules.action_from_data(game_rules.action_to_data(action))
            assert again == action and game_rules.describe(action)
        game.step(actions)
        steps.append(actions)
    assert game.to_act() == ()
    places = game.places()
    assert len(places) == game.players and min(places) == 1
    assert game.winners() == tuple(s for s, p in enumerate(places) if p == 1)
    return steps


@pytest.mark.parametrize("kind", ["sushi-go", "sushi-roll"])
@pytest.mark.parametrize("players", [2, 3, 5])
def test_random_playouts_through_the_interface_replay_exactly(kind: str, players: int) -> None:
    game_rules = rules(kind)
    rng = random.Random(players)
    for n in range(3):
        options = game_rules.options(players)
        seed = bytes([n, players]) * 16
        steps = _playout(game_rules, options, seed, rng)
        again = play_steps(game_rules.new_game(options, seed), steps)
        first = game_rules.new_game(options, seed)
        play_steps(first, steps)
        assert again.scores() == first.scores() and again.is_terminal()
        assert again.observation(None) == first.observation(None)


@pytest.mark.parametrize("kind", ["sushi-go", "sushi-roll"])
def test_an_illegal_step_changes_nothing(kind: str) -> None:
    game_rules = rules(kind)
    game = game_rules.new_game(game_rules.options(2), b"s" * 32)
    before = [game.observation(s) for s in range(2)]
    with pytest.raises(EngineError):
        game.step(())  # nobody's action
    with pytest.raises(EngineError):
        game.step(tuple(None for _ in game.to_act()))
    assert [game.observation(s) for s in range(2)] == before


def test_a_record_that_does_not_play_names_its_step() -> None:
    game = SUSHI_GO.new_game(SUSHI_GO.options(2), b"r" * 32)
    first = tuple(game.legal_actions(s)[0] for s in game.to_act())
    with pytest.raises(RecordError, match="step 2 of the record cannot be played"):
        play_steps(game, [first, first])


def test_clones_play_on_independently() -> None:
    for kind in ("sushi-go", "sushi-roll"):
        game_rules = rules(kind)
        game = game_rules.new_game(game_rules.options(3), b"c" * 32)
        copy = game.clone()
        copy.step(tuple(copy.legal_actions(s)[-1] for s in copy.to_act()))
        assert game.position != copy.position or game.observation(None) != copy.observation(None)
        assert game.observation(None) == game_rules.new_game(
            game_rules.options(3), b"c" * 32
        ).observation(None)
