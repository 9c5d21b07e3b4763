"""Redirects with one-time tickets (stage 3 of the cluster issue), on two real nodes.

A player asking node b for a table that lives on node a is redirected there with a ticket and
the client library follows by itself: it ends up seated at a, as the same identity. A resume
brought to the wrong node is redirected to the right one. Tickets that are forged, used, expired
or brought to a node that does not hold their table are refused, each with its reason, and the
game goes on. At login every client learns both nodes' addresses."""

from __future__ import annotations

import asyncio
from pathlib import Path

from nodes import (
    bring,
    cluster_key,
    forgery_refused,
    node,
    people_on,
    query,
    seated_again,
    started_two,
    ticket_refused,
)

from sushigo import protocol
from sushigo.client.connection import Client


async def test_redirects_and_tickets(pg_url: str, tmp_path: Path) -> None:
    a, b = await started_two(pg_url, tmp_path)
    async with people_on(a, b) as clients:
        ann = await Client.connect("127.0.0.1", a.port, name="ann")
        bob = await Client.connect("127.0.0.1", b.port, name="bob")
        carl = await Client.connect("127.0.0.1", b.port, name="carl")
        clients += [ann, bob, carl]
        assert set(ann.nodes) == set(bob.nodes) == {f"127.0.0.1:{a.port}", f"127.0.0.1:{b.port}"}
        assert ann.nodes[0] == f"127.0.0.1:{a.port}" and bob.nodes[0] == f"127.0.0.1:{b.port}"

        joined = await ann.create_table(protocol.TableSettings(kind="sushi-go", players=3))
        table_id = joined.table.table_id

        async def leased() -> None:
            """The table's lease is written at its node's next renewal (a third of a lease)."""
            while not await query(
                pg_url, "SELECT 1 FROM table_leases WHERE table_id = $1", table_id
            ):
                await asyncio.sleep(0.05)

        await asyncio.wait_for(leased(), 10)

        # bob asks b for a's table: the library follows the redirect and sits him at a.
        seated = await bob.join_table(table_id)
        assert (bob.port, seated.seat, bob.name) == (a.port, 1, "bob")

        # carl's own redirect, looked at by hand: a ticket for the table, for him.
        redirect = await carl.request(lambda ref: protocol.JoinTable(ref=ref, table_id=table_id))
        assert isinstance(redirect, protocol.Redirect)
        assert (redirect.address, redirect.table_id) == (f"127.0.0.1:{a.port}", table_id)
        await forgery_refused(a.port, redirect.ticket)
        error = await ticket_refused(b.port, redirect.ticket)  # b does not hold the table
        assert error.code is protocol.ErrorCode.UNKNOWN_SESSION and "not on this node" in str(error)
        await (await bring(a.port, redirect.ticket, "carl")).close()
        error = await ticket_refused(a.port, redirect.ticket)
        assert error.code is protocol.ErrorCode.UNKNOWN_SESSION and "already used" in str(error), (
            error
        )
        late = await carl.request(lambda ref: protocol.JoinTable(ref=ref, table_id=table_id))
        assert isinstance(late, protocol.Redirect)
        await query(pg_url, "UPDATE tickets SET expires = now() - interval '1 second'")
        error = await ticket_refused(a.port, late.ticket)
        assert error.code is protocol.ErrorCode.UNKNOWN_SESSION and "expired" in str(error), error

        # A resume brought to b is redirected to a, the node of ann's table.
        await ann.close()
        ann.host, ann.port = "127.0.0.1", b.port
        resumed = await ann.resume()
        assert ann.port == a.port and resumed.snapshot is not None

        # The game goes on, the cluster unharmed: carl follows his next redirect to his seat.
        await carl.join_table(table_id)
        assert carl.port == a.port
        ann.start_game()
        for player in (ann, bob, carl):
            await player.wait_for(protocol.TurnStart, 10)
            assert player.awaiting


async def test_quick_match_across_nodes(pg_url: str, tmp_path: Path) -> None:
    """Three players quick-match on node a, one on node b: one table, at a, and it starts. And
    what one of them says in the lobby on a is heard on b. What dave sees (the client library,
    as the terminal client uses it): seated at a table of b's that waits; then, with no request
    of his, at a's table (an unasked TABLE_JOINED there), whose game begins.
    (No patience: the tables are merged at the matcher's next turn.)"""
    key = cluster_key(tmp_path)
    a, b = node(pg_url, key, "a"), node(pg_url, key, "b", "--quick-patience", "0")
    await a.start()
    await b.start()
    async with people_on(a, b) as clients:
        for name in ("ann", "bob", "carl"):
            clients.append(await Client.connect("127.0.0.1", a.port, name=name))
        dave = await Client.connect("127.0.0.1", b.port, name="dave")
        clients.append(dave)

        # The lobby's chat is the cluster's: said on a, heard on b (LISTEN/NOTIFY).
        clients[0].chat("anyone for a game?")
        heard = await dave.wait_for(protocol.ChatMessage, 10)
        assert (heard.name, heard.text, heard.table_id) == ("ann", "anyone for a game?", None)

        tables = {(await c.quick_match(4, "sushi-go")).table.table_id for c in clients[:3]}
        assert len(tables) == 1
        (table_id,) = tables
        first = await dave.quick_match(4, "sushi-go")
        assert dave.port == b.port and first.table.table_id != table_id
        joined = await seated_again(dave)
        assert (joined.table.table_id, dave.port, dave.name) == (table_id, a.port, "dave")
        for client in clients:
            await client.wait_for(protocol.TurnStart, 10)
            assert client.awaiting
