"""A player who leaves a quick match is out of it at once (issue #32, item 1): `q` `y` in the
terminal client while it waits, Ctrl-C or SIGTERM of a waiting `sushigo-bot`, or its connection
lost. No later game seats them: the players who come next play their games (before, three bots
were seated beside the departed player's id and every turn waited for its timeout). A real
server process, real bot processes, and the real client command in tmux."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import sys
from pathlib import Path

import pytest
from processes import BOT, ServerProcess
from terminal import needs_tmux, terminal
from tui_helpers import quit_in

from sushigo.client.connection import Client, ConnectionLost, reconnect
from sushigo.protocol import TurnStart

GAMES_SECONDS = 40
"""How long the bots that come after have to play (each game takes a second or two; a seat
held for the one who left would make every turn wait the quick match's 60 s timer)."""


def _as_in_a_terminal() -> None:
    """Ctrl-C's signal as a program started in a terminal has it: a test run started in the
    background (a shell's `&`) ignores SIGINT, and a child would inherit that and never hear it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


async def bot(port: int, name: str, *args: str) -> asyncio.subprocess.Process:
    """A `sushigo-bot` (random, seeded by its name) on 127.0.0.1:`port`."""
    return await asyncio.create_subprocess_exec(
        str(BOT),
        f"127.0.0.1:{port}",
        *("--strategy", "random", "--name", name, "--seed", str(len(name)), *args),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        preexec_fn=_as_in_a_terminal,
    )


async def played(bots: list[asyncio.subprocess.Process], games: int) -> None:
    """Every bot exits 0 within `GAMES_SECONDS` (in all), having played `games` games."""
    read = [asyncio.ensure_future(b.communicate()) for b in bots]
    _, pending = await asyncio.wait(read, timeout=GAMES_SECONDS)
    for b in bots:
        if b.returncode is None:
            b.kill()
    await asyncio.wait(read, timeout=10)
    outputs = [f.result()[0].decode() if f.done() and not f.cancelled() else "" for f in read]
    assert not pending, f"not done within {GAMES_SECONDS} s: {outputs}"
    for b, output in zip(bots, outputs, strict=True):
        assert b.returncode == 0, output
        assert output.count("fairness verified") == games, output


def seated_names(db: Path) -> set[str]:
    """Every name that sat at a finished game of the server's database."""
    with sqlite3.connect(db) as conn:
        return {row[0] for row in conn.execute("SELECT name FROM results")}


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
async def test_a_bot_stopped_while_waiting_holds_no_seat(
    tmp_path: Path, how: signal.Signals
) -> None:
    """A bot waiting alone in a two-player quick match is stopped (Ctrl-C, SIGTERM, or killed:
    its connection lost), saying so in one line (Ctrl-C, SIGTERM). Two bots that each ask for two games then play both, together, and
    exit 0; the one that left sat at none of them."""
    db = tmp_path / "server.db"
    server = ServerProcess(db, ("--log-level", "info"))
    port = await server.start()
    try:
        leaver = await bot(port, "leaver", "--players", "2", "--games", "1")
        await server.logged(lambda log: b"created (sushi-go, 2 seats)" in log)
        os.kill(leaver.pid, how)
        try:
            said = (await asyncio.wait_for(leaver.communicate(), 10))[0].decode(errors="replace")
        except TimeoutError:
            leaver.kill()
            said = (await leaver.communicate())[0].decode(errors="replace")
            raise AssertionError(f"the bot went on after {how.name}: {said!r}") from None
        # Ctrl-C and SIGTERM: one line and the code README's "Exit codes" gives each.
        if how is not signal.SIGKILL:
            line = {signal.SIGINT: "interrupted", signal.SIGTERM: "stopped"}[how]
            code = {signal.SIGINT: 130, signal.SIGTERM: 0}[how]
            assert (leaver.returncode, said) == (code, f"sushigo-bot: {line}\n"), said
        await server.logged(lambda log: b"left the quick match" in log)
        pair = [await bot(port, name, "--players", "2", "--games", "2") for name in ("ann", "bob")]
        await played(pair, 2)
    finally:
        await server.stop()
    assert seated_names(db) == {"ann", "bob"}


@needs_tmux
async def test_a_person_who_quits_while_waiting_holds_no_seat(tmp_path: Path) -> None:
    """In the terminal client: `g` (Sushi Roll), `m` (quick match), seated; then `q` `y`. Four
    bots quick-matching into Sushi Roll for four then play their game together; the person who
    quit is not among its seats."""
    db = tmp_path / "server.db"
    server = ServerProcess(db, ("--log-level", "info"))
    port = await server.start()
    command = [sys.executable, "-m", "sushigo.client.cli", f"127.0.0.1:{port}", "--name", "quitter"]
    try:
        async with terminal(tmp_path, command) as term:
            await term.until(lambda s: "quick match" in s.lower(), "the lobby")
            await term.keys("g")
            await term.until(lambda s: "finds Sushi Roll tables" in s, "Sushi Roll chosen")
            await term.keys("m")
            await term.until(lambda s: "the game starts when the table is full" in s, "a seat")
            await quit_in(term)
        await server.logged(lambda log: b"left the quick match" in log)
        args = ("--game", "sushi-roll", "--players", "4", "--games", "1")
        await played([await bot(port, f"bot{i}", *args) for i in range(4)], 1)
    finally:
        await server.stop()
    assert "quitter" not in seated_names(db)


async def test_a_player_whose_connection_drops_while_waiting_queues_again(tmp_path: Path) -> None:
    """A player waiting in a quick match loses its connection (the server alive): its seat is
    freed at once. Taken back by the client library (`reconnect`, as the bot and the terminal
    client do), its session is in the lobby, and the library queues it again: a new table,
    whose game begins when the next player comes."""
    db = tmp_path / "server.db"
    server = ServerProcess(db, ("--log-level", "info"))
    port = await server.start()
    ann = await Client.connect("127.0.0.1", port, name="ann")
    bob = await Client.connect("127.0.0.1", port, name="bob")
    try:
        first = (await ann.quick_match(2, "sushi-go")).table.table_id
        assert ann._writer is not None
        ann._writer.transport.abort()  # the connection drops under it
        with pytest.raises(ConnectionLost):
            while True:
                await ann.next_event(10)
        await server.logged(lambda log: b"left the quick match" in log)
        await reconnect(ann, attempts=5, delay=0.1)
        assert ann.table is not None and ann.table.table_id != first
        assert ann.queued == (2, "sushi-go")
        await bob.quick_match(2, "sushi-go")
        for client in (ann, bob):
            await client.wait_for(TurnStart, 10)
    finally:
        await ann.close()
        await bob.close()
        await server.stop()


async def test_a_connection_that_drops_again_while_queueing_again_is_taken_back(
    tmp_path: Path,
) -> None:
    """The connection drops while the client library queues us again after a drop (the quick
    match asked on the new connection is cut): `reconnect` takes the session back once more and
    queues again, rather than raising to its caller (a bot printed a traceback so)."""
    server = ServerProcess(tmp_path / "server.db", ("--log-level", "info"))
    port = await server.start()
    connections = 0

    async def relay(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        # The second connection (the first taken back) is cut as it asks for its quick match.
        nonlocal connections
        connections += 1
        cut = connections == 2
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", port)

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter, up: bool) -> None:
            try:
                while data := await src.read(65536):
                    if cut and up and b"quick_match" in data:
                        break
                    dst.write(data)
                    await dst.drain()
            except ConnectionError:
                pass
            finally:
                for w in (writer, up_writer):
                    w.transport.abort()

        await asyncio.gather(pipe(reader, up_writer, True), pipe(up_reader, writer, False))

    proxy = await asyncio.start_server(relay, "127.0.0.1", 0)
    ann = await Client.connect("127.0.0.1", proxy.sockets[0].getsockname()[1], name="ann")
    try:
        first = (await ann.quick_match(2, "sushi-go")).table.table_id
        assert ann._writer is not None
        ann._writer.transport.abort()
        with pytest.raises(ConnectionLost):
            while True:
                await ann.next_event(10)
        await reconnect(ann, attempts=5, delay=0.1)
        assert connections == 3
        assert ann.table is not None and ann.table.table_id != first
        assert ann.queued == (2, "sushi-go")
    finally:
        await ann.close()
        proxy.close()
        await server.stop()
