"""Where a new table opens, on a cluster (sans-IO, like `server.routing.redirect`): on the
least-loaded live node.

- CREATE_TABLE: when another live node holds clearly fewer tables than this one
  (`Cluster.least_loaded`, by the load each node publishes at its renewal), this node makes up
  the new table's id and REDIRECTs the player there with a ticket for it, bound to that node
  (`tickets.Ticket.place`). The player's client logs in there with it and asks the same again;
  that node, seeing the session came to make a table, makes it with the ticket's id and sends
  it on no further. Nothing is written for the table until it is made, on the node that makes
  it: a ticket never brought leaves nothing behind, and the ticket (good once, in time, on its
  node only) is all that binds the two nodes.
- QUICK_MATCH is answered here, at a table of this node's (the cluster's matcher merges the
  nodes' waiting tables: `server.routing.matching`), but on a draining node, which opens no
  table: there it goes to another node as CREATE_TABLE does.

Only a client that announced the ``placement`` capability is sent elsewhere for a new table
(an older one's library expects the table at once): it gets it here, as before.
"""

from __future__ import annotations

import logging
import secrets

from sushigo.protocol import CreateTable, QuickMatch, Redirect
from sushigo.server.sessions.session import Conn, Session
from sushigo.server.tables.games import check_settings

from . import tickets
from .redirect import Owner, RedirectHost

__all__ = ["PLACEMENT", "create_elsewhere", "quick_elsewhere"]

log = logging.getLogger("sushigo.server")

PLACEMENT = "placement"
"""The capability of a client that follows a REDIRECT answering CREATE_TABLE or QUICK_MATCH."""


def _placeable(hub: RedirectHost, conn: Conn, session: Session) -> bool:
    """A new table of this player's may open on another node."""
    return (
        hub.cluster is not None
        and PLACEMENT in conn.proto.capabilities
        # Sent here to make it: made here (unless this node drains now: sent on again).
        and (session.placed is None or hub.draining)
    )


def _place(hub: RedirectHost, session: Session) -> tuple[Owner, tickets.Ticket, bytes] | None:
    """The node a new table of `session`'s goes to instead of this one, with a new id there and
    a ticket for it; None: this node."""
    cluster = hub.cluster
    assert cluster is not None
    # A draining node sends it to the least-loaded node that does not drain, whatever the loads.
    target = cluster.least_loaded(len(hub.tables), anywhere=hub.draining)
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
    if not _placeable(hub, conn, session):
        return False
    check_settings(msg.settings)  # BAD_SETTINGS here, not after a redirect
    return _elsewhere(hub, conn, session, msg.ref)


def quick_elsewhere(hub: RedirectHost, conn: Conn, session: Session, msg: QuickMatch) -> bool:
    """QUICK_MATCH on a draining node: REDIRECT to the least-loaded node with a ticket for a
    new table there, where the client asks again (that node seats it at a table of its own
    that waits, or at the new one). False: answered here (and refused while draining)."""
    if not (hub.draining and _placeable(hub, conn, session)):
        return False
    return _elsewhere(hub, conn, session, msg.ref)


def _elsewhere(hub: RedirectHost, conn: Conn, session: Session, ref: int) -> bool:
    """REDIRECT to the least-loaded node with a ticket for a new table there (False: none)."""
    cluster = hub.cluster
    assert cluster is not None
    placed = _place(hub, session)
    if placed is None:
        return False
    owner, ticket, data = placed

    async def job() -> None:
        await cluster.issue(ticket.ticket_id, owner.table_id, session.player_id)

    def then(_: None, now: float) -> None:
        log.info("new table %s: placed on %s", owner.table_id, owner.node)
        session.send(
            Redirect(ref=ref, address=str(owner.address), table_id=owner.table_id, ticket=data)
        )

    hub.ask(job, then, conn=conn, ref=ref, what="the cluster's nodes")
    return True
