"""The cluster under chaos: a PostgreSQL (the pgserver package's, tests/pgcluster.py) and its
nodes, real `sushigo-server --node` processes (tests/cluster/nodes.py), each on a port of its own
that it keeps across restarts, its output kept in a file; and what is watched while it runs:
every node's gauges (`watch_gauges`), the players waiting in quick match anywhere
(`watch_waiting`) and the table leases (`watch_leases`), each read a few times a second."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg
import msgpack

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "cluster"))

from nodes import SHIFTED, node  # type: ignore[import-not-found]  # noqa: E402
from pgcluster import PgCluster, free_port  # type: ignore[import-not-found]  # noqa: E402
from processes import SERVER, http_get  # type: ignore[import-not-found]  # noqa: E402

START_SECONDS = 120.0
"""How long a node may take to start (on a machine shared by many runs, a process waits its
turn for a core)."""
GAUGES = (
    "sushigo_connections",
    "sushigo_sessions",
    "sushigo_tables",
    "sushigo_storage_queue",
    "sushigo_frames_waiting",
)
"""The gauges that count something, so can never be negative."""


@dataclass
class Node:
    """One node: its process (restarted on the same ports), and its name."""

    name: str
    process: Any
    """A tests/processes.py `ServerProcess`."""
    metrics_port: int
    shift_ms: int = 0
    """How far behind the machine's its clock runs (a node restarted lagging)."""
    paused: bool = False
    exits: list[int] = field(default_factory=list)
    """The exit codes of its stops (SIGTERM), in order."""

    @property
    def port(self) -> int:
        return int(self.process.port)

    @property
    def running(self) -> bool:
        proc = self.process.proc
        return proc is not None and proc.returncode is None

    @property
    def pid(self) -> int:
        return int(self.process.proc.pid)


class Cluster:
    """PostgreSQL and the nodes; a node's output is its `log` (bytes, every start's)."""

    def __init__(self, folder: Path, count: int, lease: float, log_level: str = "info") -> None:
        self.folder = folder
        self.log_level = log_level
        self.lease = lease
        self.pg = PgCluster(folder / "pg")
        self.url = ""
        self.key = folder / "cluster.key"
        self.nodes: list[Node] = []
        self.count = count
        self.pg_paused = False
        self.pg_down = False
        self.pg_back = 0.0
        """When PostgreSQL last came back from a fault (time.monotonic()): the nodes can merge
        their quick matches only through it."""
        self.hurt: str | None = None
        """The node a fault is on now (None: none, or PostgreSQL)."""

    async def start(self) -> None:
        await asyncio.to_thread(self.pg.start)
        self.url = await asyncio.to_thread(self.pg.new_database)
        for i in range(self.count):
            metrics = free_port()
            process = node(
                self.url,
                self.key,
                f"n{i + 1}",
                *("--metrics", f"127.0.0.1:{metrics}", "--log-level", self.log_level),
                lease=self.lease,
            )
            process.patience = START_SECONDS
            self.nodes.append(Node(f"n{i + 1}", process, metrics))
        for n in self.nodes:
            await n.process.start()

    def by_port(self, port: int) -> str | None:
        return next((n.name for n in self.nodes if n.port == port), None)

    def live_ports(self) -> list[int]:
        """The nodes a new player may be sent to: running, and no fault on them."""
        return [n.port for n in self.nodes if n.running and not n.paused and n.name != self.hurt]

    # -- faults --------------------------------------------------------------------------------

    async def restart(self, n: Node, shift_ms: int | None = None) -> None:
        """Start `n` again (on its ports), its clock `shift_ms` behind if given."""
        if shift_ms is not None:
            n.shift_ms = shift_ms
        n.process.program = (
            (sys.executable, str(SHIFTED), str(-n.shift_ms)) if n.shift_ms else (str(SERVER),)
        )
        await n.process.start()

    async def kill(self, n: Node) -> None:
        await n.process.kill()

    async def terminate(self, n: Node) -> int:
        """SIGTERM, and its exit code (within 30 s, else SIGKILL and -9)."""
        try:
            code = int(await n.process.terminate(within=30))
        except TimeoutError:
            await n.process.kill()
            code = -9
        n.exits.append(code)
        return code

    def pause(self, n: Node) -> None:
        os.kill(n.pid, signal.SIGSTOP)
        n.paused = True

    def unpause(self, n: Node) -> None:
        os.kill(n.pid, signal.SIGCONT)
        n.paused = False

    def pause_pg(self) -> None:
        self.pg.pause()
        self.pg_paused = True

    def unpause_pg(self) -> None:
        self.pg.unpause()
        self.pg_paused = False
        self.pg_back = time.monotonic()

    async def stop_pg(self) -> None:
        self.pg_down = True
        await asyncio.to_thread(self.pg.stop)

    async def start_pg(self) -> None:
        await asyncio.to_thread(self.pg.start)
        self.pg_down = False
        self.pg_back = time.monotonic()

    async def heal(self) -> None:
        """Undo whatever fault is in force: PostgreSQL up and awake, every node running."""
        if self.pg_paused:
            self.unpause_pg()
        if self.pg_down:
            await self.start_pg()
        for n in self.nodes:
            if n.paused:
                self.unpause(n)
            if not n.running:
                await self.restart(n)

    async def stop_nodes(self) -> None:
        """SIGTERM every node (their exit codes kept); their output written to NAME.log."""
        for n in self.nodes:
            if n.running:
                await self.terminate(n)
        for n in self.nodes:
            await n.process.stop()
            (self.folder / f"{n.name}.log").write_bytes(n.process.log)

    async def query(self, sql: str, *args: Any) -> list[Any]:
        conn = await asyncpg.connect(self.url, timeout=5)
        try:
            return list(await conn.fetch(sql, *args))
        finally:
            await conn.close()


# -- watchers (each returns when `stop` is set) -------------------------------------------------


@dataclass
class Watched:
    """What the watchers saw."""

    negative: list[str] = field(default_factory=list)
    """Negative gauges: node, sample, value, when."""
    split: list[str] = field(default_factory=list)
    """Quick-match players kept apart: enough waited, at several tables, for too long."""
    leases: dict[str, list[tuple[float, str]]] = field(default_factory=dict)
    """Each table's lease as read: (when, node), when it changed."""
    waiting: dict[tuple[str, int], list[int]] = field(default_factory=dict)
    """As last read: the players seated at each open quick-match table, by (game, size)."""


async def watch_gauges(cluster: Cluster, seen: Watched, stop: asyncio.Event) -> None:
    """Scrape every running node's metrics every second; note any gauge below zero."""
    while not stop.is_set():
        for n in cluster.nodes:
            if not n.running or n.paused:
                continue
            try:
                status, body = await http_get("127.0.0.1", n.metrics_port, "/metrics", timeout=2)
            except (OSError, TimeoutError):
                continue
            if status != 200:
                continue
            for line in body.splitlines():
                if line.startswith(GAUGES) and not line.startswith("#"):
                    name, _, value = line.rpartition(" ")
                    if float(value) < 0:
                        seen.negative.append(f"{n.name}: {name} = {value} at {time.time():.0f}")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 1.0)


WAITING_PATIENCE = 10.0
"""Seconds for which enough players of one game and size may wait at several open quick-match
tables of the cluster before it counts as keeping them apart (a quick match waits 2 s for
players before other nodes send theirs, and a redirect takes a moment)."""


async def watch_waiting(cluster: Cluster, seen: Watched, stop: asyncio.Event) -> None:
    """Twice a second: the players seated at the live nodes' open quick-match tables, by game
    and size. Enough of them for a table, at two tables or more, for `WAITING_PATIENCE`: they
    were kept apart. The time PostgreSQL was away does not count: the nodes merge their quick
    matches through it, and no node can while it is stopped or paused."""
    since: dict[tuple[str, int], float] = {}
    while not stop.is_set():
        with contextlib.suppress(OSError, asyncpg.PostgresError, TimeoutError, Exception):
            rows = await cluster.query(
                "SELECT q.kind, q.players, l.info FROM quick_tables q "
                "JOIN listed_tables l USING (table_id) "
                "JOIN cluster_nodes n ON n.name = q.node AND n.lease_expires > now() "
                "WHERE l.status = 'open'"
            )
            seated: dict[tuple[str, int], list[int]] = {}
            for kind, players, info in rows:
                table = msgpack.unpackb(bytes(info))
                taken = sum(1 for s in table.get("seats", []) if s.get("name"))
                if taken:
                    seated.setdefault((kind, players), []).append(taken)
            seen.waiting = seated
            now = time.monotonic()
            for key, tables in seated.items():
                if len(tables) >= 2 and sum(tables) >= key[1]:
                    began = max(since.setdefault(key, now), cluster.pg_back)
                    if now - began > WAITING_PATIENCE:
                        seen.split.append(
                            f"{sum(tables)} players of {key[0]} for {key[1]} waited at"
                            f" {len(tables)} tables for {now - began:.0f} s (at {time.time():.0f})"
                        )
                        since[key] = now
                else:
                    since.pop(key, None)
            for key in [k for k in since if k not in seated]:
                del since[key]
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.5)


async def watch_leases(cluster: Cluster, seen: Watched, stop: asyncio.Event) -> None:
    """Five times a second: which node each table's lease names (its changes kept)."""
    while not stop.is_set():
        with contextlib.suppress(OSError, asyncpg.PostgresError, TimeoutError, Exception):
            rows = await cluster.query(
                "SELECT table_id, node FROM table_leases WHERE lease_expires > now()"
            )
            now = time.monotonic()
            for table_id, owner in rows:
                history = seen.leases.setdefault(table_id, [])
                if not history or history[-1][1] != owner:
                    history.append((now, owner))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.2)
