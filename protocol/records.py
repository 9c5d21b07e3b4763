"""Signed game records: a `FairRecord` in canonical bytes, signed with the server's Ed25519 key.

Canonical bytes are the msgpack encoding of the record's plain data with every map's keys sorted
(by their UTF-8 bytes), every integer, string, bin, array and map header in its shortest form,
strings as msgpack str and byte strings as msgpack bin, no floats and no ext types. That is exactly
what msgpack's reference packer emits for sorted maps, and the verifier insists on it: it re-encodes
what it decoded and refuses the record unless the bytes are identical, so one record has one
encoding and any changed byte breaks either the signature or the check. The signature covers
``lp16("sushigo/record/v1") || record bytes``.
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

from . import gamewire as _gamewire  # noqa: F401  (registers the engine types' codecs)
from ._codec import FieldError, Size, codec, packed_bin, packed_int
from ._codec import array_header as _array_header
from .errors import ErrorCode, RemoteProtocolError
from .fairness import FairRecord, TurnRecord
from .frames import SERVER_LIMITS, decode_body
from .gamewire import packed_action as _packed_action

RECORD_FORMAT = "sushigo-fair-record"
RECORD_VERSION = 1
SIGN_TAG = b"sushigo/record/v1"
MAX_RECORD_BYTES = 200_000

_SIGN_PREFIX = len(SIGN_TAG).to_bytes(2, "big") + SIGN_TAG
_encode_record, _decode_record = codec(FairRecord)


@dataclass(frozen=True, slots=True, kw_only=True)
class SignedRecord:
    """A record as the server hands it out (in GAME_OVER and for download)."""

    record: Annotated[bytes, Size(1, MAX_RECORD_BYTES)]
    """The canonical bytes of the record (see `record_bytes`)."""
    signature: Annotated[bytes, Size(64, 64)]
    """Ed25519 signature of ``lp16("sushigo/record/v1") || record``."""
    server_key: Annotated[bytes, Size(32, 32)]
    """The signing server's Ed25519 public key (raw 32 bytes)."""


_NESTED = frozenset({dict, list, tuple})


def _sorted(value: Any) -> Any:
    # Sorting str keys by code point is sorting them by their UTF-8 bytes (UTF-8 keeps code point
    # order), so plain sorted() gives the canonical order without encoding every key. Leaves
    # (most of a record: bytes, ints, strs) are kept as they are without a call each.
    kind = type(value)
    if kind is dict:
        return {k: _sorted(v) if type(v := value[k]) in _NESTED else v for k in sorted(value)}
    if kind is list or kind is tuple:
        return [_sorted(v) if type(v) in _NESTED else v for v in value]
    return value


def canonical_bytes(value: Any) -> bytes:
    """The canonical msgpack encoding of plain data (maps with str keys only)."""
    out: bytes = msgpack.packb(_sorted(value), use_bin_type=True)
    return out


_pack = msgpack.Packer(use_bin_type=True, autoreset=True).pack
_TURN_HEAD = b"\x84" + _pack("commitments")
"""A turn's map (four entries) up to its first key, ``commitments`` (the keys sorted)."""
_OPENINGS, _ROUND, _TURN = _pack("openings"), _pack("round"), _pack("turn")
_OPENING_HEAD = b"\x83" + _pack("action")
_AUTO = {False: _pack("auto") + _pack(False), True: _pack("auto") + _pack(True)}
_NONCE = _pack("nonce")


def turn_record_bytes(turn: TurnRecord) -> bytes:
    """The canonical bytes of one turn of a record: exactly what `record_bytes` writes for it
    (``canonical_bytes`` of the turn's plain data), built directly and quickly. A server packs
    each turn once, as it is played, and hands the turns to `record_bytes` at the game's end."""
    openings = turn.openings
    commitments = turn.commitments
    parts = [_TURN_HEAD, _array_header(len(commitments))]
    parts += map(packed_bin, commitments)
    parts += (_OPENINGS, _array_header(len(openings)))
    for opening in openings:
        parts += (
            _OPENING_HEAD,
            _packed_action(opening.action),  # "cards" before "dummy": canonical already
            _AUTO[opening.auto],
            _NONCE,
            packed_bin(opening.nonce),
        )
    parts += (_ROUND, packed_int(turn.round), _TURN, packed_int(turn.turn))
    return b"".join(parts)


_TURNS_KEY = _pack("turns")


def record_bytes(record: FairRecord, turns: Sequence[bytes] | None = None) -> bytes:
    """The canonical bytes of `record`: ``{"format", "version", ...FairRecord fields}``.

    `turns`, when given, are the record's turns already packed by `turn_record_bytes` (one per
    turn of `record`, in order): the record is then put together around them, not packed again.
    """
    if turns is None:
        turns = [turn_record_bytes(t) for t in record.turns]
    elif len(turns) != len(record.turns):
        raise ValueError(f"{len(turns)} packed turns for a record of {len(record.turns)}")
    data = {"format": RECORD_FORMAT, "version": RECORD_VERSION}
    data.update(_encode_record(replace(record, turns=())))  # the turns are packed already
    parts = [bytes((0x80 | len(data),))]
    for key in sorted(data):
        parts.append(_pack(key))
        if key == "turns":
            parts.append(_array_header(len(turns)))
            parts += turns
        else:
            parts.append(canonical_bytes(data[key]))
    return b"".join(parts)


def parse_signed(data: bytes, fmt: str, version: int, decoder: Any, what: str) -> Any:
    """The record of format `fmt` in canonical `data`, built by `decoder`; `RemoteProtocolError`
    when it is not one (shared by both games' records)."""
    value = decode_body(data, SERVER_LIMITS)
    try:
        canonical = canonical_bytes(value)
    except (RecursionError, TypeError):  # absurd nesting, or keys of mixed types: not a record
        canonical = b""
    if canonical != data:
        raise RemoteProtocolError(ErrorCode.FAIRNESS_VIOLATION, "the record is not canonical")
    if type(value) is not dict or value.get("format") != fmt:
        raise RemoteProtocolError(ErrorCode.FAIRNESS_VIOLATION, f"not a {what}")
    if value.get("version") != version:
        raise RemoteProtocolError(
            ErrorCode.FAIRNESS_VIOLATION, f"unsupported record version {value.get('version')!r}"
        )
    try:
        return decoder(value)
    except FieldError as exc:
        raise RemoteProtocolError(
            exc.code, f"record.{exc.where()}: {exc.message}", fatal=False
        ) from None


def parse_record_bytes(data: bytes) -> FairRecord:
    """The record in canonical `data`; `RemoteProtocolError` when it is not one."""
    record: FairRecord = parse_signed(
        data, RECORD_FORMAT, RECORD_VERSION, _decode_record, "sushigo game record"
    )
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
    record: FairRecord, key: Ed25519PrivateKey, turns: Sequence[bytes] | None = None
) -> SignedRecord:
    """Sign `record` with the server's key (`turns`: its turns packed, see `record_bytes`)."""
    return sign_bytes(record_bytes(record, turns), key)


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
