#!/usr/bin/env python3
"""How long a cluster's node takes to stop on SIGTERM while it serves games, and how long its
players wait for their next turn meanwhile.

Each run starts a PostgreSQL (the pgserver package's) and node a, seats `--bots` `sushigo-bot`
processes (4 a table) and one player of our own (the client library, against a random bot) at
tables on a, starts node b once they play, then sends a SIGTERM to a. Measured: from the signal
to a's exit (`exit`), and from the signal to our player's next turn, on b (`pause`: it follows
the node's REDIRECT and resumes). Usage:
    .venv/bin/python scripts/bench_stop.py [--runs N] [--bots N] [--server PATH]
`--server` is the `sushigo-server` to run (default: the one beside this Python), so two
versions can be measured side by side.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from pgcluster import PgCluster, free_port  # type: ignore[import-not-found]  # noqa: E402

from sushigo.client.connection import Client, ConnectionLost, reconnect  # noqa: E402
from sushigo.protocol import TableSettings, TurnStart  # noqa: E402

BIN = Path(sys.executable).parent


def start_node(
    server: str, url: str, key: Path, name: str, lease: float = 10.0
) -> tuple[subprocess.Popen[str], int]:
    """A node on a free port (its lease `lease` seconds), once it listens: its process and
    port."""
    port = free_port()
    proc = subprocess.Popen(
        [
            *(server, "--host", "127.0.0.1", "--port", str(port), "--db", url, "--key", str(key)),
            *("--node", name, "--advertise", f"127.0.0.1:{port}", "--log-level", "warning"),
            *("--lease", f"{lease:g}"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if "listening" not in line:
        raise RuntimeError(f"node {name} did not start: {line!r}")
    return proc, port


async def next_turn(client: Client, wait: float, *, attempts: int) -> bool:
    """Wait for `client`'s next turn, wherever it comes from: on its node, or on another after
    the connection is lost (reconnecting up to `attempts` times, 50 ms apart, and resuming).
    Whether the connection was lost on the way."""
    dropped = False
    while True:
        try:
            event = await client.next_event(wait)
        except ConnectionLost:
            dropped = True
            await reconnect(client, attempts=attempts, delay=0.05)
            if client.awaiting:
                return dropped
            continue
        if isinstance(event, TurnStart):
            return dropped


@contextlib.asynccontextmanager
async def cluster_database(folder: Path) -> AsyncIterator[tuple[Any, str, list[Any]]]:
    """A PostgreSQL (the pgserver package's) in `folder` with a new database for a cluster:
    (the PostgreSQL, the database's URL, a list of processes). On the way out the processes
    still running are killed, then PostgreSQL is stopped."""
    pg = PgCluster(folder / "pg")
    await asyncio.to_thread(pg.start)
    procs: list[subprocess.Popen[str] | subprocess.Popen[bytes]] = []
    try:
        yield pg, await asyncio.to_thread(pg.new_database), procs
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        await asyncio.to_thread(pg.stop)


async def first_turn(port: int) -> Client:
    """Our player, "ann" (the client library), at a 2-player table on 127.0.0.1:`port`
    against a random bot, once its first turn has begun."""
    client = await Client.connect("127.0.0.1", port, name="ann")
    await client.create_table(TableSettings(kind="sushi-go", players=2, turn_seconds=0))
    await client.add_bot("random")
    client.start_game()
    await client.wait_for(TurnStart, 30)
    return client


async def one_run(server: str, bots: int, folder: Path) -> tuple[float, float]:
    """(exit, pause) in milliseconds."""
    async with cluster_database(folder) as (_, url, procs):
        key = folder / "cluster.key"
        a, a_port = await asyncio.to_thread(start_node, server, url, key, "a")
        procs.append(a)
        for i in range(bots):
            procs.append(
                subprocess.Popen(
                    [
                        *(str(BIN / "sushigo-bot"), f"127.0.0.1:{a_port}", "--strategy"),
                        *("random", "--players", "4", "--name", f"bot{i}"),
                    ],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        client = await first_turn(a_port)
        await asyncio.sleep(3)  # the bots' tables play too
        b, _ = await asyncio.to_thread(start_node, server, url, key, "b")
        procs.append(b)
        await asyncio.sleep(2)  # b is live, and known to a
        exited = threading.Event()
        ended: list[float] = []

        def reap() -> None:
            os.waitpid(a.pid, 0)
            ended.append(time.perf_counter())
            exited.set()

        threading.Thread(target=reap, daemon=True).start()
        began = time.perf_counter()
        os.kill(a.pid, signal.SIGTERM)
        await next_turn(client, 30, attempts=100)  # our turn's move is made
        pause = time.perf_counter() - began
        await asyncio.to_thread(exited.wait, 30)
        await client.close()
        return (ended[0] - began) * 1000, pause * 1000


def main(argv: list[str] | None = None) -> int:
    doc = __doc__ or ""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--bots", type=int, default=16)
    parser.add_argument("--server", default=str(BIN / "sushigo-server"))
    args = parser.parse_args(argv)
    exits, pauses = [], []
    for run in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="sushigo-stop-") as tmp:
            exit_ms, pause_ms = asyncio.run(one_run(args.server, args.bots, Path(tmp)))
        exits.append(exit_ms)
        pauses.append(pause_ms)
        print(f"run {run + 1}: exit {exit_ms:.0f} ms, our player's pause {pause_ms:.0f} ms")
    print(
        f"median of {args.runs}: exit {statistics.median(exits):.0f} ms"
        f" (range {min(exits):.0f}-{max(exits):.0f}),"
        f" pause {statistics.median(pauses):.0f} ms"
        f" (range {min(pauses):.0f}-{max(pauses):.0f})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
