"""The lobby's quick matches (a part of `server.lobby.lobby.Lobby`): the tables of each game and
size that wait for players, a player seated at the oldest that fits (or a new one), and a player
moved here from another node's quick match (`server.routing.matching`).

A quick-match table starts by itself when full. On a cluster each node fills its own tables at
once, with no question to PostgreSQL, and the nodes' waiting tables are merged by one node at a
time (`server.routing.matching`).
"""

from __future__ import annotations

import logging
from typing import Protocol

from sushigo.protocol import QuickMatch, TableSettings, TableStatus
from sushigo.server.config import HubConfig
from sushigo.server.sessions.session import Conn, Session
from sushigo.server.tables.index import Tables
from sushigo.server.tables.table import Table

log = logging.getLogger("sushigo.server")


class QuickHost(Protocol):
    """What quick matches need of the server (the hub)."""

    tables: Tables
    config: HubConfig


class QuickSeats:
    """The quick-match part of the lobby (`Lobby` supplies the members it does not define)."""

    hub: QuickHost
    _quick: dict[tuple[str, int], list[Table]]
    """Quick-match tables that were open when last seen, by (kind, players), oldest first."""
    changed: bool
    """A cluster's node tells the other nodes soon (`Lobby.changed`)."""

    def _made_by(self, session: Session, settings: TableSettings) -> Table:
        raise NotImplementedError

    def _check_storage(self) -> None:
        raise NotImplementedError

    def _new_table(
        self, settings: TableSettings, host: str | None, table_id: str | None = None
    ) -> Table:
        raise NotImplementedError

    def _seated(
        self, session: Session, table: Table, seat: int, ref: int | None, now: float
    ) -> None:
        raise NotImplementedError

    def leave(self, session: Session, table: Table, ref: int | None = None) -> None:
        raise NotImplementedError

    def gone_from_queue(self, session: Session, table: Table) -> bool:
        """A player whose connection ended, at `table`: if it waits there for a quick match's
        game to begin, it is out of the queue at once (True), so that no game starts with the
        seat of someone who left (quit, stopped a bot, lost the connection). Back within its
        resume window, the session is in the lobby, and the client library queues again: a
        seat is held for a resume inside a game only."""
        if not table.quick or session.seat is None or table.status is not TableStatus.OPEN:
            return False
        # Told (TABLE_LEFT): its sequence number moves on, so a resume cannot take the
        # session up from before it as if the seat were still held: it gets the lobby's
        # snapshot.
        self.leave(session, table)
        log.info("%s left the quick match at table %s", session.player_id, table.table_id)
        return True

    def open_quick(self, kind: str, players: int, player_id: str) -> Table | None:
        """The open quick-match table of `kind` for `players` this player would be seated at,
        or None (a new one would be made)."""
        # Open quick-match tables by (kind, size): with a thousand tables running, scanning them
        # all for every request would cost more than the games. Tables that filled, started or
        # closed since are dropped from the front as they are met.
        waiting = self._quick.setdefault((kind, players), [])
        while waiting and not self._joinable(waiting[0]):
            waiting.pop(0)
        # The first that fits, but never a second seat for the same player.
        return next((t for t in waiting if not t.seating.holds(player_id)), None)

    def quick_tables(self) -> list[tuple[str, str, int, int]]:
        """Every open quick-match table: (id, kind, players, free seats)."""
        return [
            (t.table_id, kind, players, sum(s.empty for s in t.seating.seats))
            for (kind, players), tables in self._quick.items()
            for t in tables
            if self._joinable(t)
        ]

    def _quick_match(self, conn: Conn, session: Session, msg: QuickMatch, now: float) -> None:
        self._check_storage()  # a quick match is a game to come, at a new table or a waiting one
        table = self.open_quick(msg.kind, msg.players, session.player_id)
        if table is None:
            made = self._made_by(session, self._quick_settings(msg.kind, msg.players))
            table = self._quick_table(msg.kind, msg.players, made)
        self._sit_quick(session, table, msg.ref, now)

    def arrive_quick(
        self, session: Session, kind: str, players: int, table_id: str, make: bool, now: float
    ) -> None:
        """Seat a player moved here from another node's quick match (`server.routing.matching`):
        at the table `table_id` if it takes players, else as a quick match here would (a new
        table has the id `table_id` when this node was to `make` it). Told by a TABLE_JOINED
        with no ref. The node's checks for a new table were made before the player came (its
        ticket is refused while it drains or cannot store games)."""
        table = self.hub.tables.get(table_id)
        if table is None or not (
            table.quick and self._joinable(table) and not table.seating.holds(session.player_id)
        ):
            table = self.open_quick(kind, players, session.player_id)
        if table is None:
            made = self._new_table(
                self._quick_settings(kind, players),
                session.player_id,
                table_id if make and table_id not in self.hub.tables else None,
            )
            table = self._quick_table(kind, players, made)
        self._sit_quick(session, table, None, now)

    def _quick_settings(self, kind: str, players: int) -> TableSettings:
        return TableSettings(
            kind=kind, players=players, turn_seconds=self.hub.config.quick_turn_seconds
        )

    def _quick_table(self, kind: str, players: int, table: Table) -> Table:
        """`table`, new, as a quick match's that waits for players."""
        table.quick = True
        self._quick.setdefault((kind, players), []).append(table)
        return table

    def _sit_quick(self, session: Session, table: Table, ref: int | None, now: float) -> None:
        self.changed = True  # one seat fewer free: the cluster's matcher reads it
        taken = table.sit(session)
        session.placed = None  # sent here to make one, it found one waiting (or made it)
        if table.seating.host_player is None:
            table.seating.host_player = session.player_id
        self._seated(session, table, taken.index, ref, now)

    def restored(self, table: Table) -> None:
        """A table loaded after a restart: an open quick-match one takes players again."""
        if table.quick and self._joinable(table):
            self._quick.setdefault((table.settings.kind, table.settings.players), []).append(table)

    def _joinable(self, table: Table) -> bool:
        return (
            table.status is TableStatus.OPEN
            and not table.seating.full
            and self.hub.tables.get(table.table_id) is table
        )
