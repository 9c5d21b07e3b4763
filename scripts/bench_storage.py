#!/usr/bin/env python3
"""Storage speed on both backends, as the server writes: turns per second through write-behind.

Each "turn" appends one ~300-byte step to one of `--tables` tables in rotation (what the server
writes at every turn boundary); every `--batch` turns the held writes are committed in one
transaction, and the run waits until they are durable (the server waits so before it sends the
turn's results). Each game's table gets a whole save first. Measured on SQLite (a file in a
temporary directory) and on PostgreSQL: the URL given by --db, or with --pgserver a temporary
PostgreSQL from the pgserver package, at its default, durable settings (fsync on), on this machine.

--drivers also times the two asyncio drivers for PostgreSQL on the same batches, bare: asyncpg
(which the server uses) and psycopg 3 in async mode (if installed). Usage:
    .venv/bin/python scripts/bench_storage.py [--seconds S] [--batch N] [--pgserver] [--drivers]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# Run as a file, the script's own folder is on sys.path, not the repository root.
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sushigo.server.storage.database import open_storage  # noqa: E402


def bench(db: str, seconds: float, tables: int, batch: int) -> tuple[int, float, float]:
    """Turns for about `seconds`: (turns, elapsed seconds, worst commit in ms)."""
    rng = random.Random(1)
    steps = [rng.randbytes(rng.randint(200, 400)) for _ in range(64)]
    ids = [f"table-{n:05d}" for n in range(tables)]
    turns_of = dict.fromkeys(ids, 0)
    storage = open_storage(db, exclusive=True, write_behind=True)
    try:
        for table_id in ids:
            storage.save_table(table_id, b"head" * 100)
        storage.flush(wait=True)
        turns, worst = 0, 0.0
        start = time.perf_counter()
        deadline = start + seconds
        while True:
            for _ in range(batch):
                table_id = ids[turns % tables]
                n = turns_of[table_id]
                if n == 30:  # a game over: the next one starts with a whole save
                    storage.save_table(table_id, b"head" * 100)
                    n = 0
                storage.append_turns(table_id, n, [steps[turns % len(steps)]])
                turns_of[table_id] = n + 1
                turns += 1
            began = time.perf_counter()
            storage.flush(wait=True)
            now = time.perf_counter()
            worst = max(worst, now - began)
            if now >= deadline:
                return turns, now - start, worst * 1000
    finally:
        storage.close()


async def drivers(url: str, seconds: float, batch: int) -> dict[str, float]:
    """Batches of `batch` appended turns per transaction, per second, for each driver."""
    rows = [(f"t{n % 500}", n, b"x" * 300) for n in range(batch)]
    ddl = (
        "CREATE TABLE IF NOT EXISTS bench_turns (table_id text, n integer, value bytea, "
        "PRIMARY KEY (table_id, n))"
    )
    upsert = (
        "INSERT INTO bench_turns VALUES ({}) ON CONFLICT (table_id, n) DO UPDATE "
        "SET value = excluded.value"
    )
    found: dict[str, float] = {}
    import asyncpg  # noqa: PLC0415

    conn: Any = await asyncpg.connect(url)
    await conn.execute(ddl)
    count, deadline = 0, time.perf_counter() + seconds
    start = time.perf_counter()
    while time.perf_counter() < deadline:
        async with conn.transaction():
            await conn.executemany(upsert.format("$1, $2, $3"), rows)
        count += 1
    found["asyncpg"] = count * batch / (time.perf_counter() - start)
    await conn.close()
    try:
        # Optional (pip install 'psycopg[binary]'): only this comparison uses it.
        psycopg: Any = importlib.import_module("psycopg")
    except ImportError:
        return found
    aconn: Any = await psycopg.AsyncConnection.connect(url)
    count, deadline = 0, time.perf_counter() + seconds
    start = time.perf_counter()
    while time.perf_counter() < deadline:
        async with aconn.transaction(), aconn.cursor() as cur:
            await cur.executemany(upsert.format("%s, %s, %s"), rows)
        count += 1
    found["psycopg"] = count * batch / (time.perf_counter() - start)
    await aconn.close()
    return found


def main(argv: list[str] | None = None) -> int:
    doc = __doc__ or ""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="how long to measure each")
    parser.add_argument("--tables", type=int, default=1000, help="tables played side by side")
    parser.add_argument("--batch", type=int, default=64, help="turns per commit")
    parser.add_argument("--db", action="append", default=[], help="a PostgreSQL URL to measure")
    parser.add_argument(
        "--pgserver", action="store_true", help="also a temporary PostgreSQL (pgserver package)"
    )
    parser.add_argument("--drivers", action="store_true", help="asyncpg against psycopg 3")
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.tables <= 0 or args.batch <= 0:
        parser.error("--seconds, --tables and --batch must be positive")
    with tempfile.TemporaryDirectory() as folder:
        targets = [str(Path(folder) / "bench.db"), *args.db]
        cluster = None
        if args.pgserver:
            sys.path.insert(0, str(ROOT / "tests"))
            from pgcluster import PgCluster  # type: ignore[import-not-found]  # noqa: PLC0415

            cluster = PgCluster(Path(folder) / "pg")
            cluster.start(durable=True)
            targets.append(cluster.new_database())
        try:
            for db in targets:
                turns, elapsed, worst = bench(db, args.seconds, args.tables, args.batch)
                name = "postgresql" if db.startswith("postgres") else "sqlite"
                print(
                    f"{name:10} {turns / elapsed:9,.0f} turns/s  ({turns:,} turns in "
                    f"{elapsed:.2f} s, {args.batch} a commit, slowest commit {worst:.1f} ms)"
                )
            if args.drivers:
                for db in targets[1:]:
                    for driver, rate in asyncio.run(drivers(db, args.seconds, args.batch)).items():
                        print(
                            f"{driver:10} {rate:9,.0f} turns/s  (bare driver, {args.batch} a commit)"
                        )
        finally:
            if cluster is not None:
                cluster.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
