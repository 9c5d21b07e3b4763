"""An admin's operations reach every node of a cluster, whichever node `sushigo-admin` is sent to
(real nodes, real PostgreSQL, the real command): `nodes` lists every node with its state and
load; an announcement reaches everyone connected anywhere; a kick ends a player's session on
another node; a table on another node is closed; a ban ends its player's session on another node
within a second, is listed on every node, and keeps the key out of a fresh login anywhere until
it is lifted (from a third node); a node drained from another seats no quick match (its player
is sent to another node's table) and the audit names it; a node that died is listed as gone."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from nodes import ADMIN, admin, admin_cluster, eventually, query

from sushigo.client.connection import Client, ConnectionLost, ServerError
from sushigo.protocol import Announcement, ErrorCode, TableLeft, TableSettings
from sushigo.protocol.identity import player_id_for_key


async def ended(client: Client) -> ErrorCode | None:
    """The code the server closed `client`'s connection with (read up to the drop)."""
    try:
        while True:
            await client.next_event(10)
    except ConnectionLost:
        refusal = client.refusal
        return None if refusal is None else ErrorCode(refusal.error_code)


async def test_an_admin_on_one_node_acts_on_every_node(pg_url: str, tmp_path: Path) -> None:
    nodes, admin_key = await admin_cluster(pg_url, tmp_path)
    a, b, c = nodes
    bob_key = Ed25519PrivateKey.generate()
    bob_id = player_id_for_key(bob_key.public_key().public_bytes_raw())
    bob = await Client.connect("127.0.0.1", b.port, name="bob", key=bob_key)
    cat = await Client.connect("127.0.0.1", c.port, name="cat")
    dan = await Client.connect("127.0.0.1", a.port, name="dan")
    eve = await Client.connect("127.0.0.1", c.port, name="eve")
    clients = [bob, cat, dan, eve]
    try:
        listed = admin(a.port, admin_key, "nodes")
        assert [line.split()[:2] for line in listed[1:]] == [
            ["a", "serving"],
            ["b", "serving"],
            ["c", "serving"],
        ]
        assert listed[1].split()[2] == "(here)"

        said = admin(b.port, admin_key, "announce", "restarting", "soon")
        assert said == ["announced to 5 people"]  # the four, and the admin asking
        for client in clients:
            heard = await client.wait_for(Announcement, 10)
            assert heard.text == "restarting soon"

        assert admin(a.port, admin_key, "kick", eve.player_id or "", "--reason", "be nice") == [
            f"kicked 1 session(s) of {eve.player_id}"
        ]
        assert await ended(eve) is ErrorCode.KICKED

        joined = await cat.create_table(TableSettings(kind="sushi-go", players=3))
        table_id = joined.table.table_id
        closed = admin(a.port, admin_key, "close", table_id, "--reason", "stuck")
        assert closed == [f"closed table {table_id} on c"]
        assert "stuck" in (await cat.wait_for(TableLeft, 10)).reason

        # Bob plays on b: the count is b's answer, so his session ended while the command ran.
        assert admin(c.port, admin_key, "ban", bob_id, "--reason", "cheating") == [
            f"banned {bob_id}; 1 session(s) ended"
        ]
        assert await ended(bob) is ErrorCode.BANNED
        for n in nodes:
            assert any(bob_id in line for line in admin(n.port, admin_key, "bans"))
        for n in nodes:
            with pytest.raises(ServerError) as refused:
                await Client.connect("127.0.0.1", n.port, name="bob", key=bob_key)
            assert refused.value.code is ErrorCode.BANNED
        assert admin(b.port, admin_key, "unban", bob_id) == [f"lifted the ban on {bob_id}"]
        bob = await Client.connect("127.0.0.1", a.port, name="bob", key=bob_key)
        clients.append(bob)

        assert admin(a.port, admin_key, "drain", "c") == [
            "c is draining: no new table or game; 0 game(s) in play finish"
        ]
        states = {line.split()[0]: line.split()[1] for line in admin(b.port, admin_key, "nodes")}
        assert states == {"NODE": "STATE", "a": "serving", "b": "serving", "c": "draining"}
        audit = admin(b.port, admin_key, "audit", "--limit", "1")
        assert audit[1].split()[4:6] == ["drain", "c"], audit
        # c seats no quick match: its player is sent to another node's table.
        fay = await Client.connect("127.0.0.1", c.port, name="fay")
        clients.append(fay)
        seated = await fay.quick_match(2, "sushi-go")
        assert fay.port != c.port
        rows = await query(
            pg_url, "SELECT node FROM table_leases WHERE table_id = $1", seated.table.table_id
        )
        assert [r[0] for r in rows] in ([], ["a"], ["b"])  # leased by its first commit

        assert c.proc is not None
        await c.kill()
        await eventually(lambda: _gone(a.port, admin_key, "c"), 15)
    finally:
        for client in clients:
            await client.close()
        await asyncio.gather(*(n.stop() for n in nodes))


async def _gone(port: int, key: Path, name: str) -> bool:
    """`nodes` on the node at `port` lists node `name` as gone."""
    lines = await asyncio.to_thread(admin, port, key, "nodes")
    return any(line.split()[:2] == [name, "gone"] for line in lines)


async def test_a_node_that_does_not_answer_is_named_and_not_taken_for_a_no(
    pg_url: str, tmp_path: Path
) -> None:
    """A kick of a player no answering node holds, while node b is paused: the admin is told
    that the nodes that answered hold no such player, and that b did not answer (it may)."""
    # A lease longer than the test: b stays a live node for a while paused (with the tests'
    # short lease it would be dead to the cluster before a slow admin command asked it).
    nodes, admin_key = await admin_cluster(pg_url, tmp_path, lease=120)
    a, b, _ = nodes
    assert b.proc is not None
    os.kill(b.proc.pid, signal.SIGSTOP)
    try:
        done = await asyncio.to_thread(
            subprocess.run,
            [str(ADMIN), f"127.0.0.1:{a.port}", "--key", str(admin_key), "kick", "g:0123"],
            capture_output=True,
            text=True,
            timeout=30,
            env={**os.environ, "HOME": str(tmp_path)},
            check=False,
        )
    finally:
        os.kill(b.proc.pid, signal.SIGCONT)
        await asyncio.gather(*(n.stop() for n in nodes))
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr.strip() == (
        "sushigo-admin: error: no session or player 'g:0123' on the nodes that answered"
        " (b: did not answer in time)"
    ), done.stderr
