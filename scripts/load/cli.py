"""`scripts/loadtest.py`: one run and its report, or a series of them on a temporary
PostgreSQL (pgserver): a cluster by node count, or SQLite against PostgreSQL."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from .options import parse
from .report import compare, report
from .run import run
from .servers import ROOT


def main(argv: list[str] | None = None) -> int:
    """Run one load test and print its figures."""
    args, counts = parse(argv)
    if args.pgserver:
        return _both_backends(args)
    if counts and not args.db:
        return _on_pgserver(args, counts)
    figures = run(args)
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print(report(figures))
    return 0 if figures["errors"] == 0 else 1


def _on_pgserver(args: argparse.Namespace, counts: list[int]) -> int:
    """`run` on a temporary durable PostgreSQL (pgserver) on this machine, a cluster's: once per
    node count in `counts`, each on a fresh database, and then their turns/s compared."""
    sys.path.insert(0, str(ROOT / "tests"))
    from pgcluster import PgCluster  # type: ignore[import-not-found]  # noqa: PLC0415

    runs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="sushigo-pg-") as folder:
        cluster = PgCluster(Path(folder) / "pg")
        cluster.start(durable=True)
        try:
            for i, count in enumerate(counts):
                args.nodes = count
                args.db = cluster.new_database()
                figures = run(args, cluster.cpu_seconds)
                runs.append(figures)
                if len(counts) > 1:
                    print(f"== run {i + 1} of {len(counts)}: {count} node(s)", flush=True)
                print(json.dumps(figures, indent=2) if args.json else report(figures), flush=True)
        finally:
            cluster.stop()
    if len(counts) > 1:
        print(compare(runs))
    return 0 if all(figures["errors"] == 0 for figures in runs) else 1


def _both_backends(args: argparse.Namespace) -> int:
    """The same load on SQLite, then on a temporary PostgreSQL (pgserver's binaries, durable
    settings: fsync on) on this machine, each report, and PostgreSQL's figures as a share of
    SQLite's."""
    sys.path.insert(0, str(ROOT / "tests"))
    from pgcluster import PgCluster  # noqa: PLC0415

    results: dict[str, dict[str, Any]] = {}
    args.db = None
    results["sqlite"] = run(args)
    print("== SQLite\n" + report(results["sqlite"]), flush=True)
    with tempfile.TemporaryDirectory(prefix="sushigo-pg-") as folder:
        cluster = PgCluster(Path(folder) / "pg")
        cluster.start(durable=True)
        try:
            args.db = cluster.new_database()
            results["postgresql"] = run(args)
        finally:
            cluster.stop()
    print("== PostgreSQL\n" + report(results["postgresql"]))
    sqlite, pg = results["sqlite"], results["postgresql"]
    ratio = pg["turns_per_second_sustained"] / max(1e-9, sqlite["turns_per_second_sustained"])
    print(
        f"== PostgreSQL / SQLite: {100 * ratio:.0f}% of the sustained turns/s;"
        f" p99 {pg['latency_p99_ms']:.1f} ms against {sqlite['latency_p99_ms']:.1f} ms"
    )
    return 0 if sqlite["errors"] == 0 and pg["errors"] == 0 else 1
