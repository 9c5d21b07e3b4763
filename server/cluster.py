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
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import (
    AsyncIterator,
    Callable,
    Collection,
    Coroutine,
    Iterable,
    Mapping,
)
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Final

import asyncpg

from .pg_schema import TRANSIENT, reason, redact
from .pg_storage import PgStorage
from .pg_tokens import read_tables
from .redirect import Owner
from .storage import StorageError
from .wallclock import WallClock

log = logging.getLogger("sushigo.server")

JOIN_KEY: Final = 0x5355_5348_0000_0003
"""The transaction advisory lock under which nodes join (one at a time)."""
DEFAULT_LEASE: Final = 10.0
"""Seconds a lease lasts unless renewed (``--lease``)."""
CONNECT_SECONDS: Final = 10.0
CLOSE_SECONDS: Final = 2.0
"""How long a stopping node lets its pool's connections finish before cutting them."""
POOL: Final = 4
"""Connections a node keeps for the cluster's questions (beside its storage's one)."""
CHANNEL: Final = "sushigo_nodes"
"""NOTIFY'd when a node joins or leaves."""
CHAT: Final = "sushigo_chat"
"""NOTIFY'd with each lobby chat message, for the other nodes' lobbies."""
HANDOFF: Final = "sushigo_handoff"
"""NOTIFY'd when a node hands its tables over: the nodes take them up at once."""
QUICK_PATIENCE: Final = 2.0
"""Seconds a quick-match table waits for players before other nodes send theirs to it."""
OWNER_SECONDS: Final = 0.5
"""How long `token_owner` keeps an answer (a quarter of the lease at most)."""
OWNERS_KEPT: Final = 100_000
"""Answers kept at most (then forgotten all at once: they are only a moment's)."""
TICKET_SECONDS: Final = 30.0
"""How long a redirect ticket is good for, by the database's clock."""
HOLD_SECONDS: Final = 4.0
"""How long a resume for a table not yet taken up here waits for it (a dead node's lease running
out, or this node restoring it) before it is told to try again: under the client's 10 s."""
HOLD_POLL: Final = 0.5
"""How often a held resume asks again."""
ADOPT_GATHER: Final = 0.05
"""Seconds a resume's take-over of one table waits for others to share its query: when a node
dies, thousands of its players knock at once, and one query each would queue them all."""
LISTED_MAX: Final = 1000
"""Other nodes' tables one LIST_TABLES reads at most (a page is 100 at most)."""


class ClusterError(StorageError):
    """This node may not join (or stay in) the cluster: the message says why, in one line."""


@dataclass(frozen=True, slots=True)
class Node:
    """A live node, as the database has it."""

    name: str
    address: str
    """Its advertised HOST:PORT: where clients reach it."""
    tables: int
    """The tables it last said it holds (its load)."""


def fingerprint(key: bytes) -> str:
    """A public key, short, for messages: its first eight bytes in hex."""
    return key[:8].hex()


class Cluster:
    """This node's part in the cluster: its row, its leases, the other live nodes.

    Runs on the server's event loop with a connection of its own (the storage's is for play)."""

    def __init__(
        self,
        url: str,
        *,
        node: str,
        address: str,
        server_key: bytes,
        protocol: str,
        lease: float = DEFAULT_LEASE,
        quick_patience: float = QUICK_PATIENCE,
        clock: WallClock | None = None,
    ) -> None:
        self.url = url
        self.clock = clock or WallClock()
        """The node's wall clock, set to the database's at joining and at each renewal."""
        self.path = redact(url)
        self.node = node
        self.address = address
        self.server_key = server_key
        self.protocol = protocol
        self.lease = lease
        self.quick_patience = quick_patience
        self.nodes: tuple[Node, ...] = ()
        """The live nodes (this one included) as of the last `join` or `renew`."""
        self.storage: PgStorage | None = None
        """The node's storage: tables taken over are loaded through it (and their tokens)."""
        self._opened: set[str] = set()
        """Tables opened since the current renewal began (`renew`)."""
        self.on_handoff: Callable[[], Coroutine[Any, Any, object]] | None = None
        """Called when a node handed tables over (some may be this node's to take up)."""
        self.on_chat: Callable[[str, str, str], None] | None = None
        """Called with lobby chat said on another node (player id, name, text)."""
        self.on_nodes: Callable[[], None] | None = None
        """Called when `nodes` changed (a node joined or left: NOTIFY from the database)."""
        self._pool: Any = None
        self._listener: Any = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._publishing = asyncio.Lock()
        self._owners: dict[bytes, tuple[float, Owner | None]] = {}
        """`token_owner`'s recent answers: until when each is kept, and the answer."""
        self._taking: dict[str, float] = {}
        """Tables taken over and not yet in play here (being loaded and restored, in slices):
        until when each counts as held, so a take-over meanwhile does not take it twice."""
        self._wanted: set[str] = set()
        self._gathered: asyncio.Future[dict[str, bytes]] | None = None
        """The take-over of the tables `_wanted` by resumes, gathered for `ADOPT_GATHER`."""

    @property
    def _interval(self) -> timedelta:
        """The lease, as a PostgreSQL interval (added to the database's now())."""
        return timedelta(seconds=self.lease)

    @contextlib.asynccontextmanager
    async def _using(self, what: str) -> AsyncIterator[Any]:
        """A connection of the node's small pool (questions from many players at once each get
        one); a database error as `StorageError` saying `what` failed."""
        try:
            if self._pool is None:
                self._pool = await asyncpg.create_pool(
                    self.url, min_size=1, max_size=POOL, timeout=CONNECT_SECONDS
                )
            async with self._pool.acquire() as conn:
                yield conn
        except (asyncpg.PostgresError, *TRANSIENT) as exc:
            raise StorageError(self.path, f"{what}: {reason(exc)}") from None

    async def listen(self) -> None:
        """Hear at once when a node joins or leaves (LISTEN/NOTIFY), rather than at the next
        renewal: a client that logs in just after learns every node."""
        try:
            self._listener = await asyncpg.connect(self.url, timeout=CONNECT_SECONDS)
            await self._listener.add_listener(CHANNEL, self._notified)
            await self._listener.add_listener(HANDOFF, self._handed)
            await self._listener.add_listener(CHAT, self._chatted)
        except (asyncpg.PostgresError, *TRANSIENT) as exc:
            log.warning("cannot listen for the cluster's nodes: %s", reason(exc))

    def _notified(self, *_: object) -> None:
        task = asyncio.get_running_loop().create_task(self.refresh())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _handed(self, *_: object) -> None:
        if self.on_handoff is not None:
            task: asyncio.Task[Any] = asyncio.get_running_loop().create_task(self.on_handoff())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

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
                    "(name, address, server_key, protocol, started, lease_expires, tables) "
                    "VALUES ($1, $2, $3, $4, now(), now() + $5::interval, 0) "
                    "ON CONFLICT (name) DO UPDATE SET address = $2, server_key = $3, "
                    "protocol = $4, started = now(), lease_expires = now() + $5::interval, "
                    "tables = 0",
                    self.node,
                    self.address,
                    self.server_key,
                    self.protocol,
                    self._interval,
                )
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
            "WHERE node = $1 OR lease_expires < now() RETURNING table_id",
            self.node,
            self._interval,
        )
        return sorted({row[0] for row in unleased} | {row[0] for row in ended})

    async def renew(self, tables: Iterable[str]) -> list[str]:
        """Renew this node's lease and those of `tables` (every table it holds: new ones are
        leased here); the ids among them whose lease another node holds now (lost: this node
        was away past its lease and they were taken). The leases of tables no longer held
        are given up."""
        held = sorted(tables)  # the leases locked in the order of their ids (see `_adopt`)
        self._opened = set()  # tables opened from now on are held too, though not in `held`
        async with self._using("renewing leases") as conn:
            async with conn.transaction():
                alive = await conn.fetchval(
                    "UPDATE cluster_nodes SET lease_expires = now() + $2::interval, tables = $3 "
                    "WHERE name = $1 AND server_key = $4 RETURNING name",
                    self.node,
                    self._interval,
                    len(held),
                    self.server_key,
                )
                if alive is None:
                    raise ClusterError(
                        self.path, f"node {self.node!r} was removed from the cluster"
                    )
                # Three steps, so that this and the node's own commits (whose fence inserts the
                # leases of new tables, then locks the leases it writes in the order of their
                # ids: `pg_fence`) never wait for each other in a circle (they deadlocked under
                # load, and the saves stalled): the missing leases inserted first, while this
                # holds no lease; then the renewal, locking in the order of the ids; then the
                # leases of tables gone, skipping any a commit has locked (next time, then).
                await conn.execute(
                    "INSERT INTO table_leases (table_id, node, lease_expires) "
                    "SELECT unnest($2::text[]), $1, now() + $3::interval "
                    "ON CONFLICT (table_id) DO NOTHING",
                    self.node,
                    held,
                    self._interval,
                )
                kept = await conn.fetch(
                    "UPDATE table_leases l SET lease_expires = now() + $3::interval "
                    "FROM (SELECT table_id FROM table_leases WHERE node = $1 "
                    "AND table_id = ANY($2::text[]) ORDER BY table_id FOR UPDATE) AS s "
                    "WHERE l.table_id = s.table_id RETURNING l.table_id",
                    self.node,
                    held,
                    self._interval,
                )
                await conn.execute("DELETE FROM tickets WHERE expires < now() - interval '1 hour'")
                # A table this node does not hold and whose state is gone (its game ended, or it
                # never began) needs no lease; one saved and handed here is taken up below.
                # A table opened since `held` was read was leased by its first commit meanwhile,
                # perhaps before it saved a state: its lease is kept, or its writes would be
                # fenced off as another node's.
                await conn.execute(
                    "DELETE FROM table_leases l USING (SELECT g.table_id FROM table_leases g "
                    "WHERE g.node = $1 AND NOT (g.table_id = ANY($2::text[])) AND NOT EXISTS "
                    "(SELECT 1 FROM tables_in_progress t WHERE t.table_id = g.table_id) "
                    "FOR UPDATE OF g SKIP LOCKED) AS s WHERE l.table_id = s.table_id",
                    self.node,
                    [*held, *self._opened],
                )
            await self._read_nodes(conn)
            await self.clock.align(conn)
        ours = {row[0] for row in kept}
        return [table_id for table_id in held if table_id not in ours]

    # --- the answers routing asks for (`server.redirect.Directory`) -----------------------

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
        owner = await self._owner(
            "SELECT t.table_id, l.node, n.address, coalesce(n.lease_expires > now() + $2::interval"
            " AND l.lease_expires > now(), false) FROM tokens t "
            "LEFT JOIN table_leases l USING (table_id) "
            "LEFT JOIN cluster_nodes n ON n.name = l.node WHERE t.token_hash = $1",
            digest,
            self._interval / 3,
        )
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
        self._opened.update(table_ids)
        if self.storage is not None:
            for table_id in table_ids:
                self.storage.lease_table(table_id)

    def fenced(self) -> set[str]:
        """Tables whose writes a commit left out: another node holds them (`pg_fence`)."""
        return set() if self.storage is None else self.storage.take_fenced()

    async def adopt(
        self, held: list[str], table_ids: list[str] | None = None
    ) -> list[tuple[str, bytes]]:
        """Take up the tables among `table_ids` (None: every one) that this node does not hold
        (`held`) and should: those whose lease has ended (their node died: one conditional
        update decides, so of nodes doing this at once each table goes to one) and those
        handed to it (`hand_off`). Their saved states, and their seats' tokens read into the
        storage. Asked for by id (a resume), the ids asked for in the same moment share one
        query."""
        if table_ids is None:
            return await self._adopt(held, None)
        return await self._want(held, table_ids)

    async def _want(self, held: Collection[str], table_ids: list[str]) -> list[tuple[str, bytes]]:
        """`adopt` by id, gathered with the others asked for in the same moment; `held` (the
        node's tables, live) is read once, when the gathered query is made."""
        self._wanted.update(table_ids)
        if self._gathered is None:
            self._gathered = asyncio.get_running_loop().create_future()
            task = asyncio.get_running_loop().create_task(self._gather(held))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        tables = await asyncio.shield(self._gathered)
        return [(table_id, tables[table_id]) for table_id in table_ids if table_id in tables]

    async def take_up(self, tables: Mapping[str, object], table_id: str) -> list[tuple[str, bytes]]:
        """`adopt` one table for a resume (`server.redirect.resume_elsewhere`). Until its dead
        node's lease ends, or while this node restores it, the resume is held (a few seconds,
        well within the client's patience) rather than refused: a refused player knocks again,
        and thousands knocking at once swamp the node that has their tables to take up."""
        loop = asyncio.get_running_loop()
        until = loop.time() + HOLD_SECONDS
        while table_id not in tables:
            adopted = await self._want(tables, [table_id])
            if adopted or loop.time() >= until:
                return adopted
            # The lease ends by the database's clock, unannounced: ask again in a moment.
            await asyncio.sleep(HOLD_POLL)
        return []

    async def _gather(self, held: Collection[str]) -> None:
        await asyncio.sleep(ADOPT_GATHER)
        gathered, self._gathered = self._gathered, None
        wanted, self._wanted = sorted(self._wanted), set()
        assert gathered is not None
        try:
            gathered.set_result(dict(await self._adopt(list(held), wanted)))
        except BaseException as exc:  # each resume waiting for it hears it
            gathered.set_exception(exc)
            gathered.exception()  # retrieved: nobody may be waiting any more
            if not isinstance(exc, Exception):
                raise

    async def _adopt(self, held: list[str], table_ids: list[str] | None) -> list[tuple[str, bytes]]:
        now = asyncio.get_running_loop().time()
        playing = set(held)
        self._taking = {
            t: until for t, until in self._taking.items() if until > now and t not in playing
        }
        async with self._using("taking over tables") as conn:
            if table_ids is not None:
                # Saved and never leased (its node died as it made it): asked for, it is ours.
                await conn.execute(
                    "INSERT INTO table_leases (table_id, node, lease_expires) "
                    "SELECT table_id, $1, now() - interval '1 second' FROM tables_in_progress "
                    "WHERE table_id = ANY($2::text[]) ON CONFLICT (table_id) DO NOTHING",
                    self.node,
                    table_ids,
                )
            # The leases locked in the order of their ids, as a commit's fence locks them
            # (`pg_fence`): in any other order, this and the node's own commit of the tables
            # taken over a moment ago deadlocked, and its saves stalled for half a second.
            rows = await conn.fetch(
                "UPDATE table_leases l SET node = $1, lease_expires = now() + $2::interval "
                "FROM (SELECT table_id FROM table_leases "
                "WHERE (lease_expires < now() OR node = $1) "
                "AND NOT (table_id = ANY($3::text[])) "
                "AND ($4::text[] IS NULL OR table_id = ANY($4::text[])) "
                "ORDER BY table_id FOR UPDATE) AS s "
                "WHERE l.table_id = s.table_id RETURNING l.table_id",
                self.node,
                self._interval,
                [*held, *self._taking],
                table_ids,
            )
        taken = [row[0] for row in rows]
        if not taken or self.storage is None:
            return []
        until = now + self.lease
        self._taking.update((table_id, until) for table_id in taken)
        # Read on this pool's connection, not the storage's: the storage's commits would wait
        # behind the read of hundreds of tables, and every table's frames behind them.
        async with self._using("loading the tables taken over") as conn:
            rows = await read_tables(conn, taken)
        tables = self.storage.tables_read(rows)
        log.info("took up %d tables", len(tables))
        return tables

    async def hand_off(self, table_ids: list[str]) -> dict[str, str]:
        """Hand these tables (saved and durable) to the other live nodes, each to the one with
        the fewest tables at the time; where each went (its new node's address). Each lease
        moves only if it is still this node's. Empty when this node is alone."""
        async with self._using("handing tables over") as conn:
            await self._read_nodes(conn)
            others = [n for n in self.nodes if n.name != self.node]
            if not others or not table_ids:
                return {}
            load = {n.name: n.tables for n in others}
            address = {n.name: n.address for n in others}
            plan: dict[str, str] = {}
            for table_id in table_ids:
                target = min(load, key=lambda name: (load[name], name))
                plan[table_id] = target
                load[target] += 1
            rows = await conn.fetch(
                "UPDATE table_leases l SET node = p.node, lease_expires = now() + $3::interval "
                "FROM unnest($1::text[], $2::text[]) AS p(table_id, node) "
                "WHERE l.table_id = p.table_id AND l.node = $4 RETURNING l.table_id, l.node",
                list(plan),
                list(plan.values()),
                self._interval,
                self.node,
            )
            await conn.execute(f"NOTIFY {HANDOFF}")
        log.info("handed %d tables to %s", len(rows), ", ".join(sorted(set(plan.values()))))
        return {table_id: address[node] for table_id, node in rows}

    async def publish(
        self,
        quick: list[tuple[str, str, int, int]],
        listed: list[tuple[str, str, str, bytes]] | None = None,
    ) -> None:
        """Say which quick-match tables of this node take players: (id, kind, players, free
        seats), every one (those it said before and not now are gone; a table said again keeps
        its age); and, given `listed`, every table of this node as the lobby lists it (id,
        kind, status, its TABLE_INFO packed: `server.listing`), likewise."""
        ids, kinds, sizes, free = [list(c) for c in zip(*quick, strict=True)] or [[], [], [], []]
        # One publication at a time (a renewal's and a new table's would lock the same rows in
        # two orders).
        async with (
            self._publishing,
            self._using("publishing quick-match tables") as conn,
            conn.transaction(),
        ):
            await conn.execute(
                "DELETE FROM quick_tables WHERE node = $1 AND NOT (table_id = ANY($2::text[]))",
                self.node,
                ids,
            )
            if quick:
                await conn.execute(
                    "INSERT INTO quick_tables (table_id, node, kind, players, free) "
                    "SELECT t, $1, k, p, f FROM unnest($2::text[], $3::text[], $4::int[], "
                    "$5::int[]) AS q(t, k, p, f) "
                    "ON CONFLICT (table_id) DO UPDATE SET free = EXCLUDED.free "
                    "WHERE quick_tables.free <> EXCLUDED.free",
                    self.node,
                    ids,
                    kinds,
                    sizes,
                    free,
                )
            if listed is not None:
                await self._list(conn, listed)

    async def _list(self, conn: Any, listed: list[tuple[str, str, str, bytes]]) -> None:
        ids = [table[0] for table in listed]
        await conn.execute(
            "DELETE FROM listed_tables WHERE node = $1 AND NOT (table_id = ANY($2::text[]))",
            self.node,
            ids,
        )
        if listed:  # a table handed here from another node is this node's now
            await conn.execute(
                "INSERT INTO listed_tables (table_id, node, kind, status, info) "
                "SELECT t, $1, k, s, i FROM unnest($2::text[], $3::text[], $4::text[], "
                "$5::bytea[]) AS l(t, k, s, i) "
                "ON CONFLICT (table_id) DO UPDATE SET node = EXCLUDED.node, "
                "status = EXCLUDED.status, info = EXCLUDED.info "
                # A row as it was is not written again (each publication lists every table of
                # the node, most of them unchanged: each row rewritten was WAL for nothing).
                "WHERE (listed_tables.node, listed_tables.status, listed_tables.info) "
                "IS DISTINCT FROM (EXCLUDED.node, EXCLUDED.status, EXCLUDED.info)",
                self.node,
                *[list(column) for column in zip(*listed, strict=True)],
            )

    async def listed(self, kind: str | None, status: str | None) -> list[bytes]:
        """The tables of the other live nodes as they last listed them (`publish`), of `kind`
        and `status` (None: any), the newest first, `LISTED_MAX` at most."""
        async with self._using("reading the table list") as conn:
            rows = await conn.fetch(
                "SELECT l.info FROM listed_tables l JOIN cluster_nodes n "
                "ON n.name = l.node AND n.lease_expires > now() WHERE l.node <> $1 "
                "AND ($2::text IS NULL OR l.kind = $2) AND ($3::text IS NULL OR l.status = $3) "
                "ORDER BY l.opened DESC LIMIT $4",
                self.node,
                kind,
                status,
                LISTED_MAX,
            )
        return [bytes(row[0]) for row in rows]

    async def find_quick(self, kind: str, players: int) -> Owner | None:
        """A quick-match table of another live node with a free seat that has waited for
        players `quick_patience` seconds at least (a busy node fills its own tables in
        moments: only a table that does not fill is worth a redirect), the fullest and then
        the oldest first, its seat reserved (so players asking at once go to different seats);
        None if there is none. Rows another node is reserving are skipped, not waited for."""
        async with self._using("finding a quick match") as conn, conn.transaction():
            row = await conn.fetchrow(
                "SELECT q.table_id, q.node, n.address FROM quick_tables q "
                "JOIN cluster_nodes n ON n.name = q.node AND n.lease_expires > now() "
                "WHERE q.kind = $1 AND q.players = $2 AND q.free > 0 AND q.node <> $3 "
                "AND q.created <= now() - $4::interval "
                "ORDER BY q.free, q.created LIMIT 1 FOR UPDATE OF q SKIP LOCKED",
                kind,
                players,
                self.node,
                timedelta(seconds=self.quick_patience),
            )
            if row is None:
                return None
            await conn.execute(
                "UPDATE quick_tables SET free = free - 1 WHERE table_id = $1", row[0]
            )
        return Owner(row[0], row[1], row[2], True)

    async def say(self, said: list[tuple[str, str, str]]) -> None:
        """Pass lobby chat said here on to the other nodes: one NOTIFY each (a payload is a few
        hundred bytes, far under PostgreSQL's 8,000), heard by their listeners."""
        async with self._using("passing chat on") as conn:
            await conn.executemany(
                "SELECT pg_notify($1, $2)",
                [
                    (CHAT, json.dumps({"node": self.node, "id": p, "name": n, "text": t}))
                    for p, n, t in said
                ],
            )

    def _chatted(self, _conn: object, _pid: object, _channel: object, payload: object) -> None:
        if self.on_chat is None:
            return
        try:
            said = json.loads(str(payload))
            node, player_id, name, text = said["node"], said["id"], said["name"], said["text"]
        except (ValueError, KeyError, TypeError):
            log.warning("a lobby chat message from another node that cannot be read")
            return
        if node != self.node and all(isinstance(v, str) for v in (player_id, name, text)):
            self.on_chat(player_id, name, text)

    def addresses(self) -> tuple[str, ...]:
        """The live nodes' addresses, this one's first (for LOGGED_IN and RESUMED)."""
        others = tuple(n.address for n in self.nodes if n.name != self.node)
        return (self.address, *others)

    async def _read_nodes(self, conn: Any) -> None:
        rows = await conn.fetch(
            "SELECT name, address, tables FROM cluster_nodes WHERE lease_expires > now() "
            "ORDER BY name"
        )
        nodes = tuple(Node(name, address, tables) for name, address, tables in rows)
        changed, self.nodes = nodes != self.nodes, nodes
        if changed and self.on_nodes is not None:
            self.on_nodes()

    async def leave(self) -> None:
        """Give up this node's leases now (a clean stop, its tables saved): other nodes may take
        its tables at once instead of after the lease."""
        try:
            async with self._using("giving up the leases") as conn, conn.transaction():
                await conn.execute(
                    "UPDATE table_leases SET lease_expires = now() WHERE node = $1", self.node
                )
                await conn.execute(
                    "UPDATE cluster_nodes SET lease_expires = now() WHERE name = $1", self.node
                )
                await conn.execute("DELETE FROM listed_tables WHERE node = $1", self.node)
                await conn.execute(f"NOTIFY {CHANNEL}")
        except StorageError as exc:
            log.warning("could not give up this node's leases: %s", exc)
        await self.close()

    async def close(self) -> None:
        """Close the node's connections to the database."""
        for task in list(self._tasks):
            task.cancel()
        listener, self._listener = self._listener, None
        if listener is not None and not listener.is_closed():
            listener.terminate()
        pool, self._pool = self._pool, None
        if pool is not None:
            try:  # gently: a connection going back to the pool finishes its reset first
                await asyncio.wait_for(pool.close(), CLOSE_SECONDS)
            except (TimeoutError, asyncpg.PostgresError, *TRANSIENT):
                pool.terminate()


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
