"""RESUME: a player takes their session back on a new connection.

The server replays the messages the player missed when it still has them all (sequence numbers
are per connection, so they go out again with the new connection's numbers), or sends a snapshot
of where things stand. The token is single-use: every resume rotates it, so a stolen old token is
useless, and a resume replaces a connection that is still open. After a server restart sessions
are gone, but seated players' token hashes are in the database: they resume into their seat with
a snapshot.

Sushi Roll: a replay works the same way (RESUMED's `turn` is the cycle). A snapshot cannot carry a
Sushi Roll observation (its `observation` is the card game's), so a snapshot of a Sushi Roll game
in progress names the phase `waiting` (a seat) or `watching` (a spectator), and the current
ROLL_TURN follows it at once with the receiver's observation as it is now and the time left: the
client continues from there exactly as at the start of a turn (docs/PROTOCOL.md section 2.7).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

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

from .roll_table import RollPhase, RollTable
from .session import Session, new_token, token_hash
from .table import Table, TableError, TablePhase

if TYPE_CHECKING:
    from .hub import Conn, Hub


def resume_session(hub: Hub, conn: Conn, msg: Resume, now: float) -> None:
    """Answer a RESUME on `conn` (TableError UNKNOWN_SESSION when the token leads nowhere)."""
    digest = token_hash(msg.token)
    session = hub.sessions.get(digest) or _from_storage(hub, conn, digest)
    if session is None:
        raise TableError(ErrorCode.UNKNOWN_SESSION, "no session for that token (expired or used)")
    if session.transport is not None:
        # A new connection with the token replaces the old one.
        for other in list(hub.conns.values()):
            if other.transport is session.transport and other is not conn:
                other.session = None
                hub._fatal(
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
    if state is None or state[0] not in LOGGED_IN:
        replay = None

    token, new_digest = new_token()
    del hub.sessions[session.token_hash]
    session.token_hash = new_digest
    hub.sessions[new_digest] = session
    if session.table is not None:
        hub.storage.rotate_token(digest, new_digest, hub.wall_ms() + hub.config.token_lifetime_ms)
    session.generation += 1
    session.conn = conn.proto
    session.transport = conn.transport
    session.detached_at = None
    conn.session = session

    table = session.table
    if table is not None and session.seat is not None:
        if isinstance(table, RollTable):
            table.player_back(session.seat)
        else:
            seat = table.seats[session.seat]
            seat.misses, seat.bot_control = 0, False  # the player is back

    if replay is not None and state is not None:
        phase, position = state
        session.send(
            Resumed(
                ref=msg.ref,
                player_id=session.player_id,
                name=session.name,
                resume_token=token,
                phase=phase,
                round=position[0] if position and phase in _GAME else None,
                turn=position[1] if position and phase in _GAME else None,
                replayed=len(replay),
            )
        )
        for sent in replay:
            session.send(sent.message)
    else:
        phase, position, snapshot = _snapshot(session, now)
        session.send(
            Resumed(
                ref=msg.ref,
                player_id=session.player_id,
                name=session.name,
                resume_token=token,
                phase=phase,
                round=position[0] if position else None,
                turn=position[1] if position else None,
                snapshot=snapshot,
            )
        )
        if isinstance(table, RollTable) and table.in_turn:
            session.send(table.turn_message(session.seat, now))
    if table is not None:
        hub.table_changed(table)


LOGGED_IN = GAME_PHASES | {Phase.LOBBY, Phase.TABLE, Phase.WATCHING}
_GAME = frozenset(
    {
        Phase.COMMITTING,
        Phase.COMMITTED,
        Phase.REVEALING,
        Phase.REVEALED,
        Phase.WAITING,
        Phase.ROLL_WAITING,
        Phase.ROLL_MOVING,
        # A spectator follows the turns too: its replayed COMMITMENTS, TURN_RESULT or ROLL_UPDATE
        # must name the round and turn RESUMED gives.
        Phase.WATCHING,
    }
)


def _from_storage(hub: Hub, conn: Conn, digest: bytes) -> Session | None:
    """After a restart: a seated player's stored token gives their seat back."""
    entry = hub.storage.find_token(digest)
    if entry is None or entry.expires_ms < hub.wall_ms():
        return None
    table = hub.tables.get(entry.table_id)
    if table is None or entry.seat >= len(table.seats):
        return None
    seat = table.seats[entry.seat]
    if seat.player_id is None or seat.bot is not None:
        return None
    session = Session(
        seat.player_id,
        seat.name or f"seat {entry.seat}",
        seat.player_id.startswith("g:"),
        digest,
        conn.proto,
    )
    session.table, session.seat = table, entry.seat
    seat.session = session
    hub.sessions[digest] = session
    return session


def _snapshot(
    session: Session, now: float
) -> tuple[Phase, tuple[int, int] | None, Snapshot | None]:
    """The session's phase, turn and state as things stand `now`."""
    table = session.table
    if table is None:
        return Phase.LOBBY, None, None
    if isinstance(table, RollTable):
        return _roll_snapshot(table, session.seat, now)
    seat = session.seat
    game = table.game
    position = (game.round, game.turn) if game is not None and table.playing else None
    phase = Phase.WATCHING if seat is None else _seat_phase(table, seat)
    # A spectator keeps the turn: the COMMITMENTS and TURN_RESULT still to come must match it.
    if phase in (Phase.TABLE, Phase.SEEDING, Phase.SEEDED):
        position = None
    deadline_ms = 0
    if table.deadline is not None:
        deadline_ms = max(0, int((table.deadline - now) * 1000))
    snapshot = Snapshot(
        table=table.info(),
        seat=seat,
        observation=table.observation(seat),
        server_seed_hash=server_seed_hash(table.server_seed) if table.playing else None,
        client_seeds=tuple(s for s in table.client_seeds if s is not None)
        if table.game is not None and table.playing
        else (),
        commitments=tuple(table.commitments) if table.phase is TablePhase.REVEALING else (),
        deadline_ms=deadline_ms,
    )
    return phase, position, snapshot


def _roll_snapshot(
    table: RollTable, seat: int | None, now: float
) -> tuple[Phase, tuple[int, int] | None, Snapshot]:
    """A Sushi Roll table's snapshot (its ROLL_TURN follows when a turn is on)."""
    game = table.game
    position = None
    if seat is None:
        phase = Phase.WATCHING
    elif table.phase is RollPhase.SEEDING:
        phase = Phase.SEEDED if table.client_seeds[seat] is not None else Phase.SEEDING
    elif table.in_turn:
        phase = Phase.WAITING  # the ROLL_TURN that follows moves it to roll_moving/roll_waiting
    else:
        phase = Phase.TABLE
    if table.in_turn and game is not None:
        position = (game.round, game.cycle)
    deadline_ms = 0
    if table.deadline is not None:
        deadline_ms = max(0, int((table.deadline - now) * 1000))
    snapshot = Snapshot(
        table=table.info(),
        seat=seat,
        server_seed_hash=server_seed_hash(table.server_seed) if table.playing else None,
        client_seeds=tuple(s for s in table.client_seeds if s is not None)
        if game is not None and table.playing
        else (),
        deadline_ms=deadline_ms,
    )
    return phase, position, snapshot


def _seat_phase(table: Table, seat: int) -> Phase:
    """Where a seated player stands in the table's current phase."""
    if table.phase is TablePhase.SEEDING:
        return Phase.SEEDED if table.client_seeds[seat] is not None else Phase.SEEDING
    if table.phase is TablePhase.COMMITTING:
        return Phase.COMMITTED if table._committed[seat] else Phase.COMMITTING
    if table.phase is TablePhase.REVEALING:
        return Phase.REVEALED if table.openings[seat] is not None else Phase.REVEALING
    return Phase.TABLE
