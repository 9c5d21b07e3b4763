"""The fast packers give exactly the bytes of the generic path (``msgpack.packb(to_data(...))``):
a TURN_START whose observation's tableaus were packed for another seat, or a TURN_RESULT, must not
differ by a byte; and a record put together from its steps packed one by one is canonical."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from protocol_helpers import OPTIONS, random_game, strategy_for
from sample_helpers import WIRES, sample_record, samples

from sushigo.protocol import (
    CARD_WIRE,
    SERVER_LIMITS,
    Commitments,
    ErrorCode,
    FairRecord,
    LocalProtocolError,
    Message,
    Opening,
    TurnResult,
    TurnStart,
    encode,
    encode_frame,
)
from sushigo.protocol._codec import codec
from sushigo.protocol._registry import to_bytes, to_data, to_frame
from sushigo.protocol.games.sushi_go.wire import packed_observation
from sushigo.protocol.records import (
    RECORD_FORMAT,
    RECORD_VERSION,
    canonical_bytes,
    parse_record_bytes,
    record_bytes,
    step_record_bytes,
)

W = CARD_WIRE


def generic(message: Message, seq: int, game: Any = W) -> bytes:
    data: bytes = msgpack.packb(to_data(message, seq, game), use_bin_type=True)
    return data


def encode_observation(obs: Any) -> Any:
    return encode(W, "observation", obs)


def test_turn_starts_of_real_games_pack_as_the_generic_path() -> None:
    for options in OPTIONS:
        for seed, turns in [(1, 0), (2, 3), (3, 9), (4, 40)]:
            game, _ = random_game(options, seed, turns)
            # Every seat in a row (sharing the turn's packed tableaus), then a spectator.
            for seq, seat in enumerate([*range(options.players), None, 0], start=1):
                obs = game.observation(seat)
                message = TurnStart(
                    round=obs.round,
                    turn=obs.turn,
                    seats=tuple(range(options.players)),
                    step=seed,
                    observation=obs,
                    deadline_ms=9,
                )
                assert to_bytes(message, seq, W) == generic(message, seq)
                assert packed_observation(obs) == msgpack.packb(
                    encode_observation(obs), use_bin_type=True
                )


def test_the_shared_tableaus_follow_the_game() -> None:
    game, _ = random_game(OPTIONS[3], 5, 2)
    before = game.observation(1)
    first = packed_observation(before)
    game.apply([game.legal_actions(s)[0] for s in range(OPTIONS[3].players)])
    after = game.observation(1)
    assert after.tableaus is not before.tableaus
    assert packed_observation(after) == msgpack.packb(encode_observation(after), use_bin_type=True)
    assert packed_observation(before) == first  # an older observation still packs as itself


@pytest.mark.parametrize("kind", sorted(WIRES))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), seq=st.integers(1, 2**40))
def test_any_turn_start_packs_as_the_generic_path(kind: str, data: st.DataObject, seq: int) -> None:
    message = data.draw(strategy_for(TurnStart, kind))
    assert to_bytes(message, seq, WIRES[kind]) == generic(message, seq, WIRES[kind])


def test_turn_results_of_real_games_pack_as_the_generic_path() -> None:
    for options in OPTIONS:
        game, _ = random_game(options, 11, 0)
        rng = random.Random(options.players)
        seq = 0
        while not game.is_terminal():
            actions = [rng.choice(game.legal_actions(s)) for s in range(options.players)]
            round_, turn = game.round, game.turn
            events = game.apply(actions)
            openings = tuple(
                Opening(action=a, nonce=None if i == 0 else bytes([i]) * 32, auto=i == 0)
                for i, a in enumerate(actions)
            )
            message = TurnResult(round=round_, turn=turn, openings=openings, events=tuple(events))
            for _ in range(2):  # the body packed once, sent twice
                seq += 1
                assert to_bytes(message, seq, W) == generic(message, seq)


@pytest.mark.parametrize("kind", sorted(WIRES))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), seq=st.integers(1, 2**40))
def test_any_turn_result_packs_as_the_generic_path(
    kind: str, data: st.DataObject, seq: int
) -> None:
    message = data.draw(strategy_for(TurnResult, kind))
    assert to_bytes(message, seq, WIRES[kind]) == generic(message, seq, WIRES[kind])


def canonical_record(record: FairRecord) -> bytes:
    """The definition: every map of the record's plain data sorted, packed."""
    data: dict[str, Any] = {"format": RECORD_FORMAT, "version": RECORD_VERSION}
    data.update(codec(FairRecord, WIRES[record.game])[0](record))
    return canonical_bytes(data)


@pytest.mark.parametrize("kind", sorted(WIRES))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_records_put_together_from_packed_steps_are_canonical(
    kind: str, data: st.DataObject
) -> None:
    record = dataclasses.replace(data.draw(strategy_for(FairRecord, kind)), game=kind)
    expected = canonical_record(record)
    game = WIRES[kind]
    assert record_bytes(record) == expected
    assert record_bytes(record, [step_record_bytes(t, game) for t in record.steps]) == expected
    assert parse_record_bytes(expected) == record


def test_a_record_of_a_real_game_is_canonical_and_refuses_a_wrong_step_count() -> None:
    signed = sample_record()
    record = parse_record_bytes(signed.record)
    steps = [step_record_bytes(t, W) for t in record.steps]
    assert record_bytes(record, steps) == canonical_record(record) == signed.record
    with pytest.raises(ValueError, match="packed steps"):
        record_bytes(record, steps[1:])


def test_a_broadcast_is_packed_once_and_each_frame_is_the_recipients_own() -> None:
    """The server sends one message object to every seat in a row: the frames, each with its
    own seq, are exactly the frames of the message encoded for that recipient alone, however
    the sends of several messages interleave."""
    game, _ = random_game(OPTIONS[2], 8, 4)
    obs = game.observation(1)
    commitments = Commitments(
        round=obs.round, turn=obs.turn, commitments=(b"a" * 32, None, b"b" * 32)
    )
    start = TurnStart(
        round=obs.round, turn=obs.turn, seats=(0, 1, 2), observation=obs, deadline_ms=60_000
    )
    sends = [commitments, commitments, start, commitments, start, start]
    for seq, message in enumerate(sends, start=1):
        expected = encode_frame(to_data(message, seq, W), SERVER_LIMITS)
        assert to_frame(message, seq, SERVER_LIMITS.max_body, W) == expected
        assert to_bytes(message, seq, W) == expected[4:]


def test_an_oversized_frame_is_refused_before_it_is_sent() -> None:
    message = samples()["server", "table_update"]
    size = len(to_bytes(message, 1))
    assert to_frame(message, 1, size)[4:] == to_bytes(message, 1)
    with pytest.raises(LocalProtocolError) as info:
        to_frame(message, 1, size - 1)
    assert info.value.code is ErrorCode.FRAME_TOO_LARGE
