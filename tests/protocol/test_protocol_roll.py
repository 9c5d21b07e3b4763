"""Sushi Roll on the wire: values round-trip and are validated, the turn phases, the fair record."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import msgpack
import pytest
from protocol_helpers import (
    SERVER_KEY,
    play_roll_record,
    random_roll_game,
    roll_turn,
    roll_update,
    sample_record,
)

from sushigo.engine import OptionsError
from sushigo.engine.roll import Reroll, RollOptions, Take
from sushigo.protocol import (
    ClientConnection,
    ErrorCode,
    LocalProtocolError,
    Phase,
    RemoteProtocolError,
    ServerConnection,
    TableSettings,
    decode_roll_action,
    decode_roll_event,
    decode_roll_observation,
    encode_roll_action,
    encode_roll_event,
    encode_roll_observation,
    messages,
    sign_roll_record,
    verify_roll_record,
    verify_signed_roll_record,
)
from sushigo.protocol.records import public_key_bytes


def _rt(value: Any) -> Any:
    return msgpack.unpackb(msgpack.packb(value))


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_real_games_round_trip(players: int) -> None:
    game, played = random_roll_game(players, players, 1000)
    assert game.is_terminal()
    for _seat, action, events in played[:: max(1, len(played) // 20)]:
        assert decode_roll_action(_rt(encode_roll_action(action))) == action
        for event in events:
            assert decode_roll_event(_rt(encode_roll_event(event))) == event
    for seat in [None, *range(players)]:
        obs = game.observation(seat)
        assert decode_roll_observation(_rt(encode_roll_observation(obs))) == obs


def test_action_shape_matches_the_engine_records() -> None:
    for action in (Reroll((0, 2)), Take(3)):
        assert _rt(encode_roll_action(action)) == action.to_data()


def _obs() -> dict[str, Any]:
    game, _ = random_roll_game(3, 5, 9)
    data: dict[str, Any] = _rt(encode_roll_observation(game.observation(1)))
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
    data = _obs()
    decode_roll_observation(data)
    change(data)
    with pytest.raises(RemoteProtocolError) as info:
        decode_roll_observation(data)
    assert info.value.code in (ErrorCode.OUT_OF_RANGE, ErrorCode.WRONG_TYPE)


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


def test_table_settings_per_kind() -> None:
    roll = TableSettings(kind=messages.GameKind.SUSHI_ROLL, players=3)
    assert roll.roll_options() == RollOptions(3)
    with pytest.raises(OptionsError):
        roll.options()
    with pytest.raises(OptionsError):
        dataclasses.replace(roll, soy_sauce=True).roll_options()
    with pytest.raises(OptionsError):
        TableSettings(players=3).roll_options()


def test_roll_turn_must_match_its_observation() -> None:
    game, _ = random_roll_game(3, 1, 0)
    turn = roll_turn(game, 0)
    data = messages.encode_message(turn, 1)
    data["seat"] = (turn.seat + 1) % 3
    with pytest.raises(RemoteProtocolError) as info:
        messages.decode_message(data, messages.ServerMessage.SENDER)
    assert info.value.code is ErrorCode.OUT_OF_RANGE


def test_a_whole_game_over_the_connections() -> None:
    """Every seat's phase follows the turns; only the mover may act, and a stale cycle is refused."""
    players = 3
    pairs = [(ClientConnection(), ServerConnection()) for _ in range(players)]
    for client, server in pairs:
        client.phase = server.phase = Phase.WAITING  # after GAME_STARTED
    game, _ = random_roll_game(players, 11, 0)
    rnd = random.Random(3)
    while not game.is_terminal():
        mover = game.to_move
        assert mover is not None
        for seat, (client, server) in enumerate(pairs):
            client.receive_data(server.send(roll_turn(game, seat)))
            assert client.next_event() is not None
            want = Phase.ROLL_MOVING if seat == mover else Phase.ROLL_WAITING
            assert client.phase is server.phase is want
            if seat != mover:
                with pytest.raises(LocalProtocolError):
                    client.send(
                        messages.RollPlay(round=game.round, cycle=game.cycle, action=Take(0))
                    )
        while game.to_move == mover:
            r, c = game.round, game.cycle
            action = rnd.choice(game.legal_actions(mover))
            client, server = pairs[mover]
            stale = messages.RollPlay(round=r, cycle=c % 8 + 1, action=action)
            with pytest.raises(LocalProtocolError) as wrong:
                client.send(stale)
            assert wrong.value.code is ErrorCode.WRONG_TURN
            server.receive_data(client.send(messages.RollPlay(round=r, cycle=c, action=action)))
            assert server.next_event() is not None
            update = roll_update(r, c, mover, action, game.apply(mover, action), game)
            for c_, s_ in pairs:
                c_.receive_data(s_.send(update))
                assert c_.next_event() == update
            want = Phase.ROLL_WAITING if isinstance(action, Take) else Phase.ROLL_MOVING
            assert client.phase is server.phase is want
    for client, _ in pairs:
        assert client.phase is Phase.ROLL_WAITING


SEEDS = (b"\x22" * 32, b"\x33" * 32, b"\x44" * 32)


@pytest.fixture(scope="module")
def record() -> Any:
    return play_roll_record("t-r", 3, b"\x11" * 32, SEEDS, seed=4)


def test_an_honest_roll_record_checks_out_and_signs(record: Any) -> None:
    report = verify_roll_record(record)
    assert report.ok, report.problems
    signed = sign_roll_record(record, SERVER_KEY)
    assert verify_signed_roll_record(signed, public_key_bytes(SERVER_KEY)) == record
    assert record.game_record().seed == report.game_seed


def test_every_roll_lie_is_caught(record: Any) -> None:
    s = record.steps
    lies = {
        "server seed": dataclasses.replace(record, server_seed=b"\x12" * 32),
        "client seed": dataclasses.replace(record, client_seeds=(SEEDS[1], SEEDS[0], SEEDS[2])),
        "scores": dataclasses.replace(record, scores=(0, 0, 0)),
        "truncated": dataclasses.replace(record, steps=s[:-1]),
        "extra": dataclasses.replace(record, steps=(*s, s[-1])),
        "wrong seat": dataclasses.replace(
            record, steps=(dataclasses.replace(s[0], seat=(s[0].seat + 1) % 3), *s[1:])
        ),
    }
    for name, lie in lies.items():
        assert not verify_roll_record(lie).ok, name


def test_a_card_record_is_not_a_roll_record() -> None:
    with pytest.raises(RemoteProtocolError) as info:
        verify_signed_roll_record(sample_record())
    assert info.value.code is ErrorCode.FAIRNESS_VIOLATION
