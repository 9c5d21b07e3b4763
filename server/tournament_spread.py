"""A tournament's games spread over a cluster's nodes (protocol 2.4, capability
``tournament_redirect``), sans-IO like `server.redirect`.

- Home (the node that runs the tournament): where its desk would seat a game and another node
  is clearly less loaded (`Cluster.least_loaded`), it makes up the table's id and sends each
  entrant an unasked REDIRECT there with a ticket bound to that node and table, carrying the
  game's intent (`tickets.Game`: the tournament, the home node, the table's settings, who sits
  where; signed, so nothing else can ask a node for such a table, and a node of the version
  before refuses it). The game counts as running, its entrants as away (busy, not gone). Home
  learns its result from its stored record (`Cluster.game_result_when`, by the table's id),
  waits a lease at most for its entrants to come back, and goes on.
- Target (the node the game was placed on): the first entrant to arrive makes the table from the
  intent; each sits in its planned seat; the game starts when every seat is taken. Seats still
  empty after a lease (`Cluster.arrivals`) get the default bot under the entrant's id, as at
  home for a gone entrant. At GAME_OVER each entrant is sent home: an unasked REDIRECT with a
  ticket to the tournament's home node, where the desk takes it back as the same entrant.

Only games whose every entrant is connected with a client that follows such redirects are
placed elsewhere; any other game is played at home, as before.
"""

from __future__ import annotations

import logging
import secrets
from typing import Protocol

from sushigo.protocol import ErrorCode, Redirect, TableJoined

from . import tickets
from .errors import TableError
from .redirect import REDIRECT_VERSION, RedirectHost
from .session import Session
from .table import Table
from .tournament import Tournament
from .tournament_cluster import TOURNAMENT_REDIRECT

__all__ = ["arrive", "place", "send_home"]

log = logging.getLogger("sushigo.server")


class SpreadHost(RedirectHost, Protocol):
    """What spreading a tournament's games needs of the server (the hub)."""

    def seat_tokens(self, table: Table) -> None:
        """Store the seated players' resume tokens."""

    def table_changed(self, table: Table) -> None:
        """Tell the table's people what it looks like now."""


def _follows(session: Session) -> bool:
    """The session is connected with a client that follows a tournament's REDIRECT."""
    proto = session.conn  # its connection's protocol state: what the client announced
    return (
        session.attached
        and proto.version is not None
        and proto.version >= REDIRECT_VERSION
        and TOURNAMENT_REDIRECT in proto.capabilities
    )


def place(hub: SpreadHost, t: Tournament, seating: tuple[str, ...]) -> str | None:
    """Place the game `seating` of `t` on another node if one is less loaded and every entrant
    can follow: its table's id there (the entrants are being sent); None: play it here."""
    cluster = hub.cluster
    if cluster is None:
        return None
    name = t.settings.name
    sessions: list[Session] = []
    for pid in seating:
        session = hub.desk.entrants[name, pid]
        live = hub.sessions.get(session.token_hash) is session
        if not live or session.table is not None or not _follows(session):
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

    async def job() -> None:
        for ticket, _ in issued:
            await cluster.issue(ticket.ticket_id, table_id, ticket.player_id)

    def then(_: None, now: float) -> None:
        for session, (__, data) in zip(sessions, issued, strict=True):
            if hub.sessions.get(session.token_hash) is session:
                session.send(Redirect(address=address, table_id=table_id, ticket=data))
        away = hub.desk.away

        def back() -> bool:
            return all(away.get((name, pid)) != table_id for pid in seating)

        hub.ask(
            lambda: cluster.game_result_when(table_id, back),
            lambda result, now: hub.desk.placed_over(name, table_id, result),
            conn=None,
            ref=None,
            what="a tournament game's result",
        )

    log.info("tournament %s: game at table %s placed on %s", name, table_id, node)
    hub.ask(job, then, conn=None, ref=None, what="a tournament game's tickets")
    return table_id


def arrive(hub: SpreadHost, session: Session, ticket: tickets.Ticket, now: float) -> None:
    """An entrant logged in here with a placed game's ticket: seat it at the game's table (made
    by the first to arrive), and start the game once every seat is taken."""
    game, cluster = ticket.game, hub.cluster
    assert game is not None and cluster is not None
    table = hub.tables.get(ticket.table_id)
    if table is None:
        table = hub.lobby.open_placed(game.settings, ticket.table_id)
        table.tournament = game.tournament
        hub.desk.visiting[table.table_id] = game.tournament
        made = table

        def fill(_: None, now: float) -> None:
            if hub.tables.get(made.table_id) is made and not made.playing:
                for seat in made.seats:
                    if seat.empty:
                        made.add_bot("default", seat.index)
                        seat.player_id = game.seating[seat.index]
                _start(hub, made, now)

        hub.ask(
            cluster.arrivals,
            fill,
            conn=None,
            ref=None,
            what="a tournament game's entrants",
        )
    seat = game.seating.index(session.player_id)
    if table.playing:
        raise TableError(ErrorCode.GAME_IN_PROGRESS, f"table {table.table_id} is playing")
    table.sit(session, seat)
    session.table, session.seat = table, seat
    session.send(TableJoined(table=table.info(), seat=seat))
    _start(hub, table, now)


def _start(hub: SpreadHost, table: Table, now: float) -> None:
    if table.full and not table.playing:
        log.info("tournament %s: game at table %s starts", table.tournament, table.table_id)
        hub.seat_tokens(table)
        table.start(now)
    hub.table_changed(table)


def send_home(hub: SpreadHost, table: Table, name: str) -> None:
    """A placed game is over here: send its entrants home (an unasked REDIRECT with a ticket to
    the tournament's node), once the table has said goodbye."""
    cluster = hub.cluster
    if cluster is None:
        return
    people = [
        (s, tickets.issue(hub.key, name, s.player_id, s.name, s.guest, tournament=True))
        for s in table.people()
        if isinstance(s, Session) and s.seat is not None
    ]

    async def job() -> str | None:
        owner = await cluster.tournament_home(name)
        for _, (ticket, _) in people:
            await cluster.issue(ticket.ticket_id, name, ticket.player_id)
        return owner.address if owner is not None and owner.alive else None

    def then(address: str | None, now: float) -> None:
        if address is None:
            log.warning("tournament %s: its node is gone; its entrants stay here", name)
            return
        for session, (_, data) in people:
            if hub.sessions.get(session.token_hash) is session:
                session.send(Redirect(address=address, table_id=name, ticket=data))

    hub.ask(job, then, conn=None, ref=None, what="a tournament's home")
