"""Each finished game keeps the public key that signed it (schema 14), so `sushigo-replay --db`
verifies a server's records with nothing but its database: no key file, on either backend.

The databases here were made by the version before (schema 12: tests/server/data, two games each,
made by that version's `sushigo-server` and `sushigo-bot`, the PostgreSQL one dumped with
`pg_dump --inserts`). The new server opens each (it upgrades the schema and stores its key with
the records its key signed), plays one game more (stored with its key), and is stopped; then the
key file is gone, and `sushigo-replay` lists the three games as verified and shows one. A record
whose signature was changed is listed as not verified (and the listing exits 1)."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
from pathlib import Path

import asyncpg
import pytest
from processes import ServerProcess, bots_output, start_bots

DATA = Path(__file__).with_name("data")
REPLAY = Path(sys.executable).with_name("sushigo-replay")


def replay(db: str, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`sushigo-replay --db DB ARGS` as a user whose home holds no key file."""
    env = {**os.environ, "HOME": str(home), "XDG_DATA_HOME": str(home / "data")}
    return subprocess.run(
        [str(REPLAY), "--db", db, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


async def play_one_more(db_args: tuple[str, ...]) -> bytes:
    """The upgraded server, a real process, plays one more game (two bots), then stops; what it
    logged."""
    server = ServerProcess(db_args, ("--log-level", "info"))
    await server.start()
    try:
        bots = await start_bots(server.port, games=1, count=2, players=2)
        outputs = await bots_output(bots, timeout=60)
        assert all(bot.returncode == 0 for bot in bots), outputs
        assert await server.terminate() == 0
    finally:
        await server.stop()
    return server.log


def check_listing(db: str, home: Path) -> list[str]:
    listed = replay(db, home)
    assert listed.returncode == 0, listed.stdout + listed.stderr
    lines = listed.stdout.splitlines()
    assert len(lines) == 3 and all(line.endswith("  verified") for line in lines), lines
    shown = replay(db, home, lines[-1].split()[0])  # the oldest: one made before keys were kept
    assert shown.returncode == 0, shown.stdout + shown.stderr
    assert "verified: signature" in shown.stdout
    return lines


async def test_an_sqlite_database_of_the_version_before_verifies_without_its_key_file(
    tmp_path: Path,
) -> None:
    db = tmp_path / "server.db"
    shutil.copy(DATA / "schema12.db", db)
    key = tmp_path / "server.db.key"  # where the server looks for it, beside the database
    shutil.copy(DATA / "schema12.db.key", key)
    log = await play_one_more(("--db", str(db)))
    key.unlink()
    lines = check_listing(str(db), tmp_path / "home")
    assert b"stored the signing key with 2 earlier records" in log

    forged = lines[0].split()[0]
    another_signature = "UPDATE records SET signature = zeroblob(64) WHERE game_id = ?"
    await asyncio.to_thread(_sqlite, db, another_signature, forged)
    listed = replay(str(db), tmp_path / "home")
    assert listed.returncode == 1, listed.stdout + listed.stderr
    assert [line.split()[0] for line in listed.stdout.splitlines() if "NOT VERIFIED" in line] == [
        forged
    ]


def _sqlite(db: Path, statement: str, *args: str) -> None:
    import sqlite3  # noqa: PLC0415

    with sqlite3.connect(db) as conn:
        conn.execute(statement, args)


async def test_a_postgresql_database_of_the_version_before_verifies_without_its_key_file(
    tmp_path: Path, pg_url: str
) -> None:
    conn = await asyncpg.connect(pg_url)
    try:
        await conn.execute((DATA / "schema12-pg.sql").read_text())
        assert await conn.fetchval("SELECT version FROM public.sushigo_schema") == 12
    finally:
        await conn.close()
    key = tmp_path / "server.key"
    shutil.copy(DATA / "schema12-pg.key", key)
    log = await play_one_more(("--db", pg_url, "--key", str(key)))
    key.unlink()
    check_listing(pg_url, tmp_path / "home")
    assert b"stored the signing key with 2 earlier records" in log


@pytest.mark.parametrize("name", ["schema12.db", "schema12-pg.sql"])
def test_the_databases_of_the_version_before_hold_two_games(name: str) -> None:
    """The fixtures are what their docstring says (and carry no key with their records)."""
    if name.endswith(".db"):
        import sqlite3  # noqa: PLC0415

        with sqlite3.connect(DATA / name) as conn:
            assert conn.execute("PRAGMA user_version").fetchone() == (12,)
            assert conn.execute("SELECT count(*) FROM records").fetchone() == (2,)
            columns = [row[1] for row in conn.execute("PRAGMA table_info(records)")]
        assert "server_key" not in columns
    else:
        text = (DATA / name).read_text()
        assert text.count("INSERT INTO public.records VALUES") == 2
        records = text.split("CREATE TABLE public.records (", 1)[1].split(");", 1)[0]
        assert "server_key" not in records
