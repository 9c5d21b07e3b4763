"""The tournament desk: tournament requests, and running their games at tables of their own.

The hub hands it every tournament message, tells it when a game ends (`game_over`), and calls
`flush` after each input so that finished games are wrapped up (their table closed, entrants back
in the lobby) only once everyone has received GAME_OVER, and new games are seated as soon as their
entrants are free.

Each tournament is stored when it changes (made, entered, started, a game seated or finished:
`Storage.save_tournament`, held with the writes of play, so a game's result and the standings it
moves are in one commit), and taken up again by `restore` after a restart, or on a cluster's node
from a dead node (`server.routing.tournaments.adopt`). Its entrants are known by player id: a
session of the same id (a resume, or a login as the same identity) is the entrant again
(`arrived`); an entrant with no session gets the default bot in its games, as one that left.

On a cluster's node what a change is told (the answer to the request that made it, the update to
its watchers) waits in `news` for the commit of its state: another node may hold the tournament's
row by then (this node away past its lease), and the write changes nothing
(`server.routing.tournaments.stored`).
"""

from __future__ import annotations

import logging
import re
from collections import deque
from dataclasses import dataclass
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
from sushigo.server.config import HubConfig
from sushigo.server.errors import TableError
from sushigo.server.sessions.session import Session
from sushigo.server.storage.contract import Storage
from sushigo.server.tables.games import check_settings
from sushigo.server.tables.index import Tables as TableIndex
from sushigo.server.tables.table import Table

from .store import dump, load
from .tournament import Tournament

log = logging.getLogger("sushigo.server")

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ._-]*\Z")
MAX_TOURNAMENTS = 100
"""Tournaments registering or running at once."""
KEPT_FINISHED = 100
"""Finished tournaments kept for LIST_TOURNAMENTS (the oldest are dropped past it)."""
PLAYED_KEPT = 4096
"""Placed games played here that are remembered (`TournamentDesk.played`): far more than end
within the few seconds their records take to be stored."""
RESTORE_GRACE = 10.0
"""Seconds a restored tournament waits for its entrants in the lobby to come back (their clients
retry within seconds of a restart) before a game of theirs starts with the default bot in their
seat."""


@dataclass(frozen=True, slots=True)
class News:
    """What a change of a tournament on a cluster's node tells one session, once its state is
    stored: the answer to its request (`asked`) or an update to a watcher."""

    mark: int
    """The storage's `mark` once the tournament's state was saved: the first commit that makes
    this many writes durable has it (or left it out)."""
    name: str
    session: Session
    update: TournamentUpdate
    asked: Message | None
    """The request it answers (None: an update to a watcher)."""
    entrant: bool
    """The session's player is the tournament's entrant (as the change left it)."""


class Lease(Protocol):
    """A cluster's node's lease, as the desk needs it (`Cluster.fresh`)."""

    def fresh(self) -> bool:
        """The node's lease surely holds now."""


class Tables(Protocol):
    """Where the desk's tables are opened (the lobby)."""

    def open_table(self, settings: TableSettings, host: str | None) -> Table:
        """A new table."""

    def seat_tokens(self, table: Table) -> None:
        """Store the seated players' resume tokens."""


class Spreader(Protocol):
    """A cluster's node's part in tournaments' games across nodes."""

    def place(self, t: Tournament, seating: tuple[str, ...]) -> str | None:
        """The id of the table on another node the game is placed at (its entrants are sent
        there); None: play it here."""

    def send_home(self, table: Table, name: str) -> None:
        """A game placed here by tournament `name`'s node is over: send its entrants home."""

    def send_on(self, name: str, session: Session, entrant: bool) -> None:
        """A player came back to tournament `name` (its `entrant`, or not), which another node
        runs now: send it there."""


class DeskHost(Protocol):
    """What the desk needs of the server (the hub)."""

    @property
    def cluster(self) -> Lease | None:
        """A cluster's node (None: a lone server)."""

    tables: TableIndex
    sessions: dict[bytes, Session]
    config: HubConfig
    storage: Storage

    def at(self, when: float, kind: str, target: object) -> None:
        """Call back at `when` (`kind` "tournaments": `TournamentDesk.wake` with a name)."""

    @property
    def lobby(self) -> Tables:
        """Where tables are opened (`server.lobby.lobby.Lobby`)."""

    @property
    def spread(self) -> Spreader:
        """A cluster's node's part in games across nodes (`server.routing.spread.Spread`)."""

    def table_changed(self, table: Table) -> None:
        """Tell the table's people what it looks like now."""


class TournamentDesk:
    """Every tournament of one server."""

    def __init__(self, hub: DeskHost) -> None:
        self.hub = hub
        self.tournaments: dict[str, Tournament] = {}
        self.entrants: dict[tuple[str, str], Session] = {}
        """(tournament, player id) -> the entrant's session (none: a restored entrant not back)."""
        self.by_player: dict[str, dict[str, None]] = {}
        """Player id -> the tournaments it entered or hosts, for `arrived`."""
        self.grace: dict[str, float] = {}
        """Restored tournaments: until when their entrants not back yet are waited for."""
        self.watchers: dict[str, dict[Session, None]] = {}
        """Per tournament, the sessions told of its changes (in order; ended ones removed)."""
        self.away: dict[tuple[str, str], str] = {}
        """(tournament, player id) -> the table on another node where the entrant plays a game
        of it (`server.routing.spread`): busy, not gone, until it is back."""
        self.visiting: dict[str, str] = {}
        """Table id -> the tournament (another node's) whose game it plays here."""
        self.played: dict[str, None] = {}
        """Tables of other nodes' tournaments whose game ended here (the newest `PLAYED_KEPT`):
        an entrant late for one is sent home, not seated at a new table of that id (its
        record may not be stored yet, so the database would let this node claim it again)."""
        self._finished: list[Table] = []
        self._dirty: set[str] = set()
        self.let_go: dict[str, None] = {}
        """Tournaments this node ran and another node runs now (`taken`): an entrant's ticket
        to one is taken, and the entrant sent there."""
        self._held: set[str] = set()
        """Tournaments whose games were not seated while the node's lease was in doubt."""
        self.changed = False
        """A tournament was made or changed since a cluster's node last published them
        (`server.routing.tournaments`)."""
        self.news: deque[News] = deque()
        """A cluster's node: what changes tell, each waiting for the commit of its state (in
        the order of `News.mark`)."""
        self._unsaved: list[tuple[str, Session, TournamentUpdate, Message | None]] = []
        """What changes tell, before `flush` has saved their states."""

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
            self.by_player.setdefault(session.player_id, {})[msg.name] = None
            self._watch(msg.name, session)
            self._tell(msg.name, session, TournamentUpdate(ref=msg.ref, tournament=t.info()), msg)
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
            self._tell(msg.name, session, TournamentUpdate(ref=msg.ref, tournament=t.info()), msg)
            self._dirty.add(msg.name)
        else:
            return False
        return True

    def _create(self, session: Session, msg: CreateTournament) -> None:
        settings = msg.settings
        t = self.check_new(session, msg)
        finished = [n for n, u in self.tournaments.items() if u.status is TournamentStatus.FINISHED]
        for old in finished[: max(0, len(finished) + 1 - KEPT_FINISHED)]:
            self._drop(old)  # the oldest results go first
        t.address = session.address
        self.tournaments[settings.name] = t
        self.by_player.setdefault(session.player_id, {})[settings.name] = None
        self.hub.storage.save_tournament(settings.name, dump(t))
        self.changed = True
        self._watch(settings.name, session)
        log.info("tournament %s created by %s", settings.name, session.player_id)
        self._tell(settings.name, session, TournamentUpdate(ref=msg.ref, tournament=t.info()), msg)

    def _tell(
        self, name: str, session: Session, update: TournamentUpdate, asked: Message | None = None
    ) -> None:
        """Tell `session` of a change of tournament `name` (answering `asked`, when given): at
        once on a lone server; on a cluster's node once its state is stored (`news`)."""
        if self.hub.cluster is None:
            session.send(update)
        else:
            self._unsaved.append((name, session, update, asked))

    def told(self, durable: int) -> list[News]:
        """The news whose states are in the commits up to `durable` writes (taken out)."""
        news = self.news
        done = []
        while news and news[0].mark <= durable:
            done.append(news.popleft())
        return done

    def _forget(self, name: str, t: Tournament) -> None:
        """Forget who plays `t` (named `name`) here: its players, entrants and away ones."""
        for pid in [*t.entrants, t.host]:
            mine = self.by_player.get(pid or "")
            if mine is not None:
                mine.pop(name, None)
                if not mine:
                    del self.by_player[pid or ""]
        for key in [k for k in self.entrants if k[0] == name]:
            del self.entrants[key]
        for key in [k for k in self.away if k[0] == name]:
            del self.away[key]

    def _drop(self, name: str) -> None:
        t = self.tournaments.pop(name)
        self.watchers.pop(name, None)
        self.grace.pop(name, None)
        self._dirty.discard(name)
        self._forget(name, t)
        self.hub.storage.delete_tournament(name)

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
            self.played[table.table_id] = None
            if len(self.played) > PLAYED_KEPT:
                del self.played[next(iter(self.played))]
            self.hub.spread.send_home(table, visiting)
            self._finished.append(table)
            return
        t = self.tournaments.get(table.tournament or "")
        game = table.game
        if t is None or game is None:
            return
        if table.table_id in t.running:  # (not already learnt from its record: `placed_over`)
            t.record(table.table_id, game.scores()[: game.players], game.places())
            # In the commit that stores the game's record: the standings never miss a game
            # stored, nor count one twice, whenever the server dies.
            self.hub.storage.save_tournament(t.settings.name, dump(t))
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

    def returned(self, name: str, session: Session, entrant: bool = False) -> None:
        """A player logged in here with a ticket home to `name` (an entrant back from a game on
        another node, one sent on by a node that let the tournament go, or a player sent here to
        ask about it): an entrant is the same entrant, on this session now. One whose ticket
        says it is an `entrant` (of the node that issued it) and whom this node does not count
        is entered now, if the tournament still takes entrants: that node took its entry while
        away past its lease, and wrote it nowhere, this node having taken the tournament over
        meanwhile. Anyone else watches the tournament."""
        if name in self.let_go and name not in self.tournaments:  # another node runs it now
            self.hub.spread.send_on(name, session, entrant)
            return
        t = self.tournaments.get(name)
        pid = session.player_id
        if t is None:
            return
        if pid not in t.entrants and entrant:
            try:
                t.register(pid, session.name)
            except ValueError as exc:
                log.warning("tournament %s: %s is not entered here: %s", name, pid, exc)
            else:
                log.warning(
                    "tournament %s: %s entered, by the ticket of a node that let it go", name, pid
                )
                self.by_player.setdefault(pid, {})[name] = None
        self._watch(name, session)
        if pid not in t.entrants:
            session.send(TournamentUpdate(tournament=t.info()))
            return
        self.entrants[name, pid] = session
        self.away.pop((name, pid), None)
        self._dirty.add(name)

    @property
    def pending(self) -> bool:
        """`flush` has something to do."""
        return bool(self._finished or self._dirty or self._unsaved)

    def flush(self, now: float) -> None:
        """Close finished tables, seat the games that can start, publish what changed."""
        for table in self._finished:
            for session in table.seating.people():  # its spectators too: the table is gone
                if isinstance(session, Session) and session.table is table:
                    session.table = session.seat = None
                    session.send(TableLeft(table_id=table.table_id, reason="tournament game over"))
            self.hub.tables.pop(table.table_id, None)
        self._finished.clear()
        for name in list(self._dirty):
            t = self.tournaments[name]
            self._schedule(t, now)
            self.hub.storage.save_tournament(name, dump(t))
        self.changed |= bool(self._dirty)
        for name in self._dirty:
            update = TournamentUpdate(tournament=self.tournaments[name].info())
            for watcher in self.watchers.get(name, []):
                if self.hub.sessions.get(watcher.token_hash) is watcher:
                    self._tell(name, watcher, update)
        self._dirty.clear()
        if self._unsaved:
            mark = self.hub.storage.mark  # every state saved so far, theirs among them
            for name, session, update, asked in self._unsaved:
                held = self.tournaments.get(name)
                entrant = held is not None and session.player_id in held.entrants
                self.news.append(News(mark, name, session, update, asked, entrant))
            self._unsaved.clear()

    def _schedule(self, t: Tournament, now: float) -> None:
        name = t.settings.name
        if t.status is not TournamentStatus.RUNNING:
            return
        cluster = self.hub.cluster
        if cluster is not None and not cluster.fresh():
            # Away past its lease (paused, cut off)? Its tournament may run on another node
            # now: nothing is seated until the next renewal has said (`renewed`).
            self._held.add(name)
            return
        busy = {pid for seating in t.running.values() for pid in seating}
        waiting = now < self.grace.get(name, now)
        free = set()
        for pid in t.entrants:
            session = self.entrants.get((name, pid))
            if pid in busy or (name, pid) in self.away:
                continue
            if session is None or self.hub.sessions.get(session.token_hash) is not session:
                if waiting:  # restored: its client may be on its way back
                    continue
            elif session.table is not None:
                continue
            free.add(pid)
        for seating in t.next_games(free):
            known = all((name, pid) in self.entrants for pid in seating)
            placed = self.hub.spread.place(t, seating) if known else None
            if placed is not None:  # on another node (`server.routing.spread`)
                t.running[placed] = seating
                self.away.update(((name, pid), placed) for pid in seating)
                continue
            table = self.hub.lobby.open_table(t.table_settings(), None)
            table.tournament = name
            t.running[table.table_id] = seating
            self._seat(t, table, seating, now)

    def _seat(self, t: Tournament, table: Table, seating: tuple[str, ...], now: float) -> None:
        """Seat the game `seating` of `t` at `table` here and start it."""
        name = t.settings.name
        for seat, pid in enumerate(seating):
            session = self.entrants.get((name, pid))
            if table.seating.seats[seat].player_id == pid:
                # Seated already: a placed game taken back here by the node it was placed on,
                # as the entrant arrived with its ticket (`tournament_spread`).
                continue
            if session is not None and self._live(session) and session.table is None:
                table.sit(session, seat)
                session.table, session.seat = table, seat
                session.send(TableJoined(table=table.info(), seat=seat))
            else:  # the entrant's session is gone: a bot plays its games for it
                table.add_bot("default", seat)
                table.seating.seats[seat].player_id = pid
        log.info("tournament %s: game %d at table %s", name, t.games_started, table.table_id)
        self.hub.lobby.seat_tokens(table)
        table.start(now)
        self.hub.table_changed(table)

    def taken_back(self, name: str, table: Table, now: float) -> None:
        """A game placed on another node is played here after all, at `table` (its id): no node
        made it in time (`server.routing.spread`). Its entrants are not away any more; each
        is seated as for a game of this node (a bot for one whose session is gone)."""
        t = self.tournaments.get(name)
        seating = t.running.get(table.table_id) if t is not None else None
        if t is None or seating is None:
            return
        for pid in seating:
            if self.away.get((name, pid)) == table.table_id:
                del self.away[name, pid]
        table.tournament = name
        # Its game is this node's tournament's own: recorded here at its end. (An entrant that
        # arrived here with its ticket, on the node the game was placed on and which runs the
        # tournament now, made it another's, to be sent home from.)
        self.visiting.pop(table.table_id, None)
        if not table.playing:  # (begun already: its arrivals filled it, a bot for the others)
            self._seat(t, table, seating, now)
        self._dirty.add(name)

    def playing_elsewhere(self, name: str, table_id: str) -> None:
        """A game of `name` this node counts as running is played at `table_id` on another node
        (its table handed or taken over as this node stopped, restarted or lost it): its
        entrants are away at it, as at a placed game, not gone. They are seated again once back
        (sent home at its end), or, not back a lease after its end, played for."""
        t = self.tournaments.get(name)
        seating = t.running.get(table_id) if t is not None else None
        for pid in seating or ():
            self.away[name, pid] = table_id

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

    def taken(self, name: str) -> list[Session]:
        """Another node runs tournament `name` now (this node was away past its lease, and it
        was taken over): forget it, unwritten (its row is the other node's), seat no game of it
        again. Its games still in play here are played to their end, their entrants sent to
        its node then (as for a game another node placed here). The sessions to send there
        now: its entrants and watchers connected here and at no table, but for those whose
        request about it waits for its commit (`news`: they are answered then)."""
        t = self.tournaments.pop(name, None)
        if t is None:
            return []
        log.warning("tournament %s is run by another node now: let go here", name)
        self.let_go[name] = None
        for table_id in t.running:
            table = self.hub.tables.get(table_id)
            if table is not None and table.playing:
                self.visiting[table_id] = name
        people = {s: None for (n, _), s in self.entrants.items() if n == name}
        people.update(self.watchers.pop(name, {}))
        self.grace.pop(name, None)
        self._dirty.discard(name)
        self._forget(name, t)
        self.changed = True
        asking = {n.session for n in self.news if n.name == name and n.asked is not None}
        return [s for s in people if self._live(s) and s.table is None and s not in asking]

    def renewed(self, now: float) -> None:
        """The node's lease was renewed (and the tournaments taken meanwhile let go): seat the
        games held back while it was in doubt."""
        self._dirty |= {name for name in self._held if name in self.tournaments}
        self._held.clear()
        if self.pending:
            self.flush(now)

    # -- after a restart, or taken over from a dead node -----------------------------------------

    def restore(self, rows: list[tuple[str, bytes]], now: float) -> list[tuple[str, str]]:
        """Take up stored tournaments (`rows`: name, state), after the tables they play at were
        restored; the games they count as running whose table is not here, as (tournament, table
        id), for the caller to settle (`lost_game`, or its record on a cluster). Their entrants
        connected here already are theirs again; the others are waited for `RESTORE_GRACE`."""
        missing: list[tuple[str, str]] = []
        for name, blob in rows:
            if name in self.tournaments:
                continue
            try:
                t = load(blob)
            except ValueError as exc:
                log.error("tournament %s could not be restored: %s", name, exc)
                continue
            self.tournaments[name] = t
            for pid in [*t.entrants, t.host]:
                if pid is not None:
                    self.by_player.setdefault(pid, {})[name] = None
            for table_id in t.running:
                table = self.hub.tables.get(table_id)
                if table is not None:
                    table.tournament = name
                    self.visiting.pop(table_id, None)  # its game is this node's own now
                if table is None or not table.playing:
                    missing.append((name, table_id))
                    if table is not None:  # its game ended here before it was taken over
                        self._finished.append(table)
            if t.status is TournamentStatus.RUNNING:
                self.grace[name] = now + RESTORE_GRACE
                self.hub.at(now + RESTORE_GRACE, "tournaments", name)
            self._dirty.add(name)
            log.info(
                "tournament %s restored: %s, %d/%d games done, %d running",
                name,
                t.status,
                t.games_done,
                t.settings.games,
                len(t.running),
            )
        if rows:
            self.changed = True
            for session in list(self.hub.sessions.values()):
                if session.player_id in self.by_player:
                    self.arrived(session)
        return missing

    def restored(self, table: Table) -> None:
        """A table restored after its tournament was: its game is the tournament's."""
        for name, t in self.tournaments.items():
            if table.table_id in t.running:
                table.tournament = name
                return

    def lost_game(self, name: str, table_id: str) -> None:
        """A game `name` counts as running whose table is gone without a record (it could not
        be restored): played again."""
        t = self.tournaments.get(name)
        if t is not None and t.running.pop(table_id, None) is not None:
            log.error(
                "tournament %s: the game at table %s is lost; it is played again", name, table_id
            )
            t.games_started -= 1
            self._dirty.add(name)

    def wake(self, name: str) -> None:
        """A restored tournament has waited long enough for its entrants: seat who is free."""
        if name in self.tournaments and self.grace.pop(name, None) is not None:
            log.info(
                "tournament %s: done waiting for its entrants; bots play for those not back", name
            )
            self._dirty.add(name)

    def arrived(self, session: Session) -> None:
        """A session logged in or resumed: if it is an entrant (or the host) of a tournament here
        whose session is gone (a restart, its node's death, its connection's end), it is that
        entrant again, and watches the tournament."""
        names = self.by_player.get(session.player_id)
        if not names:
            return
        pid = session.player_id
        for name in names:
            t = self.tournaments.get(name)
            if t is None:
                continue
            if pid in t.entrants:
                held = self.entrants.get((name, pid))
                if (
                    held is not None
                    and self._live(held)
                    and (held.attached or not session.attached)
                ):
                    continue  # the entrant is here already (on another connection)
                # (A session away gives way to one connected: its process may have ended and a
                # new one logged in afresh, which alone would hear of its next games.)
                self.entrants[name, pid] = session
            elif any(w.player_id == pid and self._live(w) for w in self.watchers.get(name, ())):
                continue  # the host, watching already
            self._watch(name, session)
            self._dirty.add(name)  # it is told where the tournament is, and may be seated

    def _live(self, session: Session) -> bool:
        return self.hub.sessions.get(session.token_hash) is session
