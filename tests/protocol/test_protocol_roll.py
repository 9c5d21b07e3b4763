"""Sushi Roll on the wire: values round-trip and are validated, the open steps' phases, the fair
record."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import msgpack
import pytest
from protocol_helpers import random_roll_game, refused_once_changed, roll_acted, roll_turn
from sample_helpers import SERVER_KEY, play_roll_record

from sushigo.engine.games.sushi_roll import Reroll, Take
from sushigo.protocol import (
    ROLL_WIRE,
    ClientConnection,
    ErrorCode,
    LocalProtocolError,
    Phase,
    RemoteProtocolError,
    ServerConnection,
    decode,
    encode,
    messages,
    sign_record,
    verify_record,
    verify_signed_record,
)
from sushigo.protocol.records import public_key_bytes

W = ROLL_WIRE


def decode_roll_action(value: Any) -> Any:
    return decode(W, "action", value)


def decode_roll_observation(value: Any) -> Any:
    return decode(W, "observation", value)


def _rt(value: Any) -> Any:
    return msgpack.unpackb(msgpack.packb(value))


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_real_games_round_trip(players: int) -> None:
    game, played = random_roll_game(players, players, 1000)
    assert game.is_terminal()
    for _seat, action, events in played[:: max(1, len(played) // 20)]:
        assert decode_roll_action(_rt(encode(W, "action", action))) == action
        for event in events:
            assert decode(W, "event", _rt(encode(W, "event", event))) == event
    for seat in [None, *range(players)]:
        obs = game.observation(seat)
        assert decode_roll_observation(_rt(encode(W, "observation", obs))) == obs


def test_action_shape_matches_the_engine_records() -> None:
    for action in (Reroll((0, 2)), Take(3)):
        assert _rt(encode(W, "action", action)) == action.to_data()


def _obs() -> dict[str, Any]:
    game, _ = random_roll_game(3, 5, 9)
    data: dict[str, Any] = _rt(encode(W, "observation", game.observation(1)))
    return data


@pytest.mark.parametrize(
    "change",
    [
        lambda d: d.update(seat=3),
        lambda d: d.update(to_move=None),
        lambda d: d.update(red_belt=4),
        lambda d: d.update(cycle=8),
        lambda d: d.update(menu_supply=0),
        lambda d: d["players"].pop(),
        lambda d: d["players"][0].update(has_red_belt=not d["players"][0]["has_red_belt"]),
        lambda d: d["players"][0]["belt"].append(["maki", "salmon"]),
        lambda d: d["players"][0]["belt"].append(["maki"]),
        lambda d: d["players"][0].update(on_wasabi=[0]),
        lambda d: d["players"][0].update(fresh_menu=99),
        lambda d: d["options"].update(players=6),
    ],
)
def test_inconsistent_observations_are_refused(change: Any) -> None:
    refused_once_changed(decode_roll_observation, _obs(), change)


@pytest.mark.parametrize(
    ("value", "code"),
    [
        ({"type": "juggle"}, ErrorCode.OUT_OF_RANGE),
        ({"dice": [1]}, ErrorCode.MISSING_FIELD),
        ({"type": "reroll", "dice": []}, ErrorCode.OUT_OF_RANGE),
        ({"type": "take", "position": 8}, ErrorCode.OUT_OF_RANGE),
        ({"type": "swap", "mine": 0, "other_seat": "1", "theirs": 0}, ErrorCode.WRONG_TYPE),
        ([1], ErrorCode.WRONG_TYPE),
    ],
)
def test_bad_actions_give_specific_codes(value: Any, code: ErrorCode) -> None:
    with pytest.raises(RemoteProtocolError) as info:
        decode_roll_action(value)
    assert info.value.code is code


def test_a_whole_game_over_the_connections() -> None:
    """Every seat's phase follows the open steps; only the mover may act, and a stale turn is
    refused."""
    players = 3
    pairs = [(ClientConnection(), ServerConnection()) for _ in range(players)]
    for seat, (client, server) in enumerate(pairs):
        for conn in (client, server):
            conn.phase = Phase.WAITING  # after GAME_STARTED
            conn.game, conn.seat = W, seat
    game, _ = random_roll_game(players, 11, 0)
    rnd = random.Random(3)
    steps = 0
    while not game.is_terminal():
        mover = game.to_move
        assert mover is not None
        for seat, (client, server) in enumerate(pairs):
            client.receive_data(server.send(roll_turn(game, seat, steps)))
            assert client.next_event() is not None
            want = Phase.MOVING if seat == mover else Phase.WAITING
            assert client.phase is server.phase is want
            if seat != mover:
                with pytest.raises(LocalProtocolError):
                    client.send(messages.Act(round=game.round, turn=game.cycle, action=Take(0)))
        while game.to_move == mover:
            r, c = game.round, game.cycle
            action = rnd.choice(game.legal_actions(mover))
            client, server = pairs[mover]
            stale = messages.Act(round=r, turn=c % 8 + 1, action=action)
            with pytest.raises(LocalProtocolError) as wrong:
                client.send(stale)
            assert wrong.value.code is ErrorCode.WRONG_TURN
            server.receive_data(client.send(messages.Act(round=r, turn=c, action=action)))
            assert server.next_event() is not None
            events = game.apply(mover, action)
            for seat, (c_, s_) in enumerate(pairs):
                update = roll_acted(r, c, mover, action, events, game, seat, steps)
                c_.receive_data(s_.send(update))
                assert c_.next_event() == update
            steps += 1
            want = Phase.WAITING if isinstance(action, Take) else Phase.MOVING
            assert client.phase is server.phase is want
    for client, _ in pairs:
        assert client.phase is Phase.WAITING


SEEDS = (b"\x22" * 32, b"\x33" * 32, b"\x44" * 32)


@pytest.fixture(scope="module")
def record() -> Any:
    return play_roll_record("t-r", 3, b"\x11" * 32, SEEDS, seed=4)


def test_an_honest_roll_record_checks_out_and_signs(record: Any) -> None:
    report = verify_record(record)
    assert report.ok, report.problems
    signed = sign_record(record, SERVER_KEY)
    assert verify_signed_record(signed, public_key_bytes(SERVER_KEY)) == record


def test_every_roll_lie_is_caught(record: Any) -> None:
    s = record.steps
    lies = {
        "server seed": dataclasses.replace(record, server_seed=b"\x12" * 32),
        "client seed": dataclasses.replace(record, client_seeds=(SEEDS[1], SEEDS[0], SEEDS[2])),
        "scores": dataclasses.replace(record, scores=(0, 0, 0)),
        "truncated": dataclasses.replace(record, steps=s[:-1]),
        "extra": dataclasses.replace(record, steps=(*s, s[-1])),
        "wrong seat": dataclasses.replace(
            record, steps=(dataclasses.replace(s[0], seats=((s[0].seats[0] + 1) % 3,)), *s[1:])
        ),
        "another game's": dataclasses.replace(record, game="sushi-go"),
    }
    for name, lie in lies.items():
        assert not verify_record(lie).ok, name
