"""Floods against a real server with its default limits: peak memory, memory after, and how long
a game elsewhere takes during them.

    nice -n 19 .venv/bin/python scripts/bench_flood.py
    .venv/bin/python scripts/bench_flood.py --tables 1000 --list-seconds 25 --workers 6 --settle 200
    .venv/bin/python scripts/bench_flood.py --deaf 250 --addresses 1 --deaf-seconds 90
    .venv/bin/python scripts/bench_flood.py --deaf 2000 --addresses 8 --deaf-seconds 90

**Clients that never read** (``--deaf N``): N connections spread over ``--addresses`` loopback
addresses (127.0.0.2, 127.0.0.3, ...), each logging in and then asking LIST_TABLES (a page of
100) every ``--every`` seconds, never reading a byte; one the server closes connects again at
once, as an attacker's would. ``--slow`` of them read a little (4 KiB a second) for their first
10 seconds, then stop. Before the flood ``--hold`` players each open a 5-seat table and stay,
under 24-character names of 4-byte characters, so every page asked for is as long as a page can
be. Two games are played before the flood (the baseline) and one after another during it; the
server's resident memory is read every second (its peak, and every 10 s, are printed).

**The flood of issue 21** (without ``--deaf``):

Starts ``sushigo-server --port 0`` on 127.0.0.1 with a fresh database and every limit at its
default (`server.config.HubConfig`), then, all from this one address:

1. **tables**: ``--tables`` times, as fast as the server answers (eight at a time): connect,
   HELLO, LOGIN_GUEST, CREATE_TABLE for five players, close;
2. **lists**: ``--workers`` loops for ``--list-seconds``: connect, HELLO, LOGIN_GUEST, 60
   LIST_TABLES in one write, read until the server closes the connection.

Before phase 1, ``--hold`` connections each make a table and stay (a table with its player
connected is never closed early), so that every page of the list flood is a full one (100 tables
of five seats); the issue's flood had no such tables, and the server now closes the tables its
phase 1 leaves behind within seconds.

Meanwhile two ``sushigo-bot`` processes play a two-player game against each other, one game after
another, and the time of each (from starting the two processes to both exiting, so the Python
start-up of a bot is in it: the same was measured before the flood, ``baseline``) and its verdict
are printed, with the server's peak resident memory (VmHWM); after the flood stops the bench
waits ``--settle`` seconds (sessions wait 120 s for a resume, and the server gives freed memory
back once a minute), printing the server's resident memory every 10 s. Every figure comes from
the one run; the machine is shared, so compare figures of the same run (the game before and
during the flood), not of different runs.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

from load.servers import ROOT, ServerProcess, start_server

from sushigo.protocol import (
    CLIENT_LIMITS,
    PROTOCOL_NAME,
    SUPPORTED_VERSIONS,
    ClientMessage,
    CreateTable,
    Hello,
    ListTables,
    LoginGuest,
    TableSettings,
    encode_frame,
    encode_message,
)
from sushigo.server.config import HubConfig

HOST = "127.0.0.1"
ADDRESS: list[object] = [HOST, 0]
"""The server's host and port (the port once it listens)."""


def frame(message: ClientMessage) -> bytes:
    """A client frame, without the client's phase check (the flood sends before it reads)."""
    return encode_frame(encode_message(message, None, None), CLIENT_LIMITS)


HELLO = frame(Hello(ref=1, protocol=PROTOCOL_NAME, version=SUPPORTED_VERSIONS[-1]))
LISTS = b"".join(frame(ListTables(ref=10 + i, limit=100)) for i in range(60))
_names = itertools.count(1)


async def _read_until(reader: asyncio.StreamReader, stop: float) -> int:
    """Read and drop everything until the server closes (or `stop`); the bytes read."""
    got = 0
    with contextlib.suppress(ConnectionError, TimeoutError):
        while True:
            data = await asyncio.wait_for(reader.read(1 << 16), max(0.1, stop - time.monotonic()))
            if not data:
                break
            got += len(data)
    return got


def long_name(number: int) -> str:
    """A name of 24 four-byte characters (CJK ideographs of the plane NFKC leaves alone), the
    longest a name can be on the wire, told apart by `number`."""
    return "".join(chr(0x20000 + (number * 24 + i) % 0xA000) for i in range(24))


async def create_table(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, name: str
) -> None:
    """Hello, log in as guest `name` and create a 5-player table on a new connection, then wait
    (5 s at most) for some bytes of the answers: the table's TABLE_JOINED (or an ERROR) is last."""
    settings = TableSettings(kind="sushi-go", players=5)
    writer.write(
        HELLO + frame(LoginGuest(ref=2, name=name)) + frame(CreateTable(ref=3, settings=settings))
    )
    with contextlib.suppress(ConnectionError, TimeoutError):
        await asyncio.wait_for(reader.read(1 << 16), 5)


async def hold_tables(count: int, long: bool = False) -> list[asyncio.StreamWriter]:
    """Connections that each make a table and stay connected (closed by the caller); `long`:
    under the longest names (`long_name`)."""
    held = []
    for _ in range(count):
        reader, writer = await asyncio.open_connection(HOST, int(str(ADDRESS[1])))
        number = next(_names)
        await create_table(reader, writer, long_name(number) if long else f"holder{number}")
        held.append(writer)
    return held


async def make_tables(count: int, tally: dict[str, int]) -> None:
    """Phase 1: connect, hello, login, create a 5-player table, close; `count` times."""
    todo = iter(range(count))

    async def one() -> None:
        for _ in todo:
            try:
                reader, writer = await asyncio.open_connection(HOST, int(str(ADDRESS[1])))
            except OSError:
                tally["refused"] += 1
                continue
            await create_table(reader, writer, f"flood{next(_names)}")
            writer.close()
            tally["table_conns"] += 1

    await asyncio.gather(*(one() for _ in range(8)))


async def list_flood(workers: int, seconds: float, tally: dict[str, int]) -> None:
    """Phase 2: `workers` loops of connect, hello, login, 60 list_tables, read until closed."""
    stop = time.monotonic() + seconds

    async def worker() -> None:
        while time.monotonic() < stop:
            try:
                reader, writer = await asyncio.open_connection(HOST, int(str(ADDRESS[1])))
            except OSError:
                tally["refused"] += 1
                await asyncio.sleep(0.05)
                continue
            writer.write(HELLO + frame(LoginGuest(ref=2, name=f"lister{next(_names)}")) + LISTS)
            tally["list_bytes"] += await _read_until(reader, stop)
            writer.close()
            tally["list_conns"] += 1

    await asyncio.gather(*(worker() for _ in range(workers)))


def play_game(port: int, tag: str) -> tuple[float, list[str]]:
    """Two sushigo-bot processes play one two-player game: seconds, and their last lines."""
    exe = ROOT / ".venv" / "bin" / "sushigo-bot"
    command = [str(exe)] if exe.exists() else [sys.executable, "-m", "sushigo.client.bot"]
    began = time.monotonic()
    bots = [
        subprocess.Popen(
            [*command, f"{HOST}:{port}", "--players", "2", "--games", "1", "--name", f"{tag}{i}"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for i in (1, 2)
    ]
    lines = []
    for bot in bots:
        out, _ = bot.communicate(timeout=300)
        lines.append(out.strip().splitlines()[-1] if out.strip() else f"exit {bot.returncode}")
    return time.monotonic() - began, lines


async def deaf_flood(
    count: int,
    addresses: int,
    every: float,
    seconds: float,
    slow: int,
    tally: dict[str, int],
    rcvbuf: int = 0,
) -> None:
    """`count` connections over `addresses` loopback addresses, each asking LIST_TABLES every
    `every` seconds and never reading (the first `slow` read 4 KiB a second for 10 s first),
    each connecting again when the server drops it, for `seconds`; `rcvbuf`: their sockets'
    receive buffer (0: the system's)."""
    stop = time.monotonic() + seconds
    port = int(str(ADDRESS[1]))
    refs = itertools.count(10)
    ask = [frame(ListTables(ref=next(refs) % 2**32, limit=100)) for _ in range(64)]

    async def one(index: int) -> None:
        address = f"127.0.0.{2 + index % addresses}"
        # Spread the first connections over one period, as independent clients would come.
        await asyncio.sleep(every * index / count)
        while time.monotonic() < stop:
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            try:
                if rcvbuf:  # a small window: the server's kernel takes less off its hands
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
                sock.bind((address, 0))
                sock.setblocking(False)
                await asyncio.get_running_loop().sock_connect(sock, (HOST, port))
                reader, writer = await asyncio.open_connection(sock=sock)
            except OSError:
                sock.close()
                tally["refused"] += 1
                await asyncio.sleep(every)
                continue
            tally["connections"] += 1
            writer.write(HELLO + frame(LoginGuest(ref=2, name=f"deaf{next(_names)}")))
            began = time.monotonic()
            reads = index < slow
            asked = 0
            while time.monotonic() < stop and not writer.transport.is_closing():
                writer.write(ask[asked % len(ask)])
                asked += 1
                tally["asked"] += 1
                period = time.monotonic() + every
                if reads and time.monotonic() - began < 10:
                    with contextlib.suppress(ConnectionError, TimeoutError):
                        got = await asyncio.wait_for(reader.read(int(4096 * every)), every)
                        tally["slow_read"] += len(got)
                await asyncio.sleep(max(0.0, period - time.monotonic()))
                if reader.at_eof() or reader.exception() is not None:
                    break
            tally["closed"] += time.monotonic() < stop
            writer.transport.abort()

    await asyncio.gather(*(one(i) for i in range(count)))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", type=int, default=1000, help="phase 1's connections (1000)")
    p.add_argument("--hold", type=int, default=200, help="tables kept by their players (200)")
    p.add_argument("--workers", type=int, default=6, help="phase 2's loops (6)")
    p.add_argument("--list-seconds", type=float, default=25.0, help="phase 2's length (25)")
    p.add_argument("--settle", type=float, default=200.0, help="seconds to wait after (200)")
    p.add_argument("--deaf", type=int, default=0, help="connections that never read (0: none)")
    p.add_argument("--addresses", type=int, default=1, help="their loopback addresses (1-8)")
    p.add_argument("--every", type=float, default=0.8, help="seconds between their lists (0.8)")
    p.add_argument("--deaf-seconds", type=float, default=90.0, help="how long they flood (90)")
    p.add_argument("--slow", type=int, default=0, help="of them, read slowly then stop (0)")
    p.add_argument(
        "--rcvbuf", type=int, default=0, help="their sockets' receive buffer (0: the system's)"
    )
    p.add_argument(
        "--server",
        type=Path,
        default=None,
        help="another build's sushigo-server, to compare (default: this checkout's)",
    )
    args = p.parse_args()
    defaults = HubConfig()
    # loadtest's server raises the connection caps; this one runs with the defaults.
    caps = ["--max-per-address", str(defaults.max_per_address)]
    caps += ["--max-unidentified-per-address", str(defaults.max_unidentified_per_address)]
    caps += ["--max-connections", str(defaults.max_connections)]
    caps += ["--connect-rate-per-address", str(defaults.connect_rate_per_address)]
    caps += ["--connect-burst-per-address", str(defaults.connect_burst_per_address)]
    server = start_server(60, None, caps, exe=args.server)
    ADDRESS[1] = server.port
    try:
        return _run_deaf(args, server) if args.deaf else _run(args, server)
    finally:
        print("server log (warnings):")
        for line in server.stop().splitlines()[:20]:
            print("  " + line)


def _run(args: argparse.Namespace, server: ServerProcess) -> int:
    time.sleep(1.0)
    start_kib = server.status()["VmRSS"]
    base, lines = play_game(server.port, "calm")
    print(
        f"server pid {server.proc.pid}, port {server.port}; memory at start {start_kib / 1024:.0f} MB"
    )
    print(f"baseline game: {base:.2f} s ({'; '.join(lines)})")
    tally: dict[str, int] = dict.fromkeys(("table_conns", "list_conns", "list_bytes", "refused"), 0)
    games: list[tuple[float, list[str]]] = []
    flooding = threading.Event()
    flooding.set()

    def games_during() -> None:
        while flooding.is_set():
            games.append(play_game(server.port, f"g{len(games)}x"))

    player = threading.Thread(target=games_during, daemon=True)
    flood_began = time.monotonic()
    player.start()

    async def flood() -> tuple[float, float]:
        held = await hold_tables(args.hold)
        t0 = time.monotonic()
        await make_tables(args.tables, tally)
        t1 = time.monotonic()
        await list_flood(args.workers, args.list_seconds, tally)
        for writer in held:
            writer.close()
        return t1 - t0, time.monotonic() - t1

    phase1, phase2 = asyncio.run(flood())
    flooding.clear()
    flood_end = time.monotonic() - flood_began
    player.join(timeout=300)
    peak = server.status()["VmHWM"]
    end_kib = server.status()["VmRSS"]
    print(
        f"flood: {tally['table_conns']} table connections in {phase1:.1f} s, then"
        f" {tally['list_conns']} list connections in {phase2:.1f} s"
        f" ({tally['list_bytes'] / 1e6:.0f} MB of table lists read), {tally['refused']} refused"
    )
    print(
        f"memory: start {start_kib / 1024:.0f} MB, peak {peak / 1024:.0f} MB (VmHWM),"
        f" when the flood stopped {end_kib / 1024:.0f} MB"
    )
    for index, (seconds, lines) in enumerate(games, 1):
        print(f"game {index} during the flood: {seconds:.2f} s ({'; '.join(lines)})")
    worst = max((s for s, _ in games), default=0.0)
    print(f"slowest game during the flood: {worst:.2f} s (baseline {base:.2f} s)")
    settle_end = time.monotonic() + args.settle
    marks = []
    while time.monotonic() < settle_end:
        time.sleep(min(10.0, max(0.0, settle_end - time.monotonic())))
        marks.append(
            f"{time.monotonic() - flood_began - flood_end:.0f} s: {server.status()['VmRSS'] / 1024:.0f} MB"
        )
    print("memory after the flood: " + ", ".join(marks))
    after, lines = play_game(server.port, "after")
    print(f"game after: {after:.2f} s ({'; '.join(lines)})")
    ok = all("fairness verified" in line for _, ls in [*games, (base, lines)] for line in ls)
    print(f"every game verified: {ok}; pid {os.getpid()} done")
    return 0 if ok else 1


def _run_deaf(args: argparse.Namespace, server: ServerProcess) -> int:
    time.sleep(1.0)
    status = server.status
    start_kib = status()["VmRSS"]
    held: list[asyncio.StreamWriter] = []

    async def hold() -> None:
        held.extend(await hold_tables(args.hold, long=True))

    loop = asyncio.new_event_loop()
    loop.run_until_complete(hold())
    held_kib = status()["VmRSS"]
    baseline = [play_game(server.port, f"calm{i}") for i in range(2)]
    print(
        f"server pid {server.proc.pid}, port {server.port}; memory at start {start_kib / 1024:.0f}"
        f" MB, {held_kib / 1024:.0f} MB with {args.hold} tables held"
    )
    for seconds, lines in baseline:
        print(f"baseline game: {seconds:.2f} s ({'; '.join(lines)})")
    tally: dict[str, int] = dict.fromkeys(
        ("connections", "refused", "asked", "closed", "slow_read"), 0
    )
    games: list[tuple[float, list[str]]] = []
    flooding = threading.Event()
    flooding.set()
    samples: list[tuple[float, int]] = []
    began = time.monotonic()

    def watch() -> None:
        while flooding.is_set():
            samples.append((time.monotonic() - began, status().get("VmRSS", 0)))
            time.sleep(1.0)

    def games_during() -> None:
        time.sleep(min(10.0, args.deaf_seconds / 4))  # the flood at full strength first
        while flooding.is_set():
            games.append(play_game(server.port, f"g{len(games)}x"))

    ticks = status()["ticks"]
    mine = os.times()
    threads = [threading.Thread(target=f, daemon=True) for f in (watch, games_during)]
    for thread in threads:
        thread.start()
    loop.run_until_complete(
        deaf_flood(
            args.deaf,
            args.addresses,
            args.every,
            args.deaf_seconds,
            args.slow,
            tally,
            args.rcvbuf,
        )
    )
    flooding.clear()
    spent = (status()["ticks"] - ticks) / os.sysconf("SC_CLK_TCK")
    flood_cpu = sum(os.times()[:2]) - sum(mine[:2])
    flood_seconds = time.monotonic() - began
    for thread in threads:
        thread.join(timeout=300)
    for writer in held:
        writer.close()
    loop.close()
    peak = status()["VmHWM"]
    print(
        f"flood: {args.deaf} connections that never read from {args.addresses} address(es),"
        f" a list asked every {args.every:g} s for {args.deaf_seconds:g} s: {tally['connections']}"
        f" connections made, {tally['asked']} lists asked, {tally['closed']} closed by the"
        f" server, {tally['refused']} refused; {args.slow} read {tally['slow_read']} bytes first"
    )
    print(
        f"CPU over the flood's {flood_seconds:.0f} s: the server {spent:.1f} s"
        f" ({spent / flood_seconds:.0%} of a core), this flood's clients {flood_cpu:.1f} s"
    )
    print(
        "memory: "
        + ", ".join(f"{at:.0f} s {kib / 1024:.0f} MB" for at, kib in samples[::10])
        + f"; peak {peak / 1024:.0f} MB (VmHWM), largest sample"
        f" {max((k for _, k in samples), default=0) / 1024:.0f} MB"
    )
    for index, (seconds, lines) in enumerate(games, 1):
        print(f"game {index} during the flood: {seconds:.2f} s ({'; '.join(lines)})")
    base = statistics.median(s for s, _ in baseline)
    during = [s for s, _ in games]
    if during:
        print(
            f"games during the flood: median {statistics.median(during):.2f} s, slowest"
            f" {max(during):.2f} s; baseline median {base:.2f} s; ratio"
            f" {statistics.median(during) / base:.2f} (median), {max(during) / base:.2f} (slowest)"
        )
    ok = all("fairness verified" in line for _, ls in [*baseline, *games] for line in ls)
    print(f"every game verified: {ok}")
    return 0 if ok and during else 1


if __name__ == "__main__":
    sys.exit(main())
