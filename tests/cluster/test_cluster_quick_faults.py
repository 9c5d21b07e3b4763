"""Nothing ends a quick-matching bot's session that a person would survive (issue #28, item 2),
with real `sushigo-bot` processes on a real cluster: sent to a node that was just SIGKILLed
("refused the connection"), to a table its node no longer has (the stale rows a PostgreSQL
restart left: UNKNOWN_SESSION for the ticket), or to a node where another player holds its
name (NAME_TAKEN for the second "random-bot"). Each bot goes on and plays its game."""

from __future__ import annotations

import asyncio
from pathlib import Path

from nodes import (
    admin,
    admin_cluster,
    bots,
    cluster_key,
    crowd_on,
    eventually,
    node,
    query,
    seated_again,
    started_two,
)
from processes import BOT, bots_output

from sushigo.client.connection import Client

GAME_SECONDS = 40
"""How long the bots of a test have to play their game, once they can."""


async def said(bot: asyncio.subprocess.Process, words: str, timeout: float = 30) -> str:
    """What `bot` printed up to the line that holds `words` (AssertionError if it ends, or
    goes `timeout` seconds without saying them)."""
    assert bot.stdout is not None
    seen = ""
    while words not in seen:
        line = (await asyncio.wait_for(bot.stdout.readline(), timeout)).decode()
        assert line, f"the bot ended without saying {words!r}:\n{seen}"
        seen += line
    return seen


async def test_a_bot_sent_to_a_node_just_killed_plays_on(pg_url: str, tmp_path: Path) -> None:
    """Two players wait at a table of node a (the fullest: where the matcher sends others); a
    is SIGKILLed, and within its lease a bot quick-matches on b. It is sent to a, which
    refuses the connection: the bot says so in one line, queues again on b, and plays its
    game there with two bots that come later. (Before, it ended: "sushigo-bot: error:
    127.0.0.1:PORT refused the connection: is the server running?", though its login had
    listed b.)"""
    key = cluster_key(tmp_path)
    a, b = node(pg_url, key, "a", lease=30), node(pg_url, key, "b")
    await a.start()
    await b.start()
    waiting = [await Client.connect("127.0.0.1", a.port, name=n) for n in ("ann", "bob")]
    crowd: list[asyncio.subprocess.Process] = []
    try:
        for client in waiting:
            await client.quick_match(3, "sushi-go")
        await eventually(lambda: query(pg_url, "SELECT 1 FROM quick_tables WHERE free = 1"))
        await a.kill()
        crowd += await bots(b.port, range(1), "--players", "3", "--games", "1")
        before = await said(crowd[0], f"could not follow a redirect to 127.0.0.1:{a.port}")
        assert crowd[0].returncode is None, before
        crowd += await bots(b.port, range(1, 3), "--players", "3", "--games", "1")
        outputs = await bots_output(crowd, GAME_SECONDS)
    finally:
        for client in waiting:
            await client.close()
        await asyncio.gather(a.stop(), b.stop())
    outputs[0] = before + outputs[0]
    for bot, output in zip(crowd, outputs, strict=True):
        assert bot.returncode == 0 and "game 1:" in output and "error" not in output, output


async def test_a_bot_sent_to_a_table_gone_from_its_node_plays_on(
    pg_url: str, tmp_path: Path
) -> None:
    """The cluster's rows say a table of two waits at node a that a does not have (what a
    PostgreSQL restart left: a node's tables closed or filled while it could not say so). A
    bot quick-matching on b is sent there: a seats it at a table of its own rather than
    refusing the ticket, and it plays there with two bots that come later. (Before:
    "UNKNOWN_SESSION: the ticket is for table '...', which is not on this node", and the bot
    ended.) The stale rows are a node of the cluster's that a's address answers for."""
    a, b = await started_two(pg_url, tmp_path)
    await query(
        pg_url,
        "INSERT INTO cluster_nodes (name, address, server_key, protocol, started, "
        "lease_expires, tables) SELECT 'stale', address, server_key, protocol, now(), "
        "now() + interval '1 hour', 0 FROM cluster_nodes WHERE name = 'a'",
    )
    await query(
        pg_url,
        "INSERT INTO quick_tables (table_id, node, kind, players, free, created) "
        "VALUES ('0000005ta1e0', 'stale', 'sushi-go', 3, 1, now() - interval '1 hour')",
    )
    async with crowd_on(a, b) as crowd:
        crowd += await bots(b.port, range(1), "--players", "3", "--games", "1")

        async def moved_to_a() -> bool:
            sql = "SELECT 1 FROM quick_tables WHERE node = 'a' AND free = 2"
            return crowd[0].returncode is None and bool(await query(pg_url, sql))

        await eventually(moved_to_a, timeout=20)
        crowd += await bots(a.port, range(1, 3), "--players", "3", "--games", "1")
        outputs = await bots_output(crowd, GAME_SECONDS)
    for bot, output in zip(crowd, outputs, strict=True):
        assert bot.returncode == 0 and "game 1:" in output and "error" not in output, output


async def test_two_unnamed_bots_met_on_one_node_are_both_named(pg_url: str, tmp_path: Path) -> None:
    """Two bots with no --name, one on each node, both "random-bot" there (names are each
    node's): the matcher puts them at one table, and the one sent over is "random-bot-2" on
    its new node, as the README promises. Both play. (Before: "NAME_TAKEN: the name
    'random-bot' is taken", and the bot ended.)"""
    a, b = await started_two(pg_url, tmp_path)
    args = ("--strategy", "random", "--players", "2", "--games", "1")
    async with crowd_on(a, b) as crowd:
        for port in (a.port, b.port):
            crowd.append(
                await asyncio.create_subprocess_exec(
                    str(BOT),
                    f"127.0.0.1:{port}",
                    *args,
                    stdout=asyncio.subprocess.PIPE,
                    stderr=asyncio.subprocess.STDOUT,
                )
            )
            if port == a.port:  # a's table waits long enough for the other node's to come
                await eventually(
                    lambda: query(
                        pg_url,
                        "SELECT 1 FROM quick_tables WHERE created < now() - interval '2.5 s'",
                    )
                )
        outputs = await bots_output(crowd, GAME_SECONDS)
    for bot, output in zip(crowd, outputs, strict=True):
        assert bot.returncode == 0 and "game 1:" in output, output
    names = {row["name"] for row in await query(pg_url, "SELECT name FROM results")}
    assert names == {"random-bot", "random-bot-2"}


async def test_a_named_player_moved_where_its_name_is_held_is_renamed(
    pg_url: str, tmp_path: Path
) -> None:
    """A player named "robo" on b is moved to a's table, while another player named "robo" is
    in a's lobby: the one moved over is "robo-2" there (LOGGED_IN says so), and seated."""
    a, b = await started_two(pg_url, tmp_path)
    seated = [await Client.connect("127.0.0.1", a.port, name=n) for n in ("ann", "bob")]
    other = await Client.connect("127.0.0.1", a.port, name="robo")
    robo = await Client.connect("127.0.0.1", b.port, name="robo")
    try:
        for client in seated:  # the fuller table: robo is moved to it
            await client.quick_match(3, "sushi-go")
        first = (await robo.quick_match(3, "sushi-go")).table.table_id
        moved = await seated_again(robo)
        assert moved.table.table_id != first and robo.port == a.port
        assert robo.name == "robo-2" and other.name == "robo"
    finally:
        for client in (*seated, other, robo):
            await client.close()
        await asyncio.gather(a.stop(), b.stop())


async def test_a_bot_waiting_on_a_node_drained_plays_elsewhere(pg_url: str, tmp_path: Path) -> None:
    """A bot waits alone at a table of node c; an admin drains c (from a, with the real
    `sushigo-admin`). The matcher takes the bot away from c, to a new table on a node that
    takes players, and a bot that comes later on b plays its game with it. Neither bot says a
    word of error. (Before, a drained node's waiting players waited there for good.)"""
    nodes, admin_key = await admin_cluster(pg_url, tmp_path)
    a, b, c = nodes
    args = ("--players", "2", "--games", "1")
    async with crowd_on(*nodes) as crowd:
        crowd += await bots(c.port, range(1), *args)
        await eventually(lambda: query(pg_url, "SELECT 1 FROM quick_tables WHERE node = 'c'"))
        drained = await asyncio.to_thread(admin, a.port, admin_key, "drain", "c")
        assert drained[0].startswith("c is draining"), drained
        await eventually(
            lambda: query(pg_url, "SELECT 1 FROM quick_tables WHERE node <> 'c' AND free = 1"),
            timeout=20,
        )
        crowd += await bots(b.port, range(1, 2), *args)
        outputs = await bots_output(crowd, GAME_SECONDS)
    for bot, output in zip(crowd, outputs, strict=True):
        assert bot.returncode == 0 and "game 1:" in output and "error" not in output, output
