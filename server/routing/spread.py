"""A tournament's games spread over a cluster's nodes (protocol 2.4, capability
``tournament_redirect``), sans-IO like `server.routing.redirect`.

- Home (the node that runs the tournament): where its desk would seat a game and another node
  is clearly less loaded (`Cluster.least_loaded`), it makes up the table's id and sends each
  entrant an unasked REDIRECT there with a ticket bound to that node and table, carrying the
  game's intent (`tickets.Game`: the tournament, the home node, the table's settings, who sits
  where; signed, so nothing else can ask a node for such a table, and a node of the version
  before refuses it). The game counts as running, its entrants as away (busy, not gone). Home
  learns its result from its stored record (`Cluster.game_result_when`, by the table's id: told
  by a NOTIFY from the node that stores it), waits a lease at most for its entrants to come
  back, and goes on.
- Target (the node the game was placed on): the first entrant to arrive makes the table from the
  intent; each is seated in its planned seat once the node holds the table (`claim_game`,
  below); the game starts when every seat is taken. Seats still empty after a lease
  (`Cluster.arrivals`) get the default bot under the entrant's id, as at home for a gone
  entrant. At GAME_OVER each entrant is sent home: an unasked REDIRECT with a ticket to the
  tournament's home node, where the desk takes it back as the same entrant.

When things go wrong:

- Nobody makes the table (the target died before anyone arrived, no entrant followed): a lease
  after placing it (by the database's clock), with no lease and no record for its table, home
  takes the game back and plays it as its own, seating the entrants connected to it (a bot for
  the others). Which node plays it is settled by one conditional row, the table's lease
  (`Cluster.claim_game`): the target claims it before seating an arrival, home before taking
  the game back, and of the two the first to insert it has it; the other sends its arrival
  home, or goes on waiting for the record. Each holds the table (empty) while it asks, so its
  own renewal neither gives the new lease up nor keeps one it lost.
- The tickets cannot be recorded: nobody was sent, so the game is played at home at once.
- The target dies mid-game: the node that takes its table over learns from the saved state
  that it plays a tournament's game (`TournamentDesk.adopted`), and sends its entrants home at
  its end, as the target would have.

Only games whose every entrant is connected with a client that follows such redirects are
placed elsewhere; any other game is played at home, as before.
"""

from __future__ import annotations

import logging
import secrets
from typing import Protocol

from sushigo.protocol import Redirect, TableJoined
from sushigo.protocol.versions import REDIRECT_VERSION
from sushigo.server.sessions.session import Session
from sushigo.server.storage.contract import StorageError
from sushigo.server.tables.table import Table
from sushigo.server.tournaments.tournament import Tournament

from . import tickets
from .redirect import TOURNAMENT_REDIRECT, RedirectHost

__all__ = ["Spread", "SpreadHost", "await_result", "let_go", "send_on"]

log = logging.getLogger("sushigo.server")

HOME_TRIES = 60
"""Times an entrant on its way home looks for its tournament's node (one `Cluster.home_pause`
apart): a minute, past the lease in which a live node takes over a dead node's tournaments."""


class SpreadHost(RedirectHost, Protocol):
    """What spreading a tournament's games needs of the server (the hub)."""

    def table_changed(self, table: Table) -> None:
        """Tell the table's people what it looks like now."""

    def table_opened(self, table: Table) -> None:
        """A new table: leased to this node by the commit of its first writes."""


def _follows(session: Session) -> bool:
    """The session is connected with a client that follows a tournament's REDIRECT."""
    proto = session.conn  # its connection's protocol state: what the client announced
    return (
        session.attached
        and proto.version is not None
        and proto.version >= REDIRECT_VERSION
        and TOURNAMENT_REDIRECT in proto.capabilities
    )


def await_result(
    hub: SpreadHost, name: str, table_id: str, seating: tuple[str, ...], deadline: float
) -> None:
    """Learn the result of the game placed at `table_id` (once its entrants are back, or a
    lease on), or, when no node made its table by `deadline`, take it back."""
    cluster = hub.cluster
    assert cluster is not None
    away = hub.desk.away

    def back() -> bool:
        return all(away.get((name, pid)) != table_id for pid in seating)

    def over(result: list[tuple[int, int]] | None, now: float) -> None:
        if result is not None:
            hub.desk.placed_over(name, table_id, result)
        else:
            _take_back(hub, name, table_id, seating, deadline)

    hub.ask(
        lambda: cluster.game_result_when(table_id, deadline, back),
        over,
        conn=None,
        ref=None,
        what="a tournament game's result",
    )


def _take_back(
    hub: SpreadHost, name: str, table_id: str, seating: tuple[str, ...], deadline: float
) -> None:
    """No node made the placed game's table in time (its node died, or nobody arrived): play
    it here if this node can claim it (`Cluster.claim_game`), held here empty while it asks;
    if the node it was placed on made it after all, wait for its result again."""
    cluster = hub.cluster
    assert cluster is not None
    t = hub.desk.tournaments.get(name)
    if t is None or table_id not in t.running:
        return
    # Made here already? Only by an entrant arriving with its ticket: this node, which the game
    # was placed on, runs its tournament now (it took it over). That table is claimed too, and
    # played here: the arrivals stay in their seats, the others are seated (`taken_back`).
    table = hub.tables.get(table_id)
    if table is None:
        table = hub.lobby.open_placed(t.table_settings(), table_id)
    table.tournament = name

    def claimed(won: bool, now: float) -> None:
        if won:
            log.warning(
                "tournament %s: no node made its game's table %s within a lease: played here",
                name,
                table_id,
            )
            _play_here(hub, name, table_id, now, leased=False)
            return
        kept = hub.tables.get(table_id) is table and not table.playing
        if kept and all(seat.empty for seat in table.seating.seats):
            del hub.tables[table_id]
        await_result(hub, name, table_id, seating, deadline)

    hub.ask(
        lambda: cluster.claim_game(table_id),
        claimed,
        conn=None,
        ref=None,
        what="a tournament game's table",
    )


def _play_here(hub: SpreadHost, name: str, table_id: str, now: float, *, leased: bool) -> None:
    """Play the game placed at `table_id` here after all, at a table of that id (held already,
    if this node claimed it; else `leased` by its first commit, as any table of this node)."""
    t = hub.desk.tournaments.get(name)
    if t is None or table_id not in t.running:
        hub.tables.pop(table_id, None)
        return
    table = hub.tables.get(table_id)
    if table is None:  # (a claimed table was dropped meanwhile: its lease is this node's)
        table = hub.lobby.open_placed(t.table_settings(), table_id)
    if leased:
        hub.table_opened(table)
    hub.desk.taken_back(name, table, now)


def _claimed(
    hub: SpreadHost,
    session: Session,
    game: tickets.Game,
    table_id: str,
    won: bool,
    now: float,
) -> None:
    """The answer to an arrival's claim of its game's table: seat it, or send it home."""
    table = hub.tables.get(table_id)
    here = hub.sessions.get(session.token_hash) is session
    if won and table is not None and session.table is table:
        return  # seated meanwhile: its tournament runs here, and took the game back (`_seat`)
    if won and table is not None and not table.playing:
        hub.desk.visiting[table_id] = game.tournament
        if here:
            seat = game.seating.index(session.player_id)
            table.sit(session, seat)
            session.table, session.seat = table, seat
            session.send(TableJoined(table=table.info(), seat=seat))
            _start(hub, table, now)
        return
    unclaimed = table is not None and table_id not in hub.desk.visiting and not table.playing
    if table is not None and unclaimed and all(seat.empty for seat in table.seating.seats):
        del hub.tables[table_id]  # never this node's: nothing of it was written
    why = "taken back by its home node" if not won else "begun without it"
    log.info(
        "tournament %s: game at table %s %s; %s is sent home",
        game.tournament,
        table_id,
        why,
        session.player_id,
    )
    if here:
        _back_home(hub, game.tournament, session)


def _back_home(hub: SpreadHost, name: str, session: Session) -> None:
    """Send an entrant that came for a placed game of tournament `name` home: an unasked
    REDIRECT there (`_home`); or, if this node runs the tournament now (it took it over), it is
    home already: the tournament's entrant on this session, in the lobby."""
    if name in hub.desk.tournaments:
        hub.desk.returned(name, session, entrant=True)
    else:
        _home(hub, name, [session], entrants={session.player_id})


def _start(hub: SpreadHost, table: Table, now: float) -> None:
    if table.seating.full and not table.playing:
        log.info("tournament %s: game at table %s starts", table.tournament, table.table_id)
        hub.lobby.seat_tokens(table)
        table.start(now)
    hub.table_changed(table)


class Spread:
    """A cluster's node's part in its tournaments' games across nodes: placing a game on a less
    loaded node, an entrant's arrival there, and sending entrants home or on (the hub holds one:
    `Hub.spread`)."""

    def __init__(self, hub: SpreadHost) -> None:
        self.hub = hub

    def place(self, t: Tournament, seating: tuple[str, ...]) -> str | None:
        """Place the game `seating` of `t` on another node if one is less loaded and every entrant
        can follow: its table's id there (the entrants are being sent); None: play it here."""
        hub = self.hub
        cluster = hub.cluster
        if cluster is None:
            return None
        name = t.settings.name
        sessions: list[Session] = []
        for pid in seating:
            session = hub.desk.entrants.get((name, pid))  # none: restored, not back yet
            if session is None or hub.sessions.get(session.token_hash) is not session:
                return None
            if session.table is not None or not _follows(session):
                return None
            sessions.append(session)
        target = cluster.least_loaded(len(hub.tables))
        if target is None:
            return None
        node, address = target
        table_id = secrets.token_hex(6)
        game = tickets.Game(name, cluster.node, t.table_settings(), seating)
        issued = [
            tickets.issue(hub.key, table_id, s.player_id, s.name, s.guest, node, game=game)
            for s in sessions
        ]

        async def job() -> float | None:
            try:
                return await cluster.placed(
                    table_id, [(i.ticket_id, i.player_id) for i, _ in issued]
                )
            except StorageError as exc:
                log.warning("tournament %s: %s", name, exc)
                return None

        def then(deadline: float | None, now: float) -> None:
            if deadline is None:  # nobody was sent a ticket, so nobody can make it there: here
                log.info("tournament %s: game at table %s played here after all", name, table_id)
                _play_here(hub, name, table_id, now, leased=True)
                return
            for session, (__, data) in zip(sessions, issued, strict=True):
                if hub.sessions.get(session.token_hash) is session:
                    session.send(Redirect(address=address, table_id=table_id, ticket=data))
            await_result(hub, name, table_id, seating, deadline)

        log.info("tournament %s: game at table %s placed on %s", name, table_id, node)
        hub.ask(job, then, conn=None, ref=None, what="a tournament game's tickets")
        return table_id

    def arrive(self, session: Session, ticket: tickets.Ticket, now: float) -> None:
        """An entrant logged in here with a placed game's ticket: once this node holds the game's
        table (`Cluster.claim_game`; the first to arrive makes it), seat it there, and start the
        game once every seat is taken. If the tournament's home node took the game back (nobody
        made it in time), or it began (or was played out) without this entrant, the entrant is sent
        home."""
        hub = self.hub
        game, cluster = ticket.game, hub.cluster
        assert game is not None and cluster is not None
        table = hub.tables.get(ticket.table_id)
        # Its game played without it: here as another node's (remembered), or as a game of this
        # node's own tournament (taken over), which counts it as running no more.
        t = hub.desk.tournaments.get(game.tournament)
        over = ticket.table_id in hub.desk.played or (
            t is not None and ticket.table_id not in t.running
        )
        if table is None and over:
            log.info(
                "tournament %s: game at table %s over; %s is sent home",
                game.tournament,
                ticket.table_id,
                session.player_id,
            )
            _back_home(hub, game.tournament, session)
            return
        if table is None:
            table = hub.lobby.open_placed(game.settings, ticket.table_id)
            table.tournament = game.tournament
            made = table

            def fill(_: None, now: float) -> None:
                if hub.tables.get(made.table_id) is not made or made.playing:
                    return
                if hub.desk.visiting.get(made.table_id) != game.tournament:
                    wait()  # no claim answered yet (the database slow): another lease
                    return
                for seat in made.seating.seats:
                    if seat.empty:
                        made.add_bot("default", seat.index)
                        seat.player_id = game.seating[seat.index]
                _start(hub, made, now)

            def wait() -> None:
                what = "a tournament game's entrants"
                hub.ask(cluster.arrivals, fill, conn=None, ref=None, what=what)

            wait()
        hub.ask(
            lambda: cluster.claim_game(ticket.table_id),
            lambda won, now: _claimed(hub, session, game, ticket.table_id, won, now),
            conn=None,
            ref=None,
            what="a tournament game's table",
        )

    def send_home(self, table: Table, name: str) -> None:
        """A placed game is over here: send its entrants home (an unasked REDIRECT with a ticket to
        the tournament's node), once the table has said goodbye; and its home node hears that
        its record is stored."""
        hub = self.hub
        if hub.cluster is not None:
            hub.cluster.recorded_soon(table.table_id)
        seated = [
            s for s in table.seating.people() if isinstance(s, Session) and s.seat is not None
        ]
        _home(hub, name, seated, entrants={s.player_id for s in seated})

    def send_on(self, name: str, session: Session, entrant: bool) -> None:
        """A player logged in here with a ticket to tournament `name` (its `entrant`, or not),
        which this node let go (another node runs it now), or an entrant of it came back: sent
        to that node, with a ticket that says the same."""
        send_on(self.hub, name, session, entrant)


def send_on(hub: SpreadHost, name: str, session: Session, entrant: bool) -> None:
    """Send a player of tournament `name` (its `entrant`, or not), which another node runs
    now, there, with a ticket that says the same (`Spread.send_on`)."""
    _home(hub, name, [session], entrants={session.player_id} if entrant else set())


def let_go(hub: SpreadHost, names: list[str]) -> None:
    """Tournaments of this node that another node runs now (it was away past its lease: they
    were taken over): dropped from the desk, so no game of theirs is seated here again, and
    their entrants and watchers here sent to their node. An entrant goes with a ticket that
    says so: its entry may be one this node took while away, written nowhere (the tournament's
    row was the other node's by then), which that node then takes (`TournamentDesk.returned`)."""
    for name in names:
        t = hub.desk.tournaments.get(name)
        entrants = set(t.entrants) if t is not None else set()
        _home(hub, name, hub.desk.taken(name), entrants=entrants)


def _home(
    hub: SpreadHost,
    name: str,
    sessions: list[Session],
    tries: int = HOME_TRIES,
    *,
    entrants: set[str],
) -> None:
    """Send these people of tournament `name` to its node: an unasked REDIRECT with a ticket
    there (saying whether each is one of the `entrants`, by player id), where the desk takes
    each back as the same entrant. While no live node runs it (its node restarting, or dead and
    not yet taken over: a node takes it within a lease) or the database cannot say, asked again
    every `Cluster.home_pause`, `tries` times at most, for those still here and at no table:
    left here, they would wait for a game that their tournament, back, plays without them (or
    for the news that it finished)."""
    cluster = hub.cluster
    if cluster is None:
        return
    people = [
        (
            s,
            tickets.issue(
                hub.key,
                name,
                s.player_id,
                s.name,
                s.guest,
                tournament=True,
                entrant=s.player_id in entrants,
            ),
        )
        for s in sessions
    ]

    async def job() -> str | bool | None:
        try:
            owner = await cluster.tournament_home(name)
            for _, (ticket, _) in people:
                await cluster.issue(ticket.ticket_id, name, ticket.player_id)
        except StorageError as exc:  # the database away: looked for again, as below
            level = logging.WARNING if tries == HOME_TRIES else logging.DEBUG  # once
            log.log(level, "tournament %s: its home cannot be read now: %s", name, exc)
            return False
        return owner.address if owner is not None and owner.alive else None

    def then(address: str | bool | None, now: float) -> None:
        if name in hub.desk.tournaments:
            # This node took the tournament over while we looked: they are home already. A
            # REDIRECT here would have each client leave its session for a new one, and the desk
            # may have seated that session at the tournament's next game meanwhile (`arrived`):
            # a seat nobody would play.
            for session, _ in people:
                if hub.sessions.get(session.token_hash) is session:
                    hub.desk.returned(name, session, entrant=session.player_id in entrants)
            return
        if not isinstance(address, str):  # None: no live node runs it; False: see `job`
            if tries <= 1:
                log.warning("tournament %s: its node is gone; its entrants stay here", name)
                return
            if address is None:
                log.info("tournament %s: no live node runs it yet; its entrants wait here", name)

            def again(_: None, now: float) -> None:
                # Those still here and in the lobby (one gone, or seated meanwhile, is not sent).
                left = [s for s in sessions if hub.sessions.get(s.token_hash) is s]
                if left := [s for s in left if s.table is None]:
                    _home(hub, name, left, tries - 1, entrants=entrants)

            hub.ask(cluster.home_pause, again, conn=None, ref=None, what="a tournament's home")
            return
        for session, (_, data) in people:
            if hub.sessions.get(session.token_hash) is session:
                session.send(Redirect(address=address, table_id=name, ticket=data))

    hub.ask(job, then, conn=None, ref=None, what="a tournament's home")
