"""The real `sushigo-server` command as a child process, for the tests that kill and restart it."""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import re
import select
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from sushigo.client.connection import Client, ConnectionLost, reconnect
from sushigo.protocol import (
    Message,
    SignedRecord,
    TournamentInfo,
    TournamentSettings,
    TournamentUpdate,
    verify_record,
    verify_signed_record,
)
from sushigo.server.keys import load_or_create_server_key, public_key_bytes
from sushigo.server.storage.database import open_storage

SERVER = Path(sys.executable).with_name("sushigo-server")
BOT = Path(sys.executable).with_name("sushigo-bot")
LISTENING = re.compile(r"sushigo-server listening on (\S+):(\d+)")
METRICS = re.compile(r"sushigo-server metrics on http://(\S+):(\d+)/metrics")
WEB = re.compile(r"sushigo-server web client on https?://(\S+):(\d+)/")


class ServerProcess:
    """`sushigo-server` on 127.0.0.1 and a database of the test's (`db`: a file, or the ``--db``
    and ``--key`` arguments of the `server_db` fixture, for either backend): started on a free
    port, then killed and started again on the same port (the clients' address does not change),
    its output kept in `log`."""

    def __init__(
        self,
        db: Path | tuple[str, ...],
        extra: tuple[str, ...] = (),
        program: tuple[str, ...] = (str(SERVER),),
    ) -> None:
        self.db_args = ("--db", str(db)) if isinstance(db, Path) else db
        self.extra = extra
        self.program = program
        """The command that runs the server (its arguments follow)."""
        """More arguments (after the test's own: a later ``--log-level`` wins)."""
        self.port = 0
        self.metrics_port = 0
        """Where ``--metrics 127.0.0.1:0`` (in `extra`) serves, once started."""
        self.web_port = 0
        """Where ``--web 127.0.0.1:PORT`` (in `extra`) serves, once started (a restart keeps
        it: give port 0 the first time, the port found after)."""
        self.proc: asyncio.subprocess.Process | None = None
        self.patience = 20.0
        """Seconds it may take to say where it listens (a busy machine's chaos runs wait more)."""
        self.log = b""
        self._grew = asyncio.Event()
        """Set as each line is added to `log` (`logged` waits on it)."""
        self._drain: asyncio.Task[None] | None = None

    async def start(self) -> int:
        """Start it (on the port of the last start, if any); returns the port."""
        extra = list(self.extra)
        if self.web_port and "--web" in extra:  # the page's clients come back to the same port
            extra[extra.index("--web") + 1] = f"127.0.0.1:{self.web_port}"
        self.proc = await asyncio.create_subprocess_exec(
            *self.program,
            *("--host", "127.0.0.1", "--port", str(self.port), *self.db_args),
            *("--log-level", "warning", *extra),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        self.port = int((await self._line(LISTENING)).group(2))
        if "--metrics" in self.extra:
            self.metrics_port = int((await self._line(METRICS)).group(2))
        if "--web" in self.extra:
            self.web_port = int((await self._line(WEB)).group(2))
        self._drain = asyncio.create_task(self._keep(self.proc))
        return self.port

    async def _line(self, pattern: re.Pattern[str]) -> re.Match[str]:
        """Read the output up to a line matching `pattern` (the log lines before it are kept)."""
        assert self.proc is not None and self.proc.stdout is not None
        while True:
            line = (await asyncio.wait_for(self.proc.stdout.readline(), self.patience)).decode()
            assert line, f"the server ended before saying {pattern.pattern!r}:\n{self.log!r}"
            match = pattern.match(line)
            if match:
                return match
            self.log += line.encode()

    async def _keep(self, proc: asyncio.subprocess.Process) -> None:
        assert proc.stdout is not None
        while line := await proc.stdout.readline():
            self.log += line
            self._grew.set()

    async def logged(self, check: Callable[[bytes], object], timeout: float = 20) -> None:
        """Return once `check(log)` holds, looked at again as each line comes (AssertionError
        after `timeout` seconds). Start the server with ``--log-level info`` to see its
        lobby."""

        async def grown() -> None:
            while not check(self.log):
                self._grew.clear()
                await self._grew.wait()

        try:
            await asyncio.wait_for(grown(), timeout)
        except TimeoutError:
            raise AssertionError(f"the server did not log that in time:\n{self.log!r}") from None

    async def kill(self) -> None:
        """SIGKILL: no clean-up of any kind."""
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        await self.proc.wait()

    async def terminate(self, within: float = 15) -> int:
        """SIGTERM: the server's clean stop; its exit code, which must come within `within`
        seconds."""
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGTERM)
        return await asyncio.wait_for(self.proc.wait(), within)

    async def restart(self) -> None:
        await self.kill()
        await self.start()

    async def stop(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self.proc.kill()
            await self.proc.wait()
        if self._drain is not None:
            with contextlib.suppress(asyncio.CancelledError, TimeoutError):
                await asyncio.wait_for(self._drain, 5)


@asynccontextmanager
async def server_process(db: Path | tuple[str, ...], *extra: str) -> AsyncIterator[ServerProcess]:
    """A started `ServerProcess` (with the `extra` arguments), stopped at the end."""
    server = ServerProcess(db, extra=extra)
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


ROOT = Path(__file__).resolve().parents[1]


def kill_when_ready(
    code: str, *args: str, timeout: float = 30, before: Callable[[], None] | None = None
) -> None:
    """Run Python `code` (with `args`) in a child process until it prints "ready", then (after
    `before`, a look at its files while it lives) SIGKILL it: whatever it held and had not
    committed is lost, as in a crash."""
    child = subprocess.Popen(
        [sys.executable, "-c", code, *args],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        readable, _, _ = select.select([child.stdout], [], [], timeout)
        assert readable, "the child did not report in time"
        assert child.stdout.readline() == "ready\n"
        if before is not None:
            before()
        os.kill(child.pid, signal.SIGKILL)
        assert child.wait(timeout=10) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


async def start_bots(
    port: int, games: int, count: int = 3, players: int = 4
) -> list[asyncio.subprocess.Process]:
    """`count` `sushigo-bot` processes (random, seeded, named bot0, bot1, ...) quick-matching
    into games of `players` seats on 127.0.0.1:`port` for `games` games each."""
    return [
        await bot_process(
            port,
            *("--players", str(players), "--games", str(games)),
            *("--name", f"bot{i}", "--seed", str(i)),
        )
        for i in range(count)
    ]


async def bot_process(port: int, *args: str) -> asyncio.subprocess.Process:
    """`sushigo-bot` (random) on 127.0.0.1:`port` with `args`, its output kept."""
    return await asyncio.create_subprocess_exec(
        str(BOT),
        f"127.0.0.1:{port}",
        *("--strategy", "random", *args),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )


async def relayed_cup(
    port: int,
    relay: Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]],
    name: str,
    entrants: tuple[str, str],
    entered: asyncio.Event | None = None,
) -> tuple[list[int | None], list[str], TournamentInfo]:
    """A two-player, one-game Sushi Go! tournament `name` on the server at `port`, hosted by a
    client, entered by two `bot_process`es named `entrants`: the first through `relay` (a proxy
    on a port of its own), the second directly. Once both entries are seen (and `entered` is
    set, when given) the host starts it; the bots play it to their end. Their exit codes, their
    outputs and the tournament as it stands then."""
    proxy = await asyncio.start_server(relay, "127.0.0.1", 0)
    relayed = proxy.sockets[0].getsockname()[1]
    host = await Client.connect("127.0.0.1", port, name="host")
    await host.create_tournament(TournamentSettings(name=name, kind="sushi-go", players=2, games=1))
    bots = [
        await bot_process(p, "--tournament", name, "--name", entrant)
        for p, entrant in zip((relayed, port), entrants, strict=True)
    ]
    try:
        if entered is not None:
            await asyncio.wait_for(entered.wait(), 30)
        info = await host.watch_tournament(name)
        while len(info.standings) < 2:  # each entry is told to its watchers
            info = (await host.wait_for(TournamentUpdate, 40)).tournament
        await host.start_tournament(name)
        outputs = [
            (await asyncio.wait_for(b.communicate(), 60))[0].decode(errors="replace") for b in bots
        ]
        info = await host.watch_tournament(name)
    finally:
        for b in bots:
            if b.returncode is None:
                b.kill()
        await host.close()
        proxy.close()
    return [b.returncode for b in bots], outputs, info


async def start_tournament_bots(
    port: int, tournament: str, count: int, keys: Path, guests: tuple[int, ...] = ()
) -> list[asyncio.subprocess.Process]:
    """`count` `sushigo-bot --tournament` processes (random, seeded, named bot0, bot1, ...)
    entering `tournament` on 127.0.0.1:`port`, each with a key in `keys` (the same identity
    after a restart), but those numbered in `guests`, which log in as guests."""
    return [
        await bot_process(
            port,
            *("--tournament", tournament, "--seed", str(i), "--name", f"bot{i}"),
            *(() if i in guests else ("--key", str(keys / f"bot{i}.key"))),
        )
        for i in range(count)
    ]


async def bots_output(bots: list[asyncio.subprocess.Process], timeout: float = 60) -> list[str]:
    """What each bot printed once all have exited, within `timeout` seconds in all; if some
    have not by then, they are stopped and the test fails showing what every one printed."""
    read = [asyncio.ensure_future(bot.communicate()) for bot in bots]
    done, pending = await asyncio.wait(read, timeout=timeout)
    if pending:
        await stop_bots(bots)
        await asyncio.wait(pending, timeout=10)
        shown = "\n".join(
            f"-- bot{i} ({'exited ' + str(bot.returncode) if f in done else 'running'}):\n"
            + (f.result()[0].decode() if f.done() and not f.cancelled() else "")
            for i, (bot, f) in enumerate(zip(bots, read, strict=True))
        )
        raise AssertionError(f"not every bot was done within {timeout:g} s:\n{shown}")
    return [f.result()[0].decode() for f in read]


async def stop_bots(bots: list[asyncio.subprocess.Process]) -> None:
    """Kill the bots still running."""
    for bot in bots:
        if bot.returncode is None:
            bot.kill()
            await bot.wait()


def assert_bots_played(
    bots: list[asyncio.subprocess.Process],
    outputs: list[str],
    games: int,
    fair: Callable[[str], bool] = lambda line: "fairness verified" in line,
) -> None:
    """Every bot exited 0 having reported `games` games, each line `fair`."""
    for bot, output in zip(bots, outputs, strict=True):
        assert bot.returncode == 0, output
        lines = [line for line in output.splitlines() if line.startswith("game ")]
        assert len(lines) == games, output
        assert all(fair(line) for line in lines), output


async def play_beside_bots(
    bots: list[asyncio.subprocess.Process],
    games: int,
    play: Awaitable[None],
    client: Client,
    *servers: ServerProcess,
    fair: Callable[[str], bool] = lambda line: "fairness verified" in line,
) -> None:
    """Our `client`'s `play` (90 s at most), then the `bots` to their end; whatever happens,
    the client closed and the bots and `servers` stopped; then every bot played its `games`,
    each `fair` (`assert_bots_played`)."""
    try:
        await asyncio.wait_for(play, 90)
        outputs = await bots_output(bots)
    finally:
        await client.close()
        await stop_bots(bots)
        await asyncio.gather(*(server.stop() for server in servers))
    assert_bots_played(bots, outputs, games, fair)


def assert_records_verify(records: list[tuple[bytes, bytes]], server_key: bytes) -> None:
    """Each stored (record, signature) is signed by `server_key`, replays and scores as
    recorded, and has no pick the server made for a seat (a crash or a move cost no one a
    turn)."""
    for record, signature in records:
        signed = SignedRecord(record=record, signature=signature, server_key=server_key)
        report = verify_record(verify_signed_record(signed, server_key))
        assert report.ok, report.problems
        assert not report.auto_picks, report.auto_picks


def stored_records(
    server_db: tuple[str, ...], limit: int = 10
) -> tuple[list[tuple[bytes, bytes]], bytes]:
    """The finished games a server's `--db` holds, as (record, signature), and the public key
    of the server key it signs with (its `--key`, or the one beside the database)."""
    options = dict(zip(server_db[::2], server_db[1::2], strict=True))
    storage = open_storage(options["--db"])
    try:
        stored = [storage.get_record(g.game_id) for g in storage.list_records(limit=limit)]
    finally:
        storage.close()
    key_file = Path(options.get("--key") or options["--db"] + ".key")
    records = []
    for game in stored:
        assert game is not None
        records.append((game.record, game.signature))
    return records, public_key_bytes(load_or_create_server_key(key_file))


async def next_event_resuming(
    client: Client, rng: random.Random, resumed: Callable[[], None] | None = None
) -> Message:
    """The client's next event; when its connection is lost (its server killed or stopped),
    reconnect and resume as a person's client does (calling `resumed` once back), and pick
    at once if the step is waiting for us."""
    while True:
        try:
            return await client.next_event(30)
        except ConnectionLost:
            await reconnect(client, attempts=60, delay=0.1)
            if resumed is not None:
                resumed()
            if client.awaiting:
                client.pick(rng.choice(list(client.legal_actions())))


async def http_get(
    host: str, port: int, path: str, method: str = "GET", timeout: float = 10.0
) -> tuple[int, str]:
    """One HTTP request on a connection of its own: (status, body)."""
    reader, writer = await asyncio.open_connection(host, port)
    try:
        writer.write(f"{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        reply = await asyncio.wait_for(reader.read(), timeout)
    finally:
        writer.close()
    head, _, body = reply.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), body.decode()
