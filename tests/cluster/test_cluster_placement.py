"""New tables go to the least-loaded node (server/routing/placement.py), on two real nodes.

Node a holds five tables, node b none: a player on a who creates a table is redirected to b with
a ticket for the new table, and the client library follows by itself (seated at b, as the same
identity, at seat 0 as its host). A quick match opens its table on the node asked (the cluster's
matcher merges the nodes' waiting tables). A ticket for a new table is good once, on its node
only, and not when forged."""

from __future__ import annotations

import asyncio
from pathlib import Path

from nodes import bring, eventually, forgery_refused, knowing, query, ticket_refused, two_nodes

from sushigo.client.connection import Client
from sushigo.protocol import (
    CreateTable,
    ErrorCode,
    Redirect,
    TableJoined,
    TableSettings,
)

SETTINGS = TableSettings(kind="sushi-go", players=3)


async def test_new_tables_go_to_the_least_loaded_node(pg_url: str, tmp_path: Path) -> None:
    a, b = two_nodes(pg_url, tmp_path)
    await a.start()
    clients: list[Client] = []
    try:
        for i in range(5):  # a alone: every table is a's
            clients.append(await Client.connect("127.0.0.1", a.port, name=f"p{i}"))
            await clients[-1].create_table(SETTINGS)
        await b.start()

        dan = await eventually(lambda: knowing(a.port, "dan", 2))
        clients.append(dan)
        joined = await dan.create_table(SETTINGS)
        table_id = joined.table.table_id
        assert (dan.port, joined.seat, dan.name) == (b.port, 0, "dan")
        assert joined.table.host == dan.player_id

        async def leased_to_b() -> bool:
            rows = await query(
                pg_url, "SELECT node FROM table_leases WHERE table_id = $1", table_id
            )
            return [r["node"] for r in rows] == ["b"]

        await eventually(leased_to_b)

        # A quick match opens its table where it is asked, with no question to another node:
        # players spread over the nodes are merged later (`server.routing.matching`).
        fay = await Client.connect("127.0.0.1", a.port, name="fay")
        clients.append(fay)
        quick = await fay.quick_match(2, "sushi-roll")
        assert (fay.port, quick.seat) == (a.port, 0)

        # eve's redirect, looked at by hand: a ticket for a new table, on b only, once.
        eve = await Client.connect("127.0.0.1", a.port, name="eve")
        clients.append(eve)
        redirect = await eve.request(lambda ref: CreateTable(ref=ref, settings=SETTINGS))
        assert isinstance(redirect, Redirect) and redirect.address == f"127.0.0.1:{b.port}"
        await forgery_refused(b.port, redirect.ticket)
        error = await ticket_refused(a.port, redirect.ticket)  # a new table for b, brought to a
        assert error.code is ErrorCode.UNKNOWN_SESSION and "node 'b'" in str(error), error
        there = await bring(b.port, redirect.ticket)
        try:
            error = await ticket_refused(b.port, redirect.ticket)
            assert error.code is ErrorCode.UNKNOWN_SESSION and "already used" in str(error), error
            made = await there.request(lambda ref: CreateTable(ref=ref, settings=SETTINGS))
            assert isinstance(made, TableJoined) and made.seat == 0
            assert made.table.table_id == redirect.table_id
        finally:
            await there.close()
    finally:
        for client in clients:
            await client.close()
        await asyncio.gather(a.stop(), b.stop())
