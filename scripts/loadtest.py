"""Load test: a real server process, many concurrent 4-player games, figures at the end.

    .venv/bin/python scripts/loadtest.py --mode human --games 1000 --duration 120
    .venv/bin/python scripts/loadtest.py --mode saturation --games 200 --duration 40

Starts ``sushigo-server --port 0`` on 127.0.0.1 (a fresh database in a temporary directory) and
drives it from ``--clients-procs`` other processes with lightweight clients: a plain
`asyncio.Protocol` that parses frames with msgpack and answers from the raw maps (no typed decode
of observations), and builds its COMMIT and REVEAL as plain maps (the rest with
`protocol.encode_message`). Its cyclic garbage collector is off, so its own pauses do not count
into the latency measured; its event loop's lag is reported. Every seat quick
matches into a 4-player table, sends its seed, and per turn commits to a card of its hand
(`make_commitment` with a fresh nonce) and reveals it once COMMITMENTS arrive. After GAME_OVER it
leaves the table and quick matches again until the run ends. `--strict-clients` also runs every
received frame through `protocol.ClientConnection`, which validates everything (heavier).

Modes: ``human`` picks one card about every ``--pick-seconds`` (uniformly 0.5x to 1.5x, so tables
do not move in lockstep); ``saturation`` picks as soon as TURN_START arrives.

Reported: connections (peak open at once, from the clients' per-second samples), games
completed, four-player turns per second (sustained over the window after every seat connected,
and the best second), latency from a seat's REVEAL to its TURN_RESULT (p50/p99/max), errors (any
ERROR message, unexpected close, refused connection or bad sequence number) and the server's peak
memory (VmHWM) and CPU use (in all, and per turn its user and system time apart: the one the
server's Python work costs, the other its system calls). The server's stderr is read as it comes (a chatty server never blocks
on a full pipe). Every run stops by itself after ``--duration`` seconds, and only
127.0.0.1 is ever contacted. With two or more CPUs the server is pinned to CPU 0 and the clients to
the others (``--no-pin`` to turn that off).

To see where the server spends its time under load, ``--server-prefix`` runs it under another
command: ``--server-prefix "py-spy record --format raw -o prof.txt --"`` samples it, and
``--server-prefix "valgrind --tool=callgrind --callgrind-out-file=cg.out"`` counts its instructions
(slowly: use a few games; the difference of two durations divided by the difference of their
turns is the server's instructions per turn, start-up left out).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import multiprocessing as mp
import os
import random
import re
import resource
import secrets
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection as Pipe
from pathlib import Path
from typing import Any, cast

import msgpack

from sushigo.client.connection import Client
from sushigo.engine import Action, Card
from sushigo.protocol import (
    CARD_WIRE,
    CLIENT_LIMITS,
    PROTOCOL_NAME,
    ClientConnection,
    Commit,
    ErrorCode,
    Hello,
    JoinTable,
    LeaveTable,
    LoginGuest,
    LoginTicket,
    Message,
    Pong,
    ProtocolError,
    QuickMatch,
    Resume,
    Reveal,
    Seed,
    encode_frame,
    encode_message,
    make_commitment,
)
from sushigo.protocol.commitment import NONCE_SIZE
from sushigo.protocol.versions import CURRENT_VERSION

HOST = "127.0.0.1"
LOG_LINES = 1000
"""Lines of the server's stderr kept for the report."""
SCRAPE_SECONDS = 1.0
"""How often `--metrics` scrapes the server (Prometheus's own default is every 15 s)."""
ROOT = Path(__file__).resolve().parent.parent
_BY_LABEL = {card.label: card for card in Card}
_pack = msgpack.Packer(use_bin_type=True, autoreset=True).pack


@dataclass
class Settings:
    """What every client worker needs to know."""

    port: int
    mode: str
    pick_seconds: float
    start: float
    """Wall-clock time (time.time()) the run started; the per-second samples count from it."""
    duration: float
    ramp_seconds: float
    strict: bool
    barrier: bool
    """Log every seat in before any quick matches."""
    seed: int
    start_seconds: float = 0.0
    """After the barrier: spread the seats' first quick matches over this long (0: at once)."""
    ports: tuple[int, ...] = ()
    """A cluster's nodes (``--nodes``): each group of four seats connects to one, in turn."""


@dataclass
class Stats:
    """One worker's figures, sent back to the parent as plain data."""

    connected: int = 0
    games: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    latencies: array[float] = field(default_factory=lambda: array("d"))
    latency_at: array[float] = field(default_factory=lambda: array("d"))
    """When each latency sample was taken, in seconds after the start."""
    results_per_second: list[int] = field(default_factory=list)
    open_per_second: list[int] = field(default_factory=list)
    all_connected_at: float | None = None
    """Seconds after the start when this worker's last seat logged in."""
    logged_in: int = 0
    last_message: dict[str, int] = field(default_factory=dict)
    """How many seats last received each message type (where the stragglers are)."""
    cpu_seconds: float = 0.0
    """CPU time the worker process used."""
    back: array[float] = field(default_factory=lambda: array("d"))
    """Seconds from a seat's connection dying with its node to its next TURN_RESULT."""
    dropped: int = 0
    """Seats whose connection died with its node (``--kill-node-after``)."""
    killed_tables: dict[str, str] = field(default_factory=dict)
    """Each table whose seats lost their node: "lost" (no seat back yet), "back" (a seat played
    again) or "finished" (its game ended after the kill: it was not lost)."""
    lag: array[float] = field(default_factory=lambda: array("d"))
    joined: array[float] = field(default_factory=lambda: array("d"))
    """Seconds from a seat's QUICK_MATCH to its TABLE_JOINED (redirects followed included)."""
    between: array[float] = field(default_factory=lambda: array("d"))
    """Seconds from a seat's GAME_OVER to its next GAME_STARTING: the time between games."""
    """How late the worker's 100 ms sampler woke, each time (its event loop's lag: time that
    counts into the measured latency without being the server's)."""

    def error(self, what: str) -> None:
        self.errors[what] = self.errors.get(what, 0) + 1

    def to_data(self) -> dict[str, Any]:
        return {
            "connected": self.connected,
            "games": self.games,
            "errors": self.errors,
            "latencies": self.latencies.tobytes(),
            "latency_at": self.latency_at.tobytes(),
            "results_per_second": self.results_per_second,
            "open_per_second": self.open_per_second,
            "all_connected_at": self.all_connected_at,
            "logged_in": self.logged_in,
            "last_message": self.last_message,
            "cpu_seconds": self.cpu_seconds,
            "lag": self.lag.tobytes(),
            "joined": self.joined.tobytes(),
            "between": self.between.tobytes(),
            "back": self.back.tobytes(),
            "dropped": self.dropped,
            "killed_tables": self.killed_tables,
        }


class Worker:
    """The clients of one process and their shared counters."""

    def __init__(self, settings: Settings, seats: int) -> None:
        self.settings = settings
        self.seats = seats
        self.stats = Stats()
        self.loop = asyncio.get_running_loop()
        self.open = 0
        self.logged_in = 0
        self.all_in = asyncio.Event()
        self.playing = not settings.barrier
        self.waiting: list[LoadClient] = []
        self.quick_at: dict[int, float] = {}
        """When each seat (by index) last sent QUICK_MATCH (a redirect followed keeps it)."""
        self.over_at: dict[int, float] = {}
        """When each seat's last game ended."""
        self.stopping = False
        self.rng = random.Random(settings.seed)
        self.clients: list[LoadClient] = []
        self.following: set[asyncio.Future[None]] = set()
        self._random = b""
        self._random_at = 0

    def nonce(self) -> bytes:
        """A fresh 32-byte nonce from the OS's cryptographic generator, as a client makes one
        per pick: read 8 KiB at a time (a system call per pick was a tenth of the clients' CPU)."""
        at = self._random_at
        if at + NONCE_SIZE > len(self._random):
            self._random, at = os.urandom(256 * NONCE_SIZE), 0
        self._random_at = at + NONCE_SIZE
        return self._random[at : at + NONCE_SIZE]

    def elapsed(self) -> float:
        return time.time() - self.settings.start

    async def run(self) -> Stats:
        s = self.settings
        sampler = asyncio.ensure_future(self._sample())
        interval = s.ramp_seconds / max(1, self.seats)
        connecting: set[asyncio.Task[None]] = set()
        for i in range(self.seats):
            if self.elapsed() >= s.duration:
                break
            task = asyncio.ensure_future(self._connect(i))
            connecting.add(task)
            task.add_done_callback(connecting.discard)
            if interval > 0:
                await asyncio.sleep(interval)
            elif i % 64 == 63:
                await asyncio.sleep(0)
        if not self.playing:
            # Every seat connects and logs in first, then all quick match: a busy server accepts
            # new connections slowly (libuv accepts one per loop iteration), so connecting
            # during the load would measure that instead.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.all_in.wait(), max(0.1, s.duration - self.elapsed()))
            self.playing = True
            # Four by four (a table's worth), spread over --start-seconds: people do not all
            # start in one instant, and a burst of thousands of games measures the burst.
            waiting, self.waiting = self.waiting, []
            tables = max(1, len(waiting) // 4)
            for i, client in enumerate(waiting):
                client.send(QuickMatch(ref=client.next_ref(), kind="sushi-go", players=4))
                if s.start_seconds > 0 and i % 4 == 3:
                    await asyncio.sleep(s.start_seconds / tables)
        remaining = s.duration - self.elapsed()
        if remaining > 0:
            await asyncio.sleep(remaining)
        self.stopping = True
        for task in list(connecting):
            task.cancel()
        for client in self.clients:
            client.stop()
        sampler.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await sampler
        await asyncio.sleep(0.2)  # let the closes go out
        self.stats.logged_in = self.logged_in
        for client in self.clients:
            last = self.stats.last_message
            last[client.last_type] = last.get(client.last_type, 0) + 1
        usage = resource.getrusage(resource.RUSAGE_SELF)
        self.stats.cpu_seconds = usage.ru_utime + usage.ru_stime
        return self.stats

    async def _connect(
        self,
        index: int,
        port: int | None = None,
        redirect: dict[str, Any] | None = None,
        resume: dict[str, Any] | None = None,
    ) -> None:
        ports = self.settings.ports
        if port is None:
            port = ports[(index // 4) % len(ports)] if ports else self.settings.port
        try:
            await self.loop.create_connection(
                lambda: LoadClient(self, index, redirect, resume), HOST, port
            )
        except OSError as exc:
            if resume is not None and not self.stopping:  # that node is dead too: the next
                self.resume_later(index, resume, port)
            elif not self.stopping:
                self.stats.error(f"connect failed: {exc.strerror or exc}")

    def resume_later(self, index: int, resume: dict[str, Any], port: int | None = None) -> None:
        """A seat whose node died: resume on the next node in a moment (as the client library
        does: a node that does not hold the table yet redirects it, or takes it over)."""
        ports = self.settings.ports
        after = ports[(ports.index(port) + 1) % len(ports)] if port in ports else ports[0]

        def go() -> None:
            if not self.stopping:
                task = asyncio.ensure_future(self._connect(index, after, None, resume))
                self.following.add(task)
                task.add_done_callback(self.following.discard)

        # As the client library does (`client.connection.auto_reconnect`): a pause of a second,
        # growing by half each time, and jittered (0.5x to 1.5x), so thousands of seats that
        # lost one node do not knock on the next all at once. (A pause of a quarter second at
        # first made the storm three times as dense as the library's.)
        tries = resume["tries"] = resume.get("tries", 0) + 1
        self.loop.call_later(min(1.5 ** (tries - 1), 10.0) * (0.5 + self.rng.random()), go)

    def follow(self, index: int, redirect: dict[str, Any]) -> None:
        """A seat's REDIRECT (a cluster's quick match: a table on another node): a new
        connection there, logged in with the ticket, joining that table."""
        port = int(str(redirect["address"]).rsplit(":", 1)[1])
        self.stats.error("(not an error) redirects followed")
        task = asyncio.ensure_future(self._connect(index, port, redirect))
        self.following.add(task)
        task.add_done_callback(self.following.discard)

    def _bucket(self, second: int) -> None:
        stats = self.stats
        while len(stats.results_per_second) <= second:
            stats.results_per_second.append(0)
            stats.open_per_second.append(0)

    def count_result(self) -> None:
        """A TURN_RESULT arrived (four of them make one four-player turn)."""
        second = max(0, int(self.elapsed()))
        self._bucket(second)
        self.stats.results_per_second[second] += 1

    async def _sample(self) -> None:
        """Every 100 ms: the connections open, kept per second of the run (the most seen)."""
        stats = self.stats
        loop = self.loop
        while True:
            second = max(0, int(self.elapsed()))
            self._bucket(second)
            stats.open_per_second[second] = max(stats.open_per_second[second], self.open)
            woke = loop.time() + 0.1
            await asyncio.sleep(0.1)
            stats.lag.append(max(0.0, loop.time() - woke))


class LoadClient(asyncio.Protocol):
    """One seat: a minimal client speaking the protocol from raw msgpack maps."""

    def __init__(
        self,
        worker: Worker,
        index: int,
        redirect: dict[str, Any] | None = None,
        resume: dict[str, Any] | None = None,
    ) -> None:
        self.worker = worker
        self.index = index
        self.resume = resume
        """The seat this connection takes back after its node died (token, table, seat, when)."""
        self.token = resume["token"] if resume else b""
        self.port = 0
        self.redirect = redirect
        """The REDIRECT this connection follows (its ticket logs in, its table is joined)."""
        self.transport: asyncio.Transport | None = None
        self.buf = bytearray()
        self.last_seq = 0
        self.ref = 0
        self.closing = False
        self.strict: ClientConnection | None = (
            ClientConnection() if worker.settings.strict else None
        )
        self.table_id = ""
        self.over = False
        """The game of `table_id` has ended."""
        self.seat = 0
        self.position = (0, 0)
        self.hand: list[str] = []
        self.action: Action | None = None
        self.nonce = b""
        self.revealed_at = 0.0
        self.timer: asyncio.TimerHandle | None = None
        self.last_type = "(nothing)"

    # -- asyncio.Protocol ------------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports do not subclass asyncio.Transport but have the same methods.
        self.transport = cast(asyncio.Transport, transport)
        self.port = int(transport.get_extra_info("peername")[1])
        if self.resume is not None:
            self.table_id, self.seat = self.resume["table_id"], self.resume["seat"]
        self.worker.open += 1
        self.worker.stats.connected += 1
        self.worker.clients.append(self)
        self.send(
            Hello(
                ref=self.next_ref(),
                protocol=PROTOCOL_NAME,
                version=CURRENT_VERSION,
                software="sushigo-loadtest",
            )
        )

    def data_received(self, data: bytes) -> None:
        if self.strict is not None:
            self._check_strictly(data)
        buf = self.buf
        if buf:
            buf += data
            data = bytes(buf)
            buf.clear()
        at, end = 0, len(data)
        while end - at >= 4:
            stop = at + 4 + int.from_bytes(data[at : at + 4], "big")
            if stop > end:
                break
            value = _glance(data, at + 4)
            if value is None:
                try:
                    value = msgpack.unpackb(data[at + 4 : stop], raw=False)
                except Exception:
                    self.fail("malformed frame from the server")
                    return
            at = stop
            self.handle(value)
            if self.closing:
                return
        if at < end:
            buf += data[at:]

    def connection_lost(self, exc: Exception | None) -> None:
        self.worker.open -= 1
        if self.timer is not None:
            self.timer.cancel()
        worker = self.worker
        if not self.closing and not worker.stopping:
            if worker.settings.ports and self.token and self.table_id:
                # Its node died (--kill-node-after): the seat is taken back on another.
                resume = self.resume or {
                    "token": self.token,
                    "table_id": self.table_id,
                    "seat": self.seat,
                    "lost": time.perf_counter(),
                }
                if self.resume is None:
                    worker.stats.dropped += 1
                    if not self.over:  # a game under way (not one that ended before)
                        worker.stats.killed_tables.setdefault(self.table_id, "lost")
                resume["token"] = self.token
                worker.resume_later(self.index, resume, self.port)
            elif worker.settings.ports and not self.table_id:
                # Its node died while it was in the lobby (a quick match under way): logged in
                # again on the next node, as a person would.
                worker.stats.error("(not an error) a seat in the lobby logged in again elsewhere")
                ports = worker.settings.ports
                after = (
                    ports[(ports.index(self.port) + 1) % len(ports)]
                    if self.port in ports
                    else ports[0]
                )
                task = asyncio.ensure_future(worker._connect(self.index, after))
                worker.following.add(task)
                task.add_done_callback(worker.following.discard)
            else:
                worker.stats.error("unexpected close")
        self.closing = True

    # -- sending ---------------------------------------------------------------------------------

    def next_ref(self) -> int:
        self.ref += 1
        return self.ref

    def send(self, message: Message) -> None:
        if self.closing or self.transport is None:
            return
        if type(message) is QuickMatch:
            self.worker.quick_at[self.index] = time.perf_counter()
        if self.strict is not None:
            try:
                frame = self.strict.send(message)
            except ProtocolError as exc:
                self.fail(f"strict client refused to send {message.TYPE}: {exc.code.name}")
                return
        else:
            frame = encode_frame(encode_message(message, None, CARD_WIRE), CLIENT_LIMITS)
        self.transport.write(frame)

    def send_raw(self, value: dict[str, Any]) -> None:
        """A game move built as a plain map: the hot path of thousands of clients."""
        if self.closing or self.transport is None:
            return
        body = _pack(value)
        self.transport.write(len(body).to_bytes(4, "big") + body)

    def stop(self) -> None:
        """The run is over: close without counting it as an error."""
        self.closing = True
        if self.timer is not None:
            self.timer.cancel()
        if self.transport is not None:
            self.transport.close()

    def fail(self, why: str) -> None:
        self.worker.stats.error(why)
        self.stop()

    def _check_strictly(self, data: bytes) -> None:
        conn = self.strict
        assert conn is not None
        try:
            conn.receive_data(data)
            while conn.next_event() is not None:
                pass
        except ProtocolError as exc:
            self.fail(f"strict client: {exc.code.name}: {exc}")

    # -- the game --------------------------------------------------------------------------------

    def handle(self, msg: Any) -> None:
        if type(msg) is not dict:
            self.fail("server message is not a map")
            return
        seq = msg.get("seq")
        if seq != self.last_seq + 1:
            self.fail("bad sequence number")
            return
        self.last_seq = seq
        kind = msg.get("type")
        self.last_type = str(kind)
        worker = self.worker
        if kind == "turn_start":
            self.turn((msg["round"], msg["turn"]), msg["observation"]["hand"])
        elif kind == "commitments":
            if self.action is not None and (msg["round"], msg["turn"]) == self.position:
                round_, turn = self.position
                if self.strict is not None:
                    self.send(
                        Reveal(
                            ref=self.next_ref(),
                            round=round_,
                            turn=turn,
                            action=self.action,
                            nonce=self.nonce,
                        )
                    )
                else:
                    self.send_raw(
                        {
                            "type": "reveal",
                            "ref": self.next_ref(),
                            "round": round_,
                            "turn": turn,
                            "action": {"cards": [self.action.first.label]},
                            "nonce": self.nonce,
                        }
                    )
                self.revealed_at = time.perf_counter()
        elif kind == "turn_result":
            if self.resume is not None and "back" not in self.resume:
                self.resume["back"] = True
                worker.stats.back.append(time.perf_counter() - self.resume["lost"])
                killed = worker.stats.killed_tables
                if killed.get(self.table_id) == "lost":
                    killed[self.table_id] = "back"
            if self.action is not None:
                worker.stats.latencies.append(time.perf_counter() - self.revealed_at)
                worker.stats.latency_at.append(worker.elapsed())
            self.action = None
            worker.count_result()
        elif kind == "game_starting":
            over_at = worker.over_at.pop(self.index, None)
            if over_at is not None:
                worker.stats.between.append(time.perf_counter() - over_at)
            self.table_id = msg["table_id"]
            self.seat = msg["seat"]
            self.over = False
            self.send(Seed(ref=self.next_ref(), seed=secrets.token_bytes(32)))
        elif kind == "game_over":
            self.over = True
            worker.over_at[self.index] = time.perf_counter()
            if self.seat == 0:
                worker.stats.games += 1
            if self.resume is not None and self.table_id in worker.stats.killed_tables:
                worker.stats.killed_tables[self.table_id] = "finished"
            self.send(LeaveTable(ref=self.next_ref()))
        elif kind == "table_left":
            if not worker.stopping:
                self.send(QuickMatch(ref=self.next_ref(), kind="sushi-go", players=4))
        elif kind == "welcome":
            if self.resume is not None:
                self.send(Resume(ref=self.next_ref(), token=self.resume["token"], last_seq=0))
                return
            if self.redirect is not None:
                self.send(LoginTicket(ref=self.next_ref(), ticket=self.redirect["ticket"]))
                return
            # Names are unique among the connected: each worker process numbers its own.
            self.send(LoginGuest(ref=self.next_ref(), name=f"load{os.getpid()}-{self.index}"))
        elif kind == "redirect" and self.resume is not None:
            # The node of our table: take the seat back there.
            self.stop()
            port = int(str(msg["address"]).rsplit(":", 1)[1])
            task = asyncio.ensure_future(worker._connect(self.index, port, None, self.resume))
            worker.following.add(task)
            task.add_done_callback(worker.following.discard)
        elif kind == "redirect":
            self.stop()
            worker.follow(self.index, msg)
        elif kind == "resumed":
            self.token = msg["resume_token"]
            phase, snapshot = msg.get("phase"), msg.get("snapshot") or {}
            observation = snapshot.get("observation") or {}
            if phase == "committing":
                self.turn((msg["round"], msg["turn"]), observation.get("hand") or [])
            elif phase == "seeding":
                self.send(Seed(ref=self.next_ref(), seed=secrets.token_bytes(32)))
        elif kind == "logged_in" and self.redirect is not None:
            self.token = msg["resume_token"]
            self.send(JoinTable(ref=self.next_ref(), table_id=self.redirect["table_id"]))
        elif kind == "logged_in":
            self.token = msg["resume_token"]
            worker.logged_in += 1
            if worker.logged_in == worker.seats:
                worker.stats.all_connected_at = worker.elapsed()
                worker.all_in.set()
            if worker.playing:
                self.send(QuickMatch(ref=self.next_ref(), kind="sushi-go", players=4))
            else:
                worker.waiting.append(self)
        elif kind == "table_joined":
            quick_at = worker.quick_at.pop(self.index, None)
            if quick_at is not None:
                worker.stats.joined.append(time.perf_counter() - quick_at)
        elif kind == "ping":
            self.send(Pong(ref=self.next_ref(), nonce=msg.get("nonce", 0)))
        elif kind == "error":
            code: Any = msg.get("code")
            try:
                name = ErrorCode(int(code)).name
            except (TypeError, ValueError):
                name = str(code)
            if self.redirect is not None and code in _TAKEN and not self.table_id:
                # The other node's table filled meanwhile: a quick match there instead.
                self.worker.stats.error("(not an error) redirected to a table already full")
                self.send(QuickMatch(ref=self.next_ref(), kind="sushi-go", players=4))
                return
            if self.resume is not None and "back" not in self.resume:
                # Taking a seat back from a dead node: the next node may be swamped (TIMEOUT),
                # or the table on its way to it: try again, as the client library does.
                self.worker.stats.error(f"(not an error) resume tried again after {name}")
                self.stop()
                self.worker.resume_later(self.index, self.resume, self.port)
                return
            self.worker.stats.error(f"ERROR {name}: {msg.get('message', '')}"[:120])
            if code in (ErrorCode.TIMEOUT, ErrorCode.SHUTTING_DOWN, ErrorCode.RATE_LIMITED):
                self.stop()

    def turn(self, position: tuple[int, int], hand: list[str]) -> None:
        """A step asks for our pick: at once (saturation), or after a person's pause."""
        worker = self.worker
        self.position, self.hand = position, hand
        if worker.settings.mode == "human":
            delay = worker.settings.pick_seconds * (0.5 + worker.rng.random())
            self.timer = worker.loop.call_later(delay, self.commit)
        else:
            self.commit()

    def commit(self) -> None:
        self.timer = None
        if self.closing or not self.hand:
            return
        card = _BY_LABEL[self.worker.rng.choice(self.hand)]
        self.action = Action(card)
        self.nonce = self.worker.nonce()
        round_, turn = self.position
        commitment = make_commitment(
            self.table_id, round_, turn, self.seat, CARD_WIRE.commit_bytes(self.action), self.nonce
        )
        if self.strict is not None:
            self.send(Commit(ref=self.next_ref(), round=round_, turn=turn, commitment=commitment))
            return
        self.send_raw(
            {
                "type": "commit",
                "ref": self.next_ref(),
                "round": round_,
                "turn": turn,
                "commitment": commitment,
            }
        )


def _glance(data: bytes, at: int) -> dict[str, Any] | None:
    """The type, seq, round and turn of a COMMITMENTS or TURN_RESULT frame's body at `at`, read
    from its first bytes without decoding the rest (its commitments, openings and events, which
    the load test does not use); None for any other frame (or one laid out otherwise: it is
    decoded whole). Most frames a seat receives are one of these two."""
    head = data[at + 1 : at + 1 + len(_COMMITMENTS)]
    if head == _COMMITMENTS:
        kind = "commitments"
    elif head == _TURN_RESULT:
        kind = "turn_result"
    else:
        return None
    try:
        return _position(data, kind, at + 1 + len(_COMMITMENTS))
    except IndexError:  # cut short: the whole decode says what is wrong
        return None


def _position(data: bytes, kind: str, at: int) -> dict[str, Any] | None:
    seq, at = _uint(data, at)
    if data[at : at + 6] != b"\xa5round":
        return None
    round_, at = _uint(data, at + 6)
    if data[at : at + 5] != b"\xa4turn":
        return None
    turn, _ = _uint(data, at + 5)
    if seq < 0 or round_ < 0 or turn < 0:
        return None
    return {"type": kind, "seq": seq, "round": round_, "turn": turn}


def _uint(data: bytes, at: int) -> tuple[int, int]:
    """A msgpack unsigned integer at `at` and the offset after it (-1 if there is none)."""
    first = data[at]
    if first < 0x80:
        return first, at + 1
    size = {0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8}.get(first)
    if size is None:
        return -1, at + 1
    return int.from_bytes(data[at + 1 : at + 1 + size], "big"), at + 1 + size


_COMMITMENTS = b"\xa4type\xabcommitments\xa3seq"
_TURN_RESULT = b"\xa4type\xabturn_result\xa3seq"


# -- processes -------------------------------------------------------------------------------------


_TAKEN = (ErrorCode.TABLE_FULL, ErrorCode.GAME_IN_PROGRESS, ErrorCode.NO_SUCH_TABLE)


def _raise_fd_limit() -> int:
    """Raise the soft open-file limit to the hard one; the new soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def _worker_main(settings: Settings, seats: int, cpus: set[int] | None, out: Pipe) -> None:
    _raise_fd_limit()
    if cpus:
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, cpus)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops the run
    # The clients' own collector pauses would count into the latency measured: a run is short
    # and its garbage dies by reference counting, so the cyclic collector is off.
    gc.collect()
    gc.freeze()
    gc.disable()

    async def run() -> Stats:
        return await Worker(settings, seats).run()

    try:
        import uvloop  # noqa: PLC0415

        stats: Stats = uvloop.run(run())
    except ImportError:
        stats = asyncio.run(run())
    out.send(stats.to_data())
    out.close()


@dataclass
class ServerProcess:
    """The server under test."""

    proc: subprocess.Popen[str]
    port: int
    tmp: tempfile.TemporaryDirectory[str]
    log: list[str] = field(default_factory=list)
    """What the server wrote to stderr (read as it comes, so a chatty server never blocks on a
    full pipe; the first `LOG_LINES` lines are kept, the rest counted)."""
    more_log: int = 0
    reader: threading.Thread | None = None
    metrics_url: str = ""
    """The server's /metrics (``--metrics``), or empty."""

    def read_log(self) -> None:
        """Start reading the server's stderr in a thread."""

        def read() -> None:
            assert self.proc.stderr is not None
            for line in self.proc.stderr:
                if len(self.log) < LOG_LINES:
                    self.log.append(line.rstrip("\n"))
                else:
                    self.more_log += 1

        self.reader = threading.Thread(target=read, daemon=True)
        self.reader.start()

    def status(self) -> dict[str, int]:
        """VmHWM, VmRSS (KiB) and CPU ticks of the server: ``ticks`` (utime + stime), and
        ``user`` and ``system`` apart."""
        out: dict[str, int] = {}
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
                key, _, value = line.partition(":")
                if key in ("VmHWM", "VmRSS"):
                    out[key] = int(value.split()[0])
            fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
            out["user"], out["system"] = int(fields[11]), int(fields[12])
            out["ticks"] = out["user"] + out["system"]
        return out

    def stop(self) -> str:
        """SIGTERM, wait, and whatever the server wrote to stderr."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.reader is not None:
            self.reader.join(timeout=10)
        self.tmp.cleanup()
        lines = [*self.log, *([f"... and {self.more_log} more lines"] if self.more_log else [])]
        return "\n".join(lines)


def start_server(
    turn_seconds: int,
    cpus: set[int] | None,
    extra: list[str],
    prefix: list[str] | None = None,
    port: int = 0,
) -> ServerProcess:
    """Start the server on a free port of 127.0.0.1 and wait for its "listening" line. `prefix`
    runs it under another command (a profiler: ``py-spy record -o out.txt --``, valgrind)."""
    tmp = tempfile.TemporaryDirectory(prefix="sushigo-load-")
    exe = ROOT / ".venv" / "bin" / "sushigo-server"
    command = [*(prefix or [])]
    command += [str(exe)] if exe.exists() else [sys.executable, "-m", "sushigo.server.cli"]
    command += [
        "--host",
        HOST,
        "--port",
        str(port),
        "--db",  # a --db in `extra`, which comes later, wins
        str(Path(tmp.name) / "load.db"),
        "--key",
        str(Path(tmp.name) / "server.key"),
        "--log-level",
        "warning",
        "--max-per-address",
        "100000",
        "--max-unidentified-per-address",  # every seat connects from 127.0.0.1 at once
        "100000",
        "--max-connections",
        "100000",
        "--connect-rate-per-address",
        "1e9",
        "--connect-burst-per-address",
        "1e9",
        "--turn-seconds",
        str(turn_seconds),
        *extra,
    ]

    proc = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    if cpus:
        with contextlib.suppress(OSError):
            os.sched_setaffinity(proc.pid, cpus)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line.startswith("sushigo-server listening on "):
        err = proc.stderr.read() if proc.stderr else ""
        proc.kill()
        tmp.cleanup()
        raise SystemExit(f"loadtest: the server did not start: {line!r} {err}")
    port = int(line.split()[3].rsplit(":", 1)[1])
    server = ServerProcess(proc, port, tmp)
    if "--metrics" in extra:
        line = proc.stdout.readline()  # "sushigo-server metrics on http://HOST:PORT/metrics"
        server.metrics_url = line.split()[-1]
    server.read_log()
    return server


class Scraper:
    """Prometheus' part, in a thread: GET /metrics every `SCRAPE_SECONDS` while the load runs,
    timing each scrape (the server answers on its own event loop, between the games' inputs)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.times: list[float] = []
        self.failures = 0
        self.size = 0
        self.last = ""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(SCRAPE_SECONDS):
            self._scrape()

    def _scrape(self) -> None:
        began = time.perf_counter()
        try:
            with urllib.request.urlopen(self.url, timeout=10) as reply:
                body = reply.read()
        except OSError:
            self.failures += 1
            return
        self.times.append(time.perf_counter() - began)
        self.size, self.last = len(body), body.decode()

    def stop(self) -> dict[str, Any]:
        """Stop scraping, after a last scrape; what it measured."""
        self._stop.set()
        self._thread.join(timeout=15)
        self._scrape()
        times = sorted(self.times)
        turns = re.search(r"^sushigo_turns_total\{game=\"sushi-go\"\} (\S+)$", self.last, re.M)
        return {
            "scrapes": len(times),
            "failures": self.failures,
            "p50_ms": 1000 * _percentile(times, 0.5),
            "max_ms": 1000 * (times[-1] if times else float("nan")),
            "bytes": self.size,
            "turns_counted": float(turns.group(1)) if turns else None,
        }


class Nodes:
    """A cluster's node processes, seen as one server: CPU added up, memory added up, logs
    joined."""

    def __init__(self, servers: list[ServerProcess]) -> None:
        self.servers = servers
        self.port = servers[0].port
        self.metrics_url = ""
        self.last: dict[int, dict[str, int]] = {}
        """Each node's status as last read (a killed node's is read just before the kill)."""

    def status(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for i, server in enumerate(self.servers):
            status = server.status() or self.last.get(i, {})
            self.last[i] = status
            for key, value in status.items():
                out[key] = out.get(key, 0) + value
        return out

    def ticks(self) -> list[int]:
        """Each node's CPU ticks so far (user and system)."""
        self.status()
        return [self.last.get(i, {}).get("ticks", 0) for i in range(len(self.servers))]

    def stop(self) -> str:
        return "\n".join(server.stop() for server in self.servers)

    def kill_first(self) -> None:
        """SIGKILL the first node (``--kill-node-after``): its players must play on elsewhere."""
        self.last[0] = self.servers[0].status()  # the CPU it used, counted to its death
        self.servers[0].proc.kill()


def start_nodes(args: argparse.Namespace, extra: list[str], folder: Path) -> Nodes:
    """`--nodes` node processes on the cluster database `args.db`, sharing one key; each pinned
    to a CPU of its own, in turn."""
    sys.path.insert(0, str(ROOT / "tests"))
    from pgcluster import free_port  # type: ignore[import-not-found]  # noqa: PLC0415

    cpus = sorted(os.sched_getaffinity(0))
    servers: list[ServerProcess] = []
    try:
        for i in range(args.nodes):
            port = free_port()
            node = [*extra, "--key", str(folder / "cluster.key"), "--node", f"n{i + 1}"]
            node += ["--advertise", f"{HOST}:{port}"]
            pin = {cpus[i % len(cpus)]} if args.pin else None
            servers.append(start_server(args.turn_seconds, pin, node, port=port))
    except BaseException:
        for server in servers:
            server.stop()
        raise
    return Nodes(servers)


def _merge(counts: list[dict[str, int]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for count in counts:
        for key, n in count.items():
            out[key] = out.get(key, 0) + n
    return out


def _percentile(ordered: list[float], fraction: float) -> float:
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


LOBBY_REFRESH_SECONDS = 3.0
"""How often the terminal client's lobby asks for the table list (client.tui.ops); the watcher
asks as often."""


def _lobby_watcher_main(port: int, seconds: float, out: Pipe) -> None:
    """A person in the lobby of the terminal client, with the client library: logged in, asking
    for the table list every `LOBBY_REFRESH_SECONDS` as the lobby does, for `seconds`. Reports the
    frames and bytes it received (every message the server sent it, each one event of the
    library's: the lists, and anything the server pushed to the lobby), by kind."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    async def watch() -> dict[str, Any]:
        client = await Client.connect("127.0.0.1", port, name="lobby-watcher")
        received = [0]
        # Bytes are counted as the library's reader feeds them to the protocol.
        feed = client.proto.receive_data

        def counted(data: bytes) -> None:
            received[0] += len(data)
            feed(data)

        client.proto.receive_data = counted  # type: ignore[method-assign]
        events = 0
        kinds: dict[str, int] = {}
        began = time.monotonic()
        try:
            while time.monotonic() - began < seconds:
                await client.table_page()
                while True:
                    try:
                        event = await client.next_event(0.001)
                    except TimeoutError:
                        break
                    events += 1
                    kinds[event.TYPE] = kinds.get(event.TYPE, 0) + 1
                await asyncio.sleep(LOBBY_REFRESH_SECONDS)
        finally:
            await client.close()
        minutes = (time.monotonic() - began) / 60
        return {
            "frames_per_minute": events / minutes,
            "bytes_per_minute": received[0] / minutes,
            "pushed_kinds": kinds,
        }

    try:
        out.send(asyncio.run(watch()))
    except Exception as exc:  # the figures say it failed; the load test goes on
        out.send({"error": repr(exc)})


def _machine_cpu() -> float:
    """CPU seconds every process of the machine has used so far, on all its CPUs (from the
    first line of /proc/stat: everything but idle and I/O wait)."""
    with contextlib.suppress(OSError, ValueError):
        values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        return (sum(values[:8]) - values[3] - values[4]) / os.sysconf("SC_CLK_TCK")
    return 0.0


@dataclass
class CpuMeter:
    """The CPU seconds each part of a run used, read at its start and end: the nodes (each),
    PostgreSQL (its every process, when the run started it), and the whole machine (the load
    generator reports its own). So a run says what a turn costs each process, and how much of
    the machine the neighbours took meanwhile."""

    nodes: list[float]
    postgresql: float | None
    machine: float
    load: float
    """The load average over the last minute (`uptime`'s first figure)."""

    @classmethod
    def read(cls, server: ServerProcess | Nodes, pg_cpu: Callable[[], float] | None) -> CpuMeter:
        tick = os.sysconf("SC_CLK_TCK")
        if isinstance(server, Nodes):
            nodes = [t / tick for t in server.ticks()]
        else:
            nodes = [server.status().get("ticks", 0) / tick]
        return cls(nodes, pg_cpu() if pg_cpu else None, _machine_cpu(), os.getloadavg()[0])


def pg_counters(url: str) -> dict[str, float]:
    """PostgreSQL's own counters for the database at `url`, so far: commits, WAL bytes written
    (the whole cluster's), and rows inserted, updated and deleted in each table (as PostgreSQL's
    statistics have them: up to a second late)."""
    import asyncpg  # noqa: PLC0415  (only for a run on PostgreSQL)

    async def read() -> dict[str, float]:
        conn = await asyncpg.connect(url)
        try:
            out: dict[str, float] = {
                "commits": await conn.fetchval(
                    "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()"
                ),
                "wal_bytes": float(
                    await conn.fetchval("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')")
                ),
            }
            for name, rows in await conn.fetch(
                "SELECT relname, n_tup_ins + n_tup_upd + n_tup_del FROM pg_stat_user_tables"
            ):
                out[f"rows:{name}"] = rows
            return out
        finally:
            await conn.close()

    try:
        return asyncio.run(read())
    except (OSError, asyncpg.PostgresError) as exc:
        print(f"loadtest: PostgreSQL's counters cannot be read: {exc}", file=sys.stderr)
        return {}


def pg_figures(before: dict[str, float], after: dict[str, float], turns: float) -> dict[str, Any]:
    """PostgreSQL's work per four-player turn over the run (`pg_counters` at its start and end):
    commits, WAL bytes, and rows written by table (the busiest first)."""
    per = 1 / max(1.0, turns)
    rows = {
        key[5:]: (after[key] - before.get(key, 0)) * per
        for key in after
        if key.startswith("rows:") and after[key] > before.get(key, 0)
    }
    return {
        "commits_per_turn": (after.get("commits", 0) - before.get("commits", 0)) * per,
        "wal_bytes_per_turn": (after.get("wal_bytes", 0) - before.get("wal_bytes", 0)) * per,
        "rows_per_turn": dict(sorted(rows.items(), key=lambda item: -item[1])),
    }


def cpu_figures(
    before: CpuMeter, after: CpuMeter, clients: float, turns: float, seconds: float
) -> dict[str, Any]:
    """Each process's CPU seconds over the run, per 1,000 four-player turns; `clients`: the
    load generator's CPU seconds. With the node's and the rest's cost per turn, what a second
    node could give on this machine's cores: a node is one thread (at most a core), and every
    process shares the cores (see docs/SCALING.md, "CPU per turn")."""
    per = 1000 / max(1.0, turns)
    nodes = [a - b for a, b in zip(after.nodes, before.nodes, strict=True)]
    pg = (
        after.postgresql - before.postgresql
        if after.postgresql is not None and before.postgresql is not None
        else None
    )
    machine = after.machine - before.machine
    ours = sum(nodes) + clients + (pg or 0.0)
    node_turn = sum(nodes) * per
    rest_turn = (clients + (pg or 0.0)) * per
    return {
        "cpu_seconds": seconds,
        "cpus": os.cpu_count() or 1,
        "load_average_start": before.load,
        "load_average_end": after.load,
        "node_cpu_s": nodes,
        "client_cpu_s": clients,
        "postgresql_cpu_s": pg,
        "machine_cpu_s": machine,
        "others_cpu_s": max(0.0, machine - ours),
        "node_cpu_s_per_1000_turns": node_turn,
        "client_cpu_s_per_1000_turns": clients * per,
        "postgresql_cpu_s_per_1000_turns": None if pg is None else pg * per,
        "others_cpu_s_per_1000_turns": max(0.0, machine - ours) * per,
        # 2 nodes on 2 cores over 1 node on one: 2N / (N + R), N the nodes' cost per turn and
        # R the rest's (clients and PostgreSQL), when the nodes' work splits evenly.
        "two_node_ratio_bound": 2 * node_turn / max(1e-9, node_turn + rest_turn),
    }


def run(args: argparse.Namespace, pg_cpu: Callable[[], float] | None = None) -> dict[str, Any]:
    """One load test; the figures as a dict. `pg_cpu`: PostgreSQL's CPU seconds so far, when the
    run started it (`PgCluster.cpu_seconds`)."""
    _raise_fd_limit()
    cpus = sorted(os.sched_getaffinity(0))
    pin = args.pin and len(cpus) >= 2
    server_cpus = {cpus[0]} if pin else None
    client_cpus = set(cpus[1:]) if pin else None
    games = args.games if args.games is not None else (1000 if args.mode == "human" else 200)
    seats = 4 * games
    database = ["--db", args.db] if args.db else []
    if args.metrics:
        database += ["--metrics", f"{HOST}:0"]
    keys = tempfile.TemporaryDirectory(prefix="sushigo-load-key-")
    server: ServerProcess | Nodes
    if args.nodes:
        server = start_nodes(args, database, Path(keys.name))
        if len(server.servers) > 1:
            client_cpus = None  # the nodes have every CPU between them: the clients share
    else:
        server = start_server(
            args.turn_seconds, server_cpus, database, shlex.split(args.server_prefix)
        )
    scraper = Scraper(server.metrics_url) if server.metrics_url else None
    scraped: dict[str, Any] = {}
    try:
        start = time.time() + 0.5
        settings = Settings(
            port=server.port,
            mode=args.mode,
            pick_seconds=args.pick_seconds,
            start=start,
            duration=args.duration,
            ramp_seconds=args.ramp_seconds,
            strict=args.strict_clients,
            barrier=args.barrier,
            start_seconds=args.start_seconds,
            seed=args.seed,
            ports=tuple(s.port for s in server.servers) if isinstance(server, Nodes) else (),
        )
        pg_before = pg_counters(args.db) if args.db and args.db.startswith("postgres") else {}
        meter = CpuMeter.read(server, pg_cpu)
        began = time.time()
        # The machine's CPU every second, to say how busy it was once every seat is in: the
        # meter's figures span the logins too (seconds at a tenth of the machine), and busy
        # over the whole run reads as CPU idle at saturation.
        machine: list[tuple[float, float]] = []
        sampled = threading.Event()

        def sample_machine() -> None:
            while not sampled.wait(1.0):
                machine.append((time.time(), _machine_cpu()))

        threading.Thread(target=sample_machine, daemon=True).start()
        ctx = mp.get_context("fork")
        procs: list[tuple[Any, Pipe]] = []
        share, extra = divmod(seats, args.clients_procs)
        for i in range(args.clients_procs):
            mine = share + (1 if i < extra else 0)
            if not mine:
                continue
            receiver, sender = ctx.Pipe(duplex=False)
            worker_settings = Settings(**{**settings.__dict__, "seed": args.seed * 1000 + i})
            proc = ctx.Process(
                target=_worker_main,
                args=(worker_settings, mine, client_cpus, sender),
                daemon=True,
            )
            proc.start()
            sender.close()
            procs.append((proc, receiver))
        watcher: tuple[Any, Pipe] | None = None
        if args.lobby_watcher:
            receiver, sender = ctx.Pipe(duplex=False)
            proc = ctx.Process(
                target=_lobby_watcher_main,
                args=(server.port, args.duration, sender),
                daemon=True,
            )
            proc.start()
            sender.close()
            watcher = (proc, receiver)
        time.sleep(max(0.0, start - time.time()))
        if args.kill_node_after is not None and isinstance(server, Nodes):
            threading.Timer(
                max(0.0, start + args.kill_node_after - time.time()), server.kill_first
            ).start()
        before = server.status()
        cpu_window = (time.time(), before.get("ticks", 0))
        split_before = (before.get("user", 0), before.get("system", 0))
        window_start: float | None = None
        results: list[dict[str, Any]] = []
        deadline = start + args.duration + 60
        for proc, receiver in procs:
            if receiver.poll(max(0.0, deadline - time.time())):
                results.append(receiver.recv())
            else:
                results.append(Stats(errors={"worker did not report": 1}).to_data())
            proc.join(timeout=5)
            if proc.is_alive():
                proc.kill()
        sampled.set()
        after = server.status()
        metered = CpuMeter.read(server, pg_cpu)
        ended = time.time()
        pg_after = pg_counters(args.db) if pg_before else {}
        lobby: dict[str, Any] = {}
        if watcher is not None:
            if watcher[1].poll(max(0.0, deadline - time.time())):
                lobby = watcher[1].recv()
            watcher[0].join(timeout=5)
            if watcher[0].is_alive():
                watcher[0].kill()
    finally:
        if scraper is not None:
            scraped = scraper.stop()
        stderr = server.stop()
        keys.cleanup()
    ticks = os.sysconf("SC_CLK_TCK")
    cpu = (after.get("ticks", 0) - cpu_window[1]) / ticks / max(1e-9, time.time() - cpu_window[0])
    user = (after.get("user", 0) - split_before[0]) / ticks
    system = (after.get("system", 0) - split_before[1]) / ticks

    seconds = max(len(r["results_per_second"]) for r in results) if results else 0
    results_per_second = [0] * seconds
    open_per_second = [0] * seconds
    for r in results:
        for i, v in enumerate(r["results_per_second"]):
            results_per_second[i] += v
        for i, v in enumerate(r["open_per_second"]):
            open_per_second[i] += v
    turns_per_second = [v / 4 for v in results_per_second]
    ready = [r["all_connected_at"] for r in results]
    if all(t is not None for t in ready) and ready:
        window_start = max(ready)
    first = int(window_start) + 2 if window_start is not None else 2
    window = turns_per_second[first : int(args.duration)]
    steady = [(t, c) for t, c in machine if start + first <= t <= start + args.duration]
    machine_busy_steady = (
        (steady[-1][1] - steady[0][1]) / (steady[-1][0] - steady[0][0]) if len(steady) > 1 else None
    )
    latencies: list[float] = []
    errors: dict[str, int] = {}
    for r in results:
        samples = array("d")
        samples.frombytes(r["latencies"])
        latencies.extend(samples)
        for key, n in r["errors"].items():
            errors[key] = errors.get(key, 0) + n
    notes = {k: errors.pop(k) for k in list(errors) if k.startswith("(not an error)")}
    back: list[float] = []
    for r in results:
        samples = array("d")
        samples.frombytes(r.get("back", b""))
        back.extend(samples)
    back.sort()
    dropped = sum(r.get("dropped", 0) for r in results)
    # A table's seats are spread over the client processes: its best news counts.
    rank = {"lost": 0, "back": 1, "finished": 2}
    killed_tables: dict[str, str] = {}
    for r in results:
        for table_id, state in r.get("killed_tables", {}).items():
            if rank[state] > rank[killed_tables.get(table_id, "lost")]:
                killed_tables[table_id] = state
            else:
                killed_tables.setdefault(table_id, state)
    killed_count = {s: sum(v == s for v in killed_tables.values()) for s in rank}
    # p99 per 10-second window: where a tail comes from (a start, a burst of game ends...).
    windows: dict[int, list[float]] = {}
    seconds_: dict[int, list[float]] = {}
    for r in results:
        values, times = array("d"), array("d")
        values.frombytes(r["latencies"])
        times.frombytes(r.get("latency_at", b""))
        for value, at in zip(values, times, strict=False):
            windows.setdefault(int(at // 10) * 10, []).append(value)
            seconds_.setdefault(int(at), []).append(value)
    by_window = {
        start: 1000 * _percentile(sorted(values), 0.99) for start, values in sorted(windows.items())
    }
    # The worst seconds, by their p99: when a tail happened (a take-over, a burst of starts).
    by_second = {at: 1000 * _percentile(sorted(v), 0.99) for at, v in seconds_.items()}
    worst = dict(sorted(by_second.items(), key=lambda item: -item[1])[:8])
    latencies.sort()
    lags: list[float] = []
    for r in results:
        samples = array("d")
        samples.frombytes(r.get("lag", b""))
        lags.extend(samples)
    lags.sort()
    waits: dict[str, list[float]] = {"joined": [], "between": []}
    for r in results:
        for name, got in waits.items():
            samples = array("d")
            samples.frombytes(r.get(name, b""))
            got.extend(samples)
    lobby_waits = {
        name: {
            "n": len(got),
            "p50_ms": 1000 * _percentile(sorted(got), 0.5),
            "p90_ms": 1000 * _percentile(sorted(got), 0.9),
            "mean_ms": 1000 * sum(got) / max(1, len(got)),
        }
        for name, got in waits.items()
    }
    server_errors = [line for line in stderr.splitlines() if "level=" in line]
    client_cpu = sum(r["cpu_seconds"] for r in results)
    cpu_split = cpu_figures(meter, metered, client_cpu, sum(turns_per_second), ended - began)
    return {
        "mode": args.mode,
        "games_concurrent": games,
        "connections_made": sum(r["connected"] for r in results),
        "connections_peak": max(open_per_second, default=0),
        "games_completed": sum(r["games"] for r in results),
        "turns_total": sum(turns_per_second),
        "turns_per_second_sustained": sum(window) / len(window) if window else 0.0,
        "turns_per_second_best": max(turns_per_second, default=0.0),
        "all_connected_after_s": window_start,
        "latency_samples": len(latencies),
        "latency_p50_ms": 1000 * _percentile(latencies, 0.50),
        "latency_p99_ms": 1000 * _percentile(latencies, 0.99),
        "latency_max_ms": 1000 * (latencies[-1] if latencies else float("nan")),
        "latency_p99_ms_by_10s": by_window,
        "latency_p99_ms_worst_seconds": worst,
        "client_lag_p99_ms": 1000 * _percentile(lags, 0.99),
        "client_lag_max_ms": 1000 * (lags[-1] if lags else float("nan")),
        "errors": sum(errors.values()),
        "error_kinds": errors,
        "notes": notes,
        "killed_seats": dropped,
        "killed_seats_back": len(back),
        "killed_back_p50_s": _percentile(back, 0.5),
        "killed_back_max_s": back[-1] if back else float("nan"),
        "killed_tables": len(killed_tables),
        "killed_tables_finished": killed_count["finished"],
        "killed_tables_playing": killed_count["back"],
        "killed_tables_not_back": killed_count["lost"],
        "nodes": args.nodes,
        "server_peak_memory_mib": after.get("VmHWM", 0) / 1024,
        "server_cpu_fraction": cpu,
        "turns_per_server_cpu_second": sum(turns_per_second) / max(1e-9, cpu * args.duration),
        "server_user_us_per_turn": 1e6 * user / max(1.0, sum(turns_per_second)),
        "server_system_us_per_turn": 1e6 * system / max(1.0, sum(turns_per_second)),
        "logged_in": sum(r["logged_in"] for r in results),
        "last_message": _merge([r["last_message"] for r in results]),
        "client_cpu_fraction": sum(r["cpu_seconds"] for r in results) / args.duration,
        "server_log_lines": len(server_errors),
        "server_log_sample": server_errors[:5],
        "turns_per_second_by_second": turns_per_second,
        "lobby_watcher": lobby,
        "metrics": scraped,
        "cpu": cpu_split,
        "machine_busy_steady_cpus": machine_busy_steady,
        "lobby_waits": lobby_waits,
        "postgresql": pg_figures(pg_before, pg_after, sum(turns_per_second)) if pg_after else {},
    }


def report(figures: dict[str, Any]) -> str:
    """The figures as a few readable lines."""
    f = figures
    lines = [
        f"mode {f['mode']}: {f['games_concurrent']} concurrent 4-player games",
        f"connections: {f['connections_peak']} open at peak ({f['connections_made']} made;"
        f" all logged in after {f['all_connected_after_s']} s)",
        f"games completed: {f['games_completed']}",
        f"turns/s: {f['turns_per_second_sustained']:.0f} sustained,"
        f" {f['turns_per_second_best']:.0f} best second ({f['turns_total']:.0f} turns)",
        f"reveal->turn_result latency: p50 {f['latency_p50_ms']:.1f} ms,"
        f" p99 {f['latency_p99_ms']:.1f} ms, max {f['latency_max_ms']:.1f} ms"
        f" ({f['latency_samples']} samples)",
        "  p99 by 10 s from the start: "
        + ", ".join(f"{at}s {ms:.0f}" for at, ms in f.get("latency_p99_ms_by_10s", {}).items()),
        "  the worst seconds' p99: "
        + ", ".join(
            f"{at}s {ms:.0f}" for at, ms in f.get("latency_p99_ms_worst_seconds", {}).items()
        ),
        f"errors: {f['errors']}" + (f" {f['error_kinds']}" if f["errors"] else ""),
        *(
            [f"cluster of {f['nodes']} nodes: {f.get('notes') or 'no redirects'}"]
            if f.get("nodes")
            else []
        ),
        *(
            [
                f"node killed: {f['killed_seats']} seats lost their node, {f['killed_seats_back']}"
                f" played again (after p50 {f['killed_back_p50_s']:.1f} s, max"
                f" {f['killed_back_max_s']:.1f} s); of its {f['killed_tables']} tables"
                f" {f['killed_tables_finished']} finished their game after the kill,"
                f" {f['killed_tables_playing']} were playing again when the run ended,"
                f" {f['killed_tables_not_back']} never played again (lost)"
            ]
            if f.get("killed_seats")
            else []
        ),
        f"server: peak memory (VmHWM) {f['server_peak_memory_mib']:.1f} MiB,"
        f" CPU {100 * f['server_cpu_fraction']:.0f}% of one core"
        f" ({f['turns_per_server_cpu_second']:.0f} turns per CPU-second; per turn"
        f" {f['server_user_us_per_turn']:.0f} us user, {f['server_system_us_per_turn']:.0f} us"
        f" system), {f['server_log_lines']} warning/error log lines",
        f"clients: {f['logged_in']} logged in, CPU {100 * f['client_cpu_fraction']:.0f}% of one"
        f" core (all client processes), event-loop lag p99 {f['client_lag_p99_ms']:.1f} ms,"
        f" max {f['client_lag_max_ms']:.1f} ms",
        f"  last message per seat: {f['last_message']}",
        *[
            f"  {what}: p50 {w['p50_ms']:.0f} ms, p90 {w['p90_ms']:.0f} ms, mean"
            f" {w['mean_ms']:.0f} ms ({w['n']} samples)"
            for what, w in (
                ("QUICK_MATCH -> TABLE_JOINED", (f.get("lobby_waits") or {}).get("joined")),
                ("GAME_OVER -> next GAME_STARTING", (f.get("lobby_waits") or {}).get("between")),
            )
            if w
        ],
        *cpu_report(f.get("cpu") or {}),
        *(
            [
                f"  machine busy {f['machine_busy_steady_cpus']:.2f} of {os.cpu_count()} CPUs"
                " once every seat was in (the turns/s window)"
            ]
            if f.get("machine_busy_steady_cpus") is not None
            else []
        ),
        *pg_report(f.get("postgresql") or {}),
    ]
    lobby = f.get("lobby_watcher") or {}
    if "frames_per_minute" in lobby:
        lines.append(
            f"lobby watcher (the terminal client's lobby): {lobby['frames_per_minute']:.0f}"
            f" frames/min, {lobby['bytes_per_minute'] / 1024:.0f} KiB/min"
            f" (by kind: {lobby['pushed_kinds']})"
        )
    elif lobby:
        lines.append(f"lobby watcher failed: {lobby.get('error')}")
    scraped = f.get("metrics") or {}
    if scraped:
        lines.append(
            f"metrics: {scraped['scrapes']} scrapes of {scraped['bytes']} bytes, p50"
            f" {scraped['p50_ms']:.1f} ms, max {scraped['max_ms']:.1f} ms,"
            f" {scraped['failures']} failed; the last counted {scraped['turns_counted']} turns"
        )
    lines += [f"  server log: {line}" for line in f["server_log_sample"]]
    return "\n".join(lines)


def cpu_report(c: dict[str, Any]) -> list[str]:
    """The CPU breakdown (`cpu_figures`) as lines."""
    if not c:
        return []
    pg = c["postgresql_cpu_s_per_1000_turns"]
    nodes = ", ".join(f"{v:.1f}" for v in c["node_cpu_s"])
    return [
        f"CPU seconds per 1,000 turns: nodes {c['node_cpu_s_per_1000_turns']:.3f}, load"
        f" generator {c['client_cpu_s_per_1000_turns']:.3f}, PostgreSQL"
        + (f" {pg:.3f}" if pg is not None else " (not measured: not started by this run)")
        + f", the machine's other processes {c['others_cpu_s_per_1000_turns']:.3f}",
        f"  over {c['cpu_seconds']:.1f} s: nodes {nodes} s, load generator"
        f" {c['client_cpu_s']:.1f} s, PostgreSQL "
        + ("?" if c["postgresql_cpu_s"] is None else f"{c['postgresql_cpu_s']:.1f}")
        + f" s, others {c['others_cpu_s']:.1f} s; machine busy"
        f" {c['machine_cpu_s'] / max(1e-9, c['cpu_seconds']):.2f} of {c['cpus']} CPUs;"
        f" load average {c['load_average_start']:.2f} at the start, {c['load_average_end']:.2f}"
        " at the end",
        f"  two nodes on two cores could give at most {c['two_node_ratio_bound']:.2f}x one node"
        " at these costs per turn (2N/(N+R): N the node's, R the load generator's and"
        " PostgreSQL's)",
    ]


def _node_counts(text: str) -> list[int]:
    """``N`` or ``N,N,...``: node counts, each at least 1."""
    try:
        counts = [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a node count or a list of them: {text!r}") from None
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError(f"a node count is at least 1: {text!r}")
    return counts


def pg_report(pg: dict[str, Any]) -> list[str]:
    """PostgreSQL's work per turn (`pg_figures`) as a line."""
    if not pg:
        return []
    rows = ", ".join(f"{name} {n:.2f}" for name, n in list(pg["rows_per_turn"].items())[:6])
    return [
        f"PostgreSQL per turn: {pg['commits_per_turn']:.3f} commits,"
        f" {pg['wal_bytes_per_turn']:.0f} bytes of WAL, rows written: {rows}"
    ]


def parser() -> argparse.ArgumentParser:
    """The command line."""
    p = argparse.ArgumentParser(
        prog="loadtest.py",
        description="Drive a local sushigo-server with many concurrent 4-player games.",
    )
    p.add_argument(
        "--mode",
        choices=["human", "saturation"],
        default="human",
        help="human: one pick about every --pick-seconds; saturation: pick at once",
    )
    p.add_argument(
        "--games",
        type=int,
        default=None,
        help="concurrent 4-player games (default 1000 human, 200 saturation)",
    )
    p.add_argument("--duration", type=float, default=60.0, help="seconds the run lasts")
    p.add_argument("--pick-seconds", type=float, default=2.0, help="mean pick delay (human mode)")
    p.add_argument(
        "--ramp-seconds", type=float, default=5.0, help="spread the connections over this long"
    )
    p.add_argument(
        "--clients-procs",
        type=int,
        default=2,
        help="client processes (default 2: one alone lags behind the server at saturation)",
    )
    p.add_argument(
        "--turn-seconds", type=int, default=60, help="server turn timer (auto-pick after it)"
    )
    p.add_argument(
        "--strict-clients",
        action="store_true",
        help="also validate every frame with protocol.ClientConnection (costs client CPU)",
    )
    p.add_argument(
        "--no-pin",
        dest="pin",
        action="store_false",
        help="do not pin the server to CPU 0 and the clients to the other CPUs",
    )
    p.add_argument(
        "--no-barrier",
        dest="barrier",
        action="store_false",
        help="quick match as soon as each seat logs in (default: once a process's seats all have)",
    )
    p.add_argument(
        "--start-seconds",
        type=float,
        default=0.0,
        help="once every seat is logged in, spread the games' starts over this long (default:"
        " all at once)",
    )
    p.add_argument("--seed", type=int, default=1, help="random seed of the clients' picks")
    p.add_argument(
        "--server-prefix",
        default="",
        metavar="COMMAND",
        help="run the server under this command, e.g. a profiler: 'py-spy record -o prof.txt"
        " --format raw --' or 'valgrind --tool=callgrind --callgrind-out-file=cg.out'",
    )
    p.add_argument(
        "--db", default=None, help="the server's --db (default: SQLite in a temporary directory)"
    )
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.add_argument(
        "--metrics",
        action="store_true",
        help="run the server with --metrics and scrape /metrics every second during the load",
    )
    p.add_argument(
        "--pgserver",
        action="store_true",
        help="run the load on SQLite, then on a temporary durable PostgreSQL (pgserver), and"
        " compare",
    )
    p.add_argument(
        "--nodes",
        type=_node_counts,
        default=[],
        metavar="N[,N...]",
        help="run a cluster of N sushigo-server --node processes on one PostgreSQL (--db, or a"
        " temporary durable one from pgserver), each on a CPU of its own, the seats spread"
        " over them four by four. Several counts (1,2,1,2): one run each, one after the other"
        " on one pgserver PostgreSQL (a fresh database each), then their turns/s compared",
    )
    p.add_argument(
        "--kill-node-after",
        type=float,
        default=None,
        metavar="S",
        help="with --nodes: SIGKILL the first node S seconds into the run; its seats resume on"
        " the others (as the client library does), and how long until they play again is"
        " reported",
    )
    p.add_argument(
        "--lobby-watcher",
        action="store_true",
        help="also keep one player in the lobby, listing tables as the terminal client does,"
        " and report the frames and bytes it receives per minute",
    )
    return p


def main(argv: list[str] | None = None) -> int:
    """Run one load test and print its figures."""
    args = parser().parse_args(argv)
    if args.games is not None and args.games < 1:
        parser().error("--games must be at least 1")
    if args.start_seconds < 0:
        parser().error("--start-seconds must not be negative")
    if args.clients_procs < 1 or args.duration <= 0:
        parser().error("--clients-procs must be at least 1 and --duration positive")
    counts: list[int] = args.nodes
    if len(counts) > 1 and args.db:
        parser().error("several --nodes counts run on a fresh pgserver database each: no --db")
    args.nodes = counts[0] if counts else 0
    if args.pgserver:
        return _both_backends(args)
    if counts and not args.db:
        return _on_pgserver(args, counts)
    figures = run(args)
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print(report(figures))
    return 0 if figures["errors"] == 0 else 1


def _on_pgserver(args: argparse.Namespace, counts: list[int]) -> int:
    """`run` on a temporary durable PostgreSQL (pgserver) on this machine, a cluster's: once per
    node count in `counts`, each on a fresh database, and then their turns/s compared."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from pgcluster import PgCluster  # noqa: PLC0415

    runs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="sushigo-pg-") as folder:
        cluster = PgCluster(Path(folder) / "pg")
        cluster.start(durable=True)
        try:
            for i, count in enumerate(counts):
                args.nodes = count
                args.db = cluster.new_database()
                figures = run(args, cluster.cpu_seconds)
                runs.append(figures)
                if len(counts) > 1:
                    print(f"== run {i + 1} of {len(counts)}: {count} node(s)", flush=True)
                print(json.dumps(figures, indent=2) if args.json else report(figures), flush=True)
        finally:
            cluster.stop()
    if len(counts) > 1:
        print(compare(runs))
    return 0 if all(figures["errors"] == 0 for figures in runs) else 1


def compare(runs: list[dict[str, Any]]) -> str:
    """Several runs' sustained turns/s by node count, and each count's mean over one node's."""
    by_count: dict[int, list[float]] = {}
    for figures in runs:
        by_count.setdefault(figures["nodes"], []).append(figures["turns_per_second_sustained"])
    means = {n: sum(v) / len(v) for n, v in sorted(by_count.items())}
    lines = ["== turns/s sustained, by node count (in run order; load average at each start):"]
    lines += [
        f"  {f['nodes']} node(s): {f['turns_per_second_sustained']:.0f}"
        f" (load {f['cpu']['load_average_start']:.2f})"
        for f in runs
    ]
    one = means.get(1)
    for n, mean in means.items():
        ratio = f", {mean / one:.2f}x one node" if one and n != 1 else ""
        lines.append(f"  mean with {n}: {mean:.0f}{ratio}")
    return "\n".join(lines)


def _both_backends(args: argparse.Namespace) -> int:
    """The same load on SQLite, then on a temporary PostgreSQL (pgserver's binaries, durable
    settings: fsync on) on this machine, each report, and PostgreSQL's figures as a share of
    SQLite's."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from pgcluster import PgCluster  # noqa: PLC0415

    results: dict[str, dict[str, Any]] = {}
    args.db = None
    results["sqlite"] = run(args)
    print("== SQLite\n" + report(results["sqlite"]), flush=True)
    with tempfile.TemporaryDirectory(prefix="sushigo-pg-") as folder:
        cluster = PgCluster(Path(folder) / "pg")
        cluster.start(durable=True)
        try:
            args.db = cluster.new_database()
            results["postgresql"] = run(args)
        finally:
            cluster.stop()
    print("== PostgreSQL\n" + report(results["postgresql"]))
    sqlite, pg = results["sqlite"], results["postgresql"]
    ratio = pg["turns_per_second_sustained"] / max(1e-9, sqlite["turns_per_second_sustained"])
    print(
        f"== PostgreSQL / SQLite: {100 * ratio:.0f}% of the sustained turns/s;"
        f" p99 {pg['latency_p99_ms']:.1f} ms against {sqlite['latency_p99_ms']:.1f} ms"
    )
    return 0 if sqlite["errors"] == 0 and pg["errors"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
