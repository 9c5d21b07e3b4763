"""The server's short ways through the protocol give exactly what the long ways give.

`ServerConnection.next_event` and `ServerConnection.send` skip the layers for settled moves;
`maker` builds the turn's messages through their slots; `verify_commitment` puts the preimage
together from kept parts. Each is checked here against the general code it stands in for, and
every refusal the long way gives is still given (with its specific code) once a move is settled.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from protocol_helpers import OPTIONS, random_game, strategy_for
from sample_helpers import every_sample

from sushigo.engine import Action, Card
from sushigo.protocol import (
    CARD_WIRE,
    CLIENT_LIMITS,
    ROLL_WIRE,
    SERVER_LIMITS,
    TRANSITIONS,
    ClientConnection,
    Commitments,
    Connection,
    ErrorCode,
    LocalProtocolError,
    Opening,
    Phase,
    RemoteProtocolError,
    SeatInfo,
    ServerConnection,
    StepRecord,
    TableInfo,
    TableSettings,
    TableStatus,
    TurnResult,
    TurnStart,
    commitment_preimage,
    encode_frame,
    make_commitment,
    maker,
    messages,
    new_nonce,
    verify_commitment,
)
from sushigo.protocol._codec import PACKED_BOOL, PACKED_SMALL, packed_bin, packed_int
from sushigo.protocol._registry import Role, to_bytes, to_data, to_frame
from sushigo.protocol.frames import FrameDecoder

m = messages
SAMPLES, MOVER = every_sample()
CLIENT_MOVES = sorted(key for key in TRANSITIONS if key[0] is Role.CLIENT)
SERVER_MOVES = sorted(key for key in TRANSITIONS if key[0] is Role.SERVER)


def _at(conn: Connection, phase: Phase, name: str = "") -> Connection:
    """`conn` in `phase` at round 1, turn 1 of the game of the sample `name` (seat 0 of a Sushi
    Go! table, the mover of a Sushi Roll one)."""
    conn.phase = phase
    conn.position = (1, 1)
    roll = name in ("act", "acted")
    conn.game, conn.seat = (ROLL_WIRE, MOVER) if roll else (CARD_WIRE, 0)
    return conn


def encode_message(message: m.Message, seq: int | None = None) -> Any:
    roll = message.TYPE in ("act", "acted")
    return m.encode_message(message, seq, ROLL_WIRE if roll else CARD_WIRE)


def _outcome(conn: Connection, data: bytes) -> tuple[Any, ...]:
    """What `conn` makes of `data`: the event (or the error's code, ref and fatality), then its
    phase and position."""
    conn.receive_data(data)
    try:
        event: Any = conn.next_event()
    except RemoteProtocolError as exc:
        event = (exc.code, exc.ref, exc.fatal)
    return event, conn.phase, conn.position


def _frame(value: Any) -> bytes:
    return encode_frame(value, CLIENT_LIMITS)


@pytest.mark.parametrize(("phase", "name"), [(p, n) for _, p, n in CLIENT_MOVES], ids=str)
def test_every_client_move_is_read_the_same_both_ways(phase: Phase, name: str) -> None:
    """Twice (the second time the move is a settled one): the server's `next_event` gives what
    `Connection.next_event` gives, event, phase and position."""
    message = SAMPLES["client", name]
    data = _frame(encode_message(message))
    for _ in range(2):
        short = _outcome(_at(ServerConnection(), phase, name), data)
        server = _at(ServerConnection(), phase, name)
        server.receive_data(data)
        long = (Connection.next_event(server), server.phase, server.position)
        assert short == long
        assert short[0] == message


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"round": 2}, ErrorCode.WRONG_TURN),
        ({"turn": 0}, ErrorCode.OUT_OF_RANGE),
        ({"turn": "1"}, ErrorCode.WRONG_TYPE),
        ({"commitment": b"short"}, ErrorCode.OUT_OF_RANGE),
        ({"commitment": None}, ErrorCode.WRONG_TYPE),
        ({"commitment": ...}, ErrorCode.MISSING_FIELD),
        ({"ref": -1}, ErrorCode.OUT_OF_RANGE),
        ({"type": "reveal"}, ErrorCode.OUT_OF_PHASE),  # the phase is checked first
        ({"type": "commitments"}, ErrorCode.WRONG_DIRECTION),
        ({"type": "nonsense"}, ErrorCode.UNKNOWN_MESSAGE_TYPE),
        ({"type": 7}, ErrorCode.NOT_A_MESSAGE),
    ],
)
def test_a_bad_commit_gets_its_code_once_the_move_is_settled(
    change: dict[str, Any], code: ErrorCode
) -> None:
    good = m.Commit(ref=5, round=1, turn=1, commitment=b"c" * 32)
    first = _at(ServerConnection(), Phase.COMMITTING)
    assert _outcome(first, _frame(encode_message(good)))[0] == good  # settles the move
    value = encode_message(good)
    for key, new in change.items():
        if new is ...:
            del value[key]
        else:
            value[key] = new
    server = _at(ServerConnection(), Phase.COMMITTING)
    got, phase, position = _outcome(server, _frame(value))
    assert got[0] is code and not got[2]  # not fatal: the server answers and reads on
    assert got[1] == (None if "ref" in change else 5)
    assert (phase, position) == (Phase.COMMITTING, (1, 1))


def test_a_move_out_of_phase_is_refused_by_both_ways() -> None:
    reveal = m.Reveal(ref=2, round=1, turn=1, action=Action(Card.SALMON), nonce=b"n" * 32)
    settled = _at(ServerConnection(), Phase.REVEALING)
    assert _outcome(settled, _frame(encode_message(reveal)))[0] == reveal
    early = _at(ServerConnection(), Phase.COMMITTING)
    got, phase, _ = _outcome(early, _frame(encode_message(reveal)))
    assert got == (ErrorCode.OUT_OF_PHASE, 2, False) and phase is Phase.COMMITTING


def test_several_frames_in_one_chunk_come_out_in_order() -> None:
    server = _at(ServerConnection(), Phase.COMMITTING)
    commit = m.Commit(ref=1, round=1, turn=1, commitment=b"c" * 32)
    ping = m.Ping(ref=2, nonce=9)
    data = _frame(encode_message(commit)) + _frame(encode_message(ping))
    server.receive_data(data[:3])
    assert server.next_event() is None and server.unread == data[:3]
    server.receive_data(data[3:])
    assert server.next_event() == commit and server.unread
    assert server.next_event() == ping and not server.unread
    assert server.next_event() is None


@pytest.mark.parametrize(("phase", "name"), [(p, n) for _, p, n in SERVER_MOVES], ids=str)
def test_every_server_move_is_sent_the_same_both_ways(phase: Phase, name: str) -> None:
    """Twice (settled the second time): the same frame, phase, position and seq."""
    message = SAMPLES["server", name]
    for _ in range(2):
        short, long = _at(ServerConnection(), phase, name), _at(ServerConnection(), phase, name)
        short.last_seq = long.last_seq = 41
        assert short.send(message) == Connection.send(long, message)
        assert (short.phase, short.position, short.last_seq) == (
            long.phase,
            long.position,
            long.last_seq,
        )
        client = _at(ClientConnection(), phase, name)
        client.last_seq = 41
        client.receive_data(Connection.send(_at(ServerConnection(), phase, name), message))


def test_a_server_message_for_another_turn_is_refused_once_settled() -> None:
    good = Commitments(round=1, turn=1, commitments=(b"c" * 32, None))
    _at(ServerConnection(), Phase.COMMITTED).send(good)  # settles the move
    server = _at(ServerConnection(), Phase.COMMITTED)
    with pytest.raises(LocalProtocolError) as refused:
        server.send(dataclasses.replace(good, turn=2))
    assert refused.value.code is ErrorCode.WRONG_TURN
    assert (server.phase, server.last_seq) == (Phase.COMMITTED, 0)


def test_a_failed_connection_sends_only_its_last_error() -> None:
    good = Commitments(round=1, turn=1, commitments=(b"c" * 32, None))
    _at(ServerConnection(), Phase.COMMITTED).send(good)
    server = _at(ServerConnection(), Phase.COMMITTED)
    with pytest.raises(RemoteProtocolError):  # a declared length far over the limit
        server.receive_data(b"\xff\xff\xff\xff")
    with pytest.raises(LocalProtocolError):
        server.send(good)


def test_a_frame_too_large_moves_nothing() -> None:
    start = SAMPLES["server", "turn_start"]
    assert isinstance(start, TurnStart)
    _at(ServerConnection(), Phase.WAITING).send(start)
    server = _at(ServerConnection(), Phase.WAITING)
    server._max_body = 10
    with pytest.raises(LocalProtocolError) as refused:
        server.send(dataclasses.replace(start, round=2))
    assert refused.value.code is ErrorCode.FRAME_TOO_LARGE
    assert (server.phase, server.position, server.last_seq) == (Phase.WAITING, (1, 1), 0)


def test_the_decoder_keeps_one_buffer() -> None:
    decoder = FrameDecoder(CLIENT_LIMITS)
    buffer = decoder.buffer
    decoder.receive_data(b"\x00\x00")
    assert decoder.buffer is buffer and bytes(buffer) == b"\x00\x00"
    with pytest.raises(RemoteProtocolError):  # over the limit: failed, and emptied in place
        decoder.receive_data(b"\xff\xff")
    assert decoder.buffer is buffer and not buffer


# -- maker ---------------------------------------------------------------------------------------


def test_maker_builds_what_the_class_builds() -> None:
    game, _ = random_game(OPTIONS[0], 5, 3)
    opening = Opening(action=game.legal_actions(0)[0], nonce=b"n" * 32)
    cases: list[tuple[type[Any], tuple[Any, ...]]] = [
        (TurnStart, (1, 4, (0, 1), True, 3, game.observation(1), 60_000)),
        (Commitments, (2, 3, (b"c" * 32, None), 0)),
        (TurnResult, (1, 2, (opening, opening), ())),
        (StepRecord, (3, 1, (0, 1), (None, b"c" * 32), (opening, opening))),
        (Opening, (Action(Card.TEMPURA), None, True)),
        (SeatInfo, (2, "g:1", "ann", False, True, True)),
        (
            TableInfo,
            (
                "t1",
                TableSettings(kind="sushi-go", players=2),
                TableStatus.PLAYING,
                None,
                (SeatInfo(seat=0),) * 2,
                3,
            ),
        ),
    ]
    for cls, values in cases:
        names = [f.name for f in dataclasses.fields(cls)]
        built = maker(cls)(*values)
        expected = cls(**dict(zip(names, values, strict=True)))
        assert type(built) is cls and built == expected and hash(built) == hash(expected)
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(built, names[0], values[0])


# -- commitments -------------------------------------------------------------------------------


def test_verify_commitment_checks_the_exact_preimage() -> None:
    rng = random.Random(7)
    cards = list(Card)
    for table_id in ("t1", "a" * 32, "täble-ü", "t1"):
        for _ in range(40):
            first, second = rng.choice(cards), rng.choice([None, *cards])
            dummy = rng.choice([None, None, *cards])
            action = Action(first, second, dummy)
            place = (rng.randint(1, 3), rng.randint(1, 11), rng.randint(0, 4))
            nonce = new_nonce()
            part = CARD_WIRE.commit_bytes(action)
            commitment = make_commitment(table_id, *place, part, nonce)
            assert len(commitment_preimage(table_id, *place, part, nonce)) > 32
            assert verify_commitment(commitment, table_id, *place, part, nonce)
            round_, turn, seat = place
            assert not verify_commitment(commitment, table_id, round_, turn, seat ^ 1, part, nonce)
            assert not verify_commitment(commitment, table_id + "x", *place, part, nonce)
            assert not verify_commitment(commitment, table_id, *place, part, nonce[:31])
            other = CARD_WIRE.commit_bytes(Action(first, second, None if dummy else first))
            assert not verify_commitment(commitment, table_id, *place, other, nonce)


# -- small values packed by lookup ---------------------------------------------------------------


def test_packed_small_values_are_msgpacks_own() -> None:
    for n in [*range(300), *range(300, 70_000, 97), 65_535, 65_536, 2**32, 2**40, -1, -32, -33]:
        assert packed_int(n) == msgpack.packb(n)
        if 0 <= n < 256:
            assert PACKED_SMALL[n] == msgpack.packb(n)
    assert [PACKED_BOOL[False], PACKED_BOOL[True]] == [msgpack.packb(False), msgpack.packb(True)]
    for value in (None, b"", b"n" * 32, b"x" * 255):
        assert packed_bin(value) == msgpack.packb(value, use_bin_type=True)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(message=strategy_for(Commitments), seq=st.integers(1, 2**40))
def test_any_commitments_pack_as_the_generic_path(message: Commitments, seq: int) -> None:
    expected = msgpack.packb(to_data(message, seq, CARD_WIRE), use_bin_type=True)
    assert to_bytes(message, seq, CARD_WIRE) == expected
    assert to_frame(message, seq, SERVER_LIMITS.max_body, CARD_WIRE)[4:] == expected
