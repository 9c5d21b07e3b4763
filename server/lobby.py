"""Lobby and table requests: logins, tables, seats, bots, chat, and the seat's game messages.

The hub hands it every request after the handshake; it answers through the sessions, and the
table checks the game. It knows no particular game: a table's game comes from its settings' kind
(`server.games`). Split from the hub so each stays readable (STYLE.md item 9); it reaches the hub
only through `LobbyHost`.
"""

from __future__ import annotations

import logging
import secrets
import unicodedata
from collections.abc import Callable
from typing import Any, Protocol

from sushigo.protocol import (
    Act,
    AddBot,
    Chat,
    ChatMessage,
    Commit,
    CreateTable,
    ErrorCode,
    JoinTable,
    LeaveTable,
    ListTables,
    LoggedIn,
    LoginGuest,
    LoginKey,
    Message,
    QuickMatch,
    Reveal,
    Seed,
    Spectate,
    Spectating,
    StartGame,
    TableJoined,
    TableLeft,
    TableList,
    TableSettings,
    TableStatus,
    verify_login,
)

from .config import HubConfig
from .errors import TableError
from .games import check_settings, describe
from .seating import TableHost
from .session import Conn, Session, new_token
from .storage import Storage
from .table import Table

log = logging.getLogger("sushigo.server")


class LobbyHost(TableHost, Protocol):
    """What the lobby needs of the server (the hub): its tables and sessions, the storage, and
    the table host's part for the tables it makes."""

    tables: dict[str, Table]
    sessions: dict[bytes, Session]
    storage: Storage
    server_key: bytes
    config: HubConfig
    wall_ms: Callable[[], int]


class Lobby:
    """Every request that is not the handshake, a heartbeat, a resume or a tournament's."""

    def __init__(self, hub: LobbyHost) -> None:
        self.hub = hub
        self._quick: dict[tuple[str, int], list[Table]] = {}
        """Quick-match tables that were open when last seen, by (kind, players), oldest first."""
        self.handlers: dict[type[Message], Callable[[Conn, Session, Any, float], None]] = {
            ListTables: self._list_tables,
            CreateTable: self._create,
            JoinTable: self._join,
            QuickMatch: self._quick_match,
            Spectate: self._spectate,
            LeaveTable: self._leave_table,
            AddBot: self._add_bot,
            StartGame: self._start_game,
            Chat: self._chat,
            Seed: self._seed,
            Commit: self._commit,
            Reveal: self._reveal,
            Act: self._act,
        }
        """The handler of each request type this answers."""

    def handle(self, conn: Conn, session: Session, msg: Message, now: float) -> bool:
        """Answer `msg`; False when it is not a lobby or table request."""
        handler = self.handlers.get(type(msg))
        if handler is None:
            return False
        handler(conn, session, msg, now)
        return True

    # One handler per request type, found by the message's class (`handlers`): a game move
    # is one dict lookup away, not a dozen isinstance tests (the hub looks it up itself).

    def _list_tables(self, conn: Conn, session: Session, msg: ListTables, now: float) -> None:
        tables = [
            t.info()
            for t in reversed(self.hub.tables.values())
            if msg.kind in (None, t.settings.kind)
        ][:1000]
        session.send(TableList(ref=msg.ref, tables=tuple(tables)))

    def _join(self, conn: Conn, session: Session, msg: JoinTable, now: float) -> None:
        table = self._table(msg.table_id)
        taken = table.sit(session, msg.seat)
        self._seated(session, table, taken.index, msg.ref, now)

    def _leave_table(self, conn: Conn, session: Session, msg: LeaveTable, now: float) -> None:
        self.leave(session, self._current(session), msg.ref)

    def _add_bot(self, conn: Conn, session: Session, msg: AddBot, now: float) -> None:
        table = self._hosted(session)
        table.add_bot(msg.strategy, msg.seat)
        self.hub.table_changed(table)
        if table.quick and table.full:
            table.start(now)

    def _start_game(self, conn: Conn, session: Session, msg: StartGame, now: float) -> None:
        table = self._hosted(session)
        self._save_seat_tokens(table)
        table.start(now)

    def _seed(self, conn: Conn, session: Session, msg: Seed, now: float) -> None:
        table, seat = self._seat_of(session)
        table.seed(seat, msg.seed, now)

    def _commit(self, conn: Conn, session: Session, msg: Commit, now: float) -> None:
        table, seat = session.table, session.seat  # the common case, read directly
        if table is None or seat is None:
            table, seat = self._seat_of(session)
        table.commit(seat, msg.round, msg.turn, msg.commitment, now)

    def _reveal(self, conn: Conn, session: Session, msg: Reveal, now: float) -> None:
        table, seat = session.table, session.seat
        if table is None or seat is None:
            table, seat = self._seat_of(session)
        table.reveal(seat, msg.round, msg.turn, msg.action, msg.nonce, now)

    def _act(self, conn: Conn, session: Session, msg: Act, now: float) -> None:
        table, seat = self._seat_of(session)
        table.act(seat, msg.round, msg.turn, msg.action, now)

    def login(self, conn: Conn, msg: LoginGuest | LoginKey, now: float) -> None:
        name = _clean_name(msg.name)
        if name is None:
            raise TableError(
                ErrorCode.INVALID_NAME, "a name needs a visible character and no control characters"
            )
        if isinstance(msg, LoginKey):
            if not verify_login(msg, self.hub.server_key, conn.challenge):
                raise TableError(
                    ErrorCode.BAD_SIGNATURE, "the signature does not match this server's challenge"
                )
            player_id = self.hub.storage.upsert_identity(msg.public_key, name, self.hub.wall_ms())
            guest = False
        else:
            player_id = "g:" + secrets.token_hex(8)
            guest = True
        token, digest = new_token()
        session = Session(player_id, name, guest, digest, conn.proto, conn.transport)
        self.hub.sessions[digest] = session
        conn.session = session
        session.send(
            LoggedIn(ref=msg.ref, player_id=player_id, name=name, guest=guest, resume_token=token)
        )
        log.info(
            "login %s as %s (%s) from %s", player_id, name, "guest" if guest else "key", conn.peer
        )

    def _table(self, table_id: str) -> Table:
        table = self.hub.tables.get(table_id)
        if table is None:
            raise TableError(ErrorCode.NO_SUCH_TABLE, f"no table {table_id!r}")
        return table

    def _current(self, session: Session) -> Table:
        if session.table is None:
            raise TableError(ErrorCode.NOT_ALLOWED, "not at a table")
        return session.table

    def _hosted(self, session: Session) -> Table:
        table = self._current(session)
        if table.host_player != session.player_id or session.seat is None:
            raise TableError(ErrorCode.NOT_ALLOWED, "only the table's host may do that")
        return table

    def _seat_of(self, session: Session) -> tuple[Table, int]:
        table = self._current(session)
        if session.seat is None:
            raise TableError(ErrorCode.NOT_ALLOWED, "spectators do not play")
        return table, session.seat

    def open_table(self, settings: TableSettings, host: str | None) -> Table:
        """A new table (TableError BAD_SETTINGS or UNSUPPORTED_GAME_KIND for bad settings)."""
        return self._new_table(settings, host)

    def seat_tokens(self, table: Table) -> None:
        """Store the seated players' resume tokens (bound to the table and seat)."""
        self._save_seat_tokens(table)

    def _new_table(self, settings: TableSettings, host: str | None) -> Table:
        table = Table(secrets.token_hex(6), settings, check_settings(settings), self.hub, host)
        self.hub.tables[table.table_id] = table
        log.info("table %s created (%s)", table.table_id, describe(settings))
        return table

    def _create(self, conn: Conn, session: Session, msg: CreateTable, now: float) -> None:
        table = self._new_table(msg.settings, session.player_id)
        taken = table.sit(session, 0)
        self._seated(session, table, taken.index, msg.ref, now)

    def _quick_match(self, conn: Conn, session: Session, msg: QuickMatch, now: float) -> None:
        # Open quick-match tables by (kind, size): with a thousand tables running, scanning them
        # all for every request would cost more than the games. Tables that filled, started or
        # closed since are dropped from the front as they are met.
        waiting = self._quick.setdefault((msg.kind, msg.players), [])
        while waiting and not self._joinable(waiting[0]):
            waiting.pop(0)
        if waiting:
            table = waiting[0]
        else:
            settings = TableSettings(
                kind=msg.kind, players=msg.players, turn_seconds=self.hub.config.quick_turn_seconds
            )
            table = self._new_table(settings, session.player_id)
            table.quick = True
            waiting.append(table)
        taken = table.sit(session)
        if table.host_player is None:
            table.host_player = session.player_id
        self._seated(session, table, taken.index, msg.ref, now)

    def restored(self, table: Table) -> None:
        """A table loaded after a restart: an open quick-match one takes players again."""
        if table.quick and self._joinable(table):
            self._quick.setdefault((table.settings.kind, table.settings.players), []).append(table)

    def _joinable(self, table: Table) -> bool:
        return (
            table.status is TableStatus.OPEN
            and not table.full
            and self.hub.tables.get(table.table_id) is table
        )

    def _seated(
        self, session: Session, table: Table, seat: int, ref: int | None, now: float
    ) -> None:
        session.table, session.seat = table, seat
        session.send(TableJoined(ref=ref, table=table.info(), seat=seat))
        self.hub.storage.save_token(
            session.token_hash,
            table.table_id,
            seat,
            self.hub.wall_ms() + self.hub.config.token_lifetime_ms,
        )
        self.hub.table_changed(table)
        if table.quick and table.full:
            # Every seat's token was saved as it sat down here (and is kept up to date on every
            # resume): saving them all again would only move their expiry by seconds.
            table.start(now)

    def _save_seat_tokens(self, table: Table) -> None:
        expires = self.hub.wall_ms() + self.hub.config.token_lifetime_ms
        for seat in table.seats:
            session = seat.session
            if isinstance(session, Session):
                self.hub.storage.save_token(session.token_hash, table.table_id, seat.index, expires)

    def _spectate(self, conn: Conn, session: Session, msg: Spectate, now: float) -> None:
        table = self._table(msg.table_id)
        session.table, session.seat = table, None
        table.spectators.append(session)
        session.send(Spectating(ref=msg.ref, table=table.info()))
        if table.playing and table.game is not None and table.acting:
            # Mid-step: the table as it stands at once (the step's TURN_START with the public
            # observation), so a spectator need not wait for the next step, and what follows
            # (COMMITMENTS, TURN_RESULT, ACTED) names the round and turn it set.
            session.send(table.step_message(None, now))
        self.hub.table_changed(table)

    def leave(self, session: Session, table: Table, ref: int | None = None) -> None:
        table.leave(session)
        session.table = session.seat = None
        session.send(TableLeft(ref=ref, table_id=table.table_id, reason="left the table"))
        self.hub.storage.delete_token(session.token_hash)
        if table.abandoned and not table.playing:
            del self.hub.tables[table.table_id]
            self.hub.storage.delete_table(table.table_id)
            log.info("table %s closed", table.table_id)
        else:
            self.hub.table_changed(table)

    def _chat(self, conn: Conn, session: Session, msg: Chat, now: float) -> None:
        if not conn.chat.take(1, now):
            raise TableError(ErrorCode.RATE_LIMITED, "one chat message a second, please")
        text = "".join(c for c in msg.text if unicodedata.category(c)[0] != "C" or c == " ").strip()
        if not text:
            raise TableError(ErrorCode.OUT_OF_RANGE, "an empty chat message")
        table = session.table
        out = ChatMessage(
            table_id=table.table_id if table else None,
            player_id=session.player_id,
            name=session.name,
            text=text,
        )
        if table is not None:
            audience = table.people()
        else:
            audience = [s for s in self.hub.sessions.values() if s.table is None and s.attached]
        for person in audience:
            person.send(out)


def _clean_name(name: str) -> str | None:
    """The name without surrounding spaces, or None if it has control characters or no letters."""
    name = name.strip()
    if not name or any(unicodedata.category(c)[0] == "C" for c in name):
        return None
    return name
