"""Where a new table opens, on a cluster (sans-IO, like `server.routing.redirect`): on the
least-loaded live node, and a quick match first at another node's table that waits for players.

- CREATE_TABLE, and QUICK_MATCH that would open a table: when another live node holds clearly
  fewer tables than this one (`Cluster.least_loaded`, by the load each node publishes at its
  renewal), this node makes up the new table's id and REDIRECTs the player there with a ticket
  for it, bound to that node (`tickets.Ticket.place`). The player's client logs in there with it
  and asks the same again; that node, seeing the session came to make a table, makes it with the
  ticket's id and sends it on no further. Nothing is written for the table until it is made, on
  the node that makes it: a ticket never brought leaves nothing behind, and the ticket (good
  once, in time, on its node only) is all that binds the two nodes.
- QUICK_MATCH on a node with no open table for it: a table of another node that waits for
  players takes this one (REDIRECT there, with a ticket for that table), so a crowd spread over
  the nodes fills tables rather than each node opening its own.

Only a client that announced the ``placement`` capability is sent elsewhere for a new table
(an older one's library expects the table at once): it gets it here, as before.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable

from sushigo.protocol import CreateTable, QuickMatch, Redirect
from sushigo.server.sessions.session import Conn, Session
from sushigo.server.tables.games import check_settings

from . import tickets
from .redirect import Owner, RedirectHost, speaks

__all__ = ["PLACEMENT", "create_elsewhere", "quick_elsewhere"]

log = logging.getLogger("sushigo.server")

PLACEMENT = "placement"
"""The capability of a client that follows a REDIRECT answering CREATE_TABLE or QUICK_MATCH."""


def _placeable(hub: RedirectHost, conn: Conn, session: Session) -> bool:
    """A new table of this player's may open on another node."""
    return (
        hub.cluster is not None
        and PLACEMENT in conn.proto.capabilities
        and session.placed is None  # sent here to make it: made here
    )


def _place(hub: RedirectHost, session: Session) -> tuple[Owner, tickets.Ticket, bytes] | None:
    """The node a new table of `session`'s goes to instead of this one, with a new id there and
    a ticket for it; None: this node."""
    cluster = hub.cluster
    assert cluster is not None
    target = cluster.least_loaded(len(hub.tables))
    if target is None:
        return None
    node, address = target
    table_id = secrets.token_hex(6)
    ticket, data = tickets.issue(
        hub.key, table_id, session.player_id, session.name, session.guest, place=node
    )
    return Owner(table_id, node, address, True), ticket, data


def create_elsewhere(hub: RedirectHost, conn: Conn, session: Session, msg: CreateTable) -> bool:
    """CREATE_TABLE: REDIRECT to the least-loaded node with a ticket for the new table, if that
    is not this one. False: made here (the lobby answers as ever)."""
    cluster = hub.cluster
    if cluster is None or not _placeable(hub, conn, session):
        return False
    check_settings(msg.settings)  # BAD_SETTINGS here, not after a redirect
    placed = _place(hub, session)
    if placed is None:
        return False
    owner, ticket, data = placed

    async def job() -> None:
        await cluster.issue(ticket.ticket_id, owner.table_id, session.player_id)

    def then(_: None, now: float) -> None:
        log.info("new table %s: placed on %s", owner.table_id, owner.node)
        session.send(
            Redirect(ref=msg.ref, address=str(owner.address), table_id=owner.table_id, ticket=data)
        )

    hub.ask(job, then, conn=conn, ref=msg.ref, what="the cluster's nodes")
    return True


def quick_elsewhere(
    hub: RedirectHost, conn: Conn, session: Session, msg: QuickMatch, here: Callable[[float], None]
) -> bool:
    """QUICK_MATCH on a node with no open table for it: a table of another node that waits for
    players (REDIRECT there, with a ticket), else a new table on the least-loaded node (the
    same, for the new table), else `here` (a new table on this node). False: nothing to ask
    (this node has such a table, the player was sent here to make one, or nothing waits
    elsewhere as far as this node knows and the new table is this node's)."""
    cluster = hub.cluster
    if (
        cluster is None
        or not speaks(conn)
        or session.placed is not None
        or hub.lobby.open_quick(msg.kind, msg.players, session.player_id) is not None
    ):
        return False
    placeable = _placeable(hub, conn, session)
    # Nothing waits elsewhere, as far as this node knows without asking (`quick_hopeless`):
    # the least-loaded node's new table, or a new table here at once, with no question to
    # PostgreSQL (at saturation thousands a second: they queued on the node's few connections
    # while players waited in the lobby).
    hopeless = cluster.quick_hopeless(msg.kind, msg.players)
    early = _place(hub, session) if hopeless and placeable else None
    if hopeless and early is None:
        return False

    async def job() -> tuple[Owner | None, bytes]:
        owner = None
        if not hopeless and await cluster.quick_hopeful(msg.kind, msg.players):
            owner = await cluster.find_quick(msg.kind, msg.players)
        if owner is None:
            placed = early if hopeless else _place(hub, session) if placeable else None
            if placed is None:
                return None, b""
            owner, ticket, data = placed
        else:
            ticket, data = tickets.issue(
                hub.key, owner.table_id, session.player_id, session.name, session.guest
            )
        await cluster.issue(ticket.ticket_id, owner.table_id, session.player_id)
        return owner, data

    def then(found: tuple[Owner | None, bytes], now: float) -> None:
        owner, data = found
        if owner is None or owner.address is None or session.table is not None:
            here(now)
            return
        log.info("quick match: redirected to table %s at %s", owner.table_id, owner.node)
        session.send(
            Redirect(ref=msg.ref, address=owner.address, table_id=owner.table_id, ticket=data)
        )

    hub.ask(job, then, conn=conn, ref=msg.ref, what="the cluster's quick matches")
    return True
