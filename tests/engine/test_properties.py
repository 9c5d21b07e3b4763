"""Random playouts (hypothesis) for 2-5 players and every variant, checking after every turn the
invariants at the end of RULES.md section 1, and replay equality at the end."""

from __future__ import annotations

import json
from collections import Counter

from engine_helpers import (
    public_part,
    ref_legal,
    ref_places,
    ref_puddings,
    ref_round,
    seeded_policy,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from sushigo.engine import (
    Action,
    Card,
    ChopsticksReturned,
    Game,
    GameOptions,
    GameOver,
    GameRecord,
    PicksRevealed,
    RoundScored,
    RoundStarted,
    WasabiUsed,
    replay,
)

ALL_OPTIONS = [
    GameOptions(players, pass_both_ways=both, soy_sauce=soy)
    for players in (2, 3, 4, 5)
    for both in (False, True)
    for soy in (False, True)
] + [
    GameOptions(2, dummy=True, pass_both_ways=both, soy_sauce=soy)
    for both in (False, True)
    for soy in (False, True)
]

SEEDS = st.binary(min_size=0, max_size=16)


def check_playout(options: GameOptions, seed: bytes, policy_seed: bytes) -> Game:
    """Play a whole game with random legal actions, checking the invariants after every turn."""
    game = Game(options, seed)
    policy = seeded_policy(policy_seed)
    n = options.players
    deck_size = 111 if options.soy_sauce else 108
    size = options.hand_size
    turns_this_round = 0
    started = list(game.initial_events())
    pairs = 0
    assert game.card_count() == deck_size
    while not game.is_terminal():
        ctrl = game.dummy_controller
        # Every hand is the same size (the dummy's controller holds the drawn card on top).
        sizes = [len(game.hand(s)) - (s == ctrl) for s in range(n)]
        assert sizes == [size - turns_this_round] * n
        # No observation holds another seat's hand: a seat's view minus its own hand is the
        # spectator's view, and its hand is its own.
        spectator = game.observation(None)
        assert spectator.hand == ()
        for s in range(n):
            obs = game.observation(s)
            assert obs.hand == game.hand(s)
            assert public_part(obs) == spectator
            assert obs.legal_actions() == game.legal_actions(s)
            legal = game.legal_actions(s)
            assert len(set(legal)) == len(legal)
            ready = spectator.tableaus[s].chopsticks_ready
            assert set(legal) == ref_legal(game.hand(s), ready, s == ctrl)
        before = [list(v.cards) for v in spectator.tableaus]
        actions = [policy(game, s) for s in range(n)]
        for s, a in enumerate(actions):
            assert (a.dummy is not None) == (s == ctrl)
        pairs += sum(a.second is not None for a in actions)
        events = game.apply(actions)
        turns_this_round += 1
        assert game.card_count() == deck_size
        reveal = events[0]
        assert isinstance(reveal, PicksRevealed)
        assert reveal.actions == tuple(actions)
        assert reveal.turn == turns_this_round
        assert reveal.dummy_controller == ctrl
        returned = {e.seat for e in events if isinstance(e, ChopsticksReturned)}
        assert returned == {s for s, a in enumerate(actions) if a.second is not None}
        for e in events:
            if isinstance(e, WasabiUsed):
                assert e.card in (Card.EGG, Card.SALMON, Card.SQUID)
        scored = [e for e in events if isinstance(e, RoundScored)]
        if scored:
            # A round has exactly hand-size turns.
            assert turns_this_round == size
            last: list[Card | None] = [a.first for a in actions]
            if options.dummy:
                last.append(actions[ctrl].dummy)  # type: ignore[index]
            final = [before[t] + [last[t]] for t in range(len(before))]
            assert [p.total for p in scored[0].points] == ref_round(final)  # type: ignore[arg-type]
            turns_this_round = 0
            started += [e for e in events if isinstance(e, RoundStarted)]
        else:
            assert turns_this_round < size
            tableaus = game.observation(None).tableaus
            for s, a in enumerate(actions):
                grown = len(a.cards) - (a.dummy is not None) - (a.second is not None)
                assert len(tableaus[s].cards) == len(before[s]) + grown
    assert [e.round for e in started] == [1, 2, 3]
    assert len(game.history) == 3 * size
    over = events[-1]
    assert isinstance(over, GameOver)
    assert list(over.pudding_points) == ref_puddings(list(game.puddings()))
    assert list(game.places()) == ref_places(game.returns(), game.puddings()[:n])
    assert over.places == game.places()
    return game


def check_replay(game: Game) -> None:
    data = GameRecord.of(game).to_data()
    # Plain data: survives JSON.
    data = json.loads(json.dumps(data))
    again = replay(GameRecord.from_data(data))
    assert again.is_terminal()
    assert again.returns() == game.returns()
    assert again.scores() == game.scores()
    assert again.places() == game.places()
    assert again.winners() == game.winners()
    assert again.history == game.history
    assert again.round_points() == game.round_points()
    assert again.observation(None) == game.observation(None)
    assert GameRecord.of(again) == GameRecord.of(game)


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(ALL_OPTIONS), SEEDS, SEEDS)
def test_random_playouts_keep_the_invariants_and_replay(
    options: GameOptions, seed: bytes, policy_seed: bytes
) -> None:
    game = check_playout(options, seed, policy_seed)
    check_replay(game)


@settings(max_examples=25, deadline=None)
@given(st.sampled_from([2, 3, 4, 5]), SEEDS)
def test_random_playouts_base_game(players: int, seed: bytes) -> None:
    check_replay(check_playout(GameOptions(players), seed, seed))


@settings(max_examples=25, deadline=None)
@given(SEEDS, SEEDS)
def test_random_playouts_dummy(seed: bytes, policy_seed: bytes) -> None:
    check_replay(check_playout(GameOptions(2, dummy=True), seed, policy_seed))


@settings(max_examples=25, deadline=None)
@given(st.sampled_from([2, 3, 4, 5]), SEEDS)
def test_random_playouts_soy_sauce_both_ways(players: int, seed: bytes) -> None:
    options = GameOptions(players, pass_both_ways=True, soy_sauce=True)
    check_replay(check_playout(options, seed, seed + b"!"))


def test_playouts_exercise_chopsticks_pairs_and_dummy_picks() -> None:
    """The random policy does reach the interesting moves the invariants are checked on."""
    seen: Counter[str] = Counter()
    for i in range(10):
        for options in (GameOptions(4), GameOptions(2, dummy=True)):
            game = Game(options, b"coverage-%d" % i)
            policy = seeded_policy(b"coverage-%d" % i)
            while not game.is_terminal():
                actions = [policy(game, s) for s in range(options.players)]
                seen["pair"] += sum(a.second is not None for a in actions)
                seen["dummy"] += sum(a.dummy is not None for a in actions)
                events = game.apply(actions)
                seen["wasabi"] += sum(isinstance(e, WasabiUsed) for e in events)
    assert seen["pair"] > 10
    assert seen["dummy"] == 10 * 27
    assert seen["wasabi"] > 5


def test_replay_of_a_partial_game_reaches_the_same_position() -> None:
    game = Game(GameOptions(3, soy_sauce=True), b"partial")
    policy = seeded_policy(b"partial")
    for _ in range(13):
        game.apply([policy(game, s) for s in range(3)])
    again = replay(GameRecord.from_data(GameRecord.of(game).to_data()))
    assert not again.is_terminal()
    for s in (0, 1, 2, None):
        assert again.observation(s) == game.observation(s)
    assert again.legal_actions(1) == game.legal_actions(1)


def test_record_data_is_plain_and_names_cards() -> None:
    game = Game(GameOptions(2, dummy=True), b"plain")
    policy = seeded_policy(b"plain")
    game.apply([policy(game, 0), policy(game, 1)])
    data = GameRecord.of(game).to_data()
    assert data["game"] == "sushi-go"
    assert data["version"] == 1
    assert data["seed"] == b"plain".hex()
    assert data["options"] == {
        "players": 2,
        "pass_both_ways": False,
        "dummy": True,
        "soy_sauce": False,
    }
    (turn,) = data["turns"]
    assert "dummy" in turn[0] and "dummy" not in turn[1]
    assert Action.from_data(turn[0]) == game.history[0][0]
