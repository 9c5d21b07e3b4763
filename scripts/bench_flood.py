"""The flood of issue 21 against a real server with its default limits: peak memory, memory after,
and how long a game elsewhere takes during it.

    nice -n 19 .venv/bin/python scripts/bench_flood.py
    .venv/bin/python scripts/bench_flood.py --tables 1000 --list-seconds 25 --workers 6 --settle 200

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
import subprocess
import sys
import threading
import time

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


async def hold_tables(count: int) -> list[asyncio.StreamWriter]:
    """Connections that each make a table and stay connected (closed by the caller)."""
    settings = TableSettings(kind="sushi-go", players=5)
    held = []
    for _ in range(count):
        reader, writer = await asyncio.open_connection(HOST, int(str(ADDRESS[1])))
        writer.write(
            HELLO
            + frame(LoginGuest(ref=2, name=f"holder{next(_names)}"))
            + frame(CreateTable(ref=3, settings=settings))
        )
        with contextlib.suppress(ConnectionError, TimeoutError):
            await asyncio.wait_for(reader.read(1 << 16), 5)
        held.append(writer)
    return held


async def make_tables(count: int, tally: dict[str, int]) -> None:
    """Phase 1: connect, hello, login, create a 5-player table, close; `count` times."""
    settings = TableSettings(kind="sushi-go", players=5)
    todo = iter(range(count))

    async def one() -> None:
        for _ in todo:
            try:
                reader, writer = await asyncio.open_connection(HOST, int(str(ADDRESS[1])))
            except OSError:
                tally["refused"] += 1
                continue
            name = f"flood{next(_names)}"
            writer.write(
                HELLO
                + frame(LoginGuest(ref=2, name=name))
                + frame(CreateTable(ref=3, settings=settings))
            )
            # The table's TABLE_JOINED (or an ERROR) is the last answer: wait for some bytes.
            with contextlib.suppress(ConnectionError, TimeoutError):
                await asyncio.wait_for(reader.read(1 << 16), 5)
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


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", type=int, default=1000, help="phase 1's connections (1000)")
    p.add_argument("--hold", type=int, default=200, help="tables kept by their players (200)")
    p.add_argument("--workers", type=int, default=6, help="phase 2's loops (6)")
    p.add_argument("--list-seconds", type=float, default=25.0, help="phase 2's length (25)")
    p.add_argument("--settle", type=float, default=200.0, help="seconds to wait after (200)")
    args = p.parse_args()
    defaults = HubConfig()
    # loadtest's server raises the connection caps; this one runs with the defaults.
    caps = ["--max-per-address", str(defaults.max_per_address)]
    caps += ["--max-unidentified-per-address", str(defaults.max_unidentified_per_address)]
    caps += ["--max-connections", str(defaults.max_connections)]
    caps += ["--connect-rate-per-address", str(defaults.connect_rate_per_address)]
    caps += ["--connect-burst-per-address", str(defaults.connect_burst_per_address)]
    server = start_server(60, None, caps)
    ADDRESS[1] = server.port
    try:
        return _run(args, server)
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


if __name__ == "__main__":
    sys.exit(main())
