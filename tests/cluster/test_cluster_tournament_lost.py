"""A `sushigo-bot` tournament entrant whose session is lost in the middle of a game, on real
nodes: its node is SIGKILLed while the bot is held (SIGSTOP) and does not come back before the
game (played out on the node that took its table, the server playing the bot's seat) and the
tournament are over. Let go, the bot finds its session unknown, logs in afresh, and must hear
that the tournament finished: it says so and exits 0. Before, the fresh session watched nothing
and the bot waited for ever."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

from nodes import eventually, knowing, play_through, query, two_nodes
from processes import bots_output, start_tournament_bots, stop_bots

from sushigo import protocol
from sushigo.client.identity import load_or_create_key

NAME = "lost cup"
SETTINGS = protocol.TournamentSettings(
    name=NAME, kind="sushi-go", players=2, games=1, turn_seconds=1
)
"""One game of two: the bot's and ann's. A turn's second, two missed, and the server plays the
bot's seat: the game ends within seconds once its table is taken up."""


async def _finished(url: str) -> bool:
    rows = await query(url, "SELECT count(*) FROM records")
    return bool(rows[0][0] >= 1)


async def test_a_bot_that_lost_its_session_mid_game_hears_its_tournament_finish(
    pg_url: str, tmp_path: Path
) -> None:
    a, b = two_nodes(pg_url, tmp_path)
    await asyncio.gather(a.start(), b.start())
    bots: list[asyncio.subprocess.Process] = []
    # Each learns the nodes at its login: it must know both to go on to the other.
    ann = await eventually(
        lambda: knowing(a.port, "ann", 2, key=load_or_create_key(tmp_path / "ann.key"))
    )
    try:
        await ann.create_tournament(SETTINGS)
        await ann.register_tournament(NAME)
        bots = await start_tournament_bots(a.port, NAME, 1, tmp_path, guests=(0,))
        async with asyncio.timeout(30):
            info = await ann.watch_tournament(NAME)
            while len(info.standings) < 2:
                event = await ann.next_event(30)
                if isinstance(event, protocol.TournamentUpdate):
                    info = event.tournament
            await ann.start_tournament(NAME)
            # The first turn begins once both seats sent their seeds: the bot is in its game.
            await ann.wait_for(protocol.TurnStart, 30)
        os.kill(bots[0].pid, signal.SIGSTOP)
        await (a if ann.port == a.port else b).kill()  # the game's node, the bot's with it
        await asyncio.wait_for(play_through(ann), 120)
        await eventually(lambda: _finished(pg_url), 30)
        os.kill(bots[0].pid, signal.SIGCONT)
        output = (await bots_output(bots, timeout=30))[0]
    finally:
        await ann.close()
        for bot in bots:
            if bot.returncode is None:
                os.kill(bot.pid, signal.SIGCONT)
        await stop_bots(bots)
        await asyncio.gather(a.stop(), b.stop())
    assert bots[0].returncode == 0, output
    assert f"tournament {NAME!r} finished" in output, output
