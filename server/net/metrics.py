"""``sushigo-server --metrics HOST:PORT``: Prometheus metrics, liveness and readiness over HTTP.

    /metrics   the server's metrics in Prometheus' text format (names below)
    /healthz   200 while the process serves (the answer comes from its event loop)
    /readyz    200 when it takes new tables; 503 saying why not (stopping, draining, or its
               database cannot be written: away, its disk full, read-only)

The HTTP server runs on the game server's own event loop, so it needs no thread and cannot
stall the hub: a request is read (`h11`, with a deadline and a size limit) and answered between
two of the loop's other callbacks. The metrics are not kept in prometheus_client's own counters:
the hub and the adapter count in plain attributes (`server.stats.Stats`, a few nanoseconds per
frame), and `ServerCollector` reads them, and what is counted by looking (connections,
sessions, tables), only when Prometheus scrapes. The server's core never imports
prometheus_client. The process's CPU and memory are prometheus_client's `process_*` metrics.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from http import HTTPStatus
from typing import TypeVar

import h11
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.platform_collector import PlatformCollector
from prometheus_client.process_collector import ProcessCollector
from prometheus_client.registry import Collector

from sushigo.protocol import CURRENT_VERSION, ErrorCode
from sushigo.protocol.about import package_version
from sushigo.server.stats import Histogram
from sushigo.server.storage.contract import Fault

from .app import Server

log = logging.getLogger("sushigo.server")

REQUEST_SECONDS = 10.0
"""How long a client of the metrics endpoint has to send its request (and between requests on
a kept-alive connection) before it is closed."""
MAX_REQUEST_BYTES = 16 * 1024
"""The largest request head taken (Prometheus' are a few hundred bytes)."""
MAX_CLIENTS = 16
"""Connections to the metrics endpoint at once; more are closed at once."""


class ServerCollector(Collector):
    """Reads one server's counters and state when scraped (a prometheus_client custom
    collector: nothing is kept here between scrapes)."""

    def __init__(self, server: Server) -> None:
        self.server = server

    def collect(self) -> Iterable[Metric]:
        server = self.server
        hub = server.hub
        stats = hub.stats
        storage = hub.storage

        info = GaugeMetricFamily(
            "sushigo_info", "This server's version", labels=["version", "protocol"]
        )
        yield _labelled(info, [([package_version(), str(CURRENT_VERSION)], 1)])
        yield GaugeMetricFamily(
            "sushigo_ready", "1 while the server takes new tables (see /readyz)", server.ready
        )

        # Connections and sessions.
        yield GaugeMetricFamily("sushigo_connections", "Open client connections", len(hub.conns))
        yield CounterMetricFamily(
            "sushigo_connections_opened", "Client connections admitted", stats.connections_opened
        )
        rejected = CounterMetricFamily(
            "sushigo_connections_rejected",
            "Client connections refused, by reason (full, per_address, unidentified, rate:"
            " the server's limits; banned: an address an admin banned; setup: a TLS handshake"
            " failed or the peer went away)",
            labels=["reason"],
        )
        reasons = ("full", "per_address", "unidentified", "rate", "banned", "setup")
        yield _labelled(rejected, (([r], stats.rejected.get(r, 0)) for r in reasons))
        # Counted by looking, as the other gauges: what the caps' bookkeeping holds could only
        # drift from it (a scrape of ten thousand sessions is a millisecond).
        connected = sum(session.attached for session in hub.sessions.values())
        sessions = GaugeMetricFamily(
            "sushigo_sessions",
            "Players' sessions: connected, or away and kept for a resume",
            labels=["state"],
        )
        yield _labelled(
            sessions, [(["connected"], connected), (["away"], len(hub.sessions) - connected)]
        )
        yield CounterMetricFamily("sushigo_resumes", "Sessions resumed", stats.resumes)

        # Tables and games.
        tables = GaugeMetricFamily(
            "sushigo_tables", "Open tables, by game and state", labels=["game", "state"]
        )
        counts = Counter((t.settings.kind, t.status.value) for t in hub.tables.values())
        yield _labelled(tables, sorted(counts.items()))
        yield _by_game("sushigo_turns", "Steps played to their end, by game", stats.turns)
        yield _by_game("sushigo_games_finished", "Games played to their end", stats.games_finished)
        latency = HistogramMetricFamily(
            "sushigo_turn_latency_seconds",
            "From a secret step's last commitment to its result (the reveals included)",
            labels=["game"],
        )
        for game, histogram in sorted(stats.turn_latency.items()):
            latency.add_metric([game], _buckets(histogram), histogram.sum)
        yield latency
        takeovers = CounterMetricFamily(
            "sushigo_bot_takeovers",
            "Seats a bot took over (reason: the player missed turns, or left the game)",
            labels=["game", "reason"],
        )
        yield _labelled(takeovers, sorted(stats.bot_takeovers.items()))
        yield CounterMetricFamily(
            "sushigo_chat_messages", "Chat messages passed on", stats.chat_messages
        )

        # The wire.
        yield CounterMetricFamily(
            "sushigo_frames_received", "Frames received from clients", stats.frames_in
        )
        yield CounterMetricFamily("sushigo_frames_sent", "Frames sent to clients", stats.frames_out)
        yield CounterMetricFamily(
            "sushigo_received_bytes", "Bytes received from clients", stats.bytes_in
        )
        yield CounterMetricFamily("sushigo_sent_bytes", "Bytes sent to clients", stats.bytes_out)
        errors = CounterMetricFamily(
            "sushigo_protocol_errors",
            "ERROR frames sent to clients, by code (fatal ones included)",
            labels=["code"],
        )
        yield _labelled(errors, (([_code_name(c)], n) for c, n in sorted(stats.errors.items())))

        # Storage.
        write = HistogramMetricFamily(
            "sushigo_storage_write_seconds",
            "From a batch of writes handed to the storage to their being durable",
        )
        write.add_metric([], _buckets(stats.storage_write), stats.storage_write.sum)
        yield write
        yield GaugeMetricFamily(
            "sushigo_storage_queue",
            "Writes made and not yet durable (held for the next commit, or being committed)",
            storage.mark - storage.durable,
        )
        yield GaugeMetricFamily(
            "sushigo_storage_failing",
            "1 while the database cannot be written (writes are held and retried)",
            storage.failing,
        )
        fault = GaugeMetricFamily(
            "sushigo_storage_fault",
            "1 for why the database cannot be written while it cannot (unreachable, disk_full,"
            " read_only, broken: anything else, the log says what), 0 for the others",
            labels=["kind"],
        )
        yield _labelled(fault, (([kind.name.lower()], storage.fault is kind) for kind in Fault))
        yield GaugeMetricFamily(
            "sushigo_frames_waiting",
            "Batches of frames waiting for their writes to be durable",
            len(server.waves),
        )


def _by_game(name: str, documentation: str, counts: dict[str, int]) -> CounterMetricFamily:
    family = CounterMetricFamily(name, documentation, labels=["game"])
    return _labelled(family, (([game], n) for game, n in sorted(counts.items())))


F = TypeVar("F", GaugeMetricFamily, CounterMetricFamily)


def _labelled(family: F, samples: Iterable[tuple[Sequence[str], float]]) -> F:
    """`family`, made with its labels, with a sample for each labels' values in `samples`."""
    for labels, value in samples:
        family.add_metric(list(labels), value)
    return family


def _buckets(histogram: Histogram) -> list[tuple[str, float]]:
    return [
        ("+Inf" if bound == float("inf") else repr(bound), count)
        for bound, count in histogram.cumulative()
    ]


def _code_name(code: int) -> str:
    try:
        return ErrorCode(code).name
    except ValueError:
        return str(code)


def _response(
    conn: h11.Connection, status: int, content_type: bytes, body: bytes, *, head: bool = False
) -> bytes:
    """A whole response's bytes (its head only for HEAD, with the body's length)."""
    headers = [(b"content-type", content_type), (b"content-length", str(len(body)).encode())]
    reason = HTTPStatus(status).phrase.encode()
    out = conn.send(h11.Response(status_code=status, headers=headers, reason=reason)) or b""
    if not head:
        out += conn.send(h11.Data(data=body)) or b""
    return out + (conn.send(h11.EndOfMessage()) or b"")


def registry_for(server: Server) -> CollectorRegistry:
    """A registry of the server's metrics and its process's (CPU, memory, open files)."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(ServerCollector(server))
    registry.register(ProcessCollector(registry=None))
    registry.register(PlatformCollector(registry=None))
    return registry


class MetricsServer:
    """The HTTP endpoint: /metrics, /healthz and /readyz, on the running event loop."""

    def __init__(self, registry: CollectorRegistry, unready: Callable[[], str | None]) -> None:
        self.registry = registry
        self.unready = unready
        """Why the server takes no new tables now (None: it does)."""
        self._servers: list[asyncio.Server] = []
        self._clients: set[asyncio.Task[None]] = set()

    async def start(
        self, host: str, port: int, listeners: list[socket.socket] | None = None
    ) -> list[tuple[str, int]]:
        """Listen, on `listeners` (bound beforehand by `server.net.app.bind`) or on `host` and
        `port`; the bound (host, port) pairs. OSError if the address cannot be bound."""
        if listeners is None:
            self._servers = [
                await asyncio.start_server(
                    self._client, host or None, port, limit=MAX_REQUEST_BYTES
                )
            ]
        else:
            self._servers = [
                await asyncio.start_server(self._client, sock=sock, limit=MAX_REQUEST_BYTES)
                for sock in listeners
            ]
        return [
            (str(s.getsockname()[0]), int(s.getsockname()[1]))
            for server in self._servers
            for s in server.sockets
        ]

    async def stop(self) -> None:
        """Stop listening and close every connection."""
        for server in self._servers:
            server.close()
        for task in list(self._clients):
            task.cancel()
        for task in list(self._clients):
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        if len(self._clients) >= MAX_CLIENTS:
            writer.close()
            return
        self._clients.add(task)
        try:
            await self._serve(reader, writer)
        except (OSError, TimeoutError, h11.ProtocolError):
            pass  # a client gone, too slow, or answered 400 (not HTTP): nothing more to say
        finally:
            self._clients.discard(task)
            writer.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conn = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_REQUEST_BYTES)
        while True:
            try:
                event = conn.next_event()
            except h11.RemoteProtocolError:
                if conn.our_state in (h11.IDLE, h11.SEND_RESPONSE):
                    writer.write(_response(conn, 400, b"text/plain", b"not an HTTP request\n"))
                    await writer.drain()
                raise
            if event is h11.NEED_DATA:
                async with asyncio.timeout(REQUEST_SECONDS):
                    data = await reader.read(MAX_REQUEST_BYTES)
                conn.receive_data(data)
                continue
            if isinstance(event, h11.Request):
                status, content_type, body = self.answer(event.method, event.target)
                head = event.method == b"HEAD"
                writer.write(_response(conn, status, content_type, body, head=head))
                await writer.drain()
                if conn.our_state is h11.MUST_CLOSE:  # the client said "Connection: close"
                    return
                continue
            if isinstance(event, h11.EndOfMessage | h11.Data):
                continue  # a request's body, which none of ours takes: ignored
            if conn.our_state is h11.DONE and conn.their_state is h11.DONE:
                conn.start_next_cycle()  # keep-alive: Prometheus reuses its connection
                continue
            return  # the client closed (ConnectionClosed), or the exchange cannot go on

    def answer(self, method: bytes, target: bytes) -> tuple[int, bytes, bytes]:
        """(status, content type, body) for a request."""
        text = b"text/plain; charset=utf-8"
        if method not in (b"GET", b"HEAD"):
            return 405, text, b"only GET and HEAD\n"
        path = target.split(b"?", 1)[0]
        if path == b"/metrics":
            return 200, CONTENT_TYPE_LATEST.encode(), generate_latest(self.registry)
        if path == b"/healthz":
            return 200, text, b"ok\n"
        if path == b"/readyz":
            why = self.unready()
            if why is None:
                return 200, text, b"ready\n"
            return 503, text, f"not ready: {why}\n".encode()
        return 404, text, b"not found: /metrics, /healthz and /readyz are here\n"
