"""The tournament desk: tournament requests, and running their games at tables of their own.

The hub hands it every tournament message, tells it when a game ends (`game_over`), and calls
`flush` after each input so that finished games are wrapped up (their table closed, entrants back
in the lobby) only once everyone has received GAME_OVER, and new games are seated as soon as their
entrants are free.
"""

from __future__ import annotations

import logging
import re
from typing import Protocol

from sushigo.protocol import (
    CreateTournament,
    ErrorCode,
    ListTournaments,
    Message,
    RegisterTournament,
    StartTournament,
    TableJoined,
    TableLeft,
    TableSettings,
    TournamentList,
    TournamentStatus,
    TournamentUpdate,
    WatchTournament,
)

from .config import HubConfig
from .errors import TableError
from .games import check_settings
from .session import Session
from .table import Table
from .tournament import Tournament

log = logging.getLogger("sushigo.server")

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ._-]*\Z")
MAX_TOURNAMENTS = 100
"""Tournaments registering or running at once."""
KEPT_FINISHED = 100
"""Finished tournaments kept for LIST_TOURNAMENTS (the oldest are dropped past it)."""


class DeskHost(Protocol):
    """What the desk needs of the server (the hub)."""

    tables: dict[str, Table]
    sessions: dict[bytes, Session]
    config: HubConfig

    def open_table(self, settings: TableSettings, host: str | None) -> Table:
        """A new table."""

    def seat_tokens(self, table: Table) -> None:
        """Store the seated players' resume tokens."""

    def table_changed(self, table: Table) -> None:
        """Tell the table's people what it looks like now."""

    def place_game(self, t: Tournament, seating: tuple[str, ...]) -> str | None:
        """A cluster's node: the id of the table on another node the game is placed at (its
        entrants are sent there); None: play it here (`server.tournament_spread`)."""

    def send_home(self, table: Table, name: str) -> None:
        """A game placed here by tournament `name`'s node is over: send its entrants home."""


class TournamentDesk:
    """Every tournament of one server."""

    def __init__(self, hub: DeskHost) -> None:
        self.hub = hub
        self.tournaments: dict[str, Tournament] = {}
        self.entrants: dict[tuple[str, str], Session] = {}
        """(tournament, player id) -> the entrant's session."""
        self.watchers: dict[str, dict[Session, None]] = {}
        """Per tournament, the sessions told of its changes (in order; ended ones removed)."""
        self.away: dict[tuple[str, str], str] = {}
        """(tournament, player id) -> the table on another node where the entrant plays a game
        of it (`server.tournament_spread`): busy, not gone, until it is back."""
        self.visiting: dict[str, str] = {}
        """Table id -> the tournament (another node's) whose game it plays here."""
        self._finished: list[Table] = []
        self._dirty: set[str] = set()
        self.changed = False
        """A tournament was made or changed since a cluster's node last published them
        (`server.tournament_cluster`)."""

    # -- requests -----------------------------------------------------------------------------

    def handle(self, session: Session, msg: Message, now: float) -> bool:
        """Answer a tournament request; False if `msg` is not one."""
        if isinstance(msg, ListTournaments):
            infos = [t.info(with_standings=False) for t in reversed(self.tournaments.values())]
            session.send(TournamentList(ref=msg.ref, tournaments=tuple(infos[:100])))
        elif isinstance(msg, CreateTournament):
            self._create(session, msg)
        elif isinstance(msg, RegisterTournament):
            t = self._get(msg.name)
            try:
                t.register(session.player_id, session.name)
            except ValueError as exc:
                raise TableError(ErrorCode.NOT_ALLOWED, str(exc)) from None
            self.entrants[msg.name, session.player_id] = session
            self._watch(msg.name, session)
            session.send(TournamentUpdate(ref=msg.ref, tournament=t.info()))
            self._dirty.add(msg.name)
        elif isinstance(msg, WatchTournament):
            t = self._get(msg.name)
            self._watch(msg.name, session)
            session.send(TournamentUpdate(ref=msg.ref, tournament=t.info()))
        elif isinstance(msg, StartTournament):
            t = self._get(msg.name)
            if t.host != session.player_id:
                raise TableError(ErrorCode.NOT_ALLOWED, "only the tournament's host may start it")
            try:
                t.start()
            except ValueError as exc:
                code = (
                    ErrorCode.NOT_ENOUGH_PLAYERS if "needs" in str(exc) else ErrorCode.NOT_ALLOWED
                )
                raise TableError(code, str(exc)) from None
            log.info("tournament %s started with %d entrants", msg.name, len(t.entrants))
            session.send(TournamentUpdate(ref=msg.ref, tournament=t.info()))
            self._dirty.add(msg.name)
        else:
            return False
        return True

    def _create(self, session: Session, msg: CreateTournament) -> None:
        settings = msg.settings
        t = self.check_new(session, msg)
        finished = [n for n, u in self.tournaments.items() if u.status is TournamentStatus.FINISHED]
        for old in finished[: max(0, len(finished) + 1 - KEPT_FINISHED)]:
            del self.tournaments[old]  # the oldest results go first
            self.watchers.pop(old, None)
            for key in [k for k in self.entrants if k[0] == old]:
                del self.entrants[key]
                self.away.pop(key, None)
        t.address = session.address
        self.tournaments[settings.name] = t
        self.changed = True
        self._watch(settings.name, session)
        log.info("tournament %s created by %s", settings.name, session.player_id)
        session.send(TournamentUpdate(ref=msg.ref, tournament=t.info()))

    def check_new(self, session: Session, msg: CreateTournament) -> Tournament:
        """The tournament CREATE_TOURNAMENT asks for, not yet added (TableError: why not)."""
        settings = msg.settings
        t = Tournament(settings, session.player_id)
        check_settings(t.table_settings())  # any installed game; BAD_SETTINGS for no game
        if not _NAME.match(settings.name):
            raise TableError(
                ErrorCode.BAD_SETTINGS, "a tournament name is letters, digits, space . _ -"
            )
        if settings.name in self.tournaments:
            raise TableError(
                ErrorCode.BAD_SETTINGS, f"a tournament {settings.name!r} exists already"
            )
        unfinished = [
            u for u in self.tournaments.values() if u.status is not TournamentStatus.FINISHED
        ]
        cap = self.hub.config.tournaments_per_address
        if sum(u.address == session.address for u in unfinished) >= cap:
            raise TableError(
                ErrorCode.LIMIT_REACHED,
                f"players from your address run {cap} tournaments already (the server's"
                " --tournaments-per-address)",
            )
        if len(unfinished) >= MAX_TOURNAMENTS:
            raise TableError(ErrorCode.LIMIT_REACHED, "too many tournaments on this server")
        return t

    def _get(self, name: str) -> Tournament:
        t = self.tournaments.get(name)
        if t is None:
            raise TableError(ErrorCode.NO_SUCH_TABLE, f"no tournament {name!r}")
        return t

    def _watch(self, name: str, session: Session) -> None:
        self.watchers.setdefault(name, {})[session] = None

    def gone(self, session: Session) -> None:
        """A session ended: it watches nothing any more. (As an entrant it stays: a bot plays its
        games, see `_schedule`.)"""
        for watchers in self.watchers.values():
            watchers.pop(session, None)

    # -- games ----------------------------------------------------------------------------------

    def game_over(self, table: Table) -> None:
        """A tournament table's game ended: record it; close the table at the next flush."""
        visiting = self.visiting.pop(table.table_id, None)
        if visiting is not None:  # another node's tournament: it reads the result from the record
            self.hub.send_home(table, visiting)
            self._finished.append(table)
            return
        t = self.tournaments.get(table.tournament or "")
        game = table.game
        if t is None or game is None:
            return
        t.record(table.table_id, game.scores()[: game.players], game.places())
        self._finished.append(table)
        self._dirty.add(t.settings.name)

    def placed_over(self, name: str, table_id: str, result: list[tuple[int, int]]) -> None:
        """A game placed on another node ended with `result` (each seat's score and place):
        record it; entrants not back by now are gone (bots play their next games)."""
        t = self.tournaments.get(name)
        seating = t.running.get(table_id) if t is not None else None
        if t is None or seating is None or len(result) != len(seating):
            return
        t.record(table_id, tuple(s for s, _ in result), tuple(p for _, p in result))
        for pid in seating:
            if self.away.get((name, pid)) == table_id:
                del self.away[name, pid]
        self._dirty.add(name)

    def returned(self, name: str, session: Session) -> None:
        """An entrant of `name` logged in here with a ticket home (back from a game on another
        node, or sent here to ask about it): the same entrant, on this session now."""
        if (name, session.player_id) not in self.entrants:
            return
        self.entrants[name, session.player_id] = session
        self.away.pop((name, session.player_id), None)
        self._watch(name, session)
        self._dirty.add(name)

    @property
    def pending(self) -> bool:
        """`flush` has something to do."""
        return bool(self._finished or self._dirty)

    def flush(self, now: float) -> None:
        """Close finished tables, seat the games that can start, publish what changed."""
        for table in self._finished:
            for session in table.people():  # its spectators too: the table is gone
                if isinstance(session, Session) and session.table is table:
                    session.table = session.seat = None
                    session.send(TableLeft(table_id=table.table_id, reason="tournament game over"))
            self.hub.tables.pop(table.table_id, None)
        self._finished.clear()
        for name in list(self._dirty):
            self._schedule(self.tournaments[name], now)
        self.changed |= bool(self._dirty)
        for name in self._dirty:
            update = TournamentUpdate(tournament=self.tournaments[name].info())
            for watcher in self.watchers.get(name, []):
                if self.hub.sessions.get(watcher.token_hash) is watcher:
                    watcher.send(update)
        self._dirty.clear()

    def _schedule(self, t: Tournament, now: float) -> None:
        name = t.settings.name
        free = {
            pid
            for (tn, pid), session in self.entrants.items()
            if tn == name and session.table is None and (tn, pid) not in self.away
        }
        for seating in t.next_games(free):
            placed = self.hub.place_game(t, seating)
            if placed is not None:  # on another node (`server.tournament_spread`)
                t.running[placed] = seating
                self.away.update(((name, pid), placed) for pid in seating)
                continue
            table = self.hub.open_table(t.table_settings(), None)
            table.tournament = name
            t.running[table.table_id] = seating
            self._seat(t, table, seating, now)

    def _seat(self, t: Tournament, table: Table, seating: tuple[str, ...], now: float) -> None:
        """Seat the game `seating` of `t` at `table` here and start it."""
        name = t.settings.name
        for seat, pid in enumerate(seating):
            session = self.entrants[name, pid]
            if self.hub.sessions.get(session.token_hash) is session:
                table.sit(session, seat)
                session.table, session.seat = table, seat
                session.send(TableJoined(table=table.info(), seat=seat))
            else:  # the entrant's session is gone: a bot plays its games for it
                table.add_bot("default", seat)
                table.seats[seat].player_id = pid
        log.info("tournament %s: game %d at table %s", name, t.games_started, table.table_id)
        self.hub.seat_tokens(table)
        table.start(now)
        self.hub.table_changed(table)

    def taken_back(self, name: str, table: Table, now: float) -> None:
        """A game placed on another node is played here after all, at `table` (its id): no node
        made it in time (`server.tournament_spread`). Its entrants are not away any more; each
        is seated as for a game of this node (a bot for one whose session is gone)."""
        t = self.tournaments.get(name)
        seating = t.running.get(table.table_id) if t is not None else None
        if t is None or seating is None:
            return
        for pid in seating:
            if self.away.get((name, pid)) == table.table_id:
                del self.away[name, pid]
        table.tournament = name
        self._seat(t, table, seating, now)
        self._dirty.add(name)

    def adopted(self, table: Table) -> None:
        """A table restored here (taken over from a dead node, or after a restart) that says it
        plays a tournament's game: one placed by another node's tournament, or by this node's
        on a node that died, is played to its end here and its entrants sent home, as on the
        node it was placed on."""
        name = table.tournament
        if name is None:
            return
        if name in self.tournaments and table.table_id not in self.away.values():
            return  # a game of this node's, played here
        self.visiting[table.table_id] = name
