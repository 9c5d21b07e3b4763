"""Commit-reveal of a seat's action: commitment = SHA-256 of an exact, length-prefixed layout.

The preimage binds everything that makes an action unique, so a commitment cannot be replayed or
copied: the layout's version (in the domain tag), the table, the round, the turn, the seat, the
whole action (its game's commitment encoding, `protocol.games.Wire.commit_bytes`) and a 32-byte
random nonce (so the few possible actions cannot be guessed from the hash). Byte by byte::

    lp16(x)    = u16be(len(x)) || x
    preimage   = lp16("sushigo/commit/v1") || lp16(UTF-8 table id)
                 || u32be(round) || u32be(turn) || u32be(seat) || action || nonce (32 bytes)
    commitment = SHA-256(preimage)

``action`` is the game's: Sushi Go!'s is ``u8(number of cards, 1 or 2) || lp8(first card's name)
[|| lp8(second)] || u8(0)``, or ``|| u8(1) || lp8(dummy card)`` with a dummy pick; a game with no
encoding of its own uses ``lp16(canonical msgpack of the action)``. The layout is version 1 of its
own: protocol 2.0 left it unchanged, so a commitment means the same in both.

Openings are checked with `hmac.compare_digest`, by the server and by every client.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import struct
from dataclasses import dataclass
from typing import Annotated

from ._codec import Size
from ._registry import GameAction

NONCE_SIZE = 32
COMMIT_TAG = b"sushigo/commit/v1"
"""The domain tag: the layout's version (unchanged since protocol 1.0)."""

_PREFIX = len(COMMIT_TAG).to_bytes(2, "big") + COMMIT_TAG
_POSITION = struct.Struct(">III")


@dataclass(frozen=True, slots=True, kw_only=True)
class Opening:
    """A seat's revealed action for one step, as the server relays it in TURN_RESULT."""

    action: GameAction
    """The action the seat took."""
    nonce: Annotated[bytes, Size(32, 32)] | None = None
    """The nonce that opens the seat's commitment; nil when the server chose for the seat."""
    auto: bool = False
    """The server chose this action (no commitment, or no valid reveal, in time)."""


def new_nonce() -> bytes:
    """A fresh 32-byte nonce from the OS's cryptographic generator (the only randomness here)."""
    return secrets.token_bytes(NONCE_SIZE)


def commitment_preimage(
    table_id: str, round: int, turn: int, seat: int, action: bytes, nonce: bytes
) -> bytes:
    """The exact bytes that are hashed (see the module docstring); `action` is the action's
    commitment encoding (`Wire.commit_bytes`)."""
    if len(nonce) != NONCE_SIZE:
        raise ValueError(f"a nonce is {NONCE_SIZE} bytes, not {len(nonce)}")
    # The server checks every REVEAL: the table's part is looked up here, not made again.
    table = _tables.get(table_id) or _table_part(table_id)
    return b"".join((table, _POSITION.pack(round, turn, seat), action, nonce))


def _table_part(table_id: str) -> bytes:
    """The preimage up to the position, kept per table id in `_tables` (a table's id recurs
    every turn)."""
    if len(_tables) >= 4096:
        _tables.clear()
    encoded = table_id.encode("utf-8")
    found = _tables[table_id] = _PREFIX + len(encoded).to_bytes(2, "big") + encoded
    return found


_tables: dict[str, bytes] = {}


def make_commitment(
    table_id: str, round: int, turn: int, seat: int, action: bytes, nonce: bytes
) -> bytes:
    """The 32-byte commitment to an action (its commitment encoding `action`) by `seat` on
    (`table_id`, `round`, `turn`)."""
    return hashlib.sha256(commitment_preimage(table_id, round, turn, seat, action, nonce)).digest()


def verify_commitment(
    commitment: bytes,
    table_id: str,
    round: int,
    turn: int,
    seat: int,
    action: bytes,
    nonce: bytes,
) -> bool:
    """True if (`action`, `nonce`) opens `commitment` for that seat and step (constant time);
    `action` is the action's commitment encoding."""
    if len(nonce) != NONCE_SIZE:
        return False
    expected = hashlib.sha256(commitment_preimage(table_id, round, turn, seat, action, nonce))
    return hmac.compare_digest(expected.digest(), commitment)
