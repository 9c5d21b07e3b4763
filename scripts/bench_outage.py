#!/usr/bin/env python3
"""What a player of a cluster sees while PostgreSQL is away: how long its game pauses, and
whether its table stays on its node or is dropped (its lease lapsed) and taken up again.

Each run starts a PostgreSQL (the pgserver package's) and two nodes (`--lease`, 10 s by
default), seats one player of our own (the client library) against a random bot on node a, and,
as its turn begins, makes its move and stops PostgreSQL ("fast": every connection cut) for
`--outage` seconds. Measured: from the move to the next turn's start (`paused`), of which after
PostgreSQL was back (`after`), and whether the player was sent off its node and resumed
(`dropped`). Usage:
    .venv/bin/python scripts/bench_outage.py [--outage S ...] [--lease L] [--server PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from bench_stop import cluster_database, first_turn, next_turn, start_node  # noqa: E402

BIN = Path(sys.executable).parent


async def one_run(
    server: str, outage: float, lease: float, folder: Path
) -> tuple[float, float, bool]:
    """(paused, after, dropped): seconds, seconds, whether the table was dropped."""
    async with cluster_database(folder) as (pg, url, procs):
        key = folder / "cluster.key"
        for name in ("a", "b"):
            proc, port = await asyncio.to_thread(start_node, server, url, key, name, lease)
            procs.append(proc)
            if name == "a":
                a_port = port
        client = await first_turn(a_port)
        await asyncio.sleep(2 * lease / 3)  # the node's renewals under way as in any moment
        began = time.perf_counter()
        client.pick(client.legal_actions()[0])
        await asyncio.to_thread(pg.stop)
        await asyncio.sleep(max(0.0, began + outage - time.perf_counter()))
        await asyncio.to_thread(pg.start)
        back = time.perf_counter()
        dropped = await next_turn(client, 120, attempts=200)
        end = time.perf_counter()
        await client.close()
        return end - began, end - back, dropped


def main(argv: list[str] | None = None) -> int:
    doc = __doc__ or ""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--outage", type=float, nargs="+", default=[3.0, 6.0, 12.0])
    parser.add_argument("--lease", type=float, default=10.0)
    parser.add_argument("--server", default=str(BIN / "sushigo-server"))
    args = parser.parse_args(argv)
    for outage in args.outage:
        with tempfile.TemporaryDirectory(prefix="sushigo-outage-") as tmp:
            paused, after, dropped = asyncio.run(
                one_run(args.server, outage, args.lease, Path(tmp))
            )
        what = "dropped and resumed" if dropped else "stayed on its node"
        print(
            f"outage {outage:g} s (lease {args.lease:g} s): the game paused {paused:.1f} s,"
            f" {after:.1f} s of it after PostgreSQL was back; the table {what}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
