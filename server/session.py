"""A player's session: who they are, where they sit, and every message the server sent them.

A session outlives its TCP connection. While a player is away the server keeps sending the session
its messages (they move the session's protocol state and are logged, but go nowhere), so a player
who resumes can be given exactly the messages it missed, or a snapshot when too many were.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from protocol import LocalProtocolError, Message, Phase, ServerConnection

if TYPE_CHECKING:
    from .table import Table

log = logging.getLogger("sushigo.server")

REPLAY_LIMIT = 512
"""Server messages kept per session for replay on resume (PROTOCOL.md section 8)."""


class Transport(Protocol):
    """Where a connection's bytes go: the asyncio adapter, or a test's fake."""

    def write(self, data: bytes) -> None:
        """Queue bytes for the peer."""

    def close(self) -> None:
        """Close the connection once queued bytes are written."""


def new_token() -> tuple[bytes, bytes]:
    """A fresh resume token (32 random bytes) and the SHA-256 hash the server keeps of it."""
    token = secrets.token_bytes(32)
    return token, token_hash(token)


def token_hash(token: bytes) -> bytes:
    """What the server stores of a token: never the token itself."""
    return hashlib.sha256(b"sushigo/resume-token/v1" + token).digest()


@dataclass(slots=True)
class Sent:
    """One logged server message, with the protocol state right after it was sent."""

    generation: int
    """Which connection of the session it went out on (bumped by every resume)."""
    seq: int
    """Its sequence number on that connection."""
    message: Message
    phase: Phase
    position: tuple[int, int] | None


@dataclass(eq=False, slots=True)
class Session:
    """One logged-in player (guest or key), attached to a connection or waiting for a resume."""

    player_id: str
    name: str
    guest: bool
    token_hash: bytes
    """Hash of the current resume token."""
    conn: ServerConnection
    """The protocol state of the current connection, or of the last one while detached."""
    transport: Transport | None = None
    """None while the player is away."""
    table: Table | None = None
    seat: int | None = None
    """The seat at `table`; None when only watching."""
    generation: int = 0
    log: deque[Sent] = field(default_factory=lambda: deque(maxlen=REPLAY_LIMIT))
    detached_at: float | None = None
    """When the connection was lost (the resume window runs from here)."""

    @property
    def attached(self) -> bool:
        """The player is connected now."""
        return self.transport is not None

    def send(self, message: Message) -> None:
        """Send (or, while away, only record) a message to this player."""
        if self.conn.phase is Phase.CLOSED:
            return  # closed by a fatal error: a resume will get a snapshot
        try:
            frame = self.conn.send(message)
        except LocalProtocolError as exc:
            # Our own state machine refused: a server bug, never the player's fault. Say so in
            # the log and drop the message rather than break the connection.
            log.error("not sending %s to %s: %s", message.TYPE, self.player_id, exc)
            return
        self.log.append(
            Sent(self.generation, self.conn.last_seq, message, self.conn.phase, self.conn.position)
        )
        if self.transport is not None:
            self.transport.write(frame)

    def missed_since(self, last_seq: int) -> list[Sent] | None:
        """The logged messages after `last_seq` on the current connection, or None when they are
        not all kept (the caller sends a snapshot instead)."""
        current = [sent for sent in self.log if sent.generation == self.generation]
        if last_seq == self.conn.last_seq:
            return []
        missed = [sent for sent in current if sent.seq > last_seq]
        if not missed or missed[0].seq != last_seq + 1:
            return None
        return missed

    def state_after(self, seq: int) -> tuple[Phase, tuple[int, int] | None] | None:
        """The protocol phase and turn right after message `seq` of the current connection."""
        for sent in self.log:
            if sent.generation == self.generation and sent.seq == seq:
                return sent.phase, sent.position
        return None
