"""Commit-reveal, seed derivation, record re-derivation and signatures."""

from __future__ import annotations

import dataclasses

import msgpack
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from protocol_helpers import actions, v1_turns
from sample_helpers import SERVER_KEY, play_record, play_roll_record

from sushigo.engine import Action, Card, Game, GameOptions
from sushigo.protocol import (
    CARD_WIRE,
    ErrorCode,
    FairRecord,
    RemoteProtocolError,
    SignedRecord,
    StepRecord,
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
from sushigo.protocol._codec import canonical_bytes
from sushigo.protocol.commitment import Opening, commitment_preimage
from sushigo.protocol.games.sushi_go.wire import commit_bytes
from sushigo.protocol.records import _SIGN_PREFIX, public_key_bytes, sign_bytes

NONCE = bytes(range(32))
BASE = ("t-1", 1, 2, 1, commit_bytes(Action(Card.WASABI, Card.SQUID)), NONCE)


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
        (4, commit_bytes(Action(Card.SQUID, Card.WASABI))),  # same cards, other order
        (4, commit_bytes(Action(Card.WASABI))),  # one card less
        (4, commit_bytes(Action(Card.WASABI, Card.SQUID, Card.EGG))),  # a dummy pick added
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
    assert (commit_bytes(a) == commit_bytes(b)) == (a == b)
    assert CARD_WIRE.commit_bytes(a) == commit_bytes(a)


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
    for turn in record.steps:
        game.apply([o.action for o in turn.openings])
    assert game.scores() == record.scores
    assert report.game is not None and report.game.scores() == record.scores


def _turn(record: FairRecord, i: int, **changes: object) -> FairRecord:
    turns = list(record.steps)
    turns[i] = dataclasses.replace(turns[i], **changes)  # type: ignore[arg-type]
    return dataclasses.replace(record, steps=tuple(turns))


def test_every_lie_is_caught(record: FairRecord) -> None:
    t0 = record.steps[0]
    swapped = (t0.openings[1], t0.openings[0], *t0.openings[2:])
    flipped_nonce = dataclasses.replace(t0.openings[0], nonce=bytes(32))
    lies = {
        "server seed": dataclasses.replace(record, server_seed=b"\x12" * 32),
        "seed hash": dataclasses.replace(record, server_seed_hash=bytes(32)),
        "client seed": dataclasses.replace(record, client_seeds=(SEEDS[1], SEEDS[0], SEEDS[2])),
        "scores": dataclasses.replace(record, scores=(0, 0, 0)),
        "truncated": dataclasses.replace(record, steps=record.steps[:-1]),
        "copied commitment": _turn(record, 0, commitments=(t0.commitments[0],) * 3),
        "swapped openings": _turn(record, 0, openings=swapped),
        "nonce": _turn(record, 0, openings=(flipped_nonce, *t0.openings[1:])),
        "reordered turns": dataclasses.replace(
            record, steps=(record.steps[1], record.steps[0], *record.steps[2:])
        ),
        "extra turn": dataclasses.replace(record, steps=(*record.steps, record.steps[-1])),
        "missing seat": _turn(record, 0, seats=(0, 1)),
        "other game": dataclasses.replace(record, game="sushi-roll"),
    }
    for name, lie in lies.items():
        assert not verify_record(lie).ok, name


def test_auto_picks_are_reported_not_failed(record: FairRecord) -> None:
    t0 = record.steps[0]
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


def test_step_record_type() -> None:
    assert StepRecord.__dataclass_params__.frozen  # type: ignore[attr-defined]


def test_an_open_games_record_checks_out_and_its_lies_are_caught() -> None:
    record = play_roll_record("t-r", 3, b"\x11" * 32, SEEDS, seed=4)
    assert verify_record(record).ok
    signed = sign_record(record, SERVER_KEY)
    assert verify_signed_record(signed, public_key_bytes(SERVER_KEY)) == record
    s0 = record.steps[0]
    other_seat = (s0.seats[0] + 1) % 3
    lies = {
        "not the mover": _turn(record, 0, seats=(other_seat,)),
        "commitments in an open step": _turn(record, 0, commitments=(bytes(32),)),
        "scores": dataclasses.replace(record, scores=(0, 0, 0)),
        "truncated": dataclasses.replace(record, steps=record.steps[:-1]),
    }
    for name, lie in lies.items():
        assert not verify_record(lie).ok, name


# -- records of protocol 1.0 ---------------------------------------------------------------------


def _v1_card(record: FairRecord) -> dict[str, object]:
    """The record as a protocol 1.0 server wrote it (format sushigo-fair-record, version 1)."""
    return {
        "format": "sushigo-fair-record",
        "version": 1,
        "table_id": record.table_id,
        "options": record.options.to_data(),
        "server_seed": record.server_seed,
        "server_seed_hash": record.server_seed_hash,
        "client_seeds": list(record.client_seeds),
        "turns": v1_turns(record.steps),
        "scores": list(record.scores),
    }


def test_records_signed_by_protocol_1_servers_still_verify(record: FairRecord) -> None:
    signed = sign_bytes(canonical_bytes(_v1_card(record)), SERVER_KEY)
    read = verify_signed_record(signed, public_key_bytes(SERVER_KEY))
    assert read == record
    assert verify_record(read).ok
    roll = play_roll_record("t-r", 2, b"\x11" * 32, SEEDS[:2], seed=5)
    old = {
        "format": "sushigo-roll-record",
        "version": 1,
        "table_id": roll.table_id,
        "options": {"players": 2},
        "server_seed": roll.server_seed,
        "server_seed_hash": roll.server_seed_hash,
        "client_seeds": list(roll.client_seeds),
        "steps": [
            {"seat": s.seats[0], "action": s.openings[0].action.to_data(), "auto": False}
            for s in roll.steps
        ],
        "scores": list(roll.scores),
    }
    read = verify_signed_record(sign_bytes(canonical_bytes(old), SERVER_KEY))
    assert read == roll and verify_record(read).ok
    # A changed action in an old record is caught like in a new one.
    old["steps"][3]["seat"] = (old["steps"][3]["seat"] + 1) % 2  # type: ignore[index]
    assert not verify_record(verify_signed_record(sign_bytes(canonical_bytes(old), SERVER_KEY))).ok


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
