#!/usr/bin/env python3
"""SqliteStorage speed: `SqliteStorage.save_table` calls per second on a file database (WAL, NORMAL sync).

Each call is one committed transaction upserting a 2-4 KB state blob for one of `--tables`
tables in rotation, as the server does at every turn boundary. The database lives in a fresh
temporary directory (or --dir). Usage:
    .venv/bin/python scripts/bench_storage.py [--seconds S] [--tables N] [--dir DIR]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

# Run as a file, the script's own folder is on sys.path, not the repository root.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sushigo.server.sqlite_storage import SqliteStorage


def bench(path: Path, seconds: float, tables: int) -> tuple[int, float]:
    """Save table states for about `seconds`; returns (calls, elapsed seconds)."""
    rng = random.Random(1)
    # Incompressible-ish blobs of realistic size (msgpack'd hands, tableaus and commitments).
    blobs = [rng.randbytes(rng.randint(2048, 4096)) for _ in range(64)]
    ids = [f"table-{n:05d}" for n in range(tables)]
    with SqliteStorage(path) as storage:
        for table_id in ids:
            storage.save_table(table_id, blobs[0])
        calls = 0
        start = time.perf_counter()
        deadline = start + seconds
        while True:
            for _ in range(200):
                storage.save_table(ids[calls % tables], blobs[calls % len(blobs)])
                calls += 1
            now = time.perf_counter()
            if now >= deadline:
                return calls, now - start


def main(argv: list[str] | None = None) -> int:
    doc = __doc__ or ""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="how long to measure")
    parser.add_argument("--tables", type=int, default=1000, help="distinct tables in rotation")
    parser.add_argument("--dir", type=Path, help="directory for the database (default: a temp dir)")
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.tables <= 0:
        parser.error("--seconds and --tables must be positive")
    with tempfile.TemporaryDirectory(dir=args.dir) as folder:
        path = Path(folder) / "bench.db"
        calls, elapsed = bench(path, args.seconds, args.tables)
        size = sum(p.stat().st_size for p in Path(folder).iterdir())
    rate = calls / elapsed
    print(
        f"save_table: {rate:,.0f} calls/s ({calls:,} in {elapsed:.2f} s, 2-4 KB states, "
        f"{args.tables} tables, {size / 1e6:.1f} MB on disk, pid {os.getpid()})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
