"""Nodes joining a cluster (stage 2 of the cluster issue): real `sushigo-server --node` processes
on one PostgreSQL. Nodes register with leases of the database's clock and renew them; a table in
play gets a lease naming its node; a node that differs from the live ones (another key, another
protocol version, its name taken at another address) is refused in one line, exit 1, and the
cluster goes on untouched; `--node` on SQLite is refused in one line."""

from __future__ import annotations

import asyncio
from pathlib import Path

from nodes import (
    LEASE,
    cluster_key,
    eventually,
    game_begun,
    query,
    refused,
    server_run,
    started_two,
)

from sushigo.client.connection import Client
from sushigo.protocol import CURRENT_VERSION, TurnStart
from sushigo.server.keys import load_or_create_server_key, public_key_bytes


async def test_nodes_join_lease_and_refuse_strangers(pg_url: str, tmp_path: Path) -> None:
    key = cluster_key(tmp_path)
    a, b = await started_two(pg_url, tmp_path)
    try:
        rows = await query(
            pg_url,
            "SELECT name, address, protocol, lease_expires > now(), "
            "lease_expires <= now() + make_interval(secs => $1) FROM cluster_nodes ORDER BY name",
            LEASE,
        )
        assert [tuple(r) for r in rows] == [
            ("a", f"127.0.0.1:{a.port}", str(CURRENT_VERSION), True, True),
            ("b", f"127.0.0.1:{b.port}", str(CURRENT_VERSION), True, True),
        ]

        # A game on node a: its table is leased to a, and the lease is renewed.
        client = await Client.connect("127.0.0.1", a.port, name="ann")
        try:
            table_id = await game_begun(client)

            async def leased() -> list[object] | None:
                rows = await query(
                    pg_url,
                    "SELECT node, lease_expires FROM table_leases WHERE table_id = $1",
                    table_id,
                )
                return [rows[0]["node"], rows[0]["lease_expires"]] if rows else None

            owner, first = await eventually(leased)
            assert owner == "a"

            async def renewed() -> bool:
                now = await leased()
                return now is not None and now[1] > first

            await eventually(renewed)

            # Strangers are refused, and nothing of the cluster changes.
            before = await query(pg_url, "SELECT name, address, server_key FROM cluster_nodes")
            code, out = refused(pg_url, tmp_path / "other.key", "c")
            assert code == 1 and "signs with another server key" in out, out
            assert len(out.strip().splitlines()) == 1, out
            await query(
                pg_url,
                "INSERT INTO cluster_nodes VALUES ('old', '127.0.0.1:1', $1, '2.3', now(), "
                "now() + interval '1 hour', 0)",
                public_key_bytes(load_or_create_server_key(key)),
            )
            code, out = refused(pg_url, key, "c")
            assert code == 1 and "node 'old' speaks protocol 2.3" in out, out
            await query(pg_url, "DELETE FROM cluster_nodes WHERE name = 'old'")
            code, out = refused(pg_url, key, "a")
            assert code == 1 and "node 'a' is already running" in out, out
            after = await query(pg_url, "SELECT name, address, server_key FROM cluster_nodes")
            assert sorted(map(tuple, after)) == sorted(map(tuple, before))

            # ... and play goes on at node a.
            assert client.awaiting
            client.pick(client.legal_actions()[0])
            await client.wait_for(TurnStart, 10)
        finally:
            await client.close()
    finally:
        await asyncio.gather(a.stop(), b.stop())


def test_node_on_sqlite_is_refused(tmp_path: Path) -> None:
    done = server_run(
        *("--port", "0", "--db", str(tmp_path / "s.db"), "--node", "a"),
        *("--advertise", "127.0.0.1:7777"),
    )
    assert done.returncode == 1
    assert done.stderr.strip() == (
        f"sushigo-server: error: {tmp_path / 's.db'}: --node needs a PostgreSQL --db: "
        "a cluster's nodes share one"
    ), done.stderr
