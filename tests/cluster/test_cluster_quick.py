"""Quick match is one queue for the whole cluster: real `sushigo-bot` processes quick-matching on
different nodes of a real cluster are seated together within seconds, however they are spread,
and after a node dies (issue #28, item 1: 4 bots split 1+3 over two nodes waited 826 s; 4 split
1+1+2 over three never met; a SIGKILLed node's bots, logged in again on the other, waited
there until killed).

The nodes seat their own players at once; the cluster's matcher (one node at a time, under an
advisory lock) moves the players of the emptiest waiting tables to the fullest, on any node
(`server.routing.matching`)."""

from __future__ import annotations

from pathlib import Path

from nodes import bots, cluster_key, crowd_on, eventually, node, query, started_two
from processes import assert_bots_played, bots_output

GAMES_SECONDS = 60
"""How long the bots of a test have to play all their games (each takes a second or two; a
merge waits the patience, a second, and a matcher's turn)."""


async def test_four_bots_split_one_and_three_over_two_nodes_play(
    pg_url: str, tmp_path: Path
) -> None:
    """One bot on node a, three on node b, all at once, two games each: both games are played
    (each node opens a table of its own for them; the one on a is merged into b's)."""
    a, b = await started_two(pg_url, tmp_path)
    async with crowd_on(a, b) as crowd:
        crowd += await bots(a.port, range(1), "--players", "4", "--games", "2")
        crowd += await bots(b.port, range(1, 4), "--players", "4", "--games", "2")
        outputs = await bots_output(crowd, GAMES_SECONDS)
    assert_bots_played(crowd, outputs, 2)
    assert len(await query(pg_url, "SELECT 1 FROM records")) == 2


async def test_four_bots_split_one_one_two_over_three_nodes_play(
    pg_url: str, tmp_path: Path
) -> None:
    """One bot on a, one on b, two on c: one table of four, wherever each asked."""
    key = cluster_key(tmp_path)
    nodes = [node(pg_url, key, name) for name in "abc"]
    for each in nodes:
        await each.start()
    async with crowd_on(*nodes) as crowd:
        for each, names in zip(nodes, (range(1), range(1, 2), range(2, 4)), strict=True):
            crowd += await bots(each.port, names, "--players", "4", "--games", "2")
        outputs = await bots_output(crowd, GAMES_SECONDS)
    assert_bots_played(crowd, outputs, 2)


async def test_a_dead_nodes_bots_play_on_with_the_others(pg_url: str, tmp_path: Path) -> None:
    """Three bots wait at a table of node a (three games each, tables of four); a is SIGKILLed,
    and a fourth bot quick-matches on b. a's bots log in again on b, and the four play their
    three games there. (Before: the fourth was sent to a's table, dead, and ended; a's bots,
    back on b, waited there for good. Four bots, so that every game is all of them: with more,
    a bot that fell behind may find too few others still playing.)"""
    a, b = await started_two(pg_url, tmp_path)
    async with crowd_on(a, b) as crowd:
        args = ("--players", "4", "--games", "3")
        crowd += await bots(a.port, range(3), *args)
        # Its three bots seated, long enough for another node to send players to it.
        sql = "SELECT 1 FROM quick_tables WHERE free = 1 AND created < now() - interval '2.5 s'"
        await eventually(lambda: query(pg_url, sql), timeout=30)
        await a.kill()
        crowd += await bots(b.port, range(3, 4), *args)
        outputs = await bots_output(crowd, GAMES_SECONDS)
    assert_bots_played(crowd, outputs, 3)
    assert len(await query(pg_url, "SELECT 1 FROM records")) == 3
