"""RESUME: a player takes their session back on a new connection.

The server replays the messages the player missed when it still has them all (sequence numbers
are per connection, so they go out again with the new connection's numbers), or sends a snapshot
of where things stand. The token is single-use: every resume rotates it, so a stolen old token is
useless, and a resume replaces a connection that is still open. After a server restart sessions
are gone, but seated players' token hashes are in the database: they resume into their seat with
a snapshot.

A snapshot carries the receiver's observation, the seats acting in the current step and the phase
the receiver is in, for any game: a seat that owes its seed, commitment or reveal is told so, and
owes it again (a restarted server lost what it had not saved: docs/ARCHITECTURE.md, "What is
durable when").
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Protocol

from sushigo.protocol import (
    GAME_PHASES,
    ErrorCode,
    Phase,
    RemoteProtocolError,
    Resume,
    Resumed,
    Snapshot,
    server_seed_hash,
)
from sushigo.server.errors import TableError
from sushigo.server.sessions.moderation import Moderation
from sushigo.server.sessions.requests import ServerState
from sushigo.server.sessions.session import Conn, Session, new_token, token_hash
from sushigo.server.tables.phases import COMMITTING, MOVING, REVEALING, TablePhase
from sushigo.server.tables.table import Table

log = logging.getLogger("sushigo.server")


class ResumeHost(ServerState, Protocol):
    """What a resume needs of the server (the hub)."""

    wall_ms: Callable[[], int]
    moderation: Moderation
    nodes: tuple[str, ...]
    """A cluster's live nodes' addresses, this one's first (empty: a lone server)."""

    @property
    def token_lifetime_ms(self) -> int:
        """How long a stored resume token stays valid."""

    @property
    def cluster(self) -> object | None:
        """The cluster this server is a node of (None: a lone server)."""

    def close(self, conn: Conn, exc: RemoteProtocolError) -> None:
        """Say why, then close a connection."""

    def table_changed(self, table: Table) -> None:
        """Tell the table's people what it looks like now."""

    def session_back(self, session: Session) -> None:
        """A session that was away (or restored from a stored token) is connected again."""


def resume_session(hub: ResumeHost, conn: Conn, msg: Resume, now: float) -> None:
    """Answer a RESUME on `conn` (TableError UNKNOWN_SESSION when the token leads nowhere)."""
    digest = token_hash(msg.token)
    session = hub.sessions.get(digest) or _from_storage(hub, conn, digest)
    if session is None:
        raise TableError(ErrorCode.UNKNOWN_SESSION, "no session for that token (expired or used)")
    away = session.transport is None
    if not away:
        # A new connection with the token replaces the old one.
        for other in list(hub.conns.values()):
            if other.transport is session.transport and other is not conn:
                other.session = None
                hub.close(
                    other,
                    RemoteProtocolError(
                        ErrorCode.UNKNOWN_SESSION, "the session was resumed on another connection"
                    ),
                )
    # Decide replay or snapshot from the old connection's log, before switching connections.
    old = session.conn
    replay = session.missed_since(msg.last_seq) if old is not conn.proto else None
    state: tuple[Phase, tuple[int, int] | None] | None = None
    if replay == []:
        state = (old.phase, old.position)
    elif replay:
        state = session.state_after(msg.last_seq)
    if state is None or state[0] not in LOGGED_IN or session.snapshot_next:
        replay = None
    session.snapshot_next = False

    token, new_digest = new_token()
    held = session.token_hash
    del hub.sessions[held]
    session.token_hash = new_digest
    hub.sessions[new_digest] = session
    if session.table is not None and session.seat is not None:
        # The seat's token is the new one (the old one revoked with it): a held write, as every
        # write of play, never a read-and-write that would wait for the database on the loop,
        # or fail while it cannot be written (the disk full) with the session half switched.
        expires = hub.wall_ms() + hub.token_lifetime_ms
        hub.storage.save_token(new_digest, session.table.table_id, session.seat, expires)
    # A cluster's node sends RESUMED once what was written before it is stored: until then the
    # player still holds the old token (`unsent_resume`).
    session.unsent = (held, hub.storage.mark) if hub.cluster is not None else None
    session.generation += 1
    # The new connection is at the old one's table: same game, same seat.
    conn.proto.game, conn.proto.seat = old.game, old.seat
    session.conn = conn.proto
    session.transport = conn.transport
    session.detached_at = None
    session.address = conn.address
    session.routes = conn.routes
    conn.session = session
    if away:
        hub.session_back(session)

    table = session.table
    if table is not None and session.seat is not None:
        table.player_back(session.seat, now)

    kind = table.settings.kind if table is not None else None
    snapshot = None
    if replay is not None and state is not None:
        # The missed messages follow; a step is named only in a game phase.
        phase, position = state
        if phase not in _GAME:
            position = None
    else:
        phase, position, snapshot = _snapshot(session, now)
        replay = []
    session.send(
        Resumed(
            ref=msg.ref,
            player_id=session.player_id,
            name=session.name,
            resume_token=token,
            phase=phase,
            kind=kind,
            seat=session.seat,
            round=position[0] if position else None,
            turn=position[1] if position else None,
            replayed=len(replay),
            snapshot=snapshot,
            nodes=hub.nodes,
        )
    )
    for sent in replay:
        session.send(sent.message)
    if table is not None:
        hub.table_changed(table)


def unsent_resume(hub: ResumeHost, session: Session) -> None:
    """The connection a resume was answered on ended, or its table is dropped with what was
    not sent (a lapsed lease). On a cluster's node its RESUMED waits until the writes made
    before it are stored: if they are not yet (the database slow or paused), it never went out,
    and the player, who asks again with the token it holds, would be told UNKNOWN_SESSION and
    log in afresh, leaving its seat. So the resume is undone: the old token leads to the
    session again (stored for its seat again, after the new one), and the next resume sends a
    snapshot."""
    unsent, session.unsent = session.unsent, None
    if unsent is None:
        return
    held, mark = unsent
    if hub.storage.durable >= mark or hub.sessions.get(session.token_hash) is not session:
        return
    del hub.sessions[session.token_hash]
    session.token_hash = held
    hub.sessions[held] = session
    session.snapshot_next = True
    log.info("a resume of %s undone: RESUMED did not go out", session.player_id)
    if session.table is not None and session.seat is not None:
        expires = hub.wall_ms() + hub.token_lifetime_ms
        hub.storage.save_token(held, session.table.table_id, session.seat, expires)


LOGGED_IN = GAME_PHASES | {Phase.LOBBY, Phase.TABLE, Phase.WATCHING}
_GAME = frozenset(
    {
        Phase.COMMITTING,
        Phase.COMMITTED,
        Phase.REVEALING,
        Phase.REVEALED,
        Phase.WAITING,
        Phase.MOVING,
        # A spectator follows the steps too: its replayed COMMITMENTS, TURN_RESULT or ACTED must
        # name the round and turn RESUMED gives.
        Phase.WATCHING,
    }
)


def _from_storage(hub: ResumeHost, conn: Conn, digest: bytes) -> Session | None:
    """After a restart: a seated player's stored token gives their seat back."""
    entry = hub.storage.find_token(digest)
    if entry is None or entry.expires_ms < hub.wall_ms():
        return None
    table = hub.tables.get(entry.table_id)
    if table is None or entry.seat >= len(table.seating.seats):
        return None
    seat = table.seating.seats[entry.seat]
    if seat.player_id is None or seat.bot is not None:
        return None
    if hub.moderation.player_ban(seat.player_id) is not None:
        return None  # banned since: the token leads nowhere (a login is refused, saying why)
    session = Session(
        seat.player_id,
        seat.name or f"seat {entry.seat}",
        seat.player_id.startswith("g:"),
        digest,
        conn.proto,
    )
    session.table, session.seat = table, entry.seat
    conn.proto.game, conn.proto.seat = table.wire, entry.seat
    seat.session = session
    hub.sessions[digest] = session
    return session


def _snapshot(
    session: Session, now: float
) -> tuple[Phase, tuple[int, int] | None, Snapshot | None]:
    """The session's phase, step and state as things stand `now`."""
    table = session.table
    if table is None:
        return Phase.LOBBY, None, None
    seat = session.seat
    game = table.game
    in_step = game is not None and table.phase in (COMMITTING, REVEALING, MOVING)
    position = table.position if in_step else None
    phase = Phase.WATCHING if seat is None else seat_phase(table, seat)
    if phase in (Phase.TABLE, Phase.SEEDING, Phase.SEEDED):
        position = None
    deadline_ms = 0
    if table.deadline is not None:
        deadline_ms = max(0, int((table.deadline - now) * 1000))
    playing = game is not None and table.playing
    snapshot = Snapshot(
        table=table.info(),
        seat=seat,
        observation=table.observation(seat),
        server_seed_hash=server_seed_hash(table.server_seed) if table.playing else None,
        client_seeds=tuple(s for s in table.client_seeds if s is not None) if playing else (),
        seats=table.acting if in_step else (),
        secret=table.adapter.rules.secret,
        commitments=tuple(table.secret.commitments) if table.phase is REVEALING else (),
        steps=len(table.steps) if playing else 0,
        deadline_ms=deadline_ms,
    )
    return phase, position, snapshot


def seat_phase(table: Table, seat: int) -> Phase:
    """Where a seated player stands in the table's current phase: what it still owes."""
    phase = table.phase
    if phase is TablePhase.SEEDING:
        return Phase.SEEDED if table.client_seeds[seat] is not None else Phase.SEEDING
    slot = table.slot_of(seat)
    if phase is COMMITTING:
        if slot < 0:
            return Phase.WAITING
        return Phase.COMMITTED if table.secret.committed[slot] else Phase.COMMITTING
    if phase is REVEALING:
        if slot < 0:
            return Phase.WAITING
        return Phase.REVEALED if table.secret.openings[slot] is not None else Phase.REVEALING
    if phase is MOVING:
        return Phase.MOVING if slot >= 0 else Phase.WAITING
    return Phase.TABLE
