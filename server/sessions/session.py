"""A player's session: who they are, where they sit, and every message the server sent them.

A session outlives its TCP connection. While a player is away the server keeps sending the session
its messages (they move the session's protocol state and are logged, but go nowhere), so a player
who resumes can be given exactly the messages it missed, or a snapshot when too many were.
"""

from __future__ import annotations

import hashlib
import itertools
import logging
import secrets
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from sushigo.protocol import (
    SERVER_LIMITS,
    AuditList,
    GameList,
    GameRecord,
    Leaderboard,
    LocalProtocolError,
    Message,
    NodeList,
    Phase,
    SanctionList,
    ServerConnection,
    SessionList,
    TableList,
    TableView,
    TournamentList,
    wire,
)
from sushigo.protocol._registry import Role
from sushigo.protocol.frames import HEADER_SIZE, decode_body
from sushigo.protocol.messages import decode_message
from sushigo.server.tables.seating import Player
from sushigo.server.tables.table import Table

from .web_routes import ROUTED, over_web

log = logging.getLogger("sushigo.server")

REPLAY_LIMIT = 128
"""Server messages kept per session for replay on resume (PROTOCOL.md section 8)."""
REPLAY_BYTES = 128 * 1024
"""...and a seated player's frames' bytes at most: the oldest go first past it (a resume that
needs them gets a snapshot). A game's messages are a few hundred bytes each: this bounds what a
table's chat could make every seat keep."""
SMALL_LOG_BYTES = 16 * 1024
"""What the log of a session that holds no seat keeps (a spectator's, or one in the lobby):
enough for the messages of a short absence (such sessions are not bounded in number by seats).
Once such a session is away, a spectator keeps this much (`AWAY_WATCHER_BYTES`), one in the
lobby none: its resume's snapshot, the lobby, misses nothing (but what it is sent while away:
its table closing, say)."""
AWAY_WATCHER_BYTES = SMALL_LOG_BYTES


UNLOGGED: frozenset[type[Message]] = frozenset(
    (
        TableList,
        Leaderboard,
        GameList,
        GameRecord,
        TournamentList,
        SessionList,
        NodeList,
        TableView,
        SanctionList,
        AuditList,
    )
)
"""Replies the log keeps no frame of, only their place (the client may ask again): long ones,
which a flood of requests would otherwise keep for every session."""


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
    frame: bytes
    """The frame as sent (its seq is the old connection's; replaying re-sends the message)."""
    phase: Phase
    position: tuple[int, int] | None
    kind: str | None
    """The game of the connection's table when it was sent (its game values are that game's)."""

    @property
    def message(self) -> Message:
        """The typed message, decoded from the frame."""
        value = decode_body(self.frame[HEADER_SIZE:], SERVER_LIMITS)
        message, _ = decode_message(
            value, Role.SERVER, None if self.kind is None else wire(self.kind)
        )
        return message


LogEntry = tuple[int, int, bytes, str, tuple[int, int] | None, str | None]
"""A `Sent` as the log keeps it: (generation, seq, frame, phase value, position, game kind).

Thousands of sessions keep up to `REPLAY_LIMIT` messages each, so the log holds plain tuples of
atoms, which the garbage collector stops tracking, and frames rather than typed messages (a
TURN_START's observation is a dozen small objects). A full collection then has that much less to
walk, which is what kept turn latency high. Only a resume needs the typed message back."""


_VALUE = {phase: phase.value for phase in Phase}
"""A phase's plain str (quicker than ``.value``, an enum property)."""
_CLOSED = Phase.CLOSED


def broadcast(sessions: Sequence[Player], message: Message) -> None:
    """`Session.send` of one message to each of `sessions` (a table's people). The message is
    packed once for all of them: the protocol keeps the last message's packed fields."""
    for session in sessions:
        session.send(message)


_SERIALS = itertools.count(1)
"""Numbers sessions in the order they were made."""


def _sent(entry: LogEntry) -> Sent:
    generation, seq, frame, phase, position, kind = entry
    return Sent(generation, seq, frame, Phase(phase), position, kind)


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
    log: deque[LogEntry] = field(default_factory=lambda: deque(maxlen=REPLAY_LIMIT))
    log_bytes: int = 0
    """The bytes of the frames in `log` (at most `REPLAY_BYTES` but for the last one)."""
    detached_at: float | None = None
    """When the connection was lost (the resume window runs from here)."""
    address: str = ""
    """The IP address it logged in from (for the per-address limits)."""
    placed: str | None = None
    """The id the next table it makes here takes: it was sent here to make it, by a ticket
    for a new table (`server.routing.placement`), and this node is not to send it on."""
    holds_name: bool = False
    """Its name is held for it (`server.sessions.names`): while it is connected, or away from a
    seat."""
    serial: int = field(default_factory=lambda: next(_SERIALS))
    """Its number in this process, for the admins (``s17``): kept while the session lasts."""
    routes: dict[str, str] | None = None
    """Its connection's `Conn.routes` (over WebSocket: the nodes' web addresses)."""
    unsent: tuple[bytes, int] | None = None
    """After a resume on a cluster's node: the token hash the player held before it, and the
    storage's `mark` its RESUMED waits for (`server.lobby.resume.unsent_resume`)."""
    snapshot_next: bool = False
    """The next resume gets a snapshot (the player missed a connection it never heard from)."""

    @property
    def keeps_name(self) -> bool:
        """It should hold its name now: it is connected, or away while its seat shows its name
        (an away player at no seat lets it go, so whoever quits can log in again under it)."""
        return self.transport is not None or (self.table is not None and self.seat is not None)

    @property
    def attached(self) -> bool:
        """The player is connected now."""
        return self.transport is not None

    def send(self, message: Message) -> None:
        """Send (or, while away, only record) a message to this player."""
        conn = self.conn
        if conn.phase is _CLOSED:
            # Closed (its end of the stream, or a fatal error): not sent and not kept, so a
            # resume cannot replay what follows; it gets a snapshot.
            self.snapshot_next = True
            return
        if self.routes is not None and type(message) in ROUTED:
            message = over_web(message, self.routes)
        try:
            frame = conn.send(message)
        except LocalProtocolError as exc:
            # Our own state machine refused: a server bug, never the player's fault. Say so in
            # the log and drop the message rather than break the connection.
            log.error("not sending %s to %s: %s", message.TYPE, self.player_id, exc)
            return
        entries = self.log
        game = conn.game
        if len(entries) == REPLAY_LIMIT:  # the append drops the oldest
            self.log_bytes -= len(entries[0][2])
        # A reply the client may ask for again is not kept, only its place: a resume that missed
        # it gets a snapshot (and asks again).
        kept = b"" if type(message) in UNLOGGED else frame
        entries.append(
            (
                self.generation,
                conn.last_seq,
                kept,
                _VALUE[conn.phase],
                conn.position,
                None if game is None else game.kind,
            )
        )
        size = self.log_bytes + len(kept)
        most = REPLAY_BYTES if self.seat is not None else SMALL_LOG_BYTES
        while size > most and len(entries) > 1:
            size -= len(entries.popleft()[2])
        self.log_bytes = size
        transport = self.transport
        if transport is not None:
            transport.write(frame)

    def trim_log(self, most: int) -> None:
        """Keep only the newest logged messages, `most` bytes of them (0: none). A resume that
        needs older ones gets a snapshot."""
        entries = self.log
        if most <= 0:
            entries.clear()
            self.log_bytes = 0
            return
        size = self.log_bytes
        while entries and size > most:
            size -= len(entries.popleft()[2])
        self.log_bytes = size

    def missed_since(self, last_seq: int) -> list[Sent] | None:
        """The logged messages after `last_seq` on the current connection, or None when they are
        not all kept (the caller sends a snapshot instead)."""
        if last_seq == self.conn.last_seq:
            return []
        generation = self.generation
        missed = [e for e in self.log if e[0] == generation and e[1] > last_seq]
        if not missed or missed[0][1] != last_seq + 1 or not all(e[2] for e in missed):
            return None
        return [_sent(e) for e in missed]

    def state_after(self, seq: int) -> tuple[Phase, tuple[int, int] | None] | None:
        """The protocol phase and turn right after message `seq` of the current connection."""
        for generation, sent_seq, _, phase, position, _ in self.log:
            if generation == self.generation and sent_seq == seq:
                return Phase(phase), position
        return None


class Bucket:
    """A token bucket: `rate` per second, holding at most `burst`."""

    __slots__ = ("burst", "level", "rate", "stamp")

    def __init__(self, rate: float, burst: float, now: float) -> None:
        self.rate, self.burst, self.level, self.stamp = rate, burst, burst, now

    def take(self, amount: float, now: float) -> bool:
        """Spend `amount` if there is that much; False (and nothing spent) otherwise."""
        self.level = min(self.burst, self.level + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.level < amount:
            return False
        self.level -= amount
        return True


@dataclass(eq=False, slots=True)
class Conn:
    """One TCP connection."""

    id: int
    transport: Transport
    address: str
    """The peer's IP address (the per-address cap counts these)."""
    peer: str
    """address:port, for logs."""
    proto: ServerConnection
    challenge: bytes
    opened: float
    last_received: float
    messages: Bucket
    volume: Bucket
    chat: Bucket
    strikes: deque[float] = field(default_factory=deque)
    session: Session | None = None
    closed: bool = False
    identified: bool = False
    """Logged in or resumed (until then it counts against the per-address cap of connections
    that have not)."""
    frame_since: float | None = None
    """When the first byte of the frame still incomplete arrived (None: none is)."""
    frame_timer: bool = False
    """A timer is pending that checks `frame_since`."""
    logging_in: bool = False
    """A login waits for its read of the names stored (`server.lobby.login`)."""
    behind: bool = False
    """Its transport holds bytes the client has not taken (the adapter says so): it is not built
    another reply it could ask for again and again (a list) until it reads."""
    routes: dict[str, str] | None = None
    """Over WebSocket: the cluster's nodes' web addresses (`Hub.web_nodes`), which the node
    addresses sent to it are given as (`server.sessions.web_routes`); None over TCP."""
