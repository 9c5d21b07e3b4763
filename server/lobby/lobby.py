"""Lobby and table requests: logins, tables, seats, bots, chat, and the seat's game messages.

The hub hands it every request after the handshake; it answers through the sessions, and the
table checks the game. It knows no particular game: a table's game comes from its settings' kind
(`server.tables.games`). Split from the hub so each stays readable (STYLE.md item 9); it reaches the
hub only through `LobbyHost`.
"""

from __future__ import annotations

import logging
import secrets
import unicodedata
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from sushigo.protocol import (
    MAX_PAGE,
    Act,
    AddBot,
    Chat,
    ChatMessage,
    Commit,
    CreateTable,
    ErrorCode,
    GetLeaderboard,
    JoinTable,
    Leaderboard,
    LeaveTable,
    ListTables,
    LoginGuest,
    LoginKey,
    Message,
    QuickMatch,
    Rated,
    Reveal,
    Seed,
    Spectate,
    Spectating,
    StartGame,
    TableJoined,
    TableLeft,
    TableList,
    TableSettings,
    TableUpdate,
)
from sushigo.server.config import HubConfig
from sushigo.server.errors import TableError
from sushigo.server.sessions.limits import Limits
from sushigo.server.sessions.moderation import Moderation, sanction_message
from sushigo.server.sessions.names import Names
from sushigo.server.sessions.requests import Charger, Reader
from sushigo.server.sessions.session import Conn, Session
from sushigo.server.storage.contract import LeaderboardEntry
from sushigo.server.tables.games import adapter, check_settings, describe
from sushigo.server.tables.seating import TableHost
from sushigo.server.tables.table import Table
from sushigo.server.tournaments.desk import TournamentDesk

from .login import LoginHost, logged_in, login
from .pages import Pages
from .quick import QuickSeats

log = logging.getLogger("sushigo.server")

TABLES_PER_TOKEN = 10
"""LIST_TABLES costs one message of the rate limit and one more per this many tables it asks
for: a page of 100 is 11. A lobby that browses a page a second is well within the limit; one
connection cannot have the server build and send fifty full pages in a breath."""


class LobbyHost(TableHost, LoginHost, Reader, Charger, Protocol):
    """What the lobby needs of the server (the hub): its tables and sessions, the storage, and
    the table host's part for the tables it makes."""

    server_key: bytes
    config: HubConfig
    wall_ms: Callable[[], int]
    limits: Limits
    names: Names
    desk: TournamentDesk
    moderation: Moderation
    draining: bool
    """No new table or game (an admin drains the server: `server.operations.admin`)."""
    lease_until: float
    """A cluster's node: until when (the hub's clock) its lease surely holds; past it, no new
    table or game until a renewal goes through (inf: a lone server)."""
    nodes: tuple[str, ...]
    """A cluster's live nodes' addresses, this one's first (empty: a lone server)."""
    now: float

    def at(self, when: float, kind: str, target: object) -> None:
        """Call back at `when` (`kind` "abandon" with a table's id: `Lobby.abandoned`)."""

    def forget(self, sessions: list[Session], now: float) -> None:
        """End sessions kept away before their time, to stay within the caps."""

    def table_opened(self, table: Table) -> None:
        """A new table (a cluster's node leases it in the commit of its first writes: `Hub.opened`)."""

    def lobby_said(self, message: ChatMessage) -> None:
        """A lobby chat message said here (a cluster's node passes it on to the others)."""


class Lobby(QuickSeats):
    """Every request that is not the handshake, a heartbeat, a resume or a tournament's (its
    quick matches: `QuickSeats`)."""

    hub: LobbyHost

    def __init__(self, hub: LobbyHost) -> None:
        self.hub = hub
        self.pages = Pages()
        """The table list's pages, built once while nothing they show changes."""
        self._quick: dict[tuple[str, int], list[Table]] = {}
        self._made: dict[str, set[Table]] = {}
        """The tables each player made, for the cap on them (closed ones dropped as met)."""
        self.changed = False
        """A table closed, or a seat of a quick-match table was taken or freed, since the adapter
        last looked: a cluster's node tells the other nodes at once (the matcher merges the
        waiting tables, and every node lists them), rather than at its next renewal."""
        self._deserted: dict[str, dict[Table, None]] = {}
        """Per address, the tables made from it whose abandoned clock runs, oldest first (those
        whose people came back, or that closed, dropped as met)."""
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
            GetLeaderboard: self._leaderboard,
        }
        """The handler of each request type this answers."""

    def _leaderboard(self, conn: Conn, session: Session, msg: GetLeaderboard, now: float) -> None:
        """A game's ladder, best first, and the asker's own place on it, or the place of the
        player it names (read off the event loop: `LobbyHost.read`)."""
        adapter(msg.kind)  # UNSUPPORTED_GAME_KIND for a game not installed here
        storage, kind, player_id = self.hub.storage, msg.kind, msg.player_id or session.player_id

        def job() -> tuple[list[LeaderboardEntry], tuple[int, int, LeaderboardEntry | None]]:
            return storage.leaderboard(limit=msg.limit, kind=kind), storage.standing(
                player_id, kind
            )

        def then(result: Any, now: float) -> None:
            top, (total, rank, mine) = result
            session.send(
                Leaderboard(
                    ref=msg.ref,
                    kind=kind,
                    top=tuple(_rated(i, entry) for i, entry in enumerate(top, 1)),
                    total=total,
                    mine=_rated(rank, mine) if mine is not None else None,
                )
            )

        self.hub.read(job, then, session=session, ref=msg.ref, what="the leaderboard")

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
        # One page, newest first: a reply's size is bounded whatever the number of tables and
        # their names (it is also kept for a resume), and the total says how many there are.
        limit = min(msg.limit, MAX_PAGE)
        if not self.hub.charge(conn, limit // TABLES_PER_TOKEN, now, msg.ref):
            return
        page = self.pages.page(self.hub.tables, msg.kind, msg.status, msg.offset, limit, now)
        session.send(
            TableList(ref=msg.ref, tables=page.tables, total=page.total, offset=msg.offset)
        )

    def _join(self, conn: Conn, session: Session, msg: JoinTable, now: float) -> None:
        table = self._table(msg.table_id)
        if table.quick:  # its game starts once it is full
            self._check_storage()
        taken = table.sit(session, msg.seat)  # NOT_ALLOWED if this player sits there already
        self._seated(session, table, taken.index, msg.ref, now)

    def _leave_table(self, conn: Conn, session: Session, msg: LeaveTable, now: float) -> None:
        self.leave(session, self._current(session), msg.ref)

    def _add_bot(self, conn: Conn, session: Session, msg: AddBot, now: float) -> None:
        table = self._hosted(session)
        if table.quick:
            self._check_storage()
        table.add_bot(msg.strategy, msg.seat)
        # The update answers the host's request (its ref); everyone else's copy has none.
        info = table.info()
        self.hub.tables.changed()
        for person in table.seating.people():
            person.send(TableUpdate(ref=msg.ref if person is session else None, table=info))
        if table.quick and table.seating.full:
            table.start(now)

    def _start_game(self, conn: Conn, session: Session, msg: StartGame, now: float) -> None:
        table = self._hosted(session)
        self._check_storage()
        self._save_seat_tokens(table)
        table.start(now)

    def _seed(self, conn: Conn, session: Session, msg: Seed, now: float) -> None:
        table, seat = self._seat_of(session)
        table.seed(seat, msg.seed, now)

    def _commit(self, conn: Conn, session: Session, msg: Commit, now: float) -> None:
        table, seat = session.table, session.seat  # the common case, read directly
        if table is None or seat is None:
            table, seat = self._seat_of(session)
        table.secret.commit(seat, msg.round, msg.turn, msg.commitment, now)

    def _reveal(self, conn: Conn, session: Session, msg: Reveal, now: float) -> None:
        table, seat = session.table, session.seat
        if table is None or seat is None:
            table, seat = self._seat_of(session)
        table.secret.reveal(seat, msg.round, msg.turn, msg.action, msg.nonce, now)

    def _act(self, conn: Conn, session: Session, msg: Act, now: float) -> None:
        table, seat = self._seat_of(session)
        table.open.act(seat, msg.round, msg.turn, msg.action, now)

    def login(self, conn: Conn, msg: LoginGuest | LoginKey, now: float) -> None:
        """LOGIN_GUEST or LOGIN_KEY (`server.lobby.login`)."""
        login(self.hub, conn, msg)

    def logged_in(self, conn: Conn, ref: int, player_id: str, name: str, guest: bool) -> Session:
        """A new session for a checked identity on `conn`, answered by LOGGED_IN."""
        return logged_in(self.hub, conn, ref, player_id, name, guest)

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
        if table.seating.host_player != session.player_id or session.seat is None:
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

    def open_placed(self, settings: TableSettings, table_id: str) -> Table:
        """A tournament's game table placed on a node, with the id its home node chose
        (`server.routing.spread`): leased by its claim (`Cluster.claim_game`), not by the
        commit of its first writes as a new table of this node's is (`table_opened`)."""
        table = Table(table_id, settings, check_settings(settings), self.hub, None)
        self.hub.tables[table_id] = table
        log.info("table %s created (%s)", table_id, describe(settings))
        return table

    def seat_tokens(self, table: Table) -> None:
        """Store the seated players' resume tokens (bound to the table and seat)."""
        self._save_seat_tokens(table)

    def _new_table(
        self, settings: TableSettings, host: str | None, table_id: str | None = None
    ) -> Table:
        table_id = table_id or secrets.token_hex(6)
        table = Table(table_id, settings, check_settings(settings), self.hub, host)
        self.hub.tables[table.table_id] = table
        self.hub.table_opened(table)
        log.info("table %s created (%s)", table.table_id, describe(settings))
        return table

    def _made_by(self, session: Session, settings: TableSettings) -> Table:
        """A new table a player asked for (CREATE_TABLE, or QUICK_MATCH finding none), within
        the caps on tables per player and in all (LIMIT_REACHED). There is no cap per address,
        which would lock out the honest players behind one NAT with a flooder: what a flood of
        tables from one address leaves behind is bounded by `deserted` instead."""
        cfg = self.hub.config
        key = session.player_id
        self._check_storage()
        if len(self._live(key)) >= cfg.tables_per_player:
            raise TableError(
                ErrorCode.LIMIT_REACHED,
                f"you made {cfg.tables_per_player} tables that are still open (the server's"
                " --tables-per-player); a table closes when its game is over and everyone has"
                " left",
            )
        if len(self.hub.tables) >= cfg.max_tables:
            raise TableError(
                ErrorCode.LIMIT_REACHED,
                f"the server has {cfg.max_tables} tables already; join one, or try later",
            )
        # A player sent here to make a table (`server.routing.placement`) makes the one its ticket
        # named.
        table = self._new_table(settings, session.player_id, session.placed)
        session.placed = None
        table.origin, table.maker = session.address, key
        self._made.setdefault(key, set()).add(table)
        return table

    def _check_storage(self) -> None:
        """No new game while the database cannot be written (INTERNAL_ERROR saying why): those in
        play go on in memory and are saved when it can be again, but a new one could not be
        stored at all. Nor while the server drains (NOT_ALLOWED): it is to empty itself."""
        if self.hub.draining:
            raise TableError(
                ErrorCode.NOT_ALLOWED,
                "this server is draining (an admin is taking it down): no new table or game"
                " here; the games in play finish",
            )
        fault: str | None = self.hub.storage.fault
        if fault is None and self.hub.now >= self.hub.lease_until:
            fault = "its lease in the cluster lapsed"  # another node may own its tables now
        if fault is not None:
            raise TableError(
                ErrorCode.INTERNAL_ERROR,
                f"the server cannot store games right now ({fault}): no new table or game"
                " starts until it can again; games in play go on",
            )

    def check_new(self) -> None:
        """`TableError` when no new table or game may start here now (`_check_storage`)."""
        self._check_storage()

    def _live(self, key: str) -> set[Table]:
        """The tables still open that a player made (closed ones dropped now)."""
        tables = self._made.get(key)
        if not tables:
            return set()
        closed = [t for t in tables if self.hub.tables.get(t.table_id) is not t]
        tables.difference_update(closed)
        if not tables:
            del self._made[key]
        return tables

    def _create(self, conn: Conn, session: Session, msg: CreateTable, now: float) -> None:
        table = self._made_by(session, msg.settings)
        taken = table.sit(session, 0)
        self._seated(session, table, taken.index, msg.ref, now)

    def _seated(
        self, session: Session, table: Table, seat: int, ref: int | None, now: float
    ) -> None:
        session.table, session.seat = table, seat
        table.abandon_at = None
        session.send(TableJoined(ref=ref, table=table.info(), seat=seat))
        self.hub.storage.save_token(
            session.token_hash,
            table.table_id,
            seat,
            self.hub.wall_ms() + self.hub.config.token_lifetime_ms,
        )
        self.hub.table_changed(table)
        if table.quick and table.seating.full:
            self.changed = True
            # Every seat's token was saved as it sat down here (and is kept up to date on every
            # resume): saving them all again would only move their expiry by seconds.
            table.start(now)

    def _save_seat_tokens(self, table: Table) -> None:
        expires = self.hub.wall_ms() + self.hub.config.token_lifetime_ms
        for seat in table.seating.seats:
            session = seat.session
            if isinstance(session, Session):
                self.hub.storage.save_token(session.token_hash, table.table_id, seat.index, expires)

    def _spectate(self, conn: Conn, session: Session, msg: Spectate, now: float) -> None:
        table = self._table(msg.table_id)
        session.table, session.seat = table, None
        table.seating.spectators.append(session)
        table.abandon_at = None
        session.send(Spectating(ref=msg.ref, table=table.info()))
        if table.playing and table.game is not None and table.acting:
            # Mid-step: the table as it stands at once (the step's TURN_START with the public
            # observation), so a spectator need not wait for the next step, and what follows
            # (COMMITMENTS, TURN_RESULT, ACTED) names the round and turn it set.
            session.send(table.step_message(None, now))
        self.hub.table_changed(table)

    def leave(self, session: Session, table: Table, ref: int | None = None) -> None:
        """The player leaves the table (LEAVE_TABLE, or its session ended), told so."""
        self.unseat(session, table)
        session.send(TableLeft(ref=ref, table_id=table.table_id, reason="left the table"))

    def unseat(self, session: Session, table: Table) -> None:
        """The player is at the table no more (and not told so here: a player sent to another
        node's quick match is told where it goes); a table left empty with no game closes."""
        table.leave(session)
        session.table = session.seat = None
        self.hub.storage.delete_token(session.token_hash)
        self.changed = self.changed or table.quick  # a seat free again: the matcher reads it
        if table.seating.abandoned and not table.playing:
            self._close(table, "everyone left")
        else:
            self.hub.table_changed(table)
            self.check_abandoned(table, self.hub.now)

    # -- tables nobody is at -------------------------------------------------------------------

    def check_abandoned(self, table: Table, now: float) -> None:
        """Start the abandoned table's clock when none of its people is connected (its game, if
        one is in progress, goes on: this is called again when it ends)."""
        if table.abandon_at is not None or _connected(table.seating.people()):
            return
        if self.hub.tables.get(table.table_id) is not table:
            return
        table.abandon_at = now + self.hub.config.abandon_seconds
        self.hub.at(table.abandon_at, "abandon", table.table_id)
        if table.origin:
            self.deserted(table)

    def deserted(self, table: Table) -> None:
        """One more table of its address nobody is connected to: past
        `HubConfig.deserted_per_address` of them the oldest not playing closes now (a flood of
        tables from one address holds that many, however fast it comes)."""
        kept = self._deserted.setdefault(table.origin, {})
        kept[table] = None
        tables = self.hub.tables
        for old in [t for t in kept if t.abandon_at is None or tables.get(t.table_id) is not t]:
            del kept[old]  # someone came back, or it closed
        extra = len(kept) - self.hub.config.deserted_per_address
        for old in [t for t in kept if not t.playing][: max(0, extra)]:
            del kept[old]
            old.abandon_at = None
            self._close(old, "nobody was connected to it, and its address left too many such")

    def abandoned(self, table: Table, now: float) -> None:
        """The abandoned table's clock ran out: close it, unless someone came back or its game
        is still being played."""
        due = table.abandon_at
        if due is None or now < due:
            return
        table.abandon_at = None
        if table.playing or _connected(table.seating.people()):
            return
        self._close(table, f"nobody was connected to it for {self.hub.config.abandon_seconds:g} s")

    def close_table(self, table: Table, why: str) -> None:
        """Close a table now (an admin's doing: a game in progress was dealt with first)."""
        self._close(table, why)

    def _close(self, table: Table, why: str) -> None:
        """Close a table: its people (all away, if any) are back in the lobby, told why."""
        hub = self.hub
        del hub.tables[table.table_id]
        self.changed = True
        hub.storage.delete_table(table.table_id)
        _drop(self._made, table.maker, table)
        _drop(self._deserted, table.origin, table)
        away = []
        for person in table.seating.people():
            if isinstance(person, Session) and person.table is table:
                person.table = person.seat = None
                person.send(TableLeft(table_id=table.table_id, reason=f"the table closed: {why}"))
                hub.storage.delete_token(person.token_hash)
                hub.names.update(person)
                if not person.attached:
                    away.append(person)
        for person in away:  # away, and now at no seat: idle sessions, within their caps
            hub.forget(hub.limits.unseated(person), hub.now)
        log.info("table %s closed: %s", table.table_id, why)

    def _chat(self, conn: Conn, session: Session, msg: Chat, now: float) -> None:
        muted = self.hub.moderation.mute(session.player_id)
        if muted is not None:
            raise TableError(ErrorCode.MUTED, sanction_message(muted, self.hub.wall_ms()))
        if not conn.chat.take(1, now):
            raise TableError(ErrorCode.RATE_LIMITED, "one chat message a second, please")
        text = "".join(c for c in msg.text if unicodedata.category(c)[0] != "C" or c == " ").strip()
        if not text:
            raise TableError(ErrorCode.OUT_OF_RANGE, "an empty chat message")
        longest = self.hub.config.chat_max_chars
        if len(text) > longest:
            raise TableError(
                ErrorCode.OUT_OF_RANGE, f"chat messages are {longest} characters at most here"
            )
        table = session.table
        out = ChatMessage(
            table_id=table.table_id if table else None,
            player_id=session.player_id,
            name=session.name,
            text=text,
        )
        if table is not None:
            for person in table.seating.people():
                person.send(out)
            return
        self.lobby_chat(out)
        self.hub.lobby_said(out)

    def lobby_chat(self, message: ChatMessage) -> None:
        """Say `message` to every connected player in the lobby (at no table)."""
        for person in self.hub.sessions.values():
            if person.table is None and person.attached:
                person.send(message)


def _drop(index: dict[str, Any], key: str, table: Table) -> None:
    """Forget a closed table in an index of tables by player or address (and the key with it)."""
    tables = index.get(key)
    if tables is None:
        return
    if isinstance(tables, dict):
        tables.pop(table, None)
    else:
        tables.discard(table)
    if not tables:
        del index[key]


def _connected(people: Iterable[Any]) -> bool:
    """Someone among a table's people is connected now."""
    return any(person.attached for person in people)


def _rated(rank: int, entry: LeaderboardEntry) -> Rated:
    """A ladder's row on the wire (ratings in thousandths)."""
    return Rated(
        rank=rank,
        player_id=entry.player_id,
        name=entry.name,
        rating_milli=round(entry.ordinal * 1000),
        mu_milli=round(entry.mu * 1000),
        sigma_milli=round(entry.sigma * 1000),
        games=entry.games,
    )
