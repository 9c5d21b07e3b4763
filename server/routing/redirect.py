"""A cluster's routing (protocol 2.4), sans-IO: what a node does when a player asks for a table
that lives on another node.

- RESUME with a token this node does not know: the database says which table the token seats,
  and which node holds it; if that is another live node, REDIRECT there (no ticket: the token
  itself is taken there).
- JOIN_TABLE or SPECTATE for a table not here: if another live node holds it, a ticket is
  issued (recorded in the database) and the player REDIRECTed there with it.
- LOGIN_TICKET: a ticket from a REDIRECT, checked here (the cluster's signature; its table is
  on this node, or, for a new table or a tournament's game placed here, this node is to make
  it: `server.routing.placement`, `server.routing.spread`), then redeemed in the database (once, in
  time), and the identity it carries is logged in.

Every question to the database goes through `Hub.ask` (the adapter awaits it on the event loop
and hands the answer back), so the core never waits. The answers come from `Directory`, which
`server.cluster.node.Cluster` implements on PostgreSQL.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Collection, Mapping
from typing import Any, NamedTuple, Protocol

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from sushigo.protocol import (
    ErrorCode,
    JoinTable,
    LoginTicket,
    ProtocolError,
    Redirect,
    RemoteProtocolError,
    Resume,
    Spectate,
    TableStatus,
)
from sushigo.protocol.versions import REDIRECT_VERSION
from sushigo.server.errors import TableError
from sushigo.server.lobby.lobby import Lobby
from sushigo.server.sessions.limits import Limits
from sushigo.server.sessions.moderation import Moderation, sanction_message
from sushigo.server.sessions.names import Names
from sushigo.server.sessions.requests import Asker, Charger, ServerState
from sushigo.server.sessions.session import Conn, Session, token_hash
from sushigo.server.sessions.web_routes import over_web
from sushigo.server.tables.table import Table
from sushigo.server.tournaments.desk import TournamentDesk

from . import tickets

log = logging.getLogger("sushigo.server")

TOURNAMENT_REDIRECT = "tournament_redirect"
"""The capability of a client that follows a REDIRECT answering a tournament request."""


class Owner(NamedTuple):
    """Where a table lives, as the database has it."""

    table_id: str
    node: str | None
    """Its owner node (None: no lease)."""
    address: str | None
    """That node's advertised address (None: no such node)."""
    alive: bool
    """The owner's lease has not ended."""
    saved: bool = True
    """The table's state is stored (a game began there): another node can take it up. A table
    whose game has not begun lives only in its node's memory."""


class Answer(NamedTuple):
    """A node's answer to an admin's operation another node asked it to carry out."""

    node: str
    reached: int
    """The sessions, tables or people it reached there."""
    message: str
    """What was done, for a person."""
    error: str | None = None
    """Why it could not be done (None: it was)."""
    code: int = 0
    """The error's code (`ErrorCode`), when there is one."""


class NodeRow(NamedTuple):
    """A node as the database has it (its row, as its last renewal wrote it)."""

    name: str
    address: str
    alive: bool
    """Its lease has not ended."""
    draining: bool
    connections: int
    sessions: int
    tables: int
    playing: int
    started_ms: int


class Directory(Protocol):
    """The cluster's answers (`server.cluster.node.Cluster`)."""

    node: str
    address: str
    """This node's advertised address (HOST:PORT)."""
    lease: float
    """The lease's length, in seconds."""
    reachable: bool
    """The node's last renewal went through (else it reports itself not ready)."""

    async def token_owner(self, digest: bytes) -> Owner | None:
        """Where the table a stored token seats lives (None: no such token)."""

    async def table_owner(self, table_id: str) -> Owner | None:
        """Where a table lives (None: no table of that id is leased)."""

    async def issue(self, ticket_id: bytes, table_id: str, player_id: str) -> None:
        """Record a new ticket (its end: the database's now() and a short time)."""

    async def redeem(self, ticket_id: bytes, table_id: str, player_id: str) -> str | None:
        """Use a ticket up: None if it was good, else why not ("used", "expired", ...)."""

    def lease_soon(self, table_ids: list[str]) -> None:
        """Lease new tables to this node in the commit of their first writes (`pg_fence`)."""

    def dropped(self, table_ids: Collection[str], mark: int) -> None:
        """This node dropped these tables as its lease lapsed (its storage's `mark` then): it
        takes none of them up again before those writes are durable."""

    def fenced(self) -> set[str]:
        """Tables whose writes a commit left out since the last call: another node holds them
        (this node was away past its lease, `pg_fence`)."""

    def tournament_commits(self) -> list[tuple[int, frozenset[str]]]:
        """The storage's commits since the last call: how far each made the writes durable
        (`Storage.durable`), and the tournaments whose states it left out (their rows name
        another node)."""

    async def adopt(
        self, held: Collection[str], table_ids: list[str] | None = None
    ) -> list[tuple[str, bytes]]:
        """Take up the tables among `table_ids` (None: every one) that this node does not hold
        (`held`) and should: those whose lease has ended (their node died) and those handed to
        it (their node stopped); their saved states, their seats' tokens now known to the
        storage."""

    async def take_up(self, tables: Mapping[str, object], table_id: str) -> list[tuple[str, bytes]]:
        """`adopt` one table for a resume, held until it can be taken (its dead node's lease
        ended) or it is in `tables` (restored here meanwhile), for a few seconds at most; its
        saved state if this call took it up."""

    async def publish(
        self,
        quick: list[tuple[str, str, int, int]],
        listed: list[tuple[str, str, str, bytes]] | None = None,
    ) -> None:
        """Say which quick-match tables of this node take players (id, kind, players, free),
        and which tables it lists (id, kind, status, TABLE_INFO packed:
        `server.routing.listing`)."""

    def publish_soon(
        self,
        quick: Callable[[], list[tuple[str, str, int, int]]],
        listed: Callable[[], list[tuple[str, str, str, bytes]]],
    ) -> None:
        """`publish` soon (at once, or right after the one under way), what `quick()` and
        `listed()` say then."""

    async def listed(self, kind: str | None, status: str | None) -> list[bytes]:
        """The other live nodes' tables as they listed them (packed TABLE_INFOs)."""

    async def say(self, said: list[tuple[str, str, str]]) -> None:
        """Pass lobby chat said here (player id, name, text) on to the other nodes."""

    def fresh(self) -> bool:
        """This node's lease surely holds now (`TournamentAdoption.fresh`)."""

    def least_loaded(self, mine: int, *, anywhere: bool = False) -> tuple[str, str] | None:
        """The node (name, address) a new table should open on instead of this one, which
        holds `mine` tables (`anywhere`: whatever the loads, this one draining); None: this
        one."""

    async def claim_tournament(self, name: str, info: bytes) -> bool:
        """Take `name` for a new tournament of this node (False: a live node holds one)."""

    def publish_tournaments_soon(self, published: Callable[[], list[tuple[str, bytes]]]) -> None:
        """Say this node's tournaments (name, TOURNAMENT_INFO packed) soon."""

    async def tournaments(self) -> list[bytes]:
        """The other live nodes' tournaments (packed TOURNAMENT_INFOs), the newest first."""

    async def tournament_home(self, name: str) -> Owner | None:
        """Where the tournament `name` is run (`Owner.table_id`: its name); None: nowhere."""

    async def placed(self, table_id: str, issued: list[tuple[bytes, str]]) -> float:
        """Record the tickets (id, player id) of a tournament's game placed on another node;
        when (the database's clock, epoch seconds) home may take it back if nobody made it."""

    async def claim_game(self, table_id: str) -> bool:
        """Make a placed tournament game's table this node's (False: another node holds it,
        or its game was played): one conditional row, so it is never played on two nodes."""

    def recorded_soon(self, table_id: str) -> None:
        """A game placed here by another node's tournament is over: its home node is told (a
        NOTIFY in the commit that stores its record)."""

    async def game_result_when(
        self, table_id: str, deadline: float, back: Callable[[], bool]
    ) -> list[tuple[int, int]] | None:
        """The result (each seat's score and place) of the game at `table_id`, once its record
        is stored on any node, and its entrants `back()` home (or a few seconds later); None
        when no node made its table by `deadline` (home takes the game back)."""

    async def arrivals(self) -> None:
        """Return when a placed game's table stops waiting for its entrants (a lease on)."""

    async def home_pause(self) -> None:
        """Return when an entrant on its way home may look for its tournament's node again."""

    def operate(
        self, kind: str, args: dict[str, Any], to: str | None = None
    ) -> Callable[[], Awaitable[list[Answer]]]:
        """Ask the other live nodes (`to`: that one) to carry out an admin's operation (sent
        with the next commit); a job that waits a moment for their answers."""

    async def node_list(self) -> list[NodeRow]:
        """Every node the database knows of, live or not, as its last renewal wrote it."""

    async def say_draining(self, draining: bool) -> None:
        """Write at once that this node drains (or no longer does), for the other nodes."""

    def live_nodes(self) -> list[str]:
        """The live nodes' names, as last read (this one's included)."""

    async def hand_off(self, table_ids: list[str]) -> dict[str, str]:
        """Hand these tables (saved) to the other live nodes, the least loaded first; where each
        went (its new node's address). Empty when this node is alone."""


class Arrivals(Protocol):
    """Seats the entrants of tournaments' games placed here."""

    def arrive(self, session: Session, ticket: tickets.Ticket, now: float) -> None:
        """Seat an entrant of a tournament's game placed here."""


class RedirectHost(ServerState, Charger, Asker, Protocol):
    """What routing needs of the server (the hub)."""

    server_key: bytes
    key: Ed25519PrivateKey
    lobby: Lobby
    desk: TournamentDesk
    names: Names
    limits: Limits
    moderation: Moderation
    cluster: Directory | None
    wall_ms: Callable[[], int]
    draining: bool
    """No new table or game here (an admin drains the node): its quick matches and new tables
    go to other nodes."""

    def restore(self, now: float, tables: list[tuple[str, bytes]] | None = None) -> int:
        """Take saved tables up (here: those a dead node held)."""

    def close(self, conn: Conn, exc: ProtocolError) -> None:
        """Say why once, then close the connection."""

    @property
    def spread(self) -> Arrivals:
        """Where an entrant of a tournament's game placed here arrives (`spread.Spread`)."""


class CutOff(NamedTuple):
    """The people of a table dropped here (`take_away`), to be sent on (`send_off`)."""

    table_id: str
    people: list[Session]
    conns: list[Conn]
    """The connections of those connected, still open."""


def take_away(hub: RedirectHost, table: Table) -> CutOff:
    """Take the people of a table another node holds now (dropped here) away from it: they
    sit nowhere here any more."""
    people = [person for person in table.seating.people() if isinstance(person, Session)]
    for person in people:
        person.table = person.seat = None
    ids = {id(person) for person in people}
    conns = [c for c in hub.conns.values() if id(c.session) in ids]
    return CutOff(table.table_id, people, conns)


def send_off(hub: RedirectHost, cut: CutOff, address: str | None) -> None:
    """Send the people of a table another node holds now (this node was away past its lease,
    and dropped it) there: an unasked REDIRECT when its node's `address` is known, then
    SHUTTING_DOWN. Their sessions here are forgotten (as if gone: the caps and the counts of
    sessions away no longer hold them), so that one who resumes here is sent to the table's
    node rather than back into this node's lobby."""
    for conn in cut.conns:
        if conn.closed:
            continue
        if address and speaks(conn):
            _send(conn, Redirect(address=address, table_id=cut.table_id))
        hub.close(
            conn, RemoteProtocolError(ErrorCode.SHUTTING_DOWN, "the table moved to another node")
        )
    for person in cut.people:
        if hub.sessions.get(person.token_hash) is person:
            del hub.sessions[person.token_hash]
            hub.limits.gone(person)
            hub.names.update(person, ended=True)


def speaks(conn: Conn) -> bool:
    """The connection's client follows a REDIRECT (protocol 2.4)."""
    version = conn.proto.version
    return version is not None and version >= REDIRECT_VERSION


def resume_elsewhere(
    hub: RedirectHost, conn: Conn, msg: Resume, resume: Callable[[float], None]
) -> bool:
    """A RESUME whose token this node does not know: ask where it leads, and redirect there or
    `resume` here (which refuses it if it still leads nowhere). False: nothing to ask."""
    cluster = hub.cluster
    digest = token_hash(msg.token)
    if cluster is None or digest in hub.sessions or not speaks(conn):
        return False
    entry = hub.storage.find_token(digest)
    if entry is not None and entry.table_id in hub.tables:
        return False

    async def job() -> tuple[Owner | None, list[tuple[str, bytes]]]:
        owner = await cluster.token_owner(digest)
        if owner is None or (owner.alive and owner.node != cluster.node):
            return owner, []
        if not owner.saved and owner.node != cluster.node:
            # Its node is dead and the table's game never began: nothing of it is left to
            # take up, and the session went with its node. Said at once (UNKNOWN_SESSION: the
            # client logs in afresh) rather than after the dead node's lease.
            return None, []
        # Its node is dead and nobody took its table yet, or handed it here and it is not yet
        # taken up: this node does, now, rather than at its next look (of several nodes doing
        # so at once, the database lets one in), holding the resume a few seconds if need be.
        return owner, await cluster.take_up(hub.tables, owner.table_id)

    def then(found: tuple[Owner | None, list[tuple[str, bytes]]], now: float) -> None:
        owner, adopted = found
        if adopted:
            hub.restore(now, adopted)
        elif owner is not None and owner.table_id in hub.tables:
            pass  # taken up here meanwhile (by this node's own look, or another resume)
        elif owner is not None and owner.node != cluster.node and owner.address:
            if not owner.alive:  # its node is dead, its lease not yet over: in a moment
                raise TableError(
                    ErrorCode.INTERNAL_ERROR,
                    "the table's node is not answering: it moves to another within its lease;"
                    " try again",
                )
            log.info("resume for table %s: redirected to %s", owner.table_id, owner.node)
            _send(conn, Redirect(ref=msg.ref, address=owner.address, table_id=owner.table_id))
            return
        elif owner is not None and owner.saved:
            # Its token leads to a saved table this node could not take up (handed here and
            # still being taken up, or another took it meanwhile): in a moment, not UNKNOWN_SESSION.
            raise TableError(
                ErrorCode.INTERNAL_ERROR, "the table is on its way to a node: try again"
            )
        resume(now)

    hub.ask(job, then, conn=conn, ref=msg.ref, what="the token")
    return True


def table_elsewhere(
    hub: RedirectHost, conn: Conn, session: Session, msg: JoinTable | Spectate
) -> bool:
    """JOIN_TABLE or SPECTATE for a table not on this node: if another live node holds it,
    issue a ticket and redirect there. False: nothing to ask (the lobby answers as ever)."""
    cluster = hub.cluster
    if cluster is None or msg.table_id in hub.tables or not speaks(conn):
        return False
    ticket, data = tickets.issue(
        hub.key, msg.table_id, session.player_id, session.name, session.guest
    )

    async def job() -> Owner | None:
        owner = await cluster.table_owner(msg.table_id)
        if owner is not None and owner.alive and owner.node != cluster.node:
            await cluster.issue(ticket.ticket_id, msg.table_id, session.player_id)
        return owner

    def then(owner: Owner | None, now: float) -> None:
        if owner is None or not owner.alive or owner.node == cluster.node or not owner.address:
            raise TableError(ErrorCode.NO_SUCH_TABLE, f"no table {msg.table_id!r}")
        log.info("%s for table %s: redirected to %s", msg.TYPE, msg.table_id, owner.node)
        session.send(
            Redirect(ref=msg.ref, address=owner.address, table_id=msg.table_id, ticket=data)
        )

    hub.ask(job, then, conn=conn, ref=msg.ref, what="the table's node")
    return True


def login_ticket(hub: RedirectHost, conn: Conn, msg: LoginTicket) -> None:
    """LOGIN_TICKET: check the ticket, redeem it, log its identity in."""
    cluster = hub.cluster
    ticket = tickets.read(msg.ticket, hub.server_key)
    if cluster is None or ticket is None:
        raise TableError(ErrorCode.BAD_SIGNATURE, "not a ticket of this cluster")
    if ticket.quick is not None:  # moved here from another node's quick match (`matching`)
        if ticket.place and ticket.place != cluster.node:
            raise TableError(
                ErrorCode.UNKNOWN_SESSION,
                f"the ticket is for a quick match on node {ticket.place!r}, not this one",
            )
        hub.lobby.check_new()  # not while draining or unable to store games: back it goes
    elif ticket.game is not None:  # a tournament's game placed here (`server.routing.spread`)
        if ticket.place != cluster.node:
            raise TableError(
                ErrorCode.UNKNOWN_SESSION,
                f"the ticket is for a tournament's game on node {ticket.place!r}, not this one",
            )
        placed = hub.tables.get(ticket.table_id)
        if placed is not None and placed.status is not TableStatus.OPEN:
            raise TableError(ErrorCode.UNKNOWN_SESSION, "the ticket's game has begun already")
    elif ticket.tournament:  # sent to the tournament's home node (`server.routing.tournaments`)
        # (One this node let go, another node running it now: logged in, then sent there.)
        name = ticket.table_id
        if name not in hub.desk.tournaments and name not in hub.desk.let_go:
            raise TableError(
                ErrorCode.UNKNOWN_SESSION,
                f"the ticket is for tournament {ticket.table_id!r}, which is not run on this node",
            )
    elif ticket.place and ticket.place != cluster.node:
        raise TableError(
            ErrorCode.UNKNOWN_SESSION,
            f"the ticket is for a new table on node {ticket.place!r}, not on this one",
        )
    elif ticket.place and ticket.table_id in hub.tables:
        raise TableError(ErrorCode.UNKNOWN_SESSION, "the ticket's new table is made already")
    elif not ticket.place and ticket.table_id not in hub.tables:
        raise TableError(
            ErrorCode.UNKNOWN_SESSION,
            f"the ticket is for table {ticket.table_id!r}, which is not on this node",
        )
    banned = hub.moderation.player_ban(ticket.player_id)
    if banned is not None:
        raise TableError(ErrorCode.BANNED, sanction_message(banned, hub.wall_ms()))

    def then(refused: str | None, now: float) -> None:
        if refused is not None:
            raise TableError(ErrorCode.UNKNOWN_SESSION, f"the ticket is {refused}")
        # The name was the player's on the node it comes from; another may hold it here.
        name = hub.names.free_name(ticket.name, ticket.player_id)
        session = hub.lobby.logged_in(conn, msg.ref, ticket.player_id, name, ticket.guest)
        if ticket.quick is not None:  # moved here from another node's quick match
            quick = ticket.quick
            hub.lobby.arrive_quick(
                session, quick.kind, quick.players, ticket.table_id, bool(ticket.place), now
            )
        elif ticket.game is not None:
            hub.spread.arrive(session, ticket, now)
        elif ticket.tournament:  # an entrant back home, or come to ask about it
            hub.desk.returned(ticket.table_id, session, ticket.entrant)
        elif (
            ticket.place
        ):  # sent here to make a table (`server.routing.placement`): it makes it here
            session.placed = ticket.table_id
        log.info("login %s as %s by ticket from %s", ticket.player_id, name, conn.peer)

    hub.ask(
        lambda: cluster.redeem(ticket.ticket_id, ticket.table_id, ticket.player_id),
        then,
        conn=conn,
        ref=msg.ref,
        what="the ticket",
    )


def _send(conn: Conn, message: Redirect) -> None:
    """Send a REDIRECT on a connection with no session (or before its session's own)."""
    sent = message if conn.routes is None else over_web(message, conn.routes)
    conn.transport.write(conn.proto.send(sent))
