"""Typed messages: every type round-trips through real frames; bad fields give specific codes."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from protocol_helpers import OPTIONS, random_game, refused_once_changed, strategy_for
from sample_helpers import WIRES, roll_samples, samples

from sushigo.engine import Action, Card
from sushigo.protocol import (
    CARD_WIRE,
    CLIENT_LIMITS,
    SERVER_LIMITS,
    ErrorCode,
    FrameDecoder,
    RemoteProtocolError,
    decode,
    encode,
    encode_frame,
    messages,
)
from sushigo.protocol._registry import Role

ALL_TYPES = messages.message_types()


def wire(message: messages.Message, kind: str = "sushi-go") -> Any:
    """Encode into a frame (the game values: `kind`'s) and read it back through a decoder."""
    client = message.SENDER is Role.CLIENT
    limits = CLIENT_LIMITS if client else SERVER_LIMITS
    frame = encode_frame(
        messages.encode_message(message, None if client else 7, WIRES[kind]), limits
    )
    decoder = FrameDecoder(limits)
    decoder.receive_data(frame)
    return decoder.next_value()


@pytest.mark.parametrize("kind", sorted(WIRES))
@pytest.mark.parametrize("cls", ALL_TYPES, ids=lambda c: f"{c.SENDER}-{c.TYPE}")
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_message_type_round_trips(
    cls: type[messages.Message], kind: str, data: st.DataObject
) -> None:
    message = data.draw(strategy_for(cls, kind))
    decoded, seq = messages.decode_message(wire(message, kind), cls.SENDER, WIRES[kind])
    assert decoded == message
    assert type(decoded) is cls
    assert seq == (None if cls.SENDER is Role.CLIENT else 7)


def test_samples_cover_every_type() -> None:
    assert {(c.SENDER.value, c.TYPE) for c in ALL_TYPES} - set(samples()) == {
        ("client", "act"),
        ("server", "acted"),
    }
    assert {(m.SENDER.value, m.TYPE) for m in roll_samples()} >= {
        ("client", "act"),
        ("server", "acted"),
    }


def test_a_game_value_without_a_game_is_out_of_phase() -> None:
    """A REVEAL (its action is a game's) from a connection at no table of a game."""
    data = messages.encode_message(samples()["client", "reveal"], None, CARD_WIRE)
    with pytest.raises(RemoteProtocolError) as info:
        messages.decode_message(data, Role.CLIENT)
    assert info.value.code is ErrorCode.OUT_OF_PHASE and info.value.ref == 7
    # And one game's action is not another's.
    with pytest.raises(RemoteProtocolError):
        messages.decode_message(data, Role.CLIENT, WIRES["sushi-roll"])


def _data(key: tuple[str, str]) -> tuple[dict[str, Any], Role]:
    message = samples()[key]
    client = message.SENDER is Role.CLIENT
    return messages.encode_message(message, None if client else 1, CARD_WIRE), message.SENDER


def _code(value: Any, sender: Role) -> ErrorCode:
    with pytest.raises(RemoteProtocolError) as info:
        messages.decode_message(value, sender, CARD_WIRE)
    assert not info.value.fatal
    return info.value.code


def test_unknown_extra_fields_are_ignored() -> None:
    data, sender = _data(("client", "commit"))
    data["future_field"] = [1, 2, {"x": None}]
    assert messages.decode_message(data, sender, CARD_WIRE)[0] == samples()["client", "commit"]


@pytest.mark.parametrize(
    ("change", "code"),
    [
        (lambda d: d.pop("commitment"), ErrorCode.MISSING_FIELD),
        (lambda d: d.update(commitment="text"), ErrorCode.WRONG_TYPE),
        (lambda d: d.update(commitment=b"short"), ErrorCode.OUT_OF_RANGE),
        (lambda d: d.update(round=256), ErrorCode.OUT_OF_RANGE),
        (lambda d: d.update(round=1.0), ErrorCode.WRONG_TYPE),
        (lambda d: d.update(round=True), ErrorCode.WRONG_TYPE),
        (lambda d: d.update(turn=None), ErrorCode.WRONG_TYPE),
        (lambda d: d.update(type="commitz"), ErrorCode.UNKNOWN_MESSAGE_TYPE),
        (lambda d: d.update(type="turn_start"), ErrorCode.WRONG_DIRECTION),
        (lambda d: d.pop("type"), ErrorCode.NOT_A_MESSAGE),
        (lambda d: d.update(type=3), ErrorCode.NOT_A_MESSAGE),
        (lambda d: d.update(type=["commit"]), ErrorCode.NOT_A_MESSAGE),
    ],
)
def test_bad_fields_give_specific_codes(change: Any, code: ErrorCode) -> None:
    data, sender = _data(("client", "commit"))
    messages.decode_message(dict(data), sender, CARD_WIRE)  # a commit met before: the fast path
    change(data)
    assert _code(data, sender) is code
    with pytest.raises(RemoteProtocolError) as info:
        messages.decode_message(data, sender, CARD_WIRE)
    assert info.value.ref == data["ref"], "the request's ref, whatever went wrong"


def test_errors_name_the_field_and_keep_the_ref() -> None:
    data, sender = _data(("client", "reveal"))
    data["action"] = {"cards": ["salmon", "caviar"]}
    with pytest.raises(RemoteProtocolError) as info:
        messages.decode_message(data, sender, CARD_WIRE)
    assert info.value.code is ErrorCode.OUT_OF_RANGE
    assert info.value.ref == 7
    assert "reveal.action.cards[1]" in info.value.message


def test_nested_errors_and_kinds() -> None:
    data, sender = _data(("client", "create_table"))
    data["settings"]["kind"] = "sushi-roll"
    assert messages.decode_message(data, sender)[0].settings.kind == "sushi-roll"  # type: ignore[attr-defined]
    data["settings"]["kind"] = "mahjong"  # any name: a server that hosts no such game says so
    assert messages.decode_message(data, sender)[0].settings.kind == "mahjong"  # type: ignore[attr-defined]
    data["settings"]["kind"] = ""
    assert _code(data, sender) is ErrorCode.OUT_OF_RANGE
    data["settings"] = {"kind": "sushi-go", "players": 9}
    assert _code(data, sender) is ErrorCode.OUT_OF_RANGE
    data["settings"] = {"kind": "sushi-go", "players": 3, "variants": [1]}
    assert _code(data, sender) is ErrorCode.WRONG_TYPE
    assert _code([1, 2], sender) is ErrorCode.NOT_A_MESSAGE


def test_server_messages_need_a_seq() -> None:
    data, sender = _data(("server", "table_update"))
    del data["seq"]
    assert _code(data, sender) is ErrorCode.MISSING_FIELD
    data["seq"] = "1"
    assert _code(data, sender) is ErrorCode.WRONG_TYPE


def test_error_message_keeps_unknown_codes() -> None:
    data, sender = _data(("server", "error"))
    data["code"] = 4242
    error = messages.decode_message(data, sender)[0]
    assert isinstance(error, messages.Error)
    assert error.error_code is None
    assert messages.Error(code=52).error_code is ErrorCode.NOT_ALLOWED


# -- observations and events on the wire -------------------------------------------------------


@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_observations_of_real_games_round_trip(options: Any) -> None:
    for seed, turns in [(1, 0), (2, 5), (3, 14), (4, 40)]:
        game, evs = random_game(options, seed, turns)
        for seat in [None, *range(options.players)]:
            obs = game.observation(seat)
            packed = msgpack.unpackb(msgpack.packb(encode(CARD_WIRE, "observation", obs)))
            assert decode(CARD_WIRE, "observation", packed) == obs
        for event in evs:
            data = msgpack.unpackb(msgpack.packb(encode(CARD_WIRE, "event", event)))
            assert decode(CARD_WIRE, "event", data) == event


def _obs_data() -> dict[str, Any]:
    game, _ = random_game(OPTIONS[2], 5, 3)
    obs = encode(CARD_WIRE, "observation", game.observation(1))
    data: dict[str, Any] = msgpack.unpackb(msgpack.packb(obs))
    return data


def decode_observation(value: Any) -> Any:
    return decode(CARD_WIRE, "observation", value)


def decode_action(value: Any) -> Any:
    return decode(CARD_WIRE, "action", value)


@pytest.mark.parametrize(
    "change",
    [
        lambda d: d["hand"].pop(),
        lambda d: d["hand"].reverse(),
        lambda d: d["hand"].append("caviar"),
        lambda d: d["tableaus"].pop(),
        lambda d: d.update(seat=3),
        lambda d: d.update(pass_direction=0),
        lambda d: d.update(dummy_controller=0),
        lambda d: d["tableaus"][0].update(open_wasabi=5),
        lambda d: d["tableaus"][0].update(is_dummy=True),
        lambda d: d["options"].update(players=6),
        lambda d: d.update(seat=None),
    ],
)
def test_inconsistent_observations_are_refused(change: Any) -> None:
    data = _obs_data()
    data["hand"] = sorted(data["hand"], key=Card.from_label)  # valid baseline
    refused_once_changed(decode_observation, data, change)


@pytest.mark.parametrize(
    ("value", "code"),
    [
        ({"cards": ["caviar"]}, ErrorCode.OUT_OF_RANGE),
        ({"cards": [7]}, ErrorCode.WRONG_TYPE),
        ({"cards": [["salmon"]]}, ErrorCode.WRONG_TYPE),
        ({"cards": []}, ErrorCode.OUT_OF_RANGE),
        ({"cards": "salmon"}, ErrorCode.WRONG_TYPE),
        ({"cards": ["salmon"], "dummy": "caviar"}, ErrorCode.OUT_OF_RANGE),
        ({"dummy": "egg"}, ErrorCode.MISSING_FIELD),
    ],
)
def test_actions_decode_exactly_the_cards_named(value: Any, code: ErrorCode) -> None:
    for card in Card:  # a single known card: the shared action of taking it
        assert decode_action({"cards": [card.label]}) == Action(card)
        assert decode_action({"cards": [card.label], "extra": 1}) == Action(card)
    assert decode_action({"cards": ["salmon"], "dummy": "egg"}) == Action(
        Card.SALMON, None, Card.EGG
    )
    assert decode_action({"cards": ["chopsticks", "salmon"]}) == Action(
        Card.CHOPSTICKS, Card.SALMON
    )
    with pytest.raises(RemoteProtocolError) as info:
        decode_action(value)
    assert info.value.code is code
