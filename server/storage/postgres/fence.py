"""Writes fenced by the lease: a node of a cluster commits a table's writes only while the table's
lease names it, checked inside the very transaction that writes them (a part of
`pg_storage.PgStorage`).

Why. A node paused (or cut off) past its lease loses its tables to another node, but learns it
only at its next renewal. Meanwhile, awake again, it may still play on: a timer fires, a move
waiting in its socket is read. Without a fence those writes could land after the new owner's,
and two nodes would have written one table.

How. Each held write says which rows it touches (`pg_plan.Touches`); the keys that name a table
(``("head", t)``, ``("turns", t)``, ``("tokens", t)``, ``("lease", t)``) tie it to that table. At
the start of the commit's transaction the node reads the lease of every table its writes touch,
``FOR KEY SHARE``: a row lock that a node taking the lease over waits for (every such update
locks the leases ``FOR UPDATE`` first, in the order of their ids: `server.cluster.node`), so a lease
that names this node at the check names it until the commit ends, and an adopter loads the
table's state only after these writes are in (or known to be dropped). The renewal's update of
the lease's end (``FOR NO KEY UPDATE``) does not wait for it, nor it for the renewal: under load
the node's commits follow each other without a gap, and a renewal that waited for each, and each
commit for the renewal, let the node's own leases run out. The writes of a table
whose lease names another node, or no node, are left out of the commit, and the storage says so
(`PgStorage.take_fenced`): the server drops the table, unsent, as when a renewal finds it lost.

A new table has no lease yet: its first commit leases it (`LEASES`, held by the node as the
table opens), before the check, so it is never mistaken for one another node holds. A lease
that simply ran out with no one taking it still names this node: its writes go in, and the
next renewal keeps it.

A paused node. The lock is held for as long as the transaction is open, and a node paused
(SIGSTOP, a frozen machine) between two statements of its commit leaves it open: its connection
lives on, idle in a transaction, until it wakes. An adopter would wait for it as long, and the
adopter's renewals behind that. So every connection of a node ends a transaction idle for half a
lease (`idle_limit`): by the time the lease ends, PostgreSQL has rolled the paused commit back and
the table can be taken over; the node, woken, finds its connection gone, and commits again on a
new one, where the fence leaves the table's writes out.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from datetime import timedelta
from typing import Any, Final

from .plan import Held

__all__ = ["FENCED", "LEASES", "fence", "idle_limit", "tables_of"]

LEASES: Final = "lease"
"""The held write of a new table's lease (its argument: the table's id)."""

FENCED: Final = frozenset({"head", "turns", "tokens", "lease"})
"""The kinds of `Touches` key that tie a write to a table (its id is the key's second part)."""


def idle_limit(lease: timedelta) -> dict[str, str]:
    """The setting that ends a transaction idle for half of `lease` (see the module docstring),
    as a connection's server settings."""
    milliseconds = max(1, round(lease.total_seconds() * 500))
    return {"idle_in_transaction_session_timeout": str(milliseconds)}


def tables_of(touches: Iterable[Hashable] | None) -> set[str]:
    """The tables a write is tied to (see the module docstring)."""
    tables: set[str] = set()
    for key in touches or ():
        if isinstance(key, tuple) and len(key) == 2 and key[0] in FENCED:
            tables.add(str(key[1]))
    return tables


async def fence(
    conn: Any, writes: Sequence[Held], node: str, lease: timedelta
) -> tuple[list[Held], set[str]]:
    """Lease the new tables among `writes`, lock the leases of the tables they touch, and return
    the writes to commit (those of tables whose lease names `node`) and the tables whose writes
    were left out. Runs inside the commit's transaction."""
    # Sorted, as every locker of many leases takes them (a renewal inserting the same at once
    # waits for these, or these for it, never both).
    new = sorted({str(args) for write, args, _ in writes if write == LEASES})
    if new:
        await conn.execute(
            "INSERT INTO table_leases (table_id, node, lease_expires) "
            "SELECT unnest($1::text[]), $2, now() + $3::interval ON CONFLICT (table_id) DO NOTHING",
            new,
            node,
            lease,
        )
    rest = [held for held in writes if held[0] != LEASES]
    touched: set[str] = set()
    for _, _, touches in rest:
        touched |= tables_of(touches)
    if not touched:
        return rest, set()
    # In the order of the table ids, as every other locker of many leases takes them, so two
    # transactions never wait for each other's rows.
    rows = await conn.fetch(
        "SELECT table_id, node FROM table_leases WHERE table_id = ANY($1::text[]) "
        "ORDER BY table_id FOR KEY SHARE",
        sorted(touched),
    )
    ours = {table_id for table_id, owner in rows if owner == node}
    lost = touched - ours
    if not lost:
        return rest, set()
    return [held for held in rest if not (tables_of(held[2]) & lost)], lost
