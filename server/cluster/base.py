"""What every part of a cluster's node (`server.cluster.node`) stands on: its small pool of
connections to the cluster's database, the lease length, and the live nodes as last read.

`server.cluster.node.Cluster` is made of parts that share this: its membership and routing
(`server.cluster.node`), taking tables over (`server.cluster.adopt`) and what it shares with the
other nodes' lobbies (`server.cluster.lobby`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Final, Generic, TypeVar

import asyncpg

from sushigo.server.storage.contract import StorageError
from sushigo.server.storage.postgres.fence import idle_limit
from sushigo.server.storage.postgres.schema import TRANSIENT, reason, redact
from sushigo.server.storage.postgres.storage import PgStorage

from .wallclock import WallClock

log = logging.getLogger("sushigo.server")

T = TypeVar("T")
W = TypeVar("W")

CHANNEL: Final = "sushigo_nodes"
"""NOTIFY'd when a node joins or leaves, or starts or stops draining."""
CONNECT_SECONDS: Final = 10.0
POOL: Final = 4
"""Connections a node keeps for the cluster's questions (beside its storage's one)."""
TAKEN: Final = "SELECT table_id FROM table_leases WHERE"
IN_ORDER: Final = "ORDER BY table_id FOR UPDATE"
"""A statement that moves leases to another node locks them first (``WHERE table_id IN ({TAKEN}
... {IN_ORDER})``): ``FOR UPDATE``, which waits for a commit's fence (`pg_fence`), in the order of
the ids, as every locker of many leases takes them, so no two wait for each other's."""
TICKET_SECONDS: Final = 30.0
"""How long a redirect ticket is good for, by the database's clock."""
PLACE_MARGIN: Final = 2
"""Tables fewer another node must hold at least for a new table to be sent there (and a tenth
of this node's more): between nodes about as loaded, a redirect (a new connection for the
player) buys nothing, and the loads the nodes publish are a renewal old."""


class ClusterError(StorageError):
    """This node may not join (or stay in) the cluster: the message says why, in one line."""


def logged(heard: Callable[..., None]) -> Callable[..., None]:
    """A listener's callback (`asyncpg`'s: connection, pid, channel, payload) whose exceptions
    are logged in the server's format; the listener goes on."""

    def call(*args: object) -> None:
        try:
            heard(*args)
        except Exception:
            log.exception("handling a notification from the cluster failed")

    return call


async def guarded(job: Awaitable[Any]) -> None:
    """Await `job`, a node's background task: whatever it raises is logged in the server's
    format (a `StorageError` as a warning, saying why in one line; anything else as an error
    with its traceback), so a task never dies unheard. Its caller goes on."""
    try:
        await job
    except StorageError as exc:
        log.warning("%s", exc)
    except Exception:
        log.exception("a background task of the cluster failed")


class Outage:
    """What a background task that retries through an outage (the database stopped) says of
    it: its failure once as it begins, and again only if what is wrong changes, then one line
    when it works again and how long it did not. A task that retries twice a second would
    otherwise fill the log with one line for every try (the renewal says its own the same way,
    `server.cli._renew`)."""

    def __init__(self, what: str) -> None:
        self.what = what
        """What the task does, as its "works again" line says it."""
        self._since: float | None = None
        self._said = ""

    def failed(self, exc: StorageError) -> None:
        """A try failed: said if it is the first, or fails otherwise than the last."""
        if self._since is None:
            self._since = time.monotonic()
        if str(exc) != self._said:
            self._said = str(exc)
            log.warning("%s", exc)

    def worked(self) -> None:
        """A try worked: said if the ones before it failed."""
        if self._since is not None:
            log.warning("%s works again after %.1f s", self.what, time.monotonic() - self._since)
            self._since, self._said = None, ""


@dataclass(frozen=True, slots=True)
class Node:
    """A live node, as the database has it."""

    name: str
    address: str
    """Its advertised HOST:PORT: where clients reach it."""
    tables: int
    """The tables it last said it holds (its load)."""
    web: str = ""
    """Its web address (HOST:PORT of its ``--web``; empty: it serves no web client)."""
    draining: bool = False
    """An admin drains it: no new table is sent there."""


class Spaced(Generic[W]):
    """What a node publishes for the others, soon: `want` asks for it, and `publish` runs at
    once with it when no publication is under way, else right after that one, with the latest
    asked for meanwhile. One at a time, at most one every `spacing` seconds, however many ask (a
    busy node changes tens of tables a second): each is of the state as it is when it is made,
    so a queue of them never falls behind. A `StorageError` is logged (`Outage`); the next one
    says it all again."""

    def __init__(
        self,
        spawn: Callable[[Coroutine[Any, Any, Any]], None],
        publish: Callable[[W], Awaitable[None]],
        spacing: float,
        what: str,
    ) -> None:
        self._spawn = spawn
        self._publish = publish
        self._spacing = spacing
        self._outage = Outage(what)
        self._wanted: W | None = None
        self._running = False
        """The publisher runs (publishing, or resting `spacing`)."""

    def want(self, wanted: W) -> None:
        """Publish `wanted` soon (see the class)."""
        self._wanted = wanted
        if not self._running:
            self._running = True
            self._spawn(self._publisher())

    async def _publisher(self) -> None:
        try:
            while self._wanted is not None:
                wanted, self._wanted = self._wanted, None
                try:
                    await self._publish(wanted)
                except StorageError as exc:
                    self._outage.failed(exc)
                else:
                    self._outage.worked()
                await asyncio.sleep(self._spacing)
        finally:
            self._running = False


class Connected:
    """A node's connections to the cluster's database, and the live nodes it knows of."""

    def __init__(self, url: str, *, node: str, lease: float, clock: WallClock | None) -> None:
        self.url = url
        self.clock = clock or WallClock()
        """The node's wall clock, set to the database's at joining and at each renewal."""
        self.path = redact(url)
        self.node = node
        self.lease = lease
        self.nodes: tuple[Node, ...] = ()
        """The live nodes (this one included) as of the last `join` or `renew`."""
        self.reachable = True
        """The last renewal went through (the renewing loop says so: `server.cli`): while it
        does not, the node reports itself not ready."""
        self.storage: PgStorage | None = None
        """The node's storage: tables taken over are loaded through it (and their tokens)."""
        self.on_nodes: Callable[[], None] | None = None
        """Called when `nodes` changed (a node joined or left: NOTIFY from the database)."""
        self._pool: Any = None
        self._own: Any = None
        """The node's own connection, for its upkeep (`_upkeep`)."""
        self._own_lock = asyncio.Lock()
        self._listener: Any = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._placed: dict[str, int] = {}
        """New tables sent to each node since its load was last read (`least_loaded`)."""

    def least_loaded(self, mine: int, *, anywhere: bool = False) -> tuple[str, str] | None:
        """The live node a new table should open on instead of this one, which holds `mine`
        tables now: the one with the fewest, if it has clearly fewer (`PLACE_MARGIN`), or
        whatever its load if `anywhere` (this node is draining); None for this node; else its
        name and address. A draining node is never chosen. The tables sent to a node since its
        load was read count as its, so a burst of new tables (a tournament's round) spreads over
        the nodes rather than all going to the one that was least loaded at the last renewal."""
        others = [n for n in self.nodes if n.name != self.node and not n.draining]
        if not others:
            return None
        placed = self._placed
        best = min(others, key=lambda n: (n.tables + placed.get(n.name, 0), n.name))
        margin = max(PLACE_MARGIN, mine // 10)
        if not anywhere and best.tables + placed.get(best.name, 0) + margin > mine:
            return None
        placed[best.name] = placed.get(best.name, 0) + 1
        return best.name, best.address

    def live_nodes(self) -> list[str]:
        """The live nodes' names, as last read (this one's included)."""
        return [n.name for n in self.nodes]

    def _spawn(self, job: Coroutine[Any, Any, Any]) -> None:
        """Run the coroutine `job` on the loop, kept (and cancelled at `close`); whatever it
        raises is logged (`guarded`), never lost with the task."""
        task: asyncio.Task[Any] = asyncio.get_running_loop().create_task(guarded(job))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        # A task cancelled before its first step (the node closing just after a notification)
        # never starts `job`: closed here, it is not reported as never awaited at exit.
        task.add_done_callback(lambda _: job.close())

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
                    self.url,
                    min_size=1,
                    max_size=POOL,
                    timeout=CONNECT_SECONDS,
                    server_settings=idle_limit(self._interval),
                )
            async with self._pool.acquire() as conn:
                yield conn
        except (asyncpg.PostgresError, *TRANSIENT) as exc:
            raise StorageError(self.path, f"{what}: {reason(exc)}") from None

    @contextlib.asynccontextmanager
    async def _upkeep(self, what: str) -> AsyncIterator[Any]:
        """The node's own connection, for its upkeep (renewals, publications, the hand-off, the
        leave), one at a time: never queued behind the players' questions on the pool. Under
        load (a thousand players quick-matching at once, each a question) the pool's queue
        grows seconds long, and a renewal waiting in it let the node's leases run out, its
        tables taken over though it was alive; a publication waiting in it left other nodes
        sending players to tables long filled or closed. A database error as `StorageError`."""
        try:
            async with self._own_lock:
                if self._own is None or self._own.is_closed():
                    self._own = await asyncpg.connect(
                        self.url,
                        timeout=CONNECT_SECONDS,
                        server_settings=idle_limit(self._interval),
                    )
                try:
                    yield self._own
                except (*TRANSIENT, asyncio.CancelledError):
                    # Cut off, or cut short mid-exchange (a renewal timed out): the driver's
                    # state is no good any more, and the next upkeep would fail on it for ever.
                    own, self._own = self._own, None
                    if own is not None:
                        own.terminate()
                    raise
        except (asyncpg.PostgresError, *TRANSIENT) as exc:
            raise StorageError(self.path, f"{what}: {reason(exc)}") from None

    async def bounded(self, job: Awaitable[T], seconds: float) -> T:
        """`job` (upkeep on the node's own connection), or `TimeoutError` after `seconds`. Then
        the connection is cut: a PostgreSQL that answers nothing (paused, or its machine
        frozen) answers no ROLLBACK either, so a cancelled transaction would wait as long as
        the job itself; cut, every exchange on it fails at once, and the job ends."""
        task = asyncio.ensure_future(job)
        done, _ = await asyncio.wait({task}, timeout=seconds)
        if task not in done:
            own, self._own = self._own, None
            if own is not None:
                own.terminate()
            task.cancel()
            await asyncio.wait({task})
            if not task.cancelled():
                task.exception()  # retrieved: the timeout is what is said
            raise TimeoutError
        return task.result()

    async def _read_nodes(self, conn: Any) -> None:
        rows = await conn.fetch(
            "SELECT name, address, tables, web, draining FROM cluster_nodes "
            "WHERE lease_expires > now() ORDER BY name"
        )
        nodes = tuple(Node(*row) for row in rows)
        changed, self.nodes = nodes != self.nodes, nodes
        self._placed.clear()  # their loads as they said them now
        if changed and self.on_nodes is not None:
            self.on_nodes()

    async def close(self) -> None:
        """Close the node's connections to the database, at once: the node is going, and a
        gentle close of its pool waited for every question still out on it (a resume held for
        a table, a quick match's read: up to 2 s under load, most of a stopping
        node's time). PostgreSQL ends each connection's session as it sees it closed."""
        for task in list(self._tasks):
            task.cancel()
        for conn in (self._listener, self._own):
            if conn is not None and not conn.is_closed():
                conn.terminate()
        self._listener = self._own = None
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.terminate()
