"""A tournament outlives its home node (server/routing/tournaments.py, `adopt`), on two real nodes.

Its home node a is SIGKILLed (or stopped with SIGTERM) mid-tournament, with a game in play: node
b takes the tournament over from PostgreSQL once a's lease has ended, with the game's table, and
runs it on; its `sushigo-bot` entrants come back on b as themselves (a resume by token at the
table, a login with the same key in the lobby), and it finishes with complete standings and
every record verifying with the cluster's key."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest
from nodes import cluster_key, eventually, knowing, node, query
from processes import assert_records_verify, start_tournament_bots, stop_bots, stored_records

from sushigo import protocol
from sushigo.client.connection import Client, ConnectionLost, reconnect
from sushigo.client.identity import load_or_create_key

TOURNAMENT = Path(sys.executable).with_name("sushigo-tournament")
NAME = "lasting cup"
ENTRANTS = 4
GAMES = 8
PLAYERS = 2
SETTINGS = protocol.TournamentSettings(
    name=NAME, kind="sushi-go", players=PLAYERS, games=GAMES, turn_seconds=30
)


async def _update(client: Client) -> protocol.TournamentInfo:
    """The tournament's next update. When its node goes, the client goes on to the other node
    and logs in again there as the same identity (its lobby session was the dead node's): once
    that node has taken the tournament over, it is its host and watcher again, and hears."""
    while True:
        try:
            event = await client.next_event(30)
        except ConnectionLost:
            await reconnect(client, attempts=60, delay=0.1)
            continue
        if isinstance(event, protocol.TournamentUpdate) and event.tournament.settings.name == NAME:
            return event.tournament


@pytest.mark.parametrize("how", ["sigkill", "sigterm"])
async def test_a_tournament_goes_on_when_its_node_goes(
    pg_url: str, tmp_path: Path, how: str
) -> None:
    key = cluster_key(tmp_path)
    # Their lobbies logged (what pytest shows if the test fails: who went where, and when).
    a, b = (node(pg_url, key, name, "--log-level", "info") for name in "ab")
    await asyncio.gather(a.start(), b.start())
    bots: list[asyncio.subprocess.Process] = []
    identity = load_or_create_key(tmp_path / "host.key")

    # A client learns the nodes at its login: it must know b to go there when a is gone.
    host = await eventually(lambda: knowing(a.port, "host", 2, key=identity))
    try:
        await host.create_tournament(SETTINGS)
        # A watcher with `sushigo-tournament`, a guest: after its node goes, it logs in on b
        # and asks to watch again until b runs the tournament.
        watcher = await asyncio.create_subprocess_exec(
            str(TOURNAMENT),
            f"127.0.0.1:{a.port}",
            *("watch", NAME, "--json", str(tmp_path / "cup.json")),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        bots.append(watcher)
        bots += await start_tournament_bots(a.port, NAME, ENTRANTS, tmp_path)
        async with asyncio.timeout(60):
            info = await _update(host)
            while len(info.standings) < ENTRANTS:
                info = await _update(host)
            info = await host.start_tournament(NAME)
            while info.games_done < 2 or info.games_running < 1:
                info = await _update(host)
        before = info
        if how == "sigkill":
            await a.kill()
        else:
            assert await a.terminate() == 0

        async with asyncio.timeout(120):
            back = await _update(host)  # on b, once it has taken the tournament over
            assert host.port == b.port
            assert back.games_done >= before.games_done
            played = {s.player_id: s.games for s in back.standings}
            assert all(played[s.player_id] >= s.games for s in before.standings)
            final = back
            while final.status is not protocol.TournamentStatus.FINISHED:
                final = await _update(host)
            outputs = [(await bot.communicate())[0].decode() for bot in bots]
        watched, outputs = outputs[0], outputs[1:]
        assert watcher.returncode == 0, watched
        data = json.loads((tmp_path / "cup.json").read_text())
        assert data["status"] == "finished" and data["games_done"] == GAMES
        rows = await query(pg_url, "SELECT node FROM tournaments WHERE name = $1", NAME)
        assert [row[0] for row in rows] == ["b"]
    finally:
        await host.close()
        await stop_bots(bots)
        await asyncio.gather(a.stop(), b.stop())
        for name, server in (("a", a), ("b", b)):
            print(f"-- node {name}:\n{server.log.decode()}")
        for i, bot in enumerate(bots):  # what was not read already (a failure's)
            assert bot.stdout is not None
            said = (await bot.stdout.read()).decode()
            print(f"-- {'the watcher' if i == 0 else f'bot{i - 1}'}:\n{said}")

    assert final.games_done == GAMES and final.games_running == 0
    assert len(final.standings) == ENTRANTS
    assert sum(s.games for s in final.standings) == GAMES * PLAYERS
    assert sum(s.wins_milli for s in final.standings) == GAMES * 1000
    for bot, output in zip(bots[1:], outputs, strict=True):
        assert bot.returncode == 0, output
        assert f"tournament {NAME!r} finished" in output, output
        lines = [line for line in output.splitlines() if line.startswith("game ")]
        assert lines and all("fairness verified" in line for line in lines), output
    records, server_key = stored_records(("--db", pg_url, "--key", str(key)), limit=50)
    assert len(records) == GAMES
    assert_records_verify(records, server_key)
