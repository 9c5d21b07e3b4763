#!/usr/bin/env python3
"""The disk filling up under a load of games: what the server holds meanwhile, and how long it
takes to recover once there is room.

    .venv/bin/python scripts/bench_disk.py [--games 50] [--warm 20] [--full 30] [--after 20]

Mounts a tmpfs of ``--size-mib`` (as an ordinary user, the script runs itself again as root of a
user and mount namespace of its own: ``unshare -rm``), starts ``sushigo-server`` with its SQLite
database on it, and plays ``--games`` four-seat games at a time with the project's own client
(each seat quick-matches, picks at random after ``--pick-seconds`` on average, and after a game
quick-matches again; a refused new table is asked for again half a second later). After
``--warm`` seconds the disk is filled (one file, until ENOSPC), for ``--full`` seconds; then the
file is deleted, and the games go on for ``--after`` seconds (``--control``: the same, the disk
never filled, for comparison). Every quarter of a second the server's metrics (its held writes:
``sushigo_storage_queue``) and its resident memory are sampled.

Reported: games finished before, during and after; new tables refused while full; held writes and
resident memory (before the disk filled, at their peak, and after); how long from the file's
deletion to /readyz saying ready and to no write held; and, the server stopped, every stored
record checked (its signature, and replayed) against the games the players saw end, and SQLite's
integrity check.
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import os
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sushigo.client.connection import Client  # noqa: E402
from sushigo.client.errors import ServerError  # noqa: E402
from sushigo.protocol import (  # noqa: E402
    GameEnded,
    SignedRecord,
    TurnStart,
    verify_record,
    verify_signed_record,
)
from sushigo.server.keys import load_or_create_server_key, public_key_bytes  # noqa: E402
from sushigo.server.storage.sqlite.storage import SqliteStorage  # noqa: E402

SERVER = Path(sys.executable).with_name("sushigo-server")
AGAIN = "SUSHIGO_BENCH_DISK_INSIDE"
"""Set when the script runs itself again inside a user namespace."""
SAMPLE_SECONDS = 0.25
SERVER_ARGS = (
    *("--metrics", "127.0.0.1:0", "--log-level", "warning"),
    # Every seat connects from 127.0.0.1, at once: the limits an address has are not measured.
    *("--max-per-address", "100000", "--max-unidentified-per-address", "100000"),
    *("--connect-burst-per-address", "1e9"),
)


@dataclass
class Tally:
    """What the players saw."""

    ended: dict[bytes, float] = field(default_factory=dict)
    """Every game seen to end: its record, and when a player first saw it end (monotonic)."""
    refused: int = 0
    """New tables refused (the storage failing)."""
    errors: list[str] = field(default_factory=list)
    """Anything else that went wrong."""


@dataclass
class Sample:
    at: float
    held: float
    rss_kib: int
    failing: float


async def http_get(port: int, path: str) -> tuple[int, str]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        reply = await asyncio.wait_for(reader.read(), 10)
    finally:
        writer.close()
    head, _, body = reply.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), body.decode()


def metric(text: str, name: str) -> float:
    found = re.search(rf"^{re.escape(name)} (\S+)$", text, re.MULTILINE)
    return float(found.group(1)) if found else float("nan")


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


async def seat(port: int, name: str, pace: float, stop: asyncio.Event, tally: Tally) -> None:
    """One player: quick-match, play at random, again, until `stop`."""
    rng = random.Random(name)
    client = await Client.connect("127.0.0.1", port, name=name)
    try:
        while not stop.is_set():
            try:
                await client.quick_match(4, "sushi-go")
            except ServerError as exc:
                if "cannot store games" not in str(exc):
                    tally.errors.append(f"{name}: {exc}")
                tally.refused += 1
                await asyncio.sleep(0.5)
                continue
            while True:
                event = await client.next_event(120)
                if isinstance(event, TurnStart) and client.seat is not None:
                    await asyncio.sleep(rng.uniform(0.5, 1.5) * pace)
                    client.pick(rng.choice(event.observation.legal_actions()))
                elif isinstance(event, GameEnded):
                    tally.ended.setdefault(event.record.record, time.monotonic())
                    break
            await client.leave()
    except Exception as exc:  # the run goes on; the report says what went wrong
        tally.errors.append(f"{name}: {type(exc).__name__}: {exc}")
    finally:
        await client.close()


def fill(folder: Path) -> int:
    """One file taking every byte left; its size."""
    written, size, block = 0, 1 << 16, b"\0" * (1 << 16)
    with (folder / "filler").open("ab", buffering=0) as out:
        while size:
            try:
                written += out.write(block[:size]) or 0
            except OSError as exc:
                if exc.errno != errno.ENOSPC:
                    raise
                size //= 2
    return written


async def until(check: Callable[[], Any], timeout: float = 60.0) -> float:
    """Seconds until `check()` (a coroutine's answer) is true, asked every 10 ms."""
    began = time.monotonic()
    while not await check():
        if time.monotonic() - began > timeout:
            raise TimeoutError("not within a minute")
        await asyncio.sleep(0.01)
    return time.monotonic() - began


async def run(args: argparse.Namespace, disk: Path) -> dict[str, Any]:
    db = disk / "server.db"
    server = subprocess.Popen(
        [str(SERVER), "--host", "127.0.0.1", "--port", "0", "--db", str(db), *SERVER_ARGS],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None and server.stderr is not None
    port = int(server.stdout.readline().split(":")[-1])
    metrics_port = int(server.stdout.readline().rsplit(":", 1)[1].split("/")[0])
    tally, stop, samples = Tally(), asyncio.Event(), list[Sample]()
    names = [f"p{n}" for n in range(4 * args.games)]
    seats = [asyncio.create_task(seat(port, n, args.pick_seconds, stop, tally)) for n in names]

    async def sample() -> None:
        while True:
            _, text = await http_get(metrics_port, "/metrics")
            samples.append(
                Sample(
                    time.monotonic(),
                    metric(text, "sushigo_storage_queue"),
                    rss_kib(server.pid),
                    metric(text, "sushigo_storage_failing"),
                )
            )
            await asyncio.sleep(SAMPLE_SECONDS)

    sampler = asyncio.create_task(sample())
    await asyncio.sleep(args.warm)
    filled_at = time.monotonic()
    filler = 0 if args.control else fill(disk)
    await asyncio.sleep(args.full)
    freed_at = time.monotonic()
    if not args.control:
        (disk / "filler").unlink()

    async def ready() -> bool:
        return (await http_get(metrics_port, "/readyz"))[0] == 200

    async def drained() -> bool:
        _, text = await http_get(metrics_port, "/metrics")
        return metric(text, "sushigo_storage_queue") == 0

    to_ready = await until(ready)
    to_drained = to_ready + await until(drained)
    await asyncio.sleep(args.after)
    stop.set()
    await asyncio.wait_for(asyncio.gather(*seats), 120)
    sampler.cancel()
    server.send_signal(signal.SIGINT)
    _, log = server.communicate(timeout=60)

    public = public_key_bytes(load_or_create_server_key(disk / "server.db.key"))
    stored = SqliteStorage(db, read_only=True)
    try:
        kept: set[bytes] = set()
        verified = 0
        for summary in stored.list_records(limit=10**6):
            got = stored.get_record(summary.game_id)
            assert got is not None
            kept.add(got.record)
            signed = SignedRecord(record=got.record, signature=got.signature, server_key=public)
            verified += verify_record(verify_signed_record(signed, public)).ok
    finally:
        stored.close()
    seen = set(tally.ended)
    check = sqlite3.connect(db)
    try:
        integrity = check.execute("PRAGMA integrity_check").fetchall()[0][0]
    finally:
        check.close()

    def phase(begin: float, end: float) -> list[Sample]:
        return [s for s in samples if begin <= s.at < end]

    before, during = phase(0, filled_at), phase(filled_at, freed_at)
    after = phase(freed_at + to_drained, float("inf"))
    return {
        "games at a time": args.games,
        "disk MiB": args.size_mib,
        "filler MiB": round(filler / 2**20, 1),
        "games finished before / while full / after": (
            sum(t < filled_at for t in tally.ended.values()),
            sum(filled_at <= t < freed_at for t in tally.ended.values()),
            sum(t >= freed_at for t in tally.ended.values()),
        ),
        "new games refused while full (each seat asks again after 0.5 s)": tally.refused,
        "held writes: before (max) / while full (max) / after": (
            max((s.held for s in before), default=0),
            max((s.held for s in during), default=0),
            max((s.held for s in after), default=0),
        ),
        "resident MiB: before / while full (max) / after (max)": (
            round(before[-1].rss_kib / 1024, 1) if before else None,
            round(max((s.rss_kib for s in during), default=0) / 1024, 1),
            round(max((s.rss_kib for s in after), default=0) / 1024, 1),
        ),
        "seconds from room to /readyz ready": round(to_ready, 2),
        "seconds from room to no write held": round(to_drained, 2),
        "records stored / verified / seen by the players": (len(kept), verified, len(seen)),
        "records the players saw that are not stored": len(seen - kept),
        "integrity check": integrity,
        "server log lines": [line for line in log.splitlines() if line.strip()][:6],
        "client errors": tally.errors[:5],
    }


def main(argv: list[str] | None = None) -> int:
    doc = __doc__ or ""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--games", type=int, default=50, help="four-seat games at a time")
    parser.add_argument("--size-mib", type=int, default=64, help="the tmpfs's size")
    parser.add_argument("--warm", type=float, default=20.0, help="seconds before the disk fills")
    parser.add_argument("--full", type=float, default=30.0, help="seconds the disk stays full")
    parser.add_argument("--after", type=float, default=20.0, help="seconds of play after")
    parser.add_argument("--pick-seconds", type=float, default=1.0, help="mean delay of a pick")
    parser.add_argument(
        "--control",
        action="store_true",
        help="the same run with the disk never filled (what the server holds anyway)",
    )
    args = parser.parse_args(argv)
    if min(args.games, args.size_mib) < 1 or min(args.warm, args.full, args.after) < 0:
        parser.error("--games and --size-mib must be at least 1, the durations not negative")
    if os.geteuid() != 0:
        if os.environ.get(AGAIN) or shutil.which("unshare") is None:
            parser.error("mounting a tmpfs needs root, or user namespaces (unshare -rm)")
        command = ["unshare", "-rm", sys.executable, __file__, *(argv or sys.argv[1:])]
        return subprocess.run(command, env={**os.environ, AGAIN: "1"}, check=False).returncode
    with tempfile.TemporaryDirectory(prefix="sushigo-bench-disk-") as folder:
        disk = Path(folder)
        subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={args.size_mib}m", "sushigo-bench", str(disk)],
            check=True,
        )
        try:
            report = asyncio.run(run(args, disk))
        finally:
            subprocess.run(["umount", "--lazy", str(disk)], check=False)
    for name, value in report.items():
        print(f"{name}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
