"""A node's renewal (server/cluster/node.py) against the writes of its own storage: a table that
opens while the renewal runs keeps the lease its first commit gives it. (Under load a renewal that
read the node's tables before its transaction deleted such a lease as a table given up, and the
table's next writes were fenced: its game lost, its node alive.)"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

from nodes import cluster_key, query

from sushigo.server.cluster.node import Cluster
from sushigo.server.keys import load_or_create_server_key, public_key_bytes
from sushigo.server.storage.contract import PlayerResult
from sushigo.server.storage.postgres.storage import PgStorage


class Opening:
    """A node's tables (none yet) as the renewal reads them, a table opening at that moment: its
    first commit, which leases it, lands from the storage's connection (here another thread's)."""

    def __init__(self, url: str) -> None:
        self.url = url

    def _lease(self) -> None:
        sql = "INSERT INTO table_leases VALUES ('t-new', 'a', now() + interval '30 seconds')"
        asyncio.run(query(self.url, sql))

    def __iter__(self) -> Iterator[str]:
        writer = threading.Thread(target=self._lease)
        writer.start()
        writer.join()
        return iter(())

    def __len__(self) -> int:
        return 0

    def __contains__(self, table_id: object) -> bool:
        return False


async def test_a_table_opened_as_its_node_renews_keeps_its_lease(
    pg_url: str, tmp_path: Path
) -> None:
    PgStorage(pg_url).close()  # the schema
    key = public_key_bytes(load_or_create_server_key(cluster_key(tmp_path)))
    cluster = Cluster(
        pg_url, node="a", address="127.0.0.1:1", server_key=key, protocol="2.4", lease=30
    )
    await cluster.join()
    try:
        assert await cluster.renew(Opening(pg_url)) == []
        rows = await query(pg_url, "SELECT node FROM table_leases WHERE table_id = 't-new'")
        assert [r["node"] for r in rows] == ["a"]
        # A lease the node holds is renewed.
        await query(pg_url, "UPDATE table_leases SET lease_expires = now() + interval '1 s'")
        assert await cluster.renew(["t-new"]) == []
        sql = "SELECT lease_expires > now() + interval '20 s' FROM table_leases"
        assert [r[0] for r in await query(pg_url, sql)] == [True]
        # A lease of a table the node gave up (closed before its game began) does go.
        await query(pg_url, "UPDATE table_leases SET lease_expires = now() + interval '10 s'")
        assert await cluster.renew([]) == []
        assert not await query(pg_url, "SELECT 1 FROM table_leases")
    finally:
        await cluster.close()


@asynccontextmanager
async def writing_node(url: str, folder: Path) -> AsyncIterator[tuple[Cluster, PgStorage]]:
    """Node a of the cluster on `url` (joined, with a lease of 30 s), and its own storage, whose
    writes it holds until flushed (write-behind, as a node's); both closed at the end."""
    storage = PgStorage(url, write_behind=True)  # the schema, and the node's own writes
    key = public_key_bytes(load_or_create_server_key(cluster_key(folder)))
    cluster = Cluster(
        url, node="a", address="127.0.0.1:1", server_key=key, protocol="2.4", lease=30
    )
    cluster.storage = storage
    await cluster.join()
    try:
        yield cluster, storage
    finally:
        await cluster.close()
        storage.close()


async def test_a_table_dropped_at_a_lapse_keeps_its_lease_while_its_writes_land(
    pg_url: str, tmp_path: Path
) -> None:
    """A node dropped a table as its lease lapsed (the database away) when the table's first
    commit had leased it and the rest of its writes (its game's start, the seats' tokens) were
    still to land: its first renewal once the database is back leaves that lease be. (It deleted
    it, as the lease of a table given up before its game began; the writes that followed were
    fenced out for want of it, and the game was lost.)"""
    async with writing_node(pg_url, tmp_path) as (cluster, storage):
        await query(pg_url, "INSERT INTO table_leases VALUES ('t', 'a', now() + interval '10 s')")
        storage.delete_token(bytes(32))  # a write of the node's still held
        cluster.dropped(["t"], storage.mark)
        assert await cluster.renew([]) == []
        rows = await query(pg_url, "SELECT node FROM table_leases WHERE table_id = 't'")
        assert [r["node"] for r in rows] == ["a"]
        # Once they are in, a table whose game never began gives its lease up as ever.
        storage.flush(wait=True)
        assert await cluster.renew([]) == []
        assert not await query(pg_url, "SELECT 1 FROM table_leases")


async def test_a_table_whose_game_ended_is_not_taken_up_again_while_its_end_lands(
    pg_url: str, tmp_path: Path
) -> None:
    """A table of the node's whose game has just ended, its record (which retires the table's
    saved state) held and not yet committed, is not taken up again by the node's renewal. (It
    was: its lease still named the node and its state was still saved, as for a table handed
    to it, so the node restored it and played its last turn again, waiting for players gone on
    to their next game; after that node died, a tournament's entrant resuming by its token was
    sent to that table, not to its own game, which waited its turn timer out.)"""
    async with writing_node(pg_url, tmp_path) as (cluster, storage):
        for table_id in ("ended", "closed"):
            storage.save_table(table_id, b"state", [b"turn"])
            sql = f"INSERT INTO table_leases VALUES ('{table_id}', 'a', now() + interval '10 s')"
            await query(pg_url, sql)
        storage.flush(wait=True)
        players = [PlayerResult(None, "x", 0, 40, 1), PlayerResult(None, "y", 1, 30, 2)]
        storage.finish_game("ended", "g", "sushi-go", b"rec", b"sig", players, finished_ms=1)
        storage.delete_table("closed")  # (a table closed by the lobby retires it alike)
        assert await cluster.adopt([]) == []
        storage.flush(wait=True)
        assert await cluster.adopt([]) == []
        assert not await query(pg_url, "SELECT 1 FROM tables_in_progress")
        # A table handed to the node is taken up as ever.
        storage.save_table("handed", b"state", [b"turn"])
        storage.flush(wait=True)
        await query(pg_url, "INSERT INTO table_leases VALUES ('handed', 'a', now())")
        assert [t for t, _ in await cluster.adopt([])] == ["handed"]


def test_a_server_alone_keeps_no_table_whose_retirement_is_durable(pg_url: str) -> None:
    """A server on PostgreSQL with no cluster (nobody asks for `retiring_tables`) holds only the
    tables whose retirement is still to land, however many it has retired."""
    storage = PgStorage(pg_url, write_behind=True)
    try:
        for n in range(20):
            storage.save_table(f"t{n}", b"state", [b"turn"])
            storage.delete_table(f"t{n}")
            storage.flush(wait=True)
        storage.delete_table("last")
        assert list(storage._retiring) == ["last"]
        assert storage.retiring_tables() == ["last"]
        storage.flush(wait=True)
        assert storage.retiring_tables() == []
    finally:
        storage.close()


async def test_a_node_joining_again_forgets_what_its_last_run_published(
    pg_url: str, tmp_path: Path
) -> None:
    """A node killed (SIGKILL) and started again under its name: what its last run published
    (a quick-match table with a player waiting, its lobby listing) is gone once it has joined,
    before its first publication. (Left, with the node's lease live again, the cluster's matcher
    counted the table as waiting, and moved players to a table no node had: a chaos run, seed
    8675309, saw two players kept apart for 10 s.)"""
    PgStorage(pg_url).close()  # the schema
    key = public_key_bytes(load_or_create_server_key(cluster_key(tmp_path)))
    await query(
        pg_url,
        "INSERT INTO quick_tables (table_id, node, kind, players, free) "
        "VALUES ('gone', 'a', 'sushi-go', 2, 1)",
    )
    await query(
        pg_url,
        "INSERT INTO listed_tables (table_id, node, kind, status, info) "
        "VALUES ('gone', 'a', 'sushi-go', 'open', '\\x80')",
    )
    await query(
        pg_url,
        "INSERT INTO quick_tables (table_id, node, kind, players, free) "
        "VALUES ('kept', 'b', 'sushi-go', 2, 1)",
    )
    cluster = Cluster(
        pg_url, node="a", address="127.0.0.1:1", server_key=key, protocol="2.4", lease=30
    )
    await cluster.join()
    try:
        rows = await query(pg_url, "SELECT table_id FROM quick_tables")
        assert [r["table_id"] for r in rows] == ["kept"]
        assert not await query(pg_url, "SELECT 1 FROM listed_tables")
    finally:
        await cluster.close()
