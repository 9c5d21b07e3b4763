"""Commit-reveal of a seat's pick: commitment = SHA-256 of an exact, length-prefixed layout.

The preimage binds everything that makes a pick unique, so a commitment cannot be replayed or
copied: the protocol's major version (in the domain tag), the table, the round, the turn, the seat,
the whole action (both chopsticks picks in order, and the dummy's card) and a 32-byte random nonce
(so the few possible actions cannot be guessed from the hash). Byte by byte::

    lp16(x)    = u16be(len(x)) || x
    lp8(x)     = u8(len(x)) || x
    card(c)    = lp8(ASCII name of the card, e.g. "salmon")
    action     = u8(number of cards taken, 1 or 2) || card(first) [|| card(second)]
                 || u8(0)                    when there is no dummy pick
                 || u8(1) || card(dummy)     when there is one
    preimage   = lp16("sushigo/commit/v1") || lp16(UTF-8 table id)
                 || u32be(round) || u32be(turn) || u32be(seat) || action || nonce (32 bytes)
    commitment = SHA-256(preimage)

Openings are checked with `hmac.compare_digest`, by the server and by every client.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import struct
from dataclasses import dataclass
from typing import Annotated

from sushigo.engine import Action, Card

from ._codec import Size
from .versions import CURRENT_VERSION

NONCE_SIZE = 32
COMMIT_TAG = f"sushigo/commit/v{CURRENT_VERSION.major}".encode()
"""The domain tag; the digit is the protocol's major version."""

_PREFIX = len(COMMIT_TAG).to_bytes(2, "big") + COMMIT_TAG
_CARD = {c: bytes([len(c.label)]) + c.label.encode("ascii") for c in Card}
_POSITION = struct.Struct(">III")


@dataclass(frozen=True, slots=True, kw_only=True)
class Opening:
    """A seat's revealed pick for one turn, as the server relays it in TURN_RESULT."""

    action: Action
    """The action the seat took."""
    nonce: Annotated[bytes, Size(32, 32)] | None = None
    """The nonce that opens the seat's commitment; nil when the server auto-picked the seat."""
    auto: bool = False
    """The server chose this action (no commitment, or no valid reveal, in time)."""


def new_nonce() -> bytes:
    """A fresh 32-byte nonce from the OS's cryptographic generator (the only randomness here)."""
    return secrets.token_bytes(NONCE_SIZE)


def encode_action_bytes(action: Action) -> bytes:
    """The ``action`` part of the preimage."""
    first, second, dummy = action
    out = b"\x01" + _CARD[first] if second is None else b"\x02" + _CARD[first] + _CARD[second]
    return out + (b"\x00" if dummy is None else b"\x01" + _CARD[dummy])


def commitment_preimage(
    table_id: str, round: int, turn: int, seat: int, action: Action, nonce: bytes
) -> bytes:
    """The exact bytes that are hashed (see the module docstring)."""
    if len(nonce) != NONCE_SIZE:
        raise ValueError(f"a nonce is {NONCE_SIZE} bytes, not {len(nonce)}")
    # The server checks every REVEAL: the cached parts are looked up here, not through calls.
    table = _tables.get(table_id) or _table_part(table_id)
    picked = _actions.get(action) or _action_part(action)
    return b"".join((table, _POSITION.pack(round, turn, seat), picked, nonce))


def _table_part(table_id: str) -> bytes:
    """The preimage up to the position, kept per table id in `_tables` (a table's id recurs
    every turn)."""
    if len(_tables) >= 4096:
        _tables.clear()
    encoded = table_id.encode("utf-8")
    found = _tables[table_id] = _PREFIX + len(encoded).to_bytes(2, "big") + encoded
    return found


def _action_part(action: Action) -> bytes:
    """`encode_action_bytes`, kept per action in `_actions` (a few hundred exist)."""
    if len(_actions) >= 4096:  # pragma: no cover - far more than the cards can make
        _actions.clear()
    found = _actions[action] = encode_action_bytes(action)
    return found


_tables: dict[str, bytes] = {}
_actions: dict[Action, bytes] = {}


def make_commitment(
    table_id: str, round: int, turn: int, seat: int, action: Action, nonce: bytes
) -> bytes:
    """The 32-byte commitment to `action` by `seat` on (`table_id`, `round`, `turn`)."""
    return hashlib.sha256(commitment_preimage(table_id, round, turn, seat, action, nonce)).digest()


def verify_commitment(
    commitment: bytes,
    table_id: str,
    round: int,
    turn: int,
    seat: int,
    action: Action,
    nonce: bytes,
) -> bool:
    """True if (`action`, `nonce`) opens `commitment` for that seat and turn (constant time)."""
    if len(nonce) != NONCE_SIZE:
        return False
    expected = hashlib.sha256(commitment_preimage(table_id, round, turn, seat, action, nonce))
    return hmac.compare_digest(expected.digest(), commitment)
