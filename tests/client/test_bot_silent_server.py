"""`sushigo-bot` at a server that takes its connection but does not answer (paused, frozen,
overloaded: a node of a cluster stopped for a moment) waits it out as a person would: one line
saying so, then it asks again and plays. A real server behind a relay that holds the first
connection without a word, and real bot processes."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

from processes import ServerProcess, bot_process, relayed_cup


async def relay_to(
    port: int,
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    up: Callable[[bytes], Awaitable[bytes]] | None = None,
) -> None:
    """Relay a connection to the server on 127.0.0.1:`port`, both ways, until either side ends;
    what goes up for each chunk is what `up` returns for it (nothing: held back)."""
    up_reader, up_writer = await asyncio.open_connection("127.0.0.1", port)

    async def pipe(
        src: asyncio.StreamReader,
        dst: asyncio.StreamWriter,
        change: Callable[[bytes], Awaitable[bytes]] | None,
    ) -> None:
        try:
            while data := await src.read(65536):
                if change is not None:
                    data = await change(data)
                dst.write(data)
                await dst.drain()
        except ConnectionError:
            pass
        finally:
            dst.close()

    await asyncio.gather(pipe(reader, up_writer, up), pipe(up_reader, writer, None))


async def test_a_bot_waits_out_a_server_that_does_not_answer(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path / "server.db")
    port = await server.start()
    connections = 0
    held: list[asyncio.StreamWriter] = []

    async def relay(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        if connections == 1:  # the server is paused: the connection is taken, nothing said
            held.append(writer)
            return
        await relay_to(port, reader, writer)

    proxy = await asyncio.start_server(relay, "127.0.0.1", 0)
    relayed = proxy.sockets[0].getsockname()[1]
    bots = [
        await bot_process(p, "--players", "2", "--games", "1", "--name", name)
        for p, name in ((relayed, "patient"), (port, "partner"))
    ]
    try:
        outputs = [
            (await asyncio.wait_for(b.communicate(), 60))[0].decode(errors="replace") for b in bots
        ]
    finally:
        for b in bots:
            if b.returncode is None:
                b.kill()
        for w in held:
            w.close()
        proxy.close()
        await server.stop()
    patient, partner = outputs
    assert bots[0].returncode == 0, patient
    assert "no answer to hello" in patient and "trying again in 1 s" in patient, patient
    assert patient.count("fairness verified") == 1 and "Traceback" not in patient, patient
    assert bots[1].returncode == 0 and partner.count("fairness verified") == 1, partner
    assert connections == 2


async def test_a_bot_waits_out_a_tournament_entry_the_server_answers_late(tmp_path: Path) -> None:
    """The entry's answer does not come in time (the relay holds the request back until the bot,
    given no answer, asks again; then passes both on): the bot, entered already by then, plays
    the tournament."""
    server = ServerProcess(tmp_path / "server.db")
    port = await server.start()

    async def relay(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held: list[bytes] = []  # the first entry's chunk, until the bot asks again
        passed = False

        async def hold_the_entry(data: bytes) -> bytes:
            nonlocal passed
            if passed or b"register_tournament" not in data:
                return data
            if not held:  # a paused server, as the bot sees it
                held.append(data)
                return b""
            passed = True  # the bot asked again: the server answers both, in order
            return held.pop() + data

        await relay_to(port, reader, writer, hold_the_entry)

    try:
        codes, outputs, _ = await relayed_cup(port, relay, "late cup", ("patient", "prompt"))
    finally:
        await server.stop()
    patient, prompt = outputs
    assert codes[0] == 0, patient
    assert "no answer to register_tournament" in patient and "trying again" in patient, patient
    assert "finished" in patient and "Traceback" not in patient, patient
    assert codes[1] == 0, prompt
