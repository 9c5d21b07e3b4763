"""The client library reads what a server sent in an order it did not plan for, and plays on: a
real server, real sockets, and between them a relay that can drop what the server says.

The order is a cluster node's whose lease lapsed as a quick match was answered: the answer
and the game's start never reached the players (the node took them back unsent), their
connections ended, and their sessions came back by a snapshot of a game at a table they were
never told of, while the messages of their last game's table (read by nobody yet: a bot reads
events only while it plays) were still ahead of it. Here the server is killed as the game
begins, its words to the players dropped by the relay, and started again: the players resume
into the game from the saved seats (a snapshot), their last table's messages still unread.
Before, those moved the library's view after the resume had set it: no table, then a table
and no seat, and the first pick asserted (`_send_commit`: `self.seat is not None`)."""

from __future__ import annotations

import asyncio
import contextlib
import random
from pathlib import Path

from processes import ServerProcess
from sqlite_files import heads

from sushigo.bots import get_strategy
from sushigo.client.bot import play_one
from sushigo.client.connection import Client

NAMES = ("ann", "bob")


class Relay:
    """A TCP relay on 127.0.0.1 to the server's port: what the server says on a connection
    opened before `mute` is dropped from then on (as a node takes back frames it never sent),
    and a connection whose server side ends is ended on the client's side."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.muted = False
        self._open: list[tuple[asyncio.StreamWriter, asyncio.StreamWriter]] = []

    def mute(self) -> None:
        """Drop what the server says on the connections open now (new ones are relayed)."""
        self.muted = True

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.port)
        except OSError:  # the server is down (restarting): the client is refused as it would be
            writer.close()
            return
        self._open.append((writer, up_writer))
        born_muted = self.muted

        async def up() -> None:
            with contextlib.suppress(ConnectionError):
                while data := await reader.read(65536):
                    up_writer.write(data)
                    await up_writer.drain()
            up_writer.close()

        async def down() -> None:
            with contextlib.suppress(ConnectionError):
                while data := await up_reader.read(65536):
                    if self.muted and not born_muted:
                        continue
                    writer.write(data)
                    await writer.drain()
            writer.close()

        await asyncio.gather(up(), down())

    def close(self) -> None:
        for writer, up_writer in self._open:
            writer.close()
            up_writer.close()


async def test_a_resume_into_a_game_never_shown_plays_it(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    server = ServerProcess(db, ("--log-level", "info"))
    await server.start()
    relay = Relay(server.port)
    listener = await asyncio.start_server(relay.serve, "127.0.0.1", 0)
    port = listener.sockets[0].getsockname()[1]
    strategy = get_strategy("random", game="sushi-go")
    people = [await Client.connect("127.0.0.1", port, name=n) for n in NAMES]
    try:

        async def games(n: int) -> list[object]:
            return list(
                await asyncio.gather(
                    *(
                        play_one(c, strategy, random.Random(i + 10 * n), 2, "sushi-go")
                        for i, c in enumerate(people)
                    )
                )
            )

        firsts = await games(1)
        before = set(heads(db))
        relay.mute()
        seconds = asyncio.ensure_future(games(2))
        await server.logged(lambda log: log.count(b"a game of sushi-go starts") == 2)
        # Killed once the new game is saved (the server keeps it across a restart: its seats
        # resume into it by a snapshot), not before.
        await asyncio.wait_for(_saved_anew(db, before), 20)
        await server.restart()  # the relay ends the players' connections: they resume
        results = await asyncio.wait_for(seconds, 60)
    finally:
        for client in people:
            await client.close()
        relay.close()
        listener.close()
        await server.stop()
    for result in (*firsts, *results):
        assert getattr(result, "verified", False), result
        assert getattr(result, "players", 0) == 2, result
    # The second game's places are the players' own (read from the seat the resume gave).
    assert sorted(getattr(r, "place", 0) for r in results) in ([1, 2], [1, 1])


async def _saved_anew(db: Path, before: set[str]) -> None:
    """Return once the server's database holds a game in progress not in `before`."""
    while not set(heads(db)) - before:
        await asyncio.sleep(0.02)  # another process's file: nothing to be told by
