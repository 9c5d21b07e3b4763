"""`sushigo-bot --tournament` whose connection drops while it enters (the entry made, its answer
lost with the connection) takes the session back and enters again: told it is entered already,
it plays the tournament, one entrant still. A real server behind a relay that cuts the first
connection as the entry's answer comes, and real bot processes."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

from processes import ServerProcess, relayed_cup


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

    try:
        codes, outputs, info = await relayed_cup(port, relay, "cut cup", ("dropped", "steady"), cut)
    finally:
        await server.stop()
    dropped, steady = outputs
    assert codes[0] == 0, dropped
    assert "the connection dropped while entering" in dropped, dropped
    assert "finished" in dropped and "Traceback" not in dropped, dropped
    assert codes[1] == 0, steady
    # One entry each, the dropped one not made twice.
    assert sorted(s.name for s in info.standings) == ["dropped", "steady"], info.standings
