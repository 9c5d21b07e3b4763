"""A client process of the load test: its seats (`Worker`, `worker_main`), and the lobby
watcher, one person in the terminal client's lobby (`lobby_watcher_main`)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import random
import resource
import signal
import time
from multiprocessing.connection import Connection as Pipe
from typing import Any

from sushigo.client.connection import Client
from sushigo.protocol import (
    QuickMatch,
)
from sushigo.protocol.commitment import NONCE_SIZE

from .options import HOST
from .seat import LoadClient
from .stats import Settings, Stats
from .websocket import WebSocketSeat


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
            task = asyncio.ensure_future(self.connect(i))
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

    async def connect(
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
            if self.settings.web:
                await self.loop.create_connection(
                    lambda: WebSocketSeat(LoadClient(self, index, redirect, resume)), HOST, port
                )
            else:
                await self.loop.create_connection(
                    lambda: LoadClient(self, index, redirect, resume), HOST, port
                )
        except OSError as exc:
            if resume is not None and not self.stopping:  # that node is dead too: the next
                self.resume_later(index, resume, port)
            elif not self.stopping:
                self.stats.error(f"connect failed: {exc.strerror or exc}")

    def connect_soon(self, index: int, port: int, resume: dict[str, Any] | None = None) -> None:
        """A new connection for seat `index` to `port`, taking back `resume`'s seat when given
        (the task is kept in `following` until the connection is made)."""
        task = asyncio.ensure_future(self.connect(index, port, None, resume))
        self.following.add(task)
        task.add_done_callback(self.following.discard)

    def resume_later(self, index: int, resume: dict[str, Any], port: int | None = None) -> None:
        """A seat whose node died: resume on the next node in a moment (as the client library
        does: a node that does not hold the table yet redirects it, or takes it over)."""
        ports = self.settings.ports
        after = ports[(ports.index(port) + 1) % len(ports)] if port in ports else ports[0]

        def go() -> None:
            if not self.stopping:
                self.connect_soon(index, after, resume)

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
        task = asyncio.ensure_future(self.connect(index, port, redirect))
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


def raise_fd_limit() -> int:
    """Raise the soft open-file limit to the hard one; the new soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def worker_main(settings: Settings, seats: int, cpus: set[int] | None, out: Pipe) -> None:
    raise_fd_limit()
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


LOBBY_REFRESH_SECONDS = 3.0
"""How often the terminal client's lobby asks for the table list (client.tui.ops); the watcher
asks as often."""


def lobby_watcher_main(port: int, seconds: float, out: Pipe) -> None:
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
