"""A node of a cluster: many `sushigo-server` processes on one PostgreSQL (``--node NAME``).

PostgreSQL is the one shared component, and the only judge of who owns what: every node has a
row in ``cluster_nodes`` and every table in play a row in ``table_leases`` naming its owner node,
each with a lease that ends at a time of the database's clock (``now()``). A node renews its
leases every third of their length; a lease that is not renewed (its node died, or lost its way
to the database) ends, and its tables are free to be taken. Every time is computed in SQL, never
from a node's clock, so nodes whose clocks differ by seconds (or hours) behave the same.

Joining is one transaction under an advisory lock, so two nodes starting at once are judged one
after the other. A node is refused, with a one-line reason and nothing written, when a live node
signs with another key (the cluster's records must verify with one key), speaks another protocol
version, or has its name at another address (the same name at the same address is this node
restarted after a crash, before its lease ended). Then it takes its tables: those whose lease names it (its own,
from before a restart), those whose lease has ended, and those saved with no lease at all (by a
lone server before the cluster), each claim a conditional write, so only one node gets a table.

No broker and no consensus of our own: row locks, conditional updates and advisory locks are the
whole protocol between the nodes (docs/ARCHITECTURE.md, "The cluster").

Its parts: the connections and the live nodes (`server.cluster.base`), taking tables over
(`server.cluster.adopt`), what the lobbies share (`server.cluster.lobby`), the one quick-match
queue (`server.cluster.matching`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Collection, Iterable
from datetime import timedelta
from typing import Any, Final, NamedTuple

import asyncpg

from sushigo.server.routing.redirect import Owner
from sushigo.server.storage.contract import StorageError
from sushigo.server.storage.postgres.schema import TRANSIENT, reason, redact

from .adopt import HANDOFF, Adoption
from .base import (
    CHANNEL,
    CONNECT_SECONDS,
    IN_ORDER,
    TAKEN,
    TICKET_SECONDS,
    ClusterError,
    Node,
    logged,
)
from .lobby import CHAT, LobbyShare
from .matching import QUICK, QUICK_PATIENCE, QuickMatching
from .operations import OPERATIONS, OperationShare
from .tournament_adopt import TournamentAdoption
from .tournaments import RECORDS, TournamentShare
from .wallclock import WallClock

__all__ = ["DEFAULT_LEASE", "QUICK_PATIENCE", "Cluster", "ClusterError", "Node", "cluster_key"]

log = logging.getLogger("sushigo.server")

JOIN_KEY: Final = 0x5355_5348_0000_0003
"""The transaction advisory lock under which nodes join (one at a time)."""
DEFAULT_LEASE: Final = 10.0
"""Seconds a lease lasts unless renewed (``--lease``)."""
OWNER_SECONDS: Final = 0.5
"""How long `token_owner` keeps an answer (a quarter of the lease at most)."""
OWNERS_KEPT: Final = 100_000
"""Answers kept at most (then forgotten all at once: they are only a moment's)."""
STOP_SECONDS: Final = 3.0
"""How long a stopping node waits for the database to hand its tables over, and again to give up
its leases, before it goes anyway (their leases end by themselves): the node must be out within
seconds (an orchestrator kills it at 15), however slow the database is under load or its pool is
with questions queued."""


class Load(NamedTuple):
    """What a node's row says of it besides its tables (`Cluster.renew`)."""

    draining: bool = False
    connections: int = 0
    sessions: int = 0
    playing: int = 0
    """Its tables with a game in progress."""


def fingerprint(key: bytes) -> str:
    """A public key, short, for messages: its first eight bytes in hex."""
    return key[:8].hex()


class Cluster(
    Adoption, LobbyShare, QuickMatching, TournamentShare, TournamentAdoption, OperationShare
):
    """This node's part in the cluster: its row, its leases, the other live nodes; and its parts
    (`Adoption`, `LobbyShare`, `QuickMatching`, `OperationShare`, ...).

    Runs on the server's event loop with connections of its own (the storage's is for play)."""

    def __init__(
        self,
        url: str,
        *,
        node: str,
        address: str,
        server_key: bytes,
        protocol: str,
        web: str = "",
        lease: float = DEFAULT_LEASE,
        quick_patience: float = QUICK_PATIENCE,
        clock: WallClock | None = None,
    ) -> None:
        super().__init__(url, node=node, lease=lease, clock=clock)
        self.address = address
        self.web = web
        """Its web address (``--web``: where browsers reach it; empty: it serves none)."""
        self.server_key = server_key
        self.protocol = protocol
        self.quick_patience = quick_patience
        self._deaf = False
        """Listening failed (said once, until it works again)."""
        self._owners: dict[bytes, tuple[float, Owner | None]] = {}
        """`token_owner`'s recent answers: until when each is kept, and the answer."""

    async def listen(self) -> bool:
        """Hear at once when a node joins or leaves (LISTEN/NOTIFY), rather than at the next
        renewal: a client that logs in just after learns every node; and what the other nodes
        say (hand-offs, records, chat, admins' operations). Called at every renewal too: the
        listening connection ends with PostgreSQL (a restart, an outage), and is made again
        then; True when it was (what was said meanwhile is to be caught up: the renewal's own
        reads do it, and the bans and mutes are read again)."""
        if self._listener is not None and not self._listener.is_closed():
            return False
        old, self._listener = self._listener, None
        if old is not None:
            old.terminate()
        listener = None
        try:
            listener = await asyncpg.connect(self.url, timeout=CONNECT_SECONDS)
            for channel, heard in (
                (CHANNEL, self._notified),
                (HANDOFF, self._handed),
                (CHAT, self._chatted),
                (QUICK, self._quick_moved),
                (RECORDS, self._heard_record),
                (OPERATIONS, self._operation_heard),
            ):
                await listener.add_listener(channel, logged(heard))
        except (asyncpg.PostgresError, *TRANSIENT) as exc:
            if listener is not None:
                listener.terminate()
            if not self._deaf:  # once, until it listens again (it is tried at every renewal)
                log.warning("cannot listen for the cluster's nodes: %s", reason(exc))
            self._deaf = True
            return False
        self._listener = listener
        self._deaf = False
        return True

    def _notified(self, *_: object) -> None:
        self._spawn(self.refresh())

    async def refresh(self) -> None:
        """Read the live nodes again."""
        try:
            async with self._using("reading the nodes") as conn:
                await self._read_nodes(conn)
        except StorageError as exc:
            if self._pool is not None:  # not closing
                log.warning("%s", exc)

    async def join(self) -> list[str]:
        """Join the cluster and take this node's tables; their ids. `ClusterError` if refused
        (nothing written), `StorageError` if the database cannot be reached."""
        async with self._using("joining the cluster") as conn:
            async with conn.transaction():
                await conn.execute("SELECT pg_advisory_xact_lock($1)", JOIN_KEY)
                live = await conn.fetch(
                    "SELECT name, address, server_key, protocol FROM cluster_nodes "
                    "WHERE lease_expires > now() ORDER BY name"
                )
                self._check(live)
                await conn.execute(
                    "INSERT INTO cluster_nodes "
                    "(name, address, server_key, protocol, started, lease_expires, tables, web) "
                    "VALUES ($1, $2, $3, $4, now(), now() + $5::interval, 0, $6) "
                    "ON CONFLICT (name) DO UPDATE SET address = $2, server_key = $3, "
                    "protocol = $4, started = now(), lease_expires = now() + $5::interval, "
                    "tables = 0, web = $6, draining = false, connections = 0, sessions = 0, "
                    "playing = 0",
                    self.node,
                    self.address,
                    self.server_key,
                    self.protocol,
                    self._interval,
                    self.web,
                )
                # What a former run of this node published went with it (killed, it could not
                # say so): its quick-match tables, which no restart keeps, and its listing, made
                # again as it takes its tables up. Left, they would count as a live node's: the
                # matcher would move waiting players to tables that are gone.
                await conn.execute("DELETE FROM quick_tables WHERE node = $1", self.node)
                await conn.execute("DELETE FROM listed_tables WHERE node = $1", self.node)
                taken = await self._claim(conn)
                await conn.execute(f"NOTIFY {CHANNEL}")
            await self._read_nodes(conn)
            await self.clock.align(conn)
        return taken

    def _check(self, live: Iterable[Any]) -> None:
        """Refuse to join beside a live node that differs from us (see the module docstring)."""
        for name, address, key, protocol in live:
            if name == self.node and address != self.address:
                raise ClusterError(
                    self.path,
                    f"node {name!r} is already running (at {address}): give this one another"
                    " --node name",
                )
            if bytes(key) != self.server_key:
                raise ClusterError(
                    self.path,
                    f"node {name!r} signs with another server key ({fingerprint(bytes(key))}, "
                    f"this node's is {fingerprint(self.server_key)}): every node must be given "
                    "the cluster's --key",
                )
            if protocol != self.protocol:
                raise ClusterError(
                    self.path,
                    f"node {name!r} speaks protocol {protocol}, this node {self.protocol}: a "
                    "cluster's nodes must all speak one version",
                )

    async def _claim(self, conn: Any) -> list[str]:
        """Take the tables that are ours to take (see the module docstring); their ids."""
        unleased = await conn.fetch(
            "INSERT INTO table_leases (table_id, node, lease_expires) "
            "SELECT table_id, $1, now() + $2::interval FROM tables_in_progress "
            "ON CONFLICT (table_id) DO NOTHING RETURNING table_id",
            self.node,
            self._interval,
        )
        # The WHERE is the whole arbiter: of nodes racing for an ended lease, the first update
        # wins and the others' find it renewed (row locks order them).
        ended = await conn.fetch(
            "UPDATE table_leases SET node = $1, lease_expires = now() + $2::interval "
            f"WHERE table_id IN ({TAKEN} (node = $1 OR lease_expires < now()) {IN_ORDER}) "
            "RETURNING table_id",
            self.node,
            self._interval,
        )
        return sorted({row[0] for row in unleased} | {row[0] for row in ended})

    async def renew(self, tables: Collection[str], load: Load | None = None) -> list[str]:
        """Renew this node's lease and those of `tables` (every table it holds, live); the ids
        among them whose lease another node holds now (lost: this node was away past its lease
        and they were taken). The leases of tables no longer held are given up. The node's row
        says its `load` and whether it drains (what `sushigo-admin nodes` lists)."""
        async with self._upkeep("renewing leases") as conn:
            async with conn.transaction():
                # Read once the transaction has begun: a table opened after this is leased by a
                # commit that begins later, so its lease ends after this transaction's now() and
                # a lease (and the DELETE below spares it). Read before, a table opened
                # meanwhile and leased before the DELETE would lose its lease there, and its
                # next writes be fenced: a game lost, its node alive. Sorted: every locker of
                # many leases takes them in the order of their ids (`pg_fence`), so no two
                # transactions wait for each other's.
                held = sorted(tables)
                began = await conn.fetchval(
                    "UPDATE cluster_nodes SET lease_expires = now() + $2::interval, tables = $3, "
                    "draining = $5, connections = $6, sessions = $7, playing = $8 "
                    "WHERE name = $1 AND server_key = $4 RETURNING now()",
                    self.node,
                    self._interval,
                    len(held),
                    self.server_key,
                    *(load or Load()),
                )
                if began is None:
                    raise ClusterError(
                        self.path, f"node {self.node!r} was removed from the cluster"
                    )
                # Only leases there are: a table not yet leased is by the commit of its first
                # writes (`pg_fence`), whose uncommitted lease this must not wait for (that
                # commit may wait for one of the leases this locks: a deadlock). Only the end
                # moves: the node's commits' locks (`FOR KEY SHARE`) do not hold this up.
                await conn.execute(
                    "UPDATE table_leases SET lease_expires = now() + $3::interval WHERE table_id "
                    "IN (SELECT table_id FROM table_leases WHERE table_id = ANY($2::text[]) "
                    "AND node = $1 ORDER BY table_id FOR NO KEY UPDATE)",
                    self.node,
                    held,
                    self._interval,
                )
                lost = await conn.fetch(
                    "SELECT table_id FROM table_leases WHERE table_id = ANY($2::text[]) "
                    "AND node <> $1 ORDER BY table_id",
                    self.node,
                    held,
                )
                await conn.execute("DELETE FROM tickets WHERE expires < now() - interval '1 hour'")
            # A table this node does not hold and whose state is gone (its game ended, or it
            # never began) needs no lease; one saved and handed here is taken up below. In a
            # transaction of its own, its rows locked in the order of their ids too (one
            # transaction locking the held leases, then these, could wait on a commit that
            # holds one of these and waits for one of those), and as of the renewal's now().
            # Not one this node dropped as its lease lapsed while its writes are still landing:
            # the first of them may have leased it, the rest (its game's start) are to follow
            # under that lease, and would be fenced out without it: the game lost.
            spared = sorted({*held, *self._held_back()})
            await conn.execute(
                "DELETE FROM table_leases WHERE table_id IN (SELECT l.table_id FROM table_leases l "
                "WHERE l.node = $1 AND NOT (l.table_id = ANY($2::text[])) "
                "AND l.lease_expires <= $3::timestamptz + $4::interval AND NOT EXISTS "
                "(SELECT 1 FROM tables_in_progress t WHERE t.table_id = l.table_id) "
                "ORDER BY l.table_id FOR UPDATE)",
                self.node,
                spared,
                began,
                self._interval,
            )
            await self._read_nodes(conn)
            await self.clock.align(conn)
        return [row[0] for row in lost]

    # --- the answers routing asks for (`server.routing.redirect.Directory`) -----------------------

    async def token_owner(self, digest: bytes) -> Owner | None:
        """Where the table a stored token seats lives (None: no such token).

        A node that missed two renewals (less than a third of its lease left) counts as dead
        here: its players are not sent back to it, only told to try again while its lease runs
        out. And the answer is kept for a moment: when a node dies, each of its players knocks
        on the others again and again until its table is taken over, and one question to the
        database per knock would queue them all past the handshake's deadline."""
        loop = asyncio.get_running_loop()
        kept = self._owners.get(digest)
        if kept is not None and kept[0] > loop.time():
            return kept[1]
        async with self._using("finding a table's node") as conn:
            row = await conn.fetchrow(
                "SELECT t.table_id, l.node, n.address, coalesce(n.lease_expires > now() + "
                "$2::interval AND l.lease_expires > now(), false), EXISTS (SELECT 1 FROM "
                "tables_in_progress p WHERE p.table_id = t.table_id) FROM tokens t "
                "LEFT JOIN table_leases l USING (table_id) "
                "LEFT JOIN cluster_nodes n ON n.name = l.node WHERE t.token_hash = $1",
                digest,
                self._interval / 3,
            )
        owner = None if row is None else Owner(row[0], row[1], row[2], bool(row[3]), row[4])
        if len(self._owners) > OWNERS_KEPT:
            self._owners.clear()
        self._owners[digest] = (loop.time() + min(OWNER_SECONDS, self.lease / 4), owner)
        return owner

    async def table_owner(self, table_id: str) -> Owner | None:
        """Where a table lives (None: no lease names it)."""
        return await self._owner(
            "SELECT l.table_id, l.node, n.address, coalesce(n.lease_expires > now() "
            "AND l.lease_expires > now(), false) FROM table_leases l "
            "LEFT JOIN cluster_nodes n ON n.name = l.node WHERE l.table_id = $1",
            table_id,
        )

    async def _owner(self, sql: str, *args: object) -> Owner | None:
        async with self._using("finding a table's node") as conn:
            row = await conn.fetchrow(sql, *args)
        return None if row is None else Owner(row[0], row[1], row[2], bool(row[3]))

    async def issue(self, ticket_id: bytes, table_id: str, player_id: str) -> None:
        """Record a ticket, good for `TICKET_SECONDS` of the database's clock."""
        await self._execute(
            "INSERT INTO tickets (ticket_id, table_id, player_id, expires) "
            "VALUES ($1, $2, $3, now() + $4::interval)",
            ticket_id,
            table_id,
            player_id,
            timedelta(seconds=TICKET_SECONDS),
        )

    async def redeem(self, ticket_id: bytes, table_id: str, player_id: str) -> str | None:
        """Use a ticket up: None if it was good; else why not. One conditional update decides,
        so of two nodes (or connections) bringing one ticket, one gets in."""
        async with self._using("redeeming a ticket") as conn:
            used = await conn.fetchval(
                "UPDATE tickets SET used_by = $4 WHERE ticket_id = $1 AND table_id = $2 "
                "AND player_id = $3 AND used_by IS NULL AND expires > now() RETURNING 1",
                ticket_id,
                table_id,
                player_id,
                self.node,
            )
            if used is not None:
                return None
            row = await conn.fetchrow(
                "SELECT used_by, expires <= now() FROM tickets WHERE ticket_id = $1", ticket_id
            )
        if row is None:
            return "unknown to the cluster"
        if row[0] is not None:
            return "already used"
        return "expired" if row[1] else "not good here"

    async def _execute(self, sql: str, *args: object) -> None:
        async with self._using("writing to the database") as conn:
            await conn.execute(sql, *args)

    def lease_soon(self, table_ids: list[str]) -> None:
        """Lease new tables in the commit of their first writes, which the lease fences."""
        if self.storage is not None:
            for table_id in table_ids:
                self.storage.lease_table(table_id)

    def fenced(self) -> set[str]:
        """Tables whose writes a commit left out: another node holds them (`pg_fence`)."""
        return set() if self.storage is None else self.storage.take_fenced()

    def tournament_commits(self) -> list[tuple[int, frozenset[str]]]:
        """The storage's commits since the last call: how far each made the writes durable, and
        the tournaments whose states it left out (another node holds them: `pg_tournaments`)."""
        return [] if self.storage is None else self.storage.take_tournament_commits()

    def addresses(self) -> tuple[str, ...]:
        """The live nodes' addresses, this one's first (for LOGGED_IN and RESUMED)."""
        others = tuple(n.address for n in self.nodes if n.name != self.node)
        return (self.address, *others)

    def web_addresses(self) -> dict[str, str]:
        """The web addresses of the live nodes that serve the web client, by their addresses
        (`server.sessions.web_routes`)."""
        web = {n.address: n.web for n in self.nodes if n.web and n.name != self.node}
        if self.web:
            web[self.address] = self.web
        return web

    async def leave(self) -> None:
        """Give up this node's leases now (a clean stop, its tables saved): other nodes may take
        its tables at once instead of after the lease. Within `STOP_SECONDS`: a stopping node
        must be out within seconds, and its leases end by themselves anyway."""
        try:
            await self.bounded(self._give_up(), STOP_SECONDS)
        except (StorageError, TimeoutError) as exc:
            log.warning("could not give up this node's leases: %s", exc or "too slow")
        await self.close()

    async def _give_up(self) -> None:
        # One statement (its own transaction): a stopping node's every round trip to a busy
        # database is time its supervisor waits for it to exit.
        async with self._upkeep("giving up the leases") as conn:
            await conn.execute(
                "WITH leases AS (UPDATE table_leases SET lease_expires = now() WHERE node = $1), "
                "me AS (UPDATE cluster_nodes SET lease_expires = now() WHERE name = $1), "
                "listed AS (DELETE FROM listed_tables WHERE node = $1), "
                "tournaments AS (DELETE FROM listed_tournaments WHERE node = $1) "
                "SELECT pg_notify($2, '')",
                self.node,
                CHANNEL,
            )


def cluster_key(url: str) -> bytes | None:
    """The public key a cluster's nodes sign with, as they registered it in the database at
    `url` (None: no node ever ran there, or nodes of several keys did): what `sushigo-replay`
    checks the records against when it has no key file. One line as `StorageError` if the
    database cannot be read."""

    async def read() -> list[Any]:
        conn = await asyncpg.connect(url, timeout=CONNECT_SECONDS)
        try:
            if not await conn.fetchval("SELECT to_regclass('cluster_nodes') IS NOT NULL"):
                return []
            return list(await conn.fetch("SELECT DISTINCT server_key FROM cluster_nodes"))
        finally:
            await conn.close()

    try:
        rows = asyncio.run(read())
    except (asyncpg.PostgresError, *TRANSIENT) as exc:
        raise StorageError(redact(url), reason(exc)) from None
    return bytes(rows[0][0]) if len(rows) == 1 else None
