"""`sushigo-bot` at a server that takes its connection but does not answer (paused, frozen,
overloaded: a node of a cluster stopped for a moment) waits it out as a person would: one line
saying so, then it asks again and plays. A real server behind a relay that holds the first
connection without a word, and real bot processes."""

from __future__ import annotations

import asyncio
from pathlib import Path

from processes import BOT, ServerProcess


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
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", port)

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            try:
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            except ConnectionError:
                pass
            finally:
                dst.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    proxy = await asyncio.start_server(relay, "127.0.0.1", 0)
    relayed = proxy.sockets[0].getsockname()[1]
    args = ("--strategy", "random", "--players", "2", "--games", "1")
    bots = [
        await asyncio.create_subprocess_exec(
            str(BOT),
            f"127.0.0.1:{p}",
            *args,
            "--name",
            name,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
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
