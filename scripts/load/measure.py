"""What a run measures: the latency and the waits its clients saw (`latency_figures`,
`wait_figures`, from the client processes' reports), CPU by process and the machine's
(`CpuMeter`, `cpu_figures`), PostgreSQL's work per turn (`pg_counters`, `pg_figures`), and the
server's /metrics scraped under load (`Scraper`)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import sys
import threading
import time
import urllib.request
from array import array
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .servers import Nodes, ServerProcess

SCRAPE_SECONDS = 1.0
"""How often `--metrics` scrapes the server (Prometheus's own default is every 15 s)."""


def percentile(ordered: list[float], fraction: float) -> float:
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def samples(results: list[dict[str, Any]], name: str) -> list[float]:
    """The samples `name` (an array of doubles, as `stats.Stats.to_data` packs it) of every
    client process's report, joined in the order of the reports."""
    out = array("d")
    for r in results:
        out.frombytes(r.get(name, b""))
    return list(out)


def latency_figures(results: list[dict[str, Any]]) -> dict[str, Any]:
    """The latency from a seat's REVEAL to its TURN_RESULT over the clients' reports: p50, p99
    and max, p99 by 10-second window, and the worst seconds by their p99."""
    # p99 per 10-second window: where a tail comes from (a start, a burst of game ends...).
    windows: dict[int, list[float]] = {}
    seconds_: dict[int, list[float]] = {}
    for r in results:
        values, times = array("d"), array("d")
        values.frombytes(r["latencies"])
        times.frombytes(r.get("latency_at", b""))
        for value, at in zip(values, times, strict=False):
            windows.setdefault(int(at // 10) * 10, []).append(value)
            seconds_.setdefault(int(at), []).append(value)
    by_window = {
        start: 1000 * percentile(sorted(values), 0.99) for start, values in sorted(windows.items())
    }
    # The worst seconds, by their p99: when a tail happened (a take-over, a burst of starts).
    by_second = {at: 1000 * percentile(sorted(v), 0.99) for at, v in seconds_.items()}
    worst = dict(sorted(by_second.items(), key=lambda item: -item[1])[:8])
    latencies = sorted(samples(results, "latencies"))
    return {
        "latency_samples": len(latencies),
        "latency_p50_ms": 1000 * percentile(latencies, 0.50),
        "latency_p99_ms": 1000 * percentile(latencies, 0.99),
        "latency_max_ms": 1000 * (latencies[-1] if latencies else float("nan")),
        "latency_p99_ms_by_10s": by_window,
        "latency_p99_ms_worst_seconds": worst,
    }


def wait_figures(results: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """A seat's waits in the lobby over the clients' reports: from QUICK_MATCH to TABLE_JOINED
    (``joined``) and from GAME_OVER to the next GAME_STARTING (``between``)."""
    waits = {name: samples(results, name) for name in ("joined", "between")}
    return {
        name: {
            "n": len(got),
            "p50_ms": 1000 * percentile(sorted(got), 0.5),
            "p90_ms": 1000 * percentile(sorted(got), 0.9),
            "mean_ms": 1000 * sum(got) / max(1, len(got)),
        }
        for name, got in waits.items()
    }


class Scraper:
    """Prometheus' part, in a thread: GET /metrics every `SCRAPE_SECONDS` while the load runs,
    timing each scrape (the server answers on its own event loop, between the games' inputs)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.times: list[float] = []
        self.failures = 0
        self.size = 0
        self.last = ""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(SCRAPE_SECONDS):
            self._scrape()

    def _scrape(self) -> None:
        began = time.perf_counter()
        try:
            with urllib.request.urlopen(self.url, timeout=10) as reply:
                body = reply.read()
        except OSError:
            self.failures += 1
            return
        self.times.append(time.perf_counter() - began)
        self.size, self.last = len(body), body.decode()

    def stop(self) -> dict[str, Any]:
        """Stop scraping, after a last scrape; what it measured."""
        self._stop.set()
        self._thread.join(timeout=15)
        self._scrape()
        times = sorted(self.times)
        turns = re.search(r"^sushigo_turns_total\{game=\"sushi-go\"\} (\S+)$", self.last, re.M)
        return {
            "scrapes": len(times),
            "failures": self.failures,
            "p50_ms": 1000 * percentile(times, 0.5),
            "max_ms": 1000 * (times[-1] if times else float("nan")),
            "bytes": self.size,
            "turns_counted": float(turns.group(1)) if turns else None,
        }


def machine_cpu() -> float:
    """CPU seconds every process of the machine has used so far, on all its CPUs (from the
    first line of /proc/stat: everything but idle and I/O wait)."""
    with contextlib.suppress(OSError, ValueError):
        values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        return (sum(values[:8]) - values[3] - values[4]) / os.sysconf("SC_CLK_TCK")
    return 0.0


@dataclass
class CpuMeter:
    """The CPU seconds each part of a run used, read at its start and end: the nodes (each),
    PostgreSQL (its every process, when the run started it), and the whole machine (the load
    generator reports its own). So a run says what a turn costs each process, and how much of
    the machine the neighbours took meanwhile."""

    nodes: list[float]
    postgresql: float | None
    machine: float
    load: float
    """The load average over the last minute (`uptime`'s first figure)."""

    @classmethod
    def read(cls, server: ServerProcess | Nodes, pg_cpu: Callable[[], float] | None) -> CpuMeter:
        tick = os.sysconf("SC_CLK_TCK")
        if isinstance(server, Nodes):
            nodes = [t / tick for t in server.ticks()]
        else:
            nodes = [server.status().get("ticks", 0) / tick]
        return cls(nodes, pg_cpu() if pg_cpu else None, machine_cpu(), os.getloadavg()[0])


def pg_counters(url: str) -> dict[str, float]:
    """PostgreSQL's own counters for the database at `url`, so far: commits, WAL bytes written
    (the whole cluster's), and rows inserted, updated and deleted in each table (as PostgreSQL's
    statistics have them: up to a second late)."""
    import asyncpg  # noqa: PLC0415  (only for a run on PostgreSQL)

    async def read() -> dict[str, float]:
        conn = await asyncpg.connect(url)
        try:
            out: dict[str, float] = {
                "commits": await conn.fetchval(
                    "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()"
                ),
                "wal_bytes": float(
                    await conn.fetchval("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')")
                ),
            }
            for name, rows in await conn.fetch(
                "SELECT relname, n_tup_ins + n_tup_upd + n_tup_del FROM pg_stat_user_tables"
            ):
                out[f"rows:{name}"] = rows
            return out
        finally:
            await conn.close()

    try:
        return asyncio.run(read())
    except (OSError, asyncpg.PostgresError) as exc:
        print(f"loadtest: PostgreSQL's counters cannot be read: {exc}", file=sys.stderr)
        return {}


def pg_figures(before: dict[str, float], after: dict[str, float], turns: float) -> dict[str, Any]:
    """PostgreSQL's work per four-player turn over the run (`pg_counters` at its start and end):
    commits, WAL bytes, and rows written by table (the busiest first)."""
    per = 1 / max(1.0, turns)
    rows = {
        key[5:]: (after[key] - before.get(key, 0)) * per
        for key in after
        if key.startswith("rows:") and after[key] > before.get(key, 0)
    }
    return {
        "commits_per_turn": (after.get("commits", 0) - before.get("commits", 0)) * per,
        "wal_bytes_per_turn": (after.get("wal_bytes", 0) - before.get("wal_bytes", 0)) * per,
        "rows_per_turn": dict(sorted(rows.items(), key=lambda item: -item[1])),
    }


def cpu_figures(
    before: CpuMeter, after: CpuMeter, clients: float, turns: float, seconds: float
) -> dict[str, Any]:
    """Each process's CPU seconds over the run, per 1,000 four-player turns; `clients`: the
    load generator's CPU seconds. With the node's and the rest's cost per turn, what a second
    node could give on this machine's cores: a node is one thread (at most a core), and every
    process shares the cores (see docs/DEPLOY.md, "Capacity")."""
    per = 1000 / max(1.0, turns)
    nodes = [a - b for a, b in zip(after.nodes, before.nodes, strict=True)]
    pg = (
        after.postgresql - before.postgresql
        if after.postgresql is not None and before.postgresql is not None
        else None
    )
    machine = after.machine - before.machine
    ours = sum(nodes) + clients + (pg or 0.0)
    node_turn = sum(nodes) * per
    rest_turn = (clients + (pg or 0.0)) * per
    return {
        "cpu_seconds": seconds,
        "cpus": os.cpu_count() or 1,
        "load_average_start": before.load,
        "load_average_end": after.load,
        "node_cpu_s": nodes,
        "client_cpu_s": clients,
        "postgresql_cpu_s": pg,
        "machine_cpu_s": machine,
        "others_cpu_s": max(0.0, machine - ours),
        "node_cpu_s_per_1000_turns": node_turn,
        "client_cpu_s_per_1000_turns": clients * per,
        "postgresql_cpu_s_per_1000_turns": None if pg is None else pg * per,
        "others_cpu_s_per_1000_turns": max(0.0, machine - ours) * per,
        # 2 nodes on 2 cores over 1 node on one: 2N / (N + R), N the nodes' cost per turn and
        # R the rest's (clients and PostgreSQL), when the nodes' work splits evenly.
        "two_node_ratio_bound": 2 * node_turn / max(1e-9, node_turn + rest_turn),
    }
