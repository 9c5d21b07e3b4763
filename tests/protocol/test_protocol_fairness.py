"""Commit-reveal, seed derivation, record re-derivation and signatures."""

from __future__ import annotations

import dataclasses

import msgpack
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from protocol_helpers import SERVER_KEY, actions, play_record

from sushigo.engine import Action, Card, Game, GameOptions
from sushigo.protocol import (
    ErrorCode,
    FairRecord,
    RemoteProtocolError,
    SignedRecord,
    TurnRecord,
    auth_payload,
    derive_game_seed,
    login_key_message,
    make_commitment,
    record_bytes,
    server_seed_hash,
    sign_record,
    verify_commitment,
    verify_login,
    verify_record,
    verify_signed_record,
)
from sushigo.protocol.commitment import Opening, commitment_preimage, encode_action_bytes
from sushigo.protocol.records import _SIGN_PREFIX, public_key_bytes

NONCE = bytes(range(32))
BASE = ("t-1", 1, 2, 1, Action(Card.WASABI, Card.SQUID), NONCE)


def test_commitment_verifies_its_own_opening() -> None:
    c = make_commitment(*BASE)
    assert len(c) == 32
    assert verify_commitment(c, *BASE)


@pytest.mark.parametrize(
    ("index", "value"),
    [
        (0, "t-2"),  # table
        (1, 2),  # round
        (2, 3),  # turn
        (3, 0),  # seat
        (4, Action(Card.SQUID, Card.WASABI)),  # same cards, other order
        (4, Action(Card.WASABI)),  # one card less
        (4, Action(Card.WASABI, Card.SQUID, Card.EGG)),  # a dummy pick added
        (5, bytes(31) + b"\x01"),  # nonce
    ],
)
def test_any_tampered_part_fails(index: int, value: object) -> None:
    c = make_commitment(*BASE)
    tampered = list(BASE)
    tampered[index] = value
    assert not verify_commitment(c, *tampered)  # type: ignore[arg-type]


def test_bad_nonce_length_never_verifies() -> None:
    c = make_commitment(*BASE)
    assert not verify_commitment(c, *BASE[:5], NONCE[:31])
    with pytest.raises(ValueError):
        make_commitment(*BASE[:5], NONCE + b"x")


@settings(max_examples=100, deadline=None)
@given(a=actions, b=actions)
def test_action_encoding_is_injective(a: Action, b: Action) -> None:
    assert (encode_action_bytes(a) == encode_action_bytes(b)) == (a == b)


def test_preimage_layout() -> None:
    pre = commitment_preimage(*BASE)
    assert pre.startswith(b"\x00\x11sushigo/commit/v1\x00\x03t-1")
    assert pre[24:36] == bytes.fromhex("000000010000000200000001")
    assert pre[36:-32] == b"\x02\x06wasabi\x05squid\x00"
    assert pre.endswith(NONCE)


# -- seeds -------------------------------------------------------------------------------------


def test_game_seed_depends_on_every_part_and_their_order() -> None:
    s, a, b = b"\x01" * 32, b"\x02" * 32, b"\x03" * 32
    base = derive_game_seed("t", s, (a, b))
    assert len(base) == 32
    others = {
        derive_game_seed("u", s, (a, b)),
        derive_game_seed("t", b"\x04" * 32, (a, b)),
        derive_game_seed("t", s, (b, a)),
        derive_game_seed("t", s, (a, b, b)),
        derive_game_seed("t", s, (a + b,)),
    }
    assert base not in others and len(others) == 5
    assert server_seed_hash(s) != server_seed_hash(a)


# -- records -----------------------------------------------------------------------------------

SEEDS = (b"\x22" * 32, b"\x33" * 32, b"\x44" * 32)


@pytest.fixture(scope="module")
def record() -> FairRecord:
    return play_record("t-9", GameOptions(players=3), b"\x11" * 32, SEEDS, seed=3)


def test_an_honest_record_checks_out(record: FairRecord) -> None:
    report = verify_record(record)
    assert report.ok, report.problems
    assert report.game_seed == derive_game_seed("t-9", b"\x11" * 32, SEEDS)
    game = Game(record.options, report.game_seed)
    for turn in record.turns:
        game.apply([o.action for o in turn.openings])
    assert game.scores() == record.scores
    assert record.game_record().seed == report.game_seed


def _turn(record: FairRecord, i: int, **changes: object) -> FairRecord:
    turns = list(record.turns)
    turns[i] = dataclasses.replace(turns[i], **changes)  # type: ignore[arg-type]
    return dataclasses.replace(record, turns=tuple(turns))


def test_every_lie_is_caught(record: FairRecord) -> None:
    t0 = record.turns[0]
    swapped = (t0.openings[1], t0.openings[0], *t0.openings[2:])
    flipped_nonce = dataclasses.replace(t0.openings[0], nonce=bytes(32))
    lies = {
        "server seed": dataclasses.replace(record, server_seed=b"\x12" * 32),
        "seed hash": dataclasses.replace(record, server_seed_hash=bytes(32)),
        "client seed": dataclasses.replace(record, client_seeds=(SEEDS[1], SEEDS[0], SEEDS[2])),
        "scores": dataclasses.replace(record, scores=(0, 0, 0)),
        "truncated": dataclasses.replace(record, turns=record.turns[:-1]),
        "copied commitment": _turn(record, 0, commitments=(t0.commitments[0],) * 3),
        "swapped openings": _turn(record, 0, openings=swapped),
        "nonce": _turn(record, 0, openings=(flipped_nonce, *t0.openings[1:])),
        "reordered turns": dataclasses.replace(
            record, turns=(record.turns[1], record.turns[0], *record.turns[2:])
        ),
        "extra turn": dataclasses.replace(record, turns=(*record.turns, record.turns[-1])),
    }
    for name, lie in lies.items():
        assert not verify_record(lie).ok, name


def test_auto_picks_are_reported_not_failed(record: FairRecord) -> None:
    t0 = record.turns[0]
    auto = Opening(action=t0.openings[2].action, auto=True)
    changed = _turn(
        record, 0, commitments=(*t0.commitments[:2], None), openings=(*t0.openings[:2], auto)
    )
    report = verify_record(changed)
    assert report.ok
    assert report.auto_picks == ((1, 1, 2),)


def test_signed_record_verifies_and_any_byte_breaks_it(record: FairRecord) -> None:
    signed = sign_record(record, SERVER_KEY)
    assert verify_signed_record(signed, public_key_bytes(SERVER_KEY)) == record
    assert signed.record == record_bytes(record)  # deterministic
    for field in ("record", "signature", "server_key"):
        data = getattr(signed, field)
        for i in range(0, len(data), max(1, len(data) // 97)):
            bad = data[:i] + bytes([data[i] ^ 0x01]) + data[i + 1 :]
            with pytest.raises(RemoteProtocolError) as info:
                verify_signed_record(dataclasses.replace(signed, **{field: bad}))
            assert info.value.code in (ErrorCode.FAIRNESS_VIOLATION, ErrorCode.MALFORMED_FRAME)


def test_record_signed_by_another_key_is_refused(record: FairRecord) -> None:
    other = Ed25519PrivateKey.generate()
    signed = sign_record(record, other)
    verify_signed_record(signed)  # a valid signature by someone
    with pytest.raises(RemoteProtocolError):
        verify_signed_record(signed, public_key_bytes(SERVER_KEY))


def test_non_canonical_record_bytes_are_refused(record: FairRecord) -> None:
    value = msgpack.unpackb(record_bytes(record))
    shuffled = dict(reversed(list(value.items())))
    data = msgpack.packb(shuffled, use_bin_type=True)
    signed = SignedRecord(
        record=data,
        signature=SERVER_KEY.sign(_SIGN_PREFIX + data),
        server_key=public_key_bytes(SERVER_KEY),
    )
    with pytest.raises(RemoteProtocolError) as info:
        verify_signed_record(signed)
    assert "canonical" in info.value.message


def test_turn_record_type() -> None:
    assert TurnRecord.__dataclass_params__.frozen  # type: ignore[attr-defined]


# -- key login ---------------------------------------------------------------------------------


def test_key_login_binds_server_and_challenge() -> None:
    player = Ed25519PrivateKey.from_private_bytes(b"\x05" * 32)
    server = public_key_bytes(SERVER_KEY)
    challenge = b"\x07" * 32
    msg = login_key_message(player, "ann", server, challenge, ref=3)
    assert verify_login(msg, server, challenge)
    assert not verify_login(msg, server, b"\x08" * 32)
    assert not verify_login(msg, b"\x09" * 32, challenge)
    forged = dataclasses.replace(msg, public_key=public_key_bytes(SERVER_KEY))
    assert not verify_login(forged, server, challenge)
    assert auth_payload(server, challenge, msg.public_key).startswith(b"\x00\x0fsushigo/auth/v1")
