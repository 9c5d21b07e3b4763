"""A cluster's tournaments (protocol 2.4, capability ``tournament_redirect``), sans-IO like
`server.routing.redirect`: a tournament is run by its home node (the one it was made on: its desk
holds it in memory, seats its games at tables of its own and keeps the standings), and is the whole
cluster's to see and reach.

- Each node publishes its tournaments (a TOURNAMENT_INFO each, packed) in the database's
  `listed_tournaments` as they change (`Cluster.publish_tournaments_soon`); LIST_TOURNAMENTS on
  any node answers with its own and then the other live nodes'.
- CREATE_TOURNAMENT claims the name in the database first (`Cluster.claim_tournament`: one
  conditional upsert), so a name is the cluster's once.
- REGISTER_TOURNAMENT, WATCH_TOURNAMENT and START_TOURNAMENT for a tournament another live node
  runs are answered by REDIRECT there with a ticket bound to the tournament (`Ticket.tournament`,
  its name in `table_id`): the client logs in there with it as the same identity and asks again.
  A client without the capability (its library expects the tournament's answer) is told in one
  line which node runs it.
- A tournament outlives its node: each is stored (`Storage.save_tournament`, its row naming the
  node that runs it), and when that node dies or stops (its lease ends) a live node takes it over
  at its next renewal (`adopt`: one conditional update, so one node gets it), restores it as a
  restarted server does (`restore`) and runs it on. A game it counts as running whose table is
  not on this node (on its way here, on another node, placed there) is learnt from its record.
- What a change of a tournament tells (an entry, a start, its updates) is told once the commit of
  its state is known (`stored`). A node away past its lease may take a request for a tournament
  that another node took over meanwhile: its write changes nothing there (the row names that
  node). Such a request is not answered as done: the node lets the tournament go (its people
  sent there, as at a renewal that finds it taken: `spread.let_go`) and asks the request again,
  which sends it there (REDIRECT), where it is made.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Awaitable, Callable
from typing import Protocol

from sushigo import protocol
from sushigo.server.errors import TableError
from sushigo.server.sessions.session import Conn, Session
from sushigo.server.tables.table import Table
from sushigo.server.tournaments.desk import TournamentDesk

from . import spread as tournament_spread
from . import tickets
from .published import pack, unpack
from .redirect import TOURNAMENT_REDIRECT, Owner, RedirectHost, speaks

__all__ = [
    "TOURNAMENT_REDIRECT",
    "adopt",
    "published",
    "restore",
    "stored",
    "tournament_elsewhere",
]

log = logging.getLogger("sushigo.server")


class TournamentHost(RedirectHost, Protocol):
    """What a cluster's tournaments need of the server (the hub)."""

    desk: TournamentDesk


def published(desk: TournamentDesk) -> list[tuple[str, bytes]]:
    """A node's tournaments as it publishes them: (name, TOURNAMENT_INFO packed)."""
    return [(name, pack(t.info())) for name, t in desk.tournaments.items()]


def restore(hub: tournament_spread.SpreadHost, rows: list[tuple[str, bytes]], now: float) -> None:
    """Take up stored tournaments (after a restart: those stored; on a cluster's node, those it
    took over). A game whose table is not here: on a lone server it is lost (played again);
    on a cluster's node it is played elsewhere, or is coming here, and its result is read from
    its record once stored."""
    desk, cluster = hub.desk, hub.cluster
    for name, table_id in desk.restore(rows, now):
        if cluster is None:
            desk.lost_game(name, table_id)
            continue

        # Its table is another node's (placed there, handed or taken over), or gone: with no
        # lease nor record naming it (a deadline passed already), it is taken back and played
        # here, under one conditional row as a placed game never made. Its entrants play it
        # there (sent home at its end), not gone: waited for as for a placed game.
        seating = desk.tournaments[name].running[table_id]
        if table_id not in hub.tables:
            desk.playing_elsewhere(name, table_id)
        tournament_spread.await_result(hub, name, table_id, seating, deadline=0.0)


def table_lost(hub: tournament_spread.SpreadHost, table: Table) -> None:
    """This node lost `table` (its lease lapsed, or another node holds it: `Hub.cut_off`). If it
    plays a game of a tournament run here, the node that takes the table up plays the game to
    its end and sends the entrants home, as for a game placed there; its result is read from
    its record once stored, as after a restart (`restore`). A game of another node's
    tournament is that node's to wait for."""
    name = table.tournament
    desk = hub.desk
    desk.visiting.pop(table.table_id, None)
    t = desk.tournaments.get(name) if name is not None else None
    seating = t.running.get(table.table_id) if t is not None else None
    if name is None or seating is None or hub.cluster is None:
        return
    desk.playing_elsewhere(name, table.table_id)
    tournament_spread.await_result(hub, name, table.table_id, seating, deadline=0.0)


def adopt(
    hub: tournament_spread.SpreadHost, take: Callable[[], Awaitable[list[tuple[str, bytes]]]]
) -> None:
    """A cluster's node takes over the tournaments of dead nodes (`take`: `Cluster.take_tournaments`)
    and runs them on."""

    def then(rows: list[tuple[str, bytes]], now: float) -> None:
        if rows:
            log.info("took over %d tournaments of nodes gone", len(rows))
            restore(hub, rows, now)

    hub.ask(take, then, conn=None, ref=None, what="the tournaments of nodes gone")


def stored(
    hub: tournament_spread.SpreadHost, commits: list[tuple[int, frozenset[str]]], now: float
) -> None:
    """The storage's commits (`Cluster.tournament_commits`: how far each made the writes
    durable, and the tournaments whose states it left out, their rows another node's): tell
    what the changes they stored tell (`TournamentDesk.news`). A tournament left out is let go;
    a request that changed it is asked again (sent to its node), its watchers told nothing more
    here. A request whose change was stored, for a tournament let go since (a renewal found it
    taken over), is answered, and its player sent to the tournament's node."""
    desk = hub.desk
    for durable, left_out in commits:
        lost = [name for name in left_out if name in desk.tournaments]
        for name in lost:
            log.warning("tournament %s: its state was left out (another node holds it)", name)
        if lost:
            tournament_spread.let_go(hub, lost)  # (not those asking: answered below)
        for news in desk.told(durable):
            session = news.session
            if hub.sessions.get(session.token_hash) is not session:
                continue
            if news.name in left_out:
                if news.asked is not None:
                    _ask_again(hub, news.name, session, news.asked, now)
            elif news.name in desk.tournaments:
                session.send(news.update)
            elif news.asked is not None:
                session.send(news.update)
                tournament_spread.send_on(hub, news.name, session, news.entrant)


def _ask_again(
    hub: tournament_spread.SpreadHost,
    name: str,
    session: Session,
    asked: protocol.Message,
    now: float,
) -> None:
    """A request whose change of tournament `name` was left out (another node holds it): asked
    again, as just come, so sent to that node; a CREATE_TOURNAMENT is refused."""
    conn = next((c for c in hub.conns.values() if c.session is session and not c.closed), None)
    if conn is None:
        return
    log.warning("%s for tournament %s: its change was left out; asked again", asked.TYPE, name)
    try:
        if isinstance(asked, protocol.CreateTournament):
            raise TableError(
                protocol.ErrorCode.BAD_SETTINGS,
                f"a tournament {name!r} exists already (on another node)",
            )
        if not tournament_elsewhere(hub, conn, session, asked):
            hub.desk.handle(session, asked, now)  # (this node runs it again)
    except TableError as exc:
        ref = getattr(asked, "ref", None)
        session.send(protocol.Error(ref=ref, code=exc.code, message=exc.message[:500]))


def tournament_elsewhere(
    hub: TournamentHost, conn: Conn, session: Session, msg: protocol.Message
) -> bool:
    """A tournament request on a cluster's node that the cluster has a part in. False: the desk
    answers it as on a lone server."""
    cluster = hub.cluster
    if cluster is None:
        return False
    if isinstance(msg, protocol.ListTournaments):
        _list(hub, conn, session, msg)
    elif (
        isinstance(msg, protocol.CreateTournament) and msg.settings.name not in hub.desk.tournaments
    ):
        _create(hub, conn, session, msg)
    elif (
        isinstance(
            msg, protocol.RegisterTournament | protocol.WatchTournament | protocol.StartTournament
        )
        and msg.name not in hub.desk.tournaments
    ):
        _send_home(hub, conn, session, msg)
    else:
        return False
    return True


def _list(hub: TournamentHost, conn: Conn, session: Session, msg: protocol.ListTournaments) -> None:
    cluster = hub.cluster
    assert cluster is not None

    def then(rows: list[bytes], now: float) -> None:
        here = [t.info(with_standings=False) for t in reversed(hub.desk.tournaments.values())]
        others = [
            dataclasses.replace(info, standings=())
            for info in unpack(rows, protocol.TournamentInfo, "a tournament another node published")
            if info.settings.name not in hub.desk.tournaments
        ]
        everyone = (here + others)[:100]
        session.send(protocol.TournamentList(ref=msg.ref, tournaments=tuple(everyone)))

    hub.ask(cluster.tournaments, then, conn=conn, ref=msg.ref, what="the tournaments")


def _create(
    hub: TournamentHost, conn: Conn, session: Session, msg: protocol.CreateTournament
) -> None:
    cluster = hub.cluster
    assert cluster is not None
    t = hub.desk.check_new(session, msg)  # refused here, before the name is claimed
    info = pack(t.info())
    name = msg.settings.name

    def then(claimed: bool, now: float) -> None:
        if not claimed:
            raise TableError(
                protocol.ErrorCode.BAD_SETTINGS,
                f"a tournament {name!r} exists already (on another node)",
            )
        hub.desk.handle(session, msg, now)

    async def job() -> bool:
        claimed = await cluster.claim_tournament(name, info)
        # Published again after the answer, as the desk has it then: a claim whose tournament
        # was not made after all (its player gone meanwhile, or refused) leaves no row behind.
        hub.desk.changed = True
        return claimed

    hub.ask(
        job,
        then,
        conn=conn,
        ref=msg.ref,
        what="the tournament's name",
    )


def _send_home(
    hub: TournamentHost,
    conn: Conn,
    session: Session,
    msg: protocol.RegisterTournament | protocol.WatchTournament | protocol.StartTournament,
) -> None:
    """A request for a tournament not run here: REDIRECT to the node that runs it, if any."""
    cluster = hub.cluster
    assert cluster is not None
    name = msg.name
    follows = speaks(conn) and TOURNAMENT_REDIRECT in conn.proto.capabilities
    ticket, data = tickets.issue(
        hub.key, name, session.player_id, session.name, session.guest, tournament=True
    )

    async def job() -> Owner | None:
        owner = await cluster.tournament_home(name)
        if owner is not None and owner.alive and owner.node != cluster.node and follows:
            await cluster.issue(ticket.ticket_id, name, session.player_id)
        return owner

    def then(owner: Owner | None, now: float) -> None:
        if owner is None or not owner.alive or owner.node == cluster.node or not owner.address:
            hub.desk.handle(session, msg, now)  # NO_SUCH_TABLE (or made here meanwhile)
            return
        if not follows:
            raise TableError(
                protocol.ErrorCode.NO_SUCH_TABLE,
                f"tournament {name!r} is run by node {owner.node!r}: connect to {owner.address}",
            )
        if session.table is not None:  # following would take it away from its table
            raise TableError(
                protocol.ErrorCode.NOT_ALLOWED,
                f"tournament {name!r} is run by node {owner.node!r}: ask from the lobby",
            )
        log.info("%s for tournament %s: redirected to %s", msg.TYPE, name, owner.node)
        session.send(
            protocol.Redirect(ref=msg.ref, address=owner.address, table_id=name, ticket=data)
        )

    hub.ask(job, then, conn=conn, ref=msg.ref, what="the tournament's node")
