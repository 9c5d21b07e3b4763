"""PostgreSQL going wrong, each case against a real server (tests/pgcluster.py).

At start: an unreachable server, a wrong password, a database whose schema is newer than the code,
another program's database: one clear line and exit code 1, from `sushigo-server` and
`sushigo-replay` alike. Mid-game: PostgreSQL stopped and started again. The games go on in memory,
the writes are retried with back-off, one line is logged for the outage (and one when it ends),
no new table starts meanwhile (the player is told why), and when it is back every turn and the
finished game are stored: the record in the database is the one the players verified."""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
from pathlib import Path

import asyncpg
import pytest
from pg_fault_helpers import finish_once_back, stored_and_verified, watched_server
from pgcluster import PgCluster, free_port, own_postgresql
from processes import http_get
from server_helpers import card_settings
from socket_helpers import refusal, turns, two_at_a_game

from sushigo.client.connection import Client
from sushigo.protocol import ErrorCode
from sushigo.server.storage.contract import StorageError
from sushigo.server.storage.postgres.schema import SCHEMA_VERSION
from sushigo.server.storage.postgres.storage import PgStorage

BIN = Path(sys.executable).parent


def run(command: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / command), *args],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def newer_schema(cluster: PgCluster) -> str:
    url = cluster.new_database()
    PgStorage(url).close()
    cluster.sql(
        f"UPDATE sushigo_schema SET version = {SCHEMA_VERSION + 1}", database=url.rsplit("/", 1)[1]
    )
    return url


def foreign(cluster: PgCluster) -> str:
    url = cluster.new_database()
    cluster.sql("CREATE TABLE photos (id integer)", database=url.rsplit("/", 1)[1])
    return url


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("unreachable", "connection refused"),
        ("password", "password authentication failed"),
        ("no database", 'database "nowhere" does not exist'),
        ("newer", f"schema version {SCHEMA_VERSION + 1} is newer than this program supports"),
        ("foreign", "not a sushigo database"),
    ],
)
def test_a_database_that_cannot_be_used_stops_both_commands_with_one_line(
    pg_cluster: PgCluster, tmp_path: Path, case: str, expected: str
) -> None:
    urls = {
        "unreachable": f"postgresql://postgres:x@127.0.0.1:{free_port()}/sushigo",
        "password": pg_cluster.url("postgres", password="wrong-password"),
        "no database": pg_cluster.url("nowhere"),
    }
    url = urls[case] if case in urls else (newer_schema if case == "newer" else foreign)(pg_cluster)
    key = str(tmp_path / "server.key")
    for done in (
        run("sushigo-server", "--port", "0", "--db", url, "--key", key),
        run("sushigo-replay", "--db", url, "--key", key),
    ):
        assert done.returncode == 1, done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1, done.stderr
        assert expected in lines[0]
        assert "error:" in lines[0]
        assert "wrong-password" not in lines[0]  # the URL is shown without its password


def test_a_bad_url_is_one_line_too(tmp_path: Path) -> None:
    with pytest.raises(StorageError, match="postgresql://"):
        PgStorage("postgresql://user@host:notaport/db")
    done = run("sushigo-server", "--port", "0", "--db", "postgresql://u@h:99999/db")
    assert done.returncode == 1
    assert len(done.stderr.strip().splitlines()) == 1


# --- PostgreSQL away mid-game ----------------------------------------------------------------------


async def test_postgresql_stopped_mid_game_then_back_loses_no_turn(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="sushigo.server")
    async with own_postgresql() as (cluster, url):
        async with watched_server(url) as (storage, port, metrics_port):
            assert await http_get("127.0.0.1", metrics_port, "/readyz") == (200, "ready\n")
            players = await two_at_a_game(port)
            await turns(players, 3)  # three turns saved as usual
            assert not storage.failing

            await asyncio.to_thread(cluster.stop)
            await turns(players, 4)  # the game goes on in memory
            assert storage.failing
            assert storage.durable < storage.mark  # held, or being tried
            not_ready = (503, "not ready: the database is unreachable\n")
            assert await http_get("127.0.0.1", metrics_port, "/readyz") == not_ready
            _, text = await http_get("127.0.0.1", metrics_port, "/metrics")
            assert "\nsushigo_storage_failing 1.0\n" in text
            assert '\nsushigo_storage_fault{kind="unreachable"} 1.0\n' in text
            late = await Client.connect("127.0.0.1", port, name="late")
            refused = await refusal(late.create_table(card_settings(2, turn_seconds=60)))
            assert refused.code is ErrorCode.INTERNAL_ERROR
            assert "database is unreachable" in str(refused)

            await asyncio.to_thread(cluster.start)
            await asyncio.to_thread(storage.flush, wait=True)  # or wait for the next retry
            assert not storage.failing
            with PgStorage(url) as look:  # the seven turns played so far are all there
                assert look.count_rows(["tables_in_progress", "table_turns"]) == {
                    "tables_in_progress": 1,
                    "table_turns": 7,
                }
            played = await finish_once_back(storage, players, late, metrics_port)

        outage = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
        assert len(outage) == 2, outage  # one line when it went away, one when it came back
        assert outage[0].startswith(
            f"cannot save to {storage.path} (the database is unreachable): "
        )
        assert "retrying until it is back" in outage[0]
        assert outage[1].startswith(f"saving to {storage.path} works again after ")
        record = stored_and_verified(url, players, played)
        assert len(record.steps) == 30  # every turn, those played while PostgreSQL was away too
        with PgStorage(url) as again:
            assert again.load_tables() == []


async def test_the_password_is_never_logged(pg_url: str) -> None:
    conn = await asyncpg.connect(pg_url)
    await conn.close()
    storage = PgStorage(pg_url)
    try:
        assert ":***@" in storage.path
        assert pg_url.split(":")[2].split("@", maxsplit=1)[0] not in storage.path
    finally:
        storage.close()
