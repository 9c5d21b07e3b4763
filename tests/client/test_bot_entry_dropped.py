"""`sushigo-bot --tournament` whose connection drops while it enters (the entry made, its answer
lost with the connection) takes the session back and enters again: told it is entered already,
it plays the tournament, one entrant still. A real server behind a relay that cuts the first
connection as the entry's answer comes, and real bot processes."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

from processes import ServerProcess, bot_process

from sushigo.client.connection import Client
from sushigo.protocol import TournamentSettings, TournamentUpdate


async def test_a_bot_enters_again_after_its_connection_drops_mid_entry(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path / "server.db")
    port = await server.start()
    cut = asyncio.Event()

    async def relay(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", port)
        entering = not cut.is_set()  # the first connection only
        asked = False

        async def up() -> None:
            nonlocal asked
            while data := await reader.read(65536):
                asked = asked or b"register_tournament" in data
                up_writer.write(data)
                await up_writer.drain()
            up_writer.close()

        async def down() -> None:
            while data := await up_reader.read(65536):
                if entering and asked and b"tournament_info" in data:
                    cut.set()  # the entry is made: its answer is lost with the connection
                    writer.transport.abort()
                    up_writer.close()
                    return
                writer.write(data)
                await writer.drain()
            writer.close()

        with contextlib.suppress(ConnectionError):
            await asyncio.gather(up(), down())

    proxy = await asyncio.start_server(relay, "127.0.0.1", 0)
    relayed = proxy.sockets[0].getsockname()[1]
    host = await Client.connect("127.0.0.1", port, name="host")
    settings = TournamentSettings(name="cut cup", kind="sushi-go", players=2, games=1)
    await host.create_tournament(settings)
    entrants = [
        await bot_process(p, "--tournament", "cut cup", "--name", name)
        for p, name in ((relayed, "dropped"), (port, "steady"))
    ]
    try:
        await asyncio.wait_for(cut.wait(), 30)
        info = await host.watch_tournament("cut cup")
        while len(info.standings) < 2:  # each entry is told to its watchers
            info = (await host.wait_for(TournamentUpdate, 40)).tournament
        await host.start_tournament("cut cup")
        outputs = [
            (await asyncio.wait_for(e.communicate(), 60))[0].decode(errors="replace")
            for e in entrants
        ]
        info = await host.watch_tournament("cut cup")
    finally:
        for e in entrants:
            if e.returncode is None:
                e.kill()
        await host.close()
        proxy.close()
        await server.stop()
    dropped, steady = outputs
    assert entrants[0].returncode == 0, dropped
    assert "the connection dropped while entering" in dropped, dropped
    assert "finished" in dropped and "Traceback" not in dropped, dropped
    assert entrants[1].returncode == 0, steady
    # One entry each, the dropped one not made twice.
    assert sorted(s.name for s in info.standings) == ["dropped", "steady"], info.standings
