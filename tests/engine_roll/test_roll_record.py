"""Sushi Roll records: plain data round trips, the game marker, and bad records refused."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from sushigo.engine import GameOptions, GameRecord
from sushigo.engine.errors import MalformedActionError, RecordError
from sushigo.engine.games.sushi_roll import (
    Reroll,
    RollGame,
    RollOptions,
    RollRecord,
    Swap,
    Take,
    action_from_data,
    replay,
)


def short_game() -> RollGame:
    game = RollGame(RollOptions(3), b"record")
    first = game.to_move
    assert first is not None
    game.apply(first, Reroll((0, 3)))
    game.apply(first, Swap(1, (first + 1) % 3, 2))
    game.apply(first, Take(4))
    return game


def test_round_trip_through_json() -> None:
    game = short_game()
    record = RollRecord.of(game)
    data = record.to_data()
    assert data["game"] == "sushi-roll" and data["version"] == 1
    assert data["options"] == {"players": 3} and data["seed"] == b"record".hex()
    assert data["actions"][0][1] == {"type": "reroll", "dice": [0, 3]}
    assert RollRecord.from_data(json.loads(json.dumps(data))) == record
    again = replay(record)
    assert again.observation(None) == game.observation(None)


@pytest.mark.parametrize("action", [Reroll((0, 1, 5)), Swap(0, 2, 3), Take(4), Reroll((7,))])
def test_actions_round_trip(action: Any) -> None:
    assert action_from_data(json.loads(json.dumps(action.to_data()))) == action


@pytest.mark.parametrize(
    "data",
    [
        {"type": "fly"},
        {"type": "take"},
        {"type": "take", "position": "1"},
        {"type": "take", "position": 1, "extra": 2},
        {"type": "reroll", "dice": "01"},
        {"type": "swap", "mine": 0, "other_seat": 1},
        [1, 2],
    ],
)
def test_malformed_action_data(data: Any) -> None:
    with pytest.raises(MalformedActionError):
        action_from_data(data)


def mutate(path: str, value: Any) -> dict[str, Any]:
    data = copy.deepcopy(RollRecord.of(short_game()).to_data())
    if path == "action0":
        data["actions"][0] = value
    else:
        data[path] = value
    return data


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (mutate("game", "sushi-go"), "not a sushi-roll record"),
        (mutate("version", 2), "unsupported record version"),
        (mutate("seed", 5), "hex string"),
        (mutate("seed", "zz"), "bad record"),
        (mutate("options", {"players": 9}), "bad record"),
        (mutate("actions", {}), "actions must be a list"),
        (mutate("action0", [0]), r"action 1 must be \[seat, action\]"),
        (mutate("action0", [0, {"type": "nope"}]), "bad record"),
        ("not a map", "must be a map"),
    ],
)
def test_bad_records(data: Any, message: str) -> None:
    with pytest.raises(RecordError, match=message):
        RollRecord.from_data(data)


def test_card_game_record_is_not_a_roll_record() -> None:
    data = GameRecord(GameOptions(2), b"s", ()).to_data()
    with pytest.raises(RecordError, match="not a sushi-roll record"):
        RollRecord.from_data(data)
    with pytest.raises(RecordError):
        GameRecord.from_data(RollRecord.of(short_game()).to_data())


def test_replay_refuses_an_illegal_action() -> None:
    record = RollRecord.of(short_game())
    bad = RollRecord(record.options, record.seed, (*record.actions, (0, Take(40))))
    with pytest.raises(RecordError, match="action 4 of the record cannot be played"):
        replay(bad)
