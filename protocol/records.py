"""Signed game records: a `FairRecord` in canonical bytes, signed with the server's Ed25519 key.

Canonical bytes are the msgpack encoding of the record's plain data with every map's keys sorted
(by their UTF-8 bytes), every integer, string, bin, array and map header in its shortest form,
strings as msgpack str and byte strings as msgpack bin, no floats and no ext types. That is exactly
what msgpack's reference packer emits for sorted maps, and the verifier insists on it: it re-encodes
what it decoded and refuses the record unless the bytes are identical, so one record has one
encoding and any changed byte breaks either the signature or the check. The signature covers
``lp16("sushigo/record/v1") || record bytes``.

A record is ``{"format": "sushigo-record", "version": 2, "game": kind, ...}`` for every game
(docs/PROTOCOL.md section 6.4). Records signed by protocol 1.0 servers (``sushigo-fair-record``
for Sushi Go!, ``sushigo-roll-record`` for Sushi Roll) still verify: each game's wire reads its old
format into the same `FairRecord` (`protocol.games.legacy_record_reader`).
"""

from __future__ import annotations

import hmac
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Annotated, Any

import msgpack
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from ._codec import FieldError, Size, canonical_bytes, codec, packed_bin, packed_int
from ._codec import array_header as _array_header
from .errors import ErrorCode, RemoteProtocolError
from .fairness import FairRecord, StepRecord
from .frames import SERVER_LIMITS, decode_body
from .games import Wire, legacy_record_reader, wire

RECORD_FORMAT = "sushigo-record"
RECORD_VERSION = 2
SIGN_TAG = b"sushigo/record/v1"
MAX_RECORD_BYTES = 262_144

_SIGN_PREFIX = len(SIGN_TAG).to_bytes(2, "big") + SIGN_TAG


@dataclass(frozen=True, slots=True, kw_only=True)
class SignedRecord:
    """A record as the server hands it out (in GAME_OVER and for download)."""

    record: Annotated[bytes, Size(1, MAX_RECORD_BYTES)]
    """The canonical bytes of the record (see `record_bytes`)."""
    signature: Annotated[bytes, Size(64, 64)]
    """Ed25519 signature of ``lp16("sushigo/record/v1") || record``."""
    server_key: Annotated[bytes, Size(32, 32)]
    """The signing server's Ed25519 public key (raw 32 bytes)."""


_pack = msgpack.Packer(use_bin_type=True, autoreset=True).pack
_STEP_HEAD = b"\x85" + _pack("commitments")
"""A step's map (five entries) up to its first key, ``commitments`` (the keys sorted)."""
_OPENINGS, _ROUND, _SEATS, _TURN = (_pack(k) for k in ("openings", "round", "seats", "turn"))
_OPENING_HEAD = b"\x83" + _pack("action")
_AUTO = {False: _pack("auto") + _pack(False), True: _pack("auto") + _pack(True)}
_NONCE = _pack("nonce")
_seats_part: dict[tuple[int, ...], bytes] = {}


def step_record_bytes(step: StepRecord, game: Wire) -> bytes:
    """The canonical bytes of one step of a record: exactly what `record_bytes` writes for it
    (``canonical_bytes`` of the step's plain data), built directly and quickly. A server packs
    each step once, as it is played, keeps it as the step's saved form, and hands the steps to
    `record_bytes` at the game's end."""
    canonical = game.canonical
    openings = step.openings
    commitments = step.commitments
    seats = _seats_part.get(step.seats)
    if seats is None:
        seats = _seats_part[step.seats] = _pack(step.seats)
    parts = [_STEP_HEAD, _array_header(len(commitments))]
    parts += map(packed_bin, commitments)
    parts += (_OPENINGS, _array_header(len(openings)))
    for opening in openings:
        parts += (
            _OPENING_HEAD,
            canonical("action", opening.action),
            _AUTO[opening.auto],
            _NONCE,
            packed_bin(opening.nonce),
        )
    parts += (_ROUND, packed_int(step.round), _SEATS, seats, _TURN, packed_int(step.turn))
    return b"".join(parts)


_STEPS_KEY = _pack("steps")


def record_bytes(record: FairRecord, steps: Sequence[bytes] | None = None) -> bytes:
    """The canonical bytes of `record`: ``{"format", "version", ...FairRecord fields}``.

    `steps`, when given, are the record's steps already packed by `step_record_bytes` (one per
    step of `record`, in order): the record is then put together around them, not packed again.
    """
    game = _wire_of(record.game)
    if steps is None:
        steps = [step_record_bytes(step, game) for step in record.steps]
    elif len(steps) != len(record.steps):
        raise ValueError(f"{len(steps)} packed steps for a record of {len(record.steps)}")
    data: dict[str, Any] = {"format": RECORD_FORMAT, "version": RECORD_VERSION}
    data.update(codec(FairRecord, game)[0](replace(record, steps=())))  # the steps are packed
    parts = [bytes((0x80 | len(data),))]
    for key in sorted(data):
        parts.append(_pack(key))
        if key == "steps":
            parts.append(_array_header(len(steps)))
            parts += steps
        else:
            parts.append(canonical_bytes(data[key]))
    return b"".join(parts)


def _wire_of(kind: str) -> Wire:
    found = wire(kind)
    if found is None:
        raise RemoteProtocolError(
            ErrorCode.UNSUPPORTED_GAME_KIND, f"this program cannot read {kind!r} records"
        )
    return found


def parse_record_bytes(data: bytes) -> FairRecord:
    """The record in canonical `data` (of this version, or a legacy one); `RemoteProtocolError`
    when it is not one."""
    value = decode_body(data, SERVER_LIMITS)
    try:
        canonical = canonical_bytes(value)
    except (RecursionError, TypeError):  # absurd nesting, or keys of mixed types: not a record
        canonical = b""
    if canonical != data:
        raise RemoteProtocolError(ErrorCode.FAIRNESS_VIOLATION, "the record is not canonical")
    if type(value) is not dict:
        raise RemoteProtocolError(ErrorCode.FAIRNESS_VIOLATION, "not a sushigo game record")
    fmt = value.get("format")
    legacy = legacy_record_reader(fmt)
    if legacy is not None:
        if value.get("version") != 1:  # protocol 1.0's records were all version 1
            raise RemoteProtocolError(
                ErrorCode.FAIRNESS_VIOLATION,
                f"unsupported record version {value.get('version')!r}",
            )
        try:
            old: FairRecord = legacy(value)
        except FieldError as exc:
            raise RemoteProtocolError(
                exc.code, f"record.{exc.where()}: {exc.message}", fatal=False
            ) from None
        return old
    if fmt != RECORD_FORMAT:
        raise RemoteProtocolError(ErrorCode.FAIRNESS_VIOLATION, "not a sushigo game record")
    if value.get("version") != RECORD_VERSION:
        raise RemoteProtocolError(
            ErrorCode.FAIRNESS_VIOLATION, f"unsupported record version {value.get('version')!r}"
        )
    kind = value.get("game")
    if type(kind) is not str:
        raise RemoteProtocolError(ErrorCode.FAIRNESS_VIOLATION, "the record names no game")
    try:
        record: FairRecord = codec(FairRecord, _wire_of(kind))[1](value)
    except FieldError as exc:
        raise RemoteProtocolError(
            exc.code, f"record.{exc.where()}: {exc.message}", fatal=False
        ) from None
    return record


def public_key_bytes(key: Ed25519PrivateKey | Ed25519PublicKey) -> bytes:
    """The raw 32-byte public key."""
    public = key.public_key() if isinstance(key, Ed25519PrivateKey) else key
    return public.public_bytes(Encoding.Raw, PublicFormat.Raw)


def sign_bytes(data: bytes, key: Ed25519PrivateKey) -> SignedRecord:
    """Sign canonical record bytes with the server's key."""
    return SignedRecord(
        record=data, signature=key.sign(_SIGN_PREFIX + data), server_key=public_key_bytes(key)
    )


def sign_record(
    record: FairRecord, key: Ed25519PrivateKey, steps: Sequence[bytes] | None = None
) -> SignedRecord:
    """Sign `record` with the server's key (`steps`: its steps packed, see `record_bytes`)."""
    return sign_bytes(record_bytes(record, steps), key)


def check_signature(signed: SignedRecord, server_key: bytes | None = None) -> None:
    """Check the signature (and, if given, that `server_key` signed it); FAIRNESS_VIOLATION if
    not."""
    if server_key is not None and not hmac.compare_digest(server_key, signed.server_key):
        raise RemoteProtocolError(
            ErrorCode.FAIRNESS_VIOLATION, "the record is signed by another key than the server's"
        )
    try:
        Ed25519PublicKey.from_public_bytes(signed.server_key).verify(
            signed.signature, _SIGN_PREFIX + signed.record
        )
    except (InvalidSignature, ValueError):
        raise RemoteProtocolError(
            ErrorCode.FAIRNESS_VIOLATION, "the record's signature does not verify"
        ) from None


def verify_signed_record(signed: SignedRecord, server_key: bytes | None = None) -> FairRecord:
    """Check the signature (and, if given, that `server_key` signed it) and return the record.

    Raises `RemoteProtocolError` with FAIRNESS_VIOLATION for a wrong key or signature or a
    non-canonical record. This proves who vouches for the record; `fairness.verify_record` then
    checks that what it claims is true.
    """
    check_signature(signed, server_key)
    return parse_record_bytes(signed.record)


# -- exported records --------------------------------------------------------------------------

EXPORT_MAX_BYTES = MAX_RECORD_BYTES + 4096
"""The largest exported record file read (the record, its signature and key, the names)."""
_NAMES_MAX = 9
_NAME_MAX = 64


def export_bytes(signed: SignedRecord, names: Sequence[str] = ()) -> bytes:
    """A signed record as a file (``sushigo-replay --export``, the replay viewer's input): one
    msgpack map of ``record``, ``signature`` and ``server_key`` (bins), and, when known, the
    players' display names in seat order (``names``). The names are not signed: they are what
    the server's database called the seats, shown beside the record, never checked."""
    data: dict[str, Any] = {
        "record": signed.record,
        "signature": signed.signature,
        "server_key": signed.server_key,
    }
    if names:
        data["names"] = [str(name) for name in names]
    packed: bytes = msgpack.packb(data, use_bin_type=True)
    return packed


def import_bytes(data: bytes) -> tuple[SignedRecord, tuple[str, ...]]:
    """The signed record and the names (empty when the file has none) of an exported record;
    `ValueError` saying what is wrong for anything else. Nothing is verified here: see
    `verify_signed_record`."""
    if len(data) > EXPORT_MAX_BYTES:
        raise ValueError(f"{len(data)} bytes: larger than any exported record")
    try:
        value = msgpack.unpackb(
            data, raw=False, max_bin_len=MAX_RECORD_BYTES, max_str_len=4096, max_array_len=64
        )
    except Exception as exc:  # msgpack raises several kinds: each means "not msgpack"
        raise ValueError(f"not msgpack ({type(exc).__name__})") from None
    if type(value) is not dict:
        raise ValueError("not a map of record, signature and server_key")
    parts = []
    for key, size in (("record", (1, MAX_RECORD_BYTES)), ("signature", (64, 64))):
        parts.append(_bin(value, key, *size))
    key_bytes = _bin(value, "server_key", 32, 32)
    names = value.get("names", [])
    if (
        type(names) is not list
        or len(names) > _NAMES_MAX
        or not all(type(n) is str and 0 < len(n) <= _NAME_MAX for n in names)
    ):
        raise ValueError("names: not a list of up to 9 names")
    signed = SignedRecord(record=parts[0], signature=parts[1], server_key=key_bytes)
    return signed, tuple(names)


def _bin(value: dict[Any, Any], key: str, low: int, high: int) -> bytes:
    found = value.get(key)
    if type(found) is not bytes:
        raise ValueError(f"{key}: missing, or not bytes")
    if not low <= len(found) <= high:
        raise ValueError(f"{key}: {len(found)} bytes")
    return found
