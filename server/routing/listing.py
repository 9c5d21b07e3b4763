"""A cluster's table list: LIST_TABLES on a node of a cluster shows every node's tables.

Each node publishes its tables as its lobby shows them (a TABLE_INFO, packed) in the database's
`listed_tables`, as it opens or closes one, as a quick-match table fills, and at each renewal
(`Cluster.publish_soon`: at most one every quarter second); LIST_TABLES asks the database for the
other live nodes' (off the event loop: `Hub.ask`) and pages them after this node's own, newest
first. So another node's new or closed table shows within a moment (what changes within a table,
a seat taken, at the node's next renewal at the latest), and joining or watching it redirects
there (`redirect.table_elsewhere`)."""

from __future__ import annotations

import logging
from collections.abc import Iterable

from sushigo.protocol import MAX_PAGE, ListTables, TableInfo, TableList
from sushigo.server.lobby.lobby import TABLES_PER_TOKEN
from sushigo.server.lobby.pages import fill
from sushigo.server.sessions.session import Conn, Session
from sushigo.server.tables.table import Table

from .published import pack, unpack
from .redirect import RedirectHost

__all__ = ["list_across", "listed"]

log = logging.getLogger("sushigo.server")


def listed(tables: Iterable[Table]) -> list[tuple[str, str, str, bytes]]:
    """This node's tables as it publishes them: (id, kind, status, TABLE_INFO packed)."""
    global _packed  # noqa: PLW0603  (what the last call packed: see `_packed`)
    packed: dict[str, tuple[TableInfo, bytes]] = {}
    out: list[tuple[str, str, str, bytes]] = []
    for t in tables:
        info = t.info()
        known = _packed.get(t.table_id)
        data = known[1] if known is not None and known[0] == info else None
        if data is None:
            data = pack(info)
        packed[t.table_id] = (info, data)
        out.append((t.table_id, t.settings.kind, str(t.status), data))
    _packed = packed
    return out


_packed: dict[str, tuple[TableInfo, bytes]] = {}
"""Each table's TABLE_INFO as `listed` last packed it: a node lists every table of its own each
time it publishes (twice a second at most, and at each renewal), and most have not changed since;
with a thousand tables, packing them all again held the event loop up for tens of milliseconds."""


def list_across(
    hub: RedirectHost, conn: Conn, session: Session, msg: ListTables, now: float
) -> bool:
    """Answer LIST_TABLES with every live node's tables. False: not a cluster's node (the
    lobby answers with its own)."""
    cluster = hub.cluster
    if cluster is None:
        return False
    limit = min(msg.limit, MAX_PAGE)
    if not hub.charge(conn, limit // TABLES_PER_TOKEN, now, msg.ref):
        return True
    kind, status = msg.kind, msg.status

    async def job() -> list[bytes]:
        return await cluster.listed(kind, None if status is None else str(status))

    def then(rows: list[bytes], at: float) -> None:
        here = [
            t.info()
            for t in reversed(hub.tables.values())
            if (kind is None or t.settings.kind == kind) and (status is None or t.status is status)
        ]
        others = [
            info
            for info in unpack(rows, TableInfo, "a table another node listed")
            if info.table_id not in hub.tables  # handed here since it was listed
        ]
        matching = here + others
        page = fill(matching[msg.offset :], limit, TableInfo)  # at most 64 KiB, as the lobby's
        session.send(
            TableList(ref=msg.ref, tables=tuple(page), total=len(matching), offset=msg.offset)
        )

    hub.ask(job, then, conn=conn, ref=msg.ref, what="the table list")
    return True
