"""Both games in OpenSpiel: pyspiel's own conformance tests at every table size and variant,
serialisation, the turn-based conversion, the same seeds scoring as in the engine, and
observations that show a seat exactly what the server shows it."""

from __future__ import annotations

import pickle
import random
from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason="OpenSpiel is not installed (pip install sushigo[openspiel])"
)

from sushigo.bots.games.sushi_go._pz_table import SushiGoTable  # noqa: E402
from sushigo.bots.games.sushi_roll._pz_table import SushiRollTable  # noqa: E402
from sushigo.bots.openspiel import SushiGoGame, SushiRollGame  # noqa: E402
from sushigo.engine import Game, GameOptions, OptionsError  # noqa: E402
from sushigo.engine.games.sushi_go.cards import deck  # noqa: E402
from sushigo.engine.games.sushi_go.game import DECK_STREAM  # noqa: E402
from sushigo.engine.games.sushi_roll import (  # noqa: E402
    DieKind,
    Face,
    RollChance,
    RollGame,
    RollOptions,
    SeededChance,
)
from sushigo.engine.rng import DeterministicRng  # noqa: E402

GO_PARAMS = [
    "players=2",
    "players=2,dummy=True,soy_sauce=True,pass_both_ways=True",
    "players=3,pass_both_ways=True",
    "players=4,soy_sauce=True",
    "players=5",
    "players=3,utility=points",
]


@pytest.mark.parametrize("params", GO_PARAMS)
def test_sushi_go_passes_openspiel_random_simulation(params: str) -> None:
    game = pyspiel.load_game(f"python_sushi_go({params})")
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_sushi_roll_passes_openspiel_random_simulation(players: int) -> None:
    game = pyspiel.load_game(f"python_sushi_roll(players={players})")
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_points_utility_and_turn_based_conversion() -> None:
    roll = pyspiel.load_game("python_sushi_roll(players=3,utility=points)")
    assert roll.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    pyspiel.random_sim_test(roll, num_sims=1, serialize=False, verbose=False)
    for params in ("players=2", "players=4,soy_sauce=True"):
        game = pyspiel.load_game(f"python_sushi_go({params})")
        pyspiel.random_sim_test(
            pyspiel.convert_to_turn_based(game), num_sims=1, serialize=True, verbose=False
        )
    turn_based = pyspiel.load_game("turn_based_simultaneous_game(game=python_sushi_go(players=3))")
    assert turn_based.get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL


def test_parameters_are_checked() -> None:
    game = pyspiel.load_game("python_sushi_go", {"players": 4, "soy_sauce": True})
    assert game.num_players() == 4 and game.num_distinct_actions() == 182
    assert pyspiel.load_game("python_sushi_go(dummy=True)").num_distinct_actions() == 2548
    with pytest.raises(OptionsError, match="dummy variant needs exactly 2 players"):
        SushiGoGame({"players": 3, "dummy": True})
    with pytest.raises(ValueError, match="no parameter 'colour'"):
        SushiGoGame({"colour": 1})
    with pytest.raises(ValueError, match="utility must be one of win, points"):
        SushiRollGame({"utility": "money"})
    with pytest.raises(ValueError, match="players must be 2 to 5"):
        SushiRollGame({"players": 6})


# -- the same seeds as the engine ------------------------------------------------------------


def _seed_deck(options: GameOptions, seed: bytes) -> list[int]:
    cards = deck(options.soy_sauce)
    DeterministicRng(seed, DECK_STREAM).shuffle(cards)
    return [int(card) for card in cards]


@pytest.mark.parametrize("params", GO_PARAMS[:5])
def test_sushi_go_scores_every_seed_as_the_engine_does(params: str) -> None:
    game = pyspiel.load_game(f"python_sushi_go({params})")
    options = game.options
    for number in range(3):
        seed = bytes([number]) * 32
        engine = Game(options, seed)
        table = SushiGoTable(options)  # PettingZoo's table of the same seed
        table.reset(seed)
        cards = iter(_seed_deck(options, seed))
        state = game.new_initial_state()
        rng = random.Random(number)
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(next(cards))
                continue
            # What each seat sees is what the seeded engine shows it, and PettingZoo's numbers.
            for seat in range(options.players):
                assert state.observation_of(seat) == engine.observation(seat)
                np.testing.assert_array_equal(
                    state.observation_tensor(seat), table.observation(seat)
                )
            picks = [rng.choice(state.legal_actions(seat)) for seat in range(options.players)]
            state.apply_actions(picks)
            engine.apply([state.engine_game().history[-1][s] for s in range(options.players)])
            table.play(dict(enumerate(picks)))
        assert state.engine_game().history == engine.history
        assert state.engine_game().scores() == engine.scores()
        assert state.engine_game().round_points() == engine.round_points()
        winners = engine.winners()
        n = options.players
        expected = [1 / len(winners) if s in winners else -1 / (n - len(winners)) for s in range(n)]
        assert state.returns() == pytest.approx([0.0] * n if len(winners) == n else expected)


class _Recording:
    """The seeded draws of a game, recorded as OpenSpiel's chance outcomes."""

    def __init__(self, seed: bytes) -> None:
        self.inner: RollChance = SeededChance(seed)
        self.outcomes: list[int] = []

    def red_belt(self, players: int) -> int:
        seat = self.inner.red_belt(players)
        self.outcomes.append(seat)
        return seat

    def draw(self, round_: int, bag: list[DieKind], count: int) -> None:
        self.inner.draw(round_, bag, count)
        self.outcomes += [int(kind) for kind in bag[:count]]

    def roll(self, kind: DieKind) -> Face:
        face = self.inner.roll(kind)
        self.outcomes.append(int(face))
        return face

    def clone(self) -> _Recording:
        raise AssertionError("not cloned here")


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_sushi_roll_scores_every_seed_as_the_engine_does(players: int) -> None:
    options = RollOptions(players)
    game = pyspiel.load_game(f"python_sushi_roll(players={players},utility=points)")
    seed = bytes([players]) * 32
    recording = _Recording(seed)
    engine = RollGame.with_chance(options, recording)
    seeded = RollGame(options, seed)  # the plain seeded game: the same draws
    rng = random.Random(players)
    actions = []
    while not engine.is_terminal():
        mover = engine.to_move
        assert mover is not None
        action = rng.choice(engine.legal_actions(mover))
        actions.append(action)
        engine.apply(mover, action)
        seeded.apply(mover, action)
    assert seeded.scores() == engine.scores() and seeded.history == engine.history

    state = game.new_initial_state()
    outcomes = iter(recording.outcomes)
    played = iter(actions)
    table = SushiRollTable(options)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(next(outcomes))
            continue
        mover = state.current_player()
        table.resume(state.engine_game())
        for seat in range(players):
            np.testing.assert_array_equal(state.observation_tensor(seat), table.observation(seat))
        state.apply_action(game.encoding.action_index(next(played), mover))
    assert next(outcomes, None) is None and next(played, None) is None
    assert state.engine_game().history == seeded.history
    assert state.returns() == [float(s) for s in seeded.scores()]


# -- what a seat sees ------------------------------------------------------------------------


def _dealt(game: Any, cards: list[int]) -> Any:
    state = game.new_initial_state()
    for card in cards:
        state.apply_action(card)
    return state


def test_a_seat_never_sees_another_hand_or_the_undealt_cards() -> None:
    game = pyspiel.load_game("python_sushi_go(players=3)")
    options = game.options
    cards = _seed_deck(options, b"s" * 32)
    size = options.hand_size
    # The same hand for seat 0; seats 1 and 2 hold each other's cards.
    other = cards[:size] + cards[2 * size : 3 * size] + cards[size : 2 * size]
    one, two = _dealt(game, cards[: 3 * size]), _dealt(game, other[: 3 * size])
    assert one.engine_game().hand(1) != two.engine_game().hand(1)
    for view in (one.observation_string, one.observation_tensor, one.information_state_string):
        assert np.array_equal(np.asarray(view(0)), np.asarray(getattr(two, view.__name__)(0)))
    assert np.array_equal(one.information_state_tensor(0), two.information_state_tensor(0))
    assert one.observation_string(1) != two.observation_string(1)
    hidden = [str(card.label) for card in one.engine_game().hand(1)]
    assert "hand: " + " ".join(hidden) not in one.observation_string(0)
    # The picks of a turn are secret until every seat has picked: the turn-based conversion
    # shows a seat only its own pick.
    turn_based = pyspiel.convert_to_turn_based(game)
    state = turn_based.new_initial_state()
    for card in cards[: 3 * size]:
        state.apply_action(card)
    first = [state.information_state_string(s).split("\n", 1)[1] for s in (1, 2)]
    state.apply_action(state.legal_actions()[0])
    assert state.current_player() == 1
    after = [state.information_state_string(s).split("\n", 1)[1] for s in (1, 2)]
    assert after == first


def test_information_states_recall_every_hand_and_pick() -> None:
    game = pyspiel.load_game("python_sushi_go(players=2)")
    state = _dealt(game, _seed_deck(game.options, b"i" * 32)[:20])
    before = state.information_state_string(0)
    state.apply_actions([state.legal_actions(0)[0], state.legal_actions(1)[-1]])
    after = state.information_state_string(0)
    assert after.startswith(before.rsplit("\n", 1)[0]) and "picks: p0 " in after
    tensor = np.asarray(state.information_state_tensor(0))
    assert tensor[0] == 1 and tensor.sum() > 20


def test_states_serialise_and_resume_from_an_engine_game() -> None:
    game = pyspiel.load_game("python_sushi_go(players=3,soy_sauce=True)")
    state = game.new_initial_state()
    rng = np.random.default_rng(3)
    while state.is_chance_node() or state.move_number() < 40:
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_actions([int(rng.choice(state.legal_actions(s))) for s in range(3)])
    text = pyspiel.serialize_game_and_state(game, state)
    _, back = pyspiel.deserialize_game_and_state(text)
    assert str(back) == str(state) and back.observation_tensor(1) == state.observation_tensor(1)
    copied = pickle.loads(pickle.dumps(state.core))
    assert str(copied) == str(state.core) and copied.moves == state.core.moves
    # A state from an engine game mid-way (what a bot's determinization gives).
    engine = state.engine_game().clone()
    resumed = game.new_state_from(engine, state.core.table.past)
    assert resumed.observation_tensor(0) == state.observation_tensor(0)
    assert resumed.history() == []
    _, again = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, resumed))
    assert str(again) == str(resumed)
    roll = pyspiel.load_game("python_sushi_roll(players=2)")
    start = roll.new_state_from(RollGame(RollOptions(2), b"r" * 32))
    assert start.current_player() in (0, 1) and start.history() == []
    _, back_roll = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(roll, start))
    assert str(back_roll) == str(start)
