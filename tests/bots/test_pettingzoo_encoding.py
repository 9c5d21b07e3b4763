"""The environments' encoding: only what a seat may know, masks exactly the engine's legal
actions, the fast knowledge of hands equal to `SeatMemory`'s, and the gymnasium wrapper."""

from __future__ import annotations

import random
import re
from pathlib import Path

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from sushigo.bots import SeatMemory, StrategyError
from sushigo.bots.games.sushi_go._pz_table import SushiGoTable
from sushigo.bots.games.sushi_roll._pz_table import SushiRollTable
from sushigo.bots.pettingzoo import (
    SingleAgentEnv,
    SushiGoEncoding,
    SushiRollEncoding,
    action_index,
    action_of,
    knowledge_from_memory,
)
from sushigo.bots.pettingzoo._table import final_rewards
from sushigo.engine import CARDS, Card, Game, GameOptions
from sushigo.engine.games.sushi_roll import RollGame, RollOptions

DOCS = Path(__file__).resolve().parents[2] / "docs" / "RESEARCH.md"


def _play_turns(table: SushiGoTable, turns: int, rng: random.Random) -> None:
    game = table.game
    for _ in range(turns):
        legal = [game.legal_actions(s) for s in range(game.players)]
        table.play({s: action_index(rng.choice(acts)) for s, acts in enumerate(legal)})


@pytest.mark.parametrize(("players", "turns"), [(3, 0), (4, 1), (4, 2), (5, 3), (3, 10)])
def test_hidden_cards_never_change_an_observation(players: int, turns: int) -> None:
    """Two states that differ only in what seat 0 cannot know encode equally for seat 0: the
    hands it has not seen (shuffled among their seats) and the undealt deck (shuffled)."""
    rng = random.Random(players * 10 + turns)
    options = GameOptions(players)
    table = SushiGoTable(options)
    table.reset(bytes([players, turns]))
    _play_turns(table, turns, rng)
    game = table.game
    obs = game.observation(0)
    hands = [list(game.hand(s)) for s in range(players)]
    deck = _undealt(game)
    # What seat 0 knows: its own hand and the hands it passed on this round.
    known = {0} | {s for s in range(1, players) if s <= min(obs.turn - 1, players - 1)}
    unknown = [s for s in range(players) if s not in known]
    pool = [card for s in unknown for card in hands[s]]
    rng.shuffle(pool)
    other = [list(h) for h in hands]
    for s in unknown:
        other[s], pool = pool[: len(hands[s])], pool[len(hands[s]) :]
    shuffled = deck[:]
    rng.shuffle(shuffled)
    same, changed = SushiGoTable(options), SushiGoTable(options)
    same.resume(Game.from_observation(obs, hands, deck), table._past)
    changed.resume(Game.from_observation(obs, other, shuffled), table._past)
    assert np.array_equal(same.observation(0), table.observation(0))
    assert np.array_equal(changed.observation(0), same.observation(0))
    assert np.array_equal(changed.action_mask(0), same.action_mask(0))
    if any(sorted(other[s]) != sorted(hands[s]) for s in unknown):
        # Sanity: the seats that hold the changed hands do see the change.
        assert any(not np.array_equal(changed.observation(s), same.observation(s)) for s in unknown)


@pytest.mark.parametrize(
    ("options", "turns"),
    [
        (GameOptions(3, pass_both_ways=True), 10),  # round 2, turn 2: hands pass right
        (GameOptions(5, pass_both_ways=True, soy_sauce=True), 9),  # round 2, turn 3
        (GameOptions(2, dummy=True), 0),  # seat 0 controls the dummy: it drew the pile's top
        (GameOptions(2, dummy=True), 9),  # round 2's first turn: seat 1 draws, unseen
    ],
    ids=str,
)
def test_hidden_cards_anywhere_never_change_an_observation(
    options: GameOptions, turns: int
) -> None:
    """Every card seat 0 has not seen (the hands it never held, whichever way they pass, the
    undealt deck and the dummy's pile) dealt out anew among those places: seat 0's observation
    and action mask stay the same."""
    rng = random.Random(turns)
    table = SushiGoTable(options)
    table.reset(bytes([options.players, turns, 7]))
    _play_turns(table, turns, rng)
    game = table.game
    obs = game.observation(0)
    n = options.players
    hands = [list(game.hand(s)) for s in range(n)]
    deck = _undealt(game)
    pile = [CARDS[code.bit_length() // 4] for code in reversed(game._dummy_pile)]
    # Seat 0 has held the hands now k seats away in the passing direction, for k < turn.
    seen = min(obs.turn - 1, n - 1)
    unknown = [
        s for s in range(1, n) if s not in {obs.pass_direction * k % n for k in range(1, seen + 1)}
    ]
    pool = [card for s in unknown for card in hands[s]] + deck + pile
    rng.shuffle(pool)
    other = [list(h) for h in hands]
    for s in unknown:
        other[s], pool = pool[: len(hands[s])], pool[len(hands[s]) :]
    other_deck, other_pile = pool[: len(deck)], pool[len(deck) :]
    same, changed = SushiGoTable(options), SushiGoTable(options)
    same.resume(Game.from_observation(obs, hands, deck, pile), table._past)
    changed.resume(Game.from_observation(obs, other, other_deck, other_pile), table._past)
    if not options.dummy or turns == 0:
        # (With the dummy, a resumed table's memories start afresh: no earlier rounds in them.)
        assert np.array_equal(same.observation(0), table.observation(0))
    assert np.array_equal(changed.observation(0), same.observation(0))
    assert np.array_equal(changed.action_mask(0), same.action_mask(0))
    assert other != hands or other_deck != deck or other_pile != pile  # something did move
    if any(sorted(other[s]) != sorted(hands[s]) for s in unknown):
        # Sanity: the seats that hold the changed hands do see the change.
        assert any(not np.array_equal(changed.observation(s), same.observation(s)) for s in unknown)


def _undealt(game: Game) -> list[Card]:
    """The undealt cards in dealing order (test-only access to the game's deck)."""
    codes = game._deck[game._deck_pos :]
    return [CARDS[code.bit_length() // 4] for code in codes]


@pytest.mark.parametrize(
    "options",
    [
        GameOptions(2),
        GameOptions(3, pass_both_ways=True),
        GameOptions(4),
        GameOptions(5, soy_sauce=True),
    ],
    ids=str,
)
def test_the_fast_knowledge_of_hands_equals_seat_memory(options: GameOptions) -> None:
    """Every turn of many games, every seat: what the table works out from the game equals what
    `SeatMemory` deduces from that seat's observations alone (chopsticks and all)."""
    rng = random.Random(options.players)
    table = SushiGoTable(options)
    encoding = table.encoding
    for g in range(12):
        table.reset(bytes([g]))
        game = table.game
        memories = [SeatMemory() for _ in range(options.players)]
        while not game.is_terminal():
            for seat, memory in enumerate(memories):
                obs = game.observation(seat)
                memory.observe(obs)
                known, past = knowledge_from_memory(memory)
                assert table._known(obs) == known
                assert table._past == past
                assert np.array_equal(table.observation(seat), encoding.encode(obs, known, past))
            _play_turns(table, 1, rng)


def test_action_indexes_round_trip_and_masks_are_the_legal_actions() -> None:
    for index in range(2548):
        assert action_index(action_of(index)) == index
    with pytest.raises(IndexError):
        action_of(2548)
    rng = random.Random(3)
    for options in (GameOptions(2, dummy=True, soy_sauce=True), GameOptions(5)):
        table = SushiGoTable(options)
        table.reset(b"masks")
        game = table.game
        while not game.is_terminal():
            for seat in range(options.players):
                legal = game.legal_actions(seat)
                mask = table.action_mask(seat)
                assert mask.shape == (table.action_size,) and mask.dtype == np.int8
                assert sorted(mask.nonzero()[0].tolist()) == sorted(map(action_index, legal))
                assert action_of(table.default_action(seat)) in legal
            _play_turns(table, 1, rng)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_roll_masks_are_the_legal_actions_and_indexes_round_trip(players: int) -> None:
    table = SushiRollTable(RollOptions(players))
    encoding = table.encoding
    rng = random.Random(players)
    table.reset(bytes([players]))
    game = table.game
    while not game.is_terminal():
        mover = game.to_move
        assert mover is not None
        for seat in range(players):
            mask = table.action_mask(seat)
            legal = game.legal_actions(seat)
            if seat != mover:
                assert mask.nonzero()[0].tolist() == [0]
                continue
            indexes = [encoding.action_index(a, seat) for a in legal]
            assert sorted(mask.nonzero()[0].tolist()) == sorted(indexes)
            assert [encoding.action_of(i, seat) for i in indexes] == list(legal)
        table.play({mover: encoding.action_index(rng.choice(game.legal_actions(mover)), mover)})


def test_roll_observations_hold_no_future() -> None:
    """Two games with the same table and different futures (bag order, rolls) encode equally for
    every seat; a different table does not."""
    table = SushiRollTable(RollOptions(3))
    table.reset(b"roll")
    rng = random.Random(1)
    for _ in range(7):
        mover = table.game.to_move
        assert mover is not None
        action = rng.choice(table.game.legal_actions(mover))
        table.play({mover: table.encoding.action_index(action, mover)})
    obs = table.game.observation(None)
    one, two = SushiRollTable(RollOptions(3)), SushiRollTable(RollOptions(3))
    one.resume(RollGame.from_observation(obs, b"future one"))
    two.resume(RollGame.from_observation(obs, b"future two"))
    for seat in range(3):
        assert np.array_equal(one.observation(seat), table.observation(seat))
        assert np.array_equal(two.observation(seat), one.observation(seat))
    assert not np.array_equal(one.observation(0), one.observation(1))  # rotated to the seat


def test_the_docs_table_matches_the_encoding() -> None:
    text = DOCS.read_text(encoding="utf-8")
    for players, dummy, size in re.findall(
        r"Sushi Go! observation, (\d) players( with the dummy)? \| (\d+)", text
    ):
        options = GameOptions(int(players), dummy=bool(dummy))
        assert SushiGoEncoding(options).size == int(size)
    for players, size in re.findall(r"Sushi Roll observation, (\d) players[^|]*\| (\d+)", text):
        assert SushiRollEncoding(int(players)).size == int(size)
    for players, size in re.findall(r"Sushi Roll actions, (\d) players[^|]*\| (\d+)", text):
        assert SushiRollEncoding(int(players)).action_size == int(size)
    assert "Sushi Go! observation, 4 players" in text and "Sushi Roll actions, 4 players" in text


@pytest.mark.parametrize(
    "kwargs",
    [
        {"game": "sushi-go", "opponents": "heuristic"},
        {"game": "sushi-go", "players": 2, "dummy": True, "seat": None, "opponents": "greedy"},
        {"game": "sushi-roll", "players": 3, "opponents": ["greedy", "random"], "seat": 2},
    ],
)
def test_single_agent_env_passes_gymnasium_checks(kwargs: dict[str, object]) -> None:
    env = SingleAgentEnv(**kwargs)  # type: ignore[arg-type]
    check_env(env, skip_render_check=True)
    traces = []
    for _ in range(2):
        obs, _ = env.reset(seed=9)
        rng = np.random.default_rng(1)
        trace, done, reward = [], False, 0.0
        while not done:
            legal = obs["action_mask"].nonzero()[0]
            assert len(legal) > 0
            # Where sb3-contrib's MaskablePPO looks for the mask: the same, as booleans.
            masks = env.action_masks()
            assert masks.dtype == np.bool_ and masks.nonzero()[0].tolist() == legal.tolist()
            obs, reward, term, trunc, info = env.step(int(rng.choice(legal)))
            assert info == {}
            done = term or trunc
            trace.append(obs["observation"].sum())
        traces.append((trace, reward))
        assert env.table.is_over()
        assert reward == final_rewards(env.table.players, env.table.winners())[env.seat]
    assert traces[0] == traces[1]


def test_single_agent_env_refuses_bad_settings() -> None:
    with pytest.raises(StrategyError, match="unknown strategy"):
        SingleAgentEnv(opponents="nosuchbot")
    with pytest.raises(ValueError, match="expected 3 opponent specs"):
        SingleAgentEnv(opponents=["random"])
    with pytest.raises(ValueError, match="seat must be"):
        SingleAgentEnv(seat=4)
    with pytest.raises(ValueError, match="no variants"):
        SingleAgentEnv("sushi-roll", dummy=True)
    with pytest.raises(ValueError, match="game must be"):
        SingleAgentEnv("chess")
