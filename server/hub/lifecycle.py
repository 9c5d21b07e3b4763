"""A table's life on a hub around its play: restored after a restart or taken over from a dead
node (`restore`), its game over (`game_over`: the record stored, the ratings moved), and every
table saved and every connection told when the server stops (`shutdown`)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Protocol

from sushigo.protocol import (
    ErrorCode,
    Message,
    Phase,
    ProtocolError,
    Redirect,
    RemoteProtocolError,
    Restarting,
    SignedRecord,
)
from sushigo.protocol.versions import RESTART_VERSION
from sushigo.server.config import HubConfig
from sushigo.server.errors import TableError
from sushigo.server.lobby.history import History
from sushigo.server.lobby.lobby import Lobby
from sushigo.server.lobby.results import game_results, rate
from sushigo.server.sessions.requests import ServerState
from sushigo.server.sessions.session import Conn
from sushigo.server.tables.persist import StateError, forget, load
from sushigo.server.tables.seating import TableHost
from sushigo.server.tables.table import Table
from sushigo.server.tournaments.desk import TournamentDesk

log = logging.getLogger("sushigo.server")

RESTART_RETRY_MS = 1000
"""How long a client told RESTARTING waits before it connects again: a restart under systemd
takes a second or two, and trying sooner only costs the refused attempts."""
_NOT_LOGGED_IN = frozenset((Phase.HANDSHAKE, Phase.HELLO_SENT, Phase.IDENTIFY))
"""The phases before a login, where only ERROR may say the server is going."""


class Host(ServerState, TableHost, Protocol):
    """What this needs of the server (the hub)."""

    config: HubConfig
    lobby: Lobby
    history: History
    desk: TournamentDesk
    wall_ms: Callable[[], int]
    now: float

    def watch(self, table: Table) -> None:
        """Time the table's deadline."""

    def at(self, when: float, kind: str, target: object) -> None:
        """Call back at `when` (`kind` "abandon": a table nobody is connected to)."""

    def send(self, conn: Conn, message: Message) -> None:
        """Send on a connection."""

    def close(self, conn: Conn, exc: ProtocolError) -> None:
        """Say why once, then close the connection."""


def restore(hub: Host, now: float, tables: list[tuple[str, bytes]] | None = None) -> int:
    """Load the tables saved by an earlier run (after a crash or a clean stop); `tables`: these
    saved states only (a cluster node's share), instead of every one stored."""
    hub.now = now
    count = 0
    for table_id, blob in hub.storage.load_tables() if tables is None else tables:
        if table_id in hub.tables:  # taken up already (a node's look and a resume at once)
            continue
        try:
            table = load(blob, hub, now)
        except (StateError, TableError) as exc:
            log.error("table %s could not be restored: %s", table_id, exc)
            continue
        hub.tables[table_id] = table
        hub.desk.restored(table)  # a game of a tournament restored before (taken over first)
        hub.lobby.restored(table)
        hub.desk.adopted(table)  # a tournament's game: its entrants go home at its end
        hub.watch(table)
        # Its players had no chance to come back yet: a table they left closes only after the
        # resume window (then as any table nobody is connected to).
        table.abandon_at = now + hub.config.resume_seconds
        hub.at(table.abandon_at, "abandon", table_id)
        count += 1
    return count


def game_over(hub: Host, table: Table, signed: SignedRecord) -> None:
    """A table's game is over: store its signed record and results, move the identified
    players' ratings, and tell the history, the tournament desk and the lobby."""
    game_id, results = game_results(table, signed)
    kind = table.settings.kind
    hub.stats.count(hub.stats.games_finished, kind)
    hub.storage.finish_game(
        table.table_id,
        game_id,
        kind,
        signed.record,
        signed.signature,
        results,
        finished_ms=hub.wall_ms(),
        server_key=signed.server_key,
    )
    forget(table)  # the storage retired the table's state with the record
    hub.history.finished(game_id, [(seat.player_id, seat.index) for seat in table.seating.seats])
    rate(hub.storage, results, kind, table.table_id)
    hub.desk.game_over(table)
    log.info(
        "game over at table %s (%s): %s",
        table.table_id,
        kind,
        ", ".join(f"{r.name} {r.score}" for r in results),
    )
    hub.lobby.seat_tokens(table)
    hub.lobby.check_abandoned(table, hub.now)


def save_all(hub: Host) -> None:
    """Save every table in play (a stopping server, before its tables go elsewhere)."""
    for table in hub.tables.values():
        if table.playing:
            hub.save_table(table)


def shutdown(
    hub: Host, retry_ms: int = RESTART_RETRY_MS, moved: dict[str, str] | None = None
) -> None:
    """Save every table and tell every connection the server is going away: RESTARTING
    (protocol 2.4: come back after `retry_ms` and resume), or, for the people of a table handed
    to another node of the cluster (`moved`: table id -> that node's address), REDIRECT there;
    then SHUTTING_DOWN, which is all an older client gets. The adapter sends them only once the
    saves are durable."""
    moved = moved or {}
    # Not the tables handed to another node: saved before they went, they are that node's now
    # (written here, they would only be fenced off).
    for kept in hub.tables.values():
        if kept.playing and kept.table_id not in moved:
            hub.save_table(kept)
    restarting = Restarting(message="the server is restarting", retry_ms=retry_ms)
    for conn in list(hub.conns.values()):
        proto = conn.proto
        if proto.phase is Phase.CLOSED:
            continue
        version = proto.version
        if proto.phase not in _NOT_LOGGED_IN and version is not None and version >= RESTART_VERSION:
            table = conn.session.table if conn.session is not None else None
            address = moved.get(table.table_id) if table is not None else None
            if table is not None and address is not None:
                hub.send(conn, Redirect(address=address, table_id=table.table_id))
            else:
                hub.send(conn, restarting)
        hub.close(conn, RemoteProtocolError(ErrorCode.SHUTTING_DOWN, "the server is shutting down"))
