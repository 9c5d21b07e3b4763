"""A tournament outlives its server: the real `sushigo-server` is SIGKILLed mid-tournament, with a
game in play, and started again on the same database (SQLite, then PostgreSQL; and stopped with
SIGTERM on SQLite). The tournament is back as it was (its standings, its entrants, the game in
play at its restored table), its `sushigo-bot` entrants come back as themselves (a resume by
token at the table, a login with the same key in the lobby; a guest's lobby session is lost, and
the default bot plays for it), and it finishes with complete standings and every record
verifying."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

from processes import (
    ServerProcess,
    assert_records_verify,
    start_tournament_bots,
    stop_bots,
    stored_records,
)

from sushigo.client.connection import Client, ConnectionLost, reconnect
from sushigo.client.identity import load_or_create_key
from sushigo.protocol import TournamentInfo, TournamentSettings, TournamentStatus, TournamentUpdate

ENTRANTS = 5
GUEST = ENTRANTS - 1
"""The last bot has no key: back in the lobby after the restart it is a new guest (the default
bot plays its games); it still hears the tournament finish."""
GAMES = 8
PLAYERS = 2


async def _update(client: Client, name: str) -> TournamentInfo:
    """The tournament's next update (after a restart: as it stands once back)."""
    while True:
        try:
            event = await client.next_event(30)
        except ConnectionLost:
            if await reconnect(client, attempts=60, delay=0.1) is None:
                return await client.watch_tournament(name)
            continue
        if isinstance(event, TournamentUpdate) and event.tournament.settings.name == name:
            return event.tournament


async def test_a_tournament_goes_on_after_a_sigkill_of_its_server(
    server_db: tuple[str, ...], tmp_path: Path
) -> None:
    await _stopped_mid_tournament(server_db, tmp_path, ServerProcess.kill)


async def test_a_tournament_goes_on_after_a_clean_stop_of_its_server(tmp_path: Path) -> None:
    async def terminate(server: ServerProcess) -> None:
        assert await server.terminate() == 0

    await _stopped_mid_tournament(("--db", str(tmp_path / "server.db")), tmp_path, terminate)


async def _stopped_mid_tournament(
    server_db: tuple[str, ...],
    tmp_path: Path,
    stop: Callable[[ServerProcess], Awaitable[None]],
) -> None:
    """A tournament of bots, its server stopped with `stop` with a game in play and started
    again: it finishes, complete, and every record verifies."""
    server = ServerProcess(server_db)
    port = await server.start()
    bots: list[asyncio.subprocess.Process] = []
    host = await Client.connect(
        "127.0.0.1", port, name="host", key=load_or_create_key(tmp_path / "host.key")
    )
    try:
        settings = TournamentSettings(
            name="cup", kind="sushi-go", players=PLAYERS, games=GAMES, turn_seconds=30
        )
        await host.create_tournament(settings)
        bots = await start_tournament_bots(port, "cup", ENTRANTS, tmp_path, guests=(GUEST,))
        async with asyncio.timeout(60):
            info = await _update(host, "cup")
            while len(info.standings) < ENTRANTS:
                info = await _update(host, "cup")
            info = await host.start_tournament("cup")
            # Sent only once saved: a game in play and results so far, durable.
            while info.games_done < 2 or info.games_running < 1:
                info = await _update(host, "cup")
        before = info
        await stop(server)
        await server.start()  # the same port: every client comes back to it by itself

        async with asyncio.timeout(120):
            back = await _update(host, "cup")  # logged in again, ahead of the bots' retries
            assert back.status is TournamentStatus.RUNNING
            assert back.games_done >= before.games_done
            assert back.games_done + back.games_running > before.games_done  # the game in play
            played = {s.player_id: s.games for s in back.standings}
            assert all(played[s.player_id] >= s.games for s in before.standings)
            final = back
            while final.status is not TournamentStatus.FINISHED:
                final = await _update(host, "cup")
            outputs = [(await bot.communicate())[0].decode() for bot in bots]
    finally:
        await host.close()
        await stop_bots(bots)
        await server.stop()

    assert final.games_done == GAMES and final.games_running == 0
    assert len(final.standings) == ENTRANTS
    assert sum(s.games for s in final.standings) == GAMES * PLAYERS
    assert sum(s.wins_milli for s in final.standings) == GAMES * 1000
    for i, (bot, output) in enumerate(zip(bots, outputs, strict=True)):
        assert bot.returncode == 0, output
        assert i == GUEST or "tournament 'cup' finished" in output, output
        lines = [line for line in output.splitlines() if line.startswith("game ")]
        assert (lines or i == GUEST) and all("fairness verified" in line for line in lines), output
    records, server_key = stored_records(server_db, limit=50)
    assert len(records) == GAMES
    assert_records_verify(records, server_key)
