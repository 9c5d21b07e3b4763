"""Nodes of a real cluster for the tests: `sushigo-server --node` processes on one PostgreSQL
database, sharing one key, each on a port chosen before it starts (it advertises it)."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import asyncpg
import pytest
from pgcluster import free_port
from processes import BOT, SERVER, ServerProcess, assert_records_verify, http_get, stop_bots

from sushigo.client.connection import Client, ConnectionLost, reconnect
from sushigo.client.identity import load_or_create_key
from sushigo.client.link import Link, ServerError
from sushigo.protocol import (
    ErrorCode,
    GameEnded,
    LoggedIn,
    LoginTicket,
    TableJoined,
    TableSettings,
    TurnStart,
)
from sushigo.server.keys import load_or_create_server_key, public_key_bytes

LEASE = 2.0
"""The tests' lease: a dead node's tables are taken over within seconds."""

T = TypeVar("T")


SHIFTED = Path(__file__).with_name("shifted.py")


ADMIN = Path(sys.executable).with_name("sushigo-admin")
TOURNAMENT = Path(sys.executable).with_name("sushigo-tournament")


def admin(port: int, key: Path, *args: str) -> list[str]:
    """`sushigo-admin 127.0.0.1:PORT --key KEY ARGS`: its lines, once it exited 0."""
    done = subprocess.run(
        [str(ADMIN), f"127.0.0.1:{port}", "--key", str(key), *args],
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, "HOME": str(key.parent)},
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.splitlines()


def node(
    url: str, key: Path, name: str, *extra: str, lease: float = LEASE, shift_ms: int = 0
) -> ServerProcess:
    """A node (not yet started) of the cluster on `url`, on a free port it advertises; its
    machine's clock `shift_ms` off (run through tests/cluster/shifted.py)."""
    port = free_port()
    process = ServerProcess(
        ("--db", url, "--key", str(key)),
        ("--node", name, "--advertise", f"127.0.0.1:{port}", "--lease", f"{lease:g}", *extra),
        (sys.executable, str(SHIFTED), str(shift_ms)) if shift_ms else (str(SERVER),),
    )
    process.port = port
    return process


def cluster_key(folder: Path) -> Path:
    """The key file a test's nodes share (`two_nodes`, `admin_cluster`), made in `folder`."""
    return folder / "cluster.key"


def two_nodes(url: str, folder: Path, *extra: str) -> tuple[ServerProcess, ServerProcess]:
    """Nodes a and b (not yet started) of the cluster on `url`, sharing the key made in
    `folder` (`cluster_key`), each with the options `extra`."""
    key = cluster_key(folder)
    return node(url, key, "a", *extra), node(url, key, "b", *extra)


async def started_two(url: str, folder: Path) -> tuple[ServerProcess, ServerProcess]:
    """`two_nodes`, started (a, then b)."""
    a, b = two_nodes(url, folder)
    await a.start()
    await b.start()
    return a, b


async def admin_cluster(
    url: str, folder: Path, lease: float = LEASE
) -> tuple[list[ServerProcess], Path]:
    """Nodes a, b and c of the cluster on `url` (with `lease`), started, each taking the admin
    key made in `folder` (`--admin-key`): the nodes, and that key's file (for `admin`)."""
    admin_key = folder / "admin.pem"
    load_or_create_key(admin_key)
    key = cluster_key(folder)
    nodes = [node(url, key, n, "--admin-key", str(admin_key), lease=lease) for n in "abc"]
    for n in nodes:
        await n.start()
    return nodes, admin_key


async def tournament_command(port: int, *args: str) -> tuple[int | None, str]:
    """`sushigo-tournament 127.0.0.1:PORT ARGS` run to its end: its exit code and output."""
    done = await asyncio.create_subprocess_exec(
        str(TOURNAMENT),
        f"127.0.0.1:{port}",
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    said = (await asyncio.wait_for(done.communicate(), 30))[0].decode()
    return done.returncode, said


def refused(url: str, key: Path, name: str, *extra: str) -> tuple[int, str]:
    """Start a node that must not join: its exit code and what it printed."""
    port = free_port()
    done = server_run(
        *("--host", "127.0.0.1", "--port", str(port), "--db", url, "--key", str(key)),
        *("--node", name, "--advertise", f"127.0.0.1:{port}", "--lease", f"{LEASE:g}"),
        *extra,
    )
    return done.returncode, done.stdout + done.stderr


def server_run(*args: str) -> subprocess.CompletedProcess[str]:
    """`sushigo-server ARGS` run to its end (one that must not start): what it printed."""
    return subprocess.run(
        [str(SERVER), *args], capture_output=True, text=True, timeout=30, check=False
    )


async def query(url: str, sql: str, *args: Any) -> list[Any]:
    """Rows of one statement on the cluster's database."""
    conn = await asyncpg.connect(url)
    try:
        return list(await conn.fetch(sql, *args))
    finally:
        await conn.close()


async def eventually(check: Callable[[], Awaitable[T | None]], timeout: float = 10) -> T:
    """`check()`'s first value that is not None (or false), asked again as the cluster moves:
    the leases are renewed on the nodes' own beat, which nothing outside can be told of."""
    loop = asyncio.get_running_loop()
    until = loop.time() + timeout
    while True:
        value = await check()
        if value:
            return value
        assert loop.time() < until, "the cluster did not get there in time"
        await asyncio.sleep(0.05)


async def game_begun(client: Client) -> str:
    """A two-seat game of `client`'s against the random bot, at a table it makes, begun (its
    first turn here): the table's id."""
    joined = await client.create_table(TableSettings(kind="sushi-go", players=2))
    await client.add_bot("random")
    client.start_game()
    await client.wait_for(TurnStart, 10)
    return joined.table.table_id


def owned_by(url: str, table_id: str, name: str) -> Callable[[], Awaitable[bool]]:
    """A check for `eventually`: node `name` holds the lease of table `table_id`."""

    async def check() -> bool:
        rows = await query(url, "SELECT node FROM table_leases WHERE table_id = $1", table_id)
        return bool(rows) and rows[0]["node"] == name

    return check


async def bring(port: int, ticket: bytes, name: str | None = None) -> Link:
    """A connection of its own to the node on `port`, logged in with `ticket` (as `name`, when
    given), closed by the caller."""
    link = Link("127.0.0.1", port, name="x")
    await link._open()
    try:
        reply = await link.request(lambda ref: LoginTicket(ref=ref, ticket=ticket))
        assert isinstance(reply, LoggedIn)
        assert name is None or reply.name == name, reply
    except BaseException:
        await link.close()
        raise
    return link


async def ticket_refused(port: int, ticket: bytes) -> ServerError:
    """The node on `port` refuses `ticket`: its error."""
    with pytest.raises(ServerError) as caught:
        await (await bring(port, ticket)).close()
    return caught.value


async def forgery_refused(port: int, ticket: bytes) -> None:
    """`ticket` with its last byte changed is refused at `port` as badly signed."""
    forged = bytearray(ticket)
    forged[-1] ^= 1
    error = await ticket_refused(port, bytes(forged))
    assert error.code is ErrorCode.BAD_SIGNATURE, error


async def knowing(port: int, name: str, nodes: int, **login: Any) -> Client | None:
    """A check for `eventually`: a client `name` logged in at `port` once that node knows of
    `nodes` live nodes and says so at login (each learns the others on its own beat, by
    LISTEN/NOTIFY); None before."""
    client = await Client.connect("127.0.0.1", port, name=name, **login)
    if len(client.nodes) == nodes:
        return client
    await client.close()
    return None


def replayed(url: str, home: Path, *args: str) -> str:
    """`sushigo-replay --db URL ARGS` as a user with a fresh home (no key file: the key the
    cluster's nodes registered); what it printed, once it exited 0."""
    replay = str(Path(sys.executable).with_name("sushigo-replay"))
    env = {**os.environ, "HOME": str(home), "XDG_DATA_HOME": str(home / "data")}
    done = subprocess.run(
        [replay, "--db", url, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=30,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


LOG_LINE = re.compile(
    rb"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ level=(debug|info|warning|error) |"
    rb"sushigo-server (listening|metrics) on |sushigo-server: error: )"
)
"""A line of a node's output in the server's format (or one of the two it prints at start, or
the one-line reason it prints as it exits 1)."""


async def records_verify(url: str, folder: Path, count: int) -> None:
    """The cluster on `url` stored `count` records, each verifying with its nodes' key (the
    `cluster_key` in `folder`)."""
    rows = await query(url, "SELECT record, signature FROM records")
    assert len(rows) == count
    key = public_key_bytes(load_or_create_server_key(cluster_key(folder)))
    assert_records_verify([(row[0], row[1]) for row in rows], key)


def unformatted(log: bytes) -> list[bytes]:
    """The lines of a node's output that are not in the server's log format, or hold a traceback
    (a bug's, logged on one line): none, in a node that works."""
    return [
        line
        for line in log.splitlines()
        if line and (not LOG_LINE.match(line) or b"Traceback" in line)
    ]


async def metric(port: int, name: bytes) -> float:
    """The value of one sample (`name`: its name and labels, as the text format writes them) of
    the node's metrics on `port` (``--metrics``)."""
    status, body = await http_get("127.0.0.1", port, "/metrics")
    assert status == 200
    for line in body.encode().splitlines():
        if line.startswith(name + b" "):
            return float(line.split()[-1])
    raise AssertionError(f"no {name!r} in the metrics")


async def ready(port: int) -> tuple[int, str]:
    """The node's /readyz on its metrics `port`: (status, body)."""
    return await http_get("127.0.0.1", port, "/readyz")


async def bots(port: int, names: range, *args: str) -> list[asyncio.subprocess.Process]:
    """`sushigo-bot` processes (random, seeded) on 127.0.0.1:`port`, named bot0, bot1, ...
    after `names`."""
    return [
        await asyncio.create_subprocess_exec(
            str(BOT),
            f"127.0.0.1:{port}",
            *("--strategy", "random", "--name", f"bot{i}", "--seed", str(i), *args),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        for i in names
    ]


@asynccontextmanager
async def crowd_on(*servers: ServerProcess) -> AsyncIterator[list[asyncio.subprocess.Process]]:
    """A crowd of bot processes for the test to fill; at the end, whatever happened, the bots
    still running are stopped, then `servers`."""
    crowd: list[asyncio.subprocess.Process] = []
    try:
        yield crowd
    finally:
        await stop_bots(crowd)
        await asyncio.gather(*(server.stop() for server in servers))


@asynccontextmanager
async def people_on(*servers: ServerProcess) -> AsyncIterator[list[Client]]:
    """A list for the test's client connections; at the end, whatever happened, each is closed,
    then `servers` are stopped."""
    people: list[Client] = []
    try:
        yield people
    finally:
        for client in people:
            await client.close()
        await asyncio.gather(*(server.stop() for server in servers))


async def seated_again(client: Client, timeout: float = 20) -> TableJoined:
    """The next TABLE_JOINED that answers no request of `client`'s: a move to another node's
    quick match seated it there (the answer to its own quick match comes as an event too)."""
    while True:
        joined = await client.wait_for(TableJoined, timeout)
        if joined.ref is None:
            return joined


async def play_through(client: Client, timeout: float = 30) -> GameEnded:
    """Play the client's game to its end (its first legal action each time), taking the session
    back wherever its table went when its node dies or drops it: the game's end. Each event is
    awaited `timeout` seconds at most."""
    while True:
        if client.awaiting:
            client.pick(client.legal_actions()[0])
        try:
            event = await client.next_event(timeout)
        except ConnectionLost:
            await reconnect(client, attempts=100, delay=0.1)
            continue
        if isinstance(event, GameEnded):
            return event
