"""Browser players on a cluster: every node serves the page, and a WebSocket client is given
the nodes' web addresses (their `--web` endpoints) wherever the protocol names a node: the
login's list of nodes, and a REDIRECT, which it follows to the other node's WebSocket. Real
`sushigo-server --node` processes on the tests' PostgreSQL."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from nodes import eventually, node, query
from pgcluster import free_port
from wsclient import WsClient, ws_connect

from sushigo.client.connection import Client
from sushigo.protocol import (
    Error,
    ErrorCode,
    Hello,
    JoinTable,
    LoggedIn,
    LoginGuest,
    LoginTicket,
    Redirect,
    TableJoined,
    TableSettings,
    Welcome,
)
from sushigo.protocol.versions import SUPPORTED_VERSIONS

pytestmark = pytest.mark.asyncio(loop_scope="session")
"""The tests run on the session's event loop, as the browser tests beside them do."""


async def _hello(ws: WsClient) -> None:
    ws.send(Hello(ref=1, protocol="sushigo", version=SUPPORTED_VERSIONS[-1]))
    assert isinstance(await ws.receive(), Welcome)


async def _leased(url: str, table_id: str) -> None:
    """A new table's lease is written at its node's next renewal."""
    while not await query(url, "SELECT 1 FROM table_leases WHERE table_id = $1", table_id):
        await asyncio.sleep(0.05)


async def _knowing(port: int, name: str, nodes: int) -> Client | None:
    """A client logged in at `port` once that node knows of `nodes` live nodes (each learns the
    others on its own beat, which nothing outside is told of); None before."""
    client = await Client.connect("127.0.0.1", port, name=name)
    if len(client.nodes) == nodes:
        return client
    await client.close()
    return None


async def test_browser_players_are_sent_to_the_nodes_web_endpoints(
    pg_url: str, tmp_path: Path
) -> None:
    key = tmp_path / "cluster.key"
    a = node(pg_url, key, "a", "--web", f"127.0.0.1:{free_port()}")
    b = node(pg_url, key, "b", "--web", f"127.0.0.1:{free_port()}")
    c = node(pg_url, key, "c")  # serves no web client
    await asyncio.gather(a.start(), b.start(), c.start())
    web_a, web_b = f"127.0.0.1:{a.web_port}", f"127.0.0.1:{b.web_port}"
    clients: list[Client] = []
    try:
        ann = await eventually(lambda: _knowing(a.port, "ann", 3))
        clients.append(ann)
        clients.append(await eventually(lambda: _knowing(b.port, "bea", 3)))
        cid = await Client.connect("127.0.0.1", c.port, name="cid")
        clients.append(cid)
        # TCP clients still learn the TCP addresses.
        assert set(ann.nodes) == {f"127.0.0.1:{n.port}" for n in (a, b, c)}
        at_a = (await ann.create_table(TableSettings(kind="sushi-go", players=3))).table.table_id
        at_c = (await cid.create_table(TableSettings(kind="sushi-go", players=3))).table.table_id
        await asyncio.wait_for(asyncio.gather(_leased(pg_url, at_a), _leased(pg_url, at_c)), 10)

        async with ws_connect(b.web_port) as ws:
            await _hello(ws)
            ws.send(LoginGuest(ref=2, name="wendy"))
            logged = await ws.receive()
            assert isinstance(logged, LoggedIn)
            # Its own node's web address first, then the other web nodes'; c serves no page.
            assert logged.nodes == (web_b, web_a)

            ws.send(JoinTable(ref=3, table_id=at_a))
            redirect = await ws.receive()
            assert isinstance(redirect, Redirect)
            assert (redirect.address, redirect.table_id) == (web_a, at_a)
            assert redirect.ticket

            # A table on the node without a web endpoint: said so, not a dead end.
            ws.send(JoinTable(ref=4, table_id=at_c))
            refused = await ws.receive()
            assert isinstance(refused, Error) and refused.code == ErrorCode.NO_SUCH_TABLE
            assert "serves no web client" in refused.message

        # The redirect is followed as a browser does: a WebSocket to the address it names.
        host, port = redirect.address.rsplit(":", 1)
        async with ws_connect(int(port), host=host) as there:
            await _hello(there)
            there.send(LoginTicket(ref=2, ticket=redirect.ticket))
            again = await there.receive()
            assert isinstance(again, LoggedIn) and again.name == "wendy"
            assert again.nodes[0] == web_a
            there.send(JoinTable(ref=3, table_id=at_a))
            joined = await there.receive()
            assert isinstance(joined, TableJoined) and joined.seat == 1
    finally:
        for client in clients:
            await client.close()
        await asyncio.gather(a.stop(), b.stop(), c.stop())
