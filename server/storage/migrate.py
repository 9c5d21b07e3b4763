"""`sushigo-server migrate --from PATH --to URL`: copy an SQLite database into PostgreSQL.

    sushigo-server migrate --from ~/.local/share/sushigo/server.db \\
        --to postgresql://sushigo:secret@db.example:5432/sushigo

Everything is copied in one PostgreSQL transaction: finished games (their records and signatures
byte for byte, so every one still verifies), results, identities, ratings of every game kind,
tables in progress (each as its whole saved state), reconnect tokens, bans and mutes, the admins'
audit log, aborted games and tournaments. The target must be empty
(a new database, or one with only the schema); the source is opened as the server would open it,
so an older SQLite schema is upgraded first. Stop the server before migrating, copy its key file
too (``server.db.key``; with PostgreSQL, give it to the server with ``--key``), and start the
server with ``--db URL``. Exit codes: 0 copied and checked, 1 otherwise, 2 usage, 130 after
Ctrl-C (the target is left part-filled: empty it before trying again), with one line.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sushigo.protocol.about import interrupted, version_text

from .contract import StorageError
from .database import is_url
from .postgres.storage import PgStorage
from .sqlite.storage import SqliteStorage

__all__ = ["main", "migrate"]

_TABLES = (
    "records",
    "results",
    "identities",
    "ratings",
    "tables_in_progress",
    "tokens",
    "sanctions",
    "audit_log",
    "aborted_games",
    "aborted_results",
    "tournaments",
)
"""What is copied, in an order foreign keys allow."""


def migrate(source: str, target: str) -> dict[str, int]:
    """Copy the SQLite database at `source` into the empty PostgreSQL database at `target`, and
    check the copy (row counts, and every record and signature byte for byte). The rows copied
    per table. `StorageError` (one line) if anything fails: the target is then left as it was."""
    with SqliteStorage(source, exclusive=True) as sqlite:
        conn = sqlite._conn
        rows: dict[str, list[tuple[object, ...]]] = {
            "records": conn.execute(
                "SELECT game_id, table_id, kind, finished_ms, record, signature, server_key "
                "FROM records"
            ).fetchall(),
            "results": conn.execute(
                "SELECT game_id, seat, player_id, name, score, place FROM results"
            ).fetchall(),
            "identities": conn.execute(
                "SELECT player_id, public_key, name, first_seen_ms, last_seen_ms, name_key "
                "FROM identities"
            ).fetchall(),
            "ratings": conn.execute("SELECT kind, player_id, mu, sigma FROM ratings").fetchall(),
            "tables_in_progress": list(sqlite.load_tables()),
            "tokens": conn.execute(
                "SELECT token_hash, table_id, seat, expires_ms FROM tokens"
            ).fetchall(),
            "sanctions": conn.execute(
                "SELECT kind, target, reason, admin, created_ms, expires_ms FROM sanctions"
            ).fetchall(),
            "audit_log": conn.execute(
                "SELECT id, at_ms, admin, action, target, detail FROM audit_log"
            ).fetchall(),
            "aborted_games": conn.execute(
                "SELECT game_id, table_id, kind, aborted_ms, record, signature, reason "
                "FROM aborted_games"
            ).fetchall(),
            "aborted_results": conn.execute(
                "SELECT game_id, seat, player_id, name, score, place FROM aborted_results"
            ).fetchall(),
            # A lone server's (no node), in the order made.
            "tournaments": [
                (name, "", state, made)
                for made, (name, state) in enumerate(sqlite.load_tournaments(), 1)
            ],
        }
        signed = {row[0]: (row[4], row[5]) for row in rows["records"]}
    with PgStorage(target, exclusive=True) as pg:
        pg.copy_in({name: rows[name] for name in _TABLES})
        counts = pg.count_rows(_TABLES)
        for game_id, (record, signature) in signed.items():
            stored = pg.get_record(str(game_id))
            if stored is None or (stored.record, stored.signature) != (record, signature):
                raise StorageError(pg.path, f"game {game_id} did not copy intact")
    for name in _TABLES:
        if counts[name] != len(rows[name]):
            raise StorageError(
                target, f"{name}: {counts[name]} rows in PostgreSQL, {len(rows[name])} in SQLite"
            )
    return counts


def main(argv: list[str]) -> int:
    """Entry point of `sushigo-server migrate`."""
    p = argparse.ArgumentParser(
        prog="sushigo-server migrate",
        description="Copy a server's SQLite database into an empty PostgreSQL database.",
    )
    p.add_argument("--version", action="version", version=version_text("sushigo-server"))
    p.add_argument("--from", dest="source", required=True, metavar="PATH", help="SQLite file")
    p.add_argument(
        "--to",
        dest="target",
        required=True,
        metavar="URL",
        help="postgresql://user:password@host:port/dbname (an empty database)",
    )
    args = p.parse_args(argv)
    if not is_url(args.target):
        p.error(f"--to must be a PostgreSQL URL (postgresql://...), not {args.target!r}")
    if not Path(args.source).is_file():
        print(
            f"sushigo-server migrate: error: no SQLite database at {args.source}", file=sys.stderr
        )
        return 1
    try:
        counts = migrate(args.source, args.target)
    except StorageError as exc:
        print(f"sushigo-server migrate: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return interrupted("sushigo-server migrate")
    print(
        "copied "
        + ", ".join(f"{counts[name]} {name.replace('_', ' ')}" for name in _TABLES)
        + "; every record and signature checked"
    )
    return 0
