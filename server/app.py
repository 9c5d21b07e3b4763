"""The asyncio adapter: sockets in, `Hub` calls out (aioquic's asyncio/protocol.py is the model).

Each connection is an `asyncio.Protocol` that feeds bytes to the hub and writes what the hub sends.
One loop timer follows `Hub.next_deadline`. A client that stops reading is dropped as soon as its
unsent bytes pass `MAX_UNSENT`, so it can never make the server's memory grow.

Writes are coalesced: what the hub sends while it handles one input (bytes, a timer, a connection
opening or ending) is held per connection and written with one `transport.write` when the hub
returns. A turn ending sends each seat TURN_RESULT and the next TURN_START (and ROUND_SCORES at a
round's end): one system call instead of three.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import ssl
from typing import Any, cast

from .hub import Conn, Hub

log = logging.getLogger("sushigo.server")

MAX_UNSENT = 4 * 1024 * 1024
"""Bytes queued for a client that is not reading before it is dropped (four maximum frames)."""


class _Connection(asyncio.Protocol):
    def __init__(self, server: Server) -> None:
        self.server = server
        self.transport: asyncio.Transport | None = None
        self.conn: Conn | None = None
        self.pending: list[bytes] | None = None
        """Frames the hub sent during the current input, not yet given to the transport."""

    # asyncio.Protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports do not subclass asyncio.Transport but have the same methods.
        self.transport = cast(asyncio.Transport, transport)
        peer = transport.get_extra_info("peername") or ("?", 0)
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.conn = self.server.hub.open(self, str(peer[0]), int(peer[1]), self.server.now())
        if self.conn is None:
            self.transport.abort()
        self.server.done()

    def data_received(self, data: bytes) -> None:
        if self.conn is not None:
            try:
                self.server.hub.data(self.conn, data, self.server.now())
            finally:
                self.server.done()

    def eof_received(self) -> bool:
        if self.conn is not None:
            try:
                self.server.hub.data(self.conn, b"", self.server.now())
            finally:
                self.server.done()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.pending = None
        if self.conn is not None:
            self.server.hub.lost(self.conn, self.server.now())
            self.server.done()

    # the hub's Transport

    def write(self, data: bytes) -> None:
        pending = self.pending
        if pending is None:
            self.pending = [data]
            self.server.dirty.append(self)
        else:
            pending.append(data)

    def close(self) -> None:
        self.flush()
        if self.transport is not None:
            self.transport.close()

    def flush(self) -> None:
        """Give the transport everything the hub sent since the last flush, in one write."""
        pending = self.pending
        if pending is None:
            return
        self.pending = None
        transport = self.transport
        if transport is None or transport.is_closing():
            return
        transport.write(pending[0] if len(pending) == 1 else b"".join(pending))
        if transport.get_write_buffer_size() > MAX_UNSENT:
            peer = self.conn.peer if self.conn else "?"
            log.warning("dropping %s: it does not read (%d bytes unsent)", peer, MAX_UNSENT)
            transport.abort()


class Server:
    """A listening socket (or several: IPv4 and IPv6) driving one hub."""

    def __init__(self, hub: Hub, host: str | None, port: int, tls: ssl.SSLContext | None) -> None:
        self.hub = hub
        self.host, self.port, self.tls = host, port, tls
        self.loop = asyncio.get_running_loop()
        self._listeners: list[socket.socket] = []
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at: float | None = None
        self.dirty: list[_Connection] = []
        """Connections with frames waiting for `done` to write them."""

    def now(self) -> float:
        """The hub's clock: the loop's monotonic time."""
        return self.loop.time()

    async def start(self) -> list[tuple[str, int]]:
        """Start listening; the bound (host, port) pairs. OSError if an address cannot be bound."""
        self.hub.restore(self.now())
        port = self.port
        try:
            for family, kind, proto, _, address in socket.getaddrinfo(
                self.host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
            ):
                sock = socket.socket(family, kind, proto)
                self._listeners.append(sock)
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                if family == socket.AF_INET6:
                    sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
                sock.bind((address[0], port, *address[2:]))
                port = port or sock.getsockname()[1]  # port 0: every family on the same port
                sock.listen(4096)
                sock.setblocking(False)
        except OSError:
            self._close_listeners()
            raise
        for sock in self._listeners:
            self.loop.add_reader(sock.fileno(), self._accept, sock)
        self.rearm()
        return [_address(sock.getsockname()) for sock in self._listeners]

    def _accept(self, listener: socket.socket) -> None:
        """Take every waiting connection at once. (A loop that accepts one per iteration, as
        libuv does, lets a busy server fall behind its backlog by thousands of clients.)"""
        for _ in range(512):
            try:
                sock, _ = listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:  # e.g. out of file descriptors: say so, keep serving
                log.warning("accept failed: %s", exc)
                return
            self.loop.create_task(self._serve(sock))

    async def _serve(self, sock: socket.socket) -> None:
        try:
            await self.loop.connect_accepted_socket(lambda: _Connection(self), sock, ssl=self.tls)
        except (OSError, ssl.SSLError) as exc:  # a failed TLS handshake or a peer gone already
            log.info("connection setup failed: %s", exc)
            sock.close()

    def _close_listeners(self) -> None:
        for sock in self._listeners:
            with contextlib.suppress(Exception):
                self.loop.remove_reader(sock.fileno())
            sock.close()
        self._listeners = []

    def done(self) -> None:
        """The hub has handled an input: write what it sent, and follow its next deadline."""
        dirty = self.dirty
        if dirty:
            self.dirty = []
            for connection in dirty:
                connection.flush()
        self.rearm()

    def rearm(self) -> None:
        """Follow the hub's next deadline with the one loop timer."""
        deadline = self.hub.next_deadline()
        if deadline == self._timer_at:
            return
        if self._timer is not None:
            self._timer.cancel()
        self._timer_at = deadline
        self._timer = None if deadline is None else self.loop.call_at(deadline, self._fire)

    def _fire(self) -> None:
        self._timer = self._timer_at = None
        try:
            self.hub.on_timer(self.now())
        except Exception:  # keep serving; the hub logs what it can
            log.exception("timer failed")
        self.done()

    async def stop(self) -> None:
        """Save every table, tell every client, stop listening."""
        self.hub.shutdown()
        self.done()
        if self._timer is not None:
            self._timer.cancel()
        self._close_listeners()


def _address(name: Any) -> tuple[str, int]:
    return str(name[0]), int(name[1])
