"""A connection of the asyncio adapter (`app.Server`): an `asyncio.Protocol` that feeds the hub
the bytes it reads, and the hub's `Transport`, which holds what the hub sends until the server's
`done` writes it (see `app`'s docstring: writes coalesced, sent once durable, a connection's
frames held and taken back when its table's writes were fenced). What the kernel cannot take at
once waits in the transport: `budget.Budget` bounds it per connection, per address and in all,
and the hub is told while a connection holds any (`Conn.behind`: a client that does not read is
not built another list).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import socket
import struct
import sys
import termios
from collections import deque
from collections.abc import Callable
from typing import Protocol, cast

from sushigo.server.hub.core import Hub
from sushigo.server.sessions.session import Conn
from sushigo.server.stats import Stats

from .budget import Budget

_OUTQ: int | None = termios.TIOCOUTQ if sys.platform == "linux" else None
"""The ioctl that says how many bytes a TCP socket's kernel holds not yet acknowledged by the
peer (Linux's SIOCOUTQ; None elsewhere: only the transport's bytes are counted)."""

Wave = tuple[int, float, list[tuple["Connection", list[bytes], bool]]]
"""Frames waiting for the writes made before them to be durable: the storage's `mark` when they
were sent, when that was (`time.perf_counter`), and each connection's frames (`Connection.take`)."""


class Adapter(Protocol):
    """What a connection uses of its server (`app.Server`): the hub it feeds, the counters of
    the bytes it moves, the lists its frames wait in, and the calls that say an input was
    handled."""

    hub: Hub
    stats: Stats
    budget: Budget
    """The bound on what connections hold unsent (`budget`)."""
    dirty: list[Connection]
    """Connections with frames waiting for `done` to write them."""
    waves: deque[Wave]
    clock: Callable[[], float]
    """`now`, without the call around it."""
    lease_until: float
    """Until when a cluster's node's lease surely holds (inf: a lone server's)."""

    def now(self) -> float: ...

    def lease_check(self) -> None: ...

    def soon(self) -> None: ...

    def done(self, *, wait: bool = False) -> None: ...

    def closed(self, connection: Connection) -> None: ...


class Connection(asyncio.Protocol):
    """One client's socket, for the hub (its `Transport`) and for asyncio."""

    def __init__(self, server: Adapter) -> None:
        self.server = server
        self.transport: asyncio.Transport | None = None
        self.conn: Conn | None = None
        self.pending: list[bytes] | None = None
        """Frames the hub sent during the current input, not yet given to the transport."""
        self.closing = False
        """The hub closed the connection: close it once the held frames are written."""
        self.held = False
        """Its frames are kept back, not written: its table's writes were fenced
        (`Server._fenced`), and they are to be taken back (`unsend`)."""
        self.kept: list[bytes] = []
        """The frames kept back while `held`."""
        self.address = ""
        """The peer's IP address (the budget's per-address share)."""
        self.unsent = 0
        """Bytes the transport held after the last write, as the budget counts them."""
        self._fd = -1
        """The socket's file descriptor (for `unread`)."""

    # asyncio.Protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports do not subclass asyncio.Transport but have the same methods.
        self.transport = cast(asyncio.Transport, transport)
        peer = transport.get_extra_info("peername") or ("?", 0)
        self.address = str(peer[0])
        # Told (`pause_writing`) as soon as the transport holds a byte the kernel would not
        # take, and (`resume_writing`) once it holds none again.
        told_of_every_byte(self.transport)
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._fd = sock.fileno()
        # Refused (a cap): the hub has written why and closed it; `done` sends that.
        self.conn = self.server.hub.open(self, str(peer[0]), int(peer[1]), self.server.now())
        self.server.done()

    def data_received(self, data: bytes) -> None:
        conn = self.conn
        if conn is not None:
            server = self.server
            server.stats.bytes_in += len(data)
            now = server.clock()
            if now >= server.lease_until:  # its tables dropped before anything is played
                server.lease_check()
            try:
                server.hub.data(conn, data, now)
            finally:
                server.soon()

    def eof_received(self) -> bool:
        if self.conn is not None:
            try:
                self.server.hub.data(self.conn, b"", self.server.now())
            finally:
                self.server.done()
        return False

    def pause_writing(self) -> None:
        if self.conn is not None:
            self.conn.behind = True

    def resume_writing(self) -> None:
        self.server.budget.drained(self)
        if self.conn is not None:
            self.conn.behind = False

    def connection_lost(self, exc: Exception | None) -> None:
        self.pending = None
        self.server.budget.gone(self)
        self.server.closed(self)
        conn, self.conn = self.conn, None  # the hub's Conn and this refer to each other
        if conn is not None:
            self.server.hub.lost(conn, self.server.now())
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
        self.closing = True
        if self.pending is None:
            self.pending = []
            self.server.dirty.append(self)

    def take(self) -> tuple[Connection, list[bytes], bool]:
        """What the hub sent since the last `take`: this connection, the frames, and whether it
        is to be closed after them."""
        pending, self.pending = self.pending, None
        return self, pending or [], self.closing

    def unsend(self) -> None:
        """Take back every frame the hub sent that is not written yet (kept back, waiting in a
        wave for its writes to be durable, or the current input's), and the sequence numbers
        they took: the next frame follows the last one written, as if these were never sent.
        (Every `write` is one frame.)"""
        dropped, self.kept, self.held = len(self.kept), [], False
        for _, _, entries in self.server.waves:
            for i, (connection, pending, closing) in enumerate(entries):
                if connection is self and pending:
                    dropped += len(pending)
                    entries[i] = (connection, [], closing)
        if self.pending:
            dropped += len(self.pending)
            self.pending = []  # still among the server's dirty connections
        if self.conn is not None:
            self.conn.proto.last_seq -= dropped

    def flush(self, pending: list[bytes], closing: bool) -> None:
        """Give the transport `pending` (frames from `take`) in one write; then close if told."""
        transport = self.transport
        if transport is None or transport.is_closing():
            return
        if self.held:
            self.kept += pending
            return
        if pending:
            data = self.wire(pending)
            transport.write(data)
            stats = self.server.stats
            stats.frames_out += len(pending)
            stats.bytes_out += len(data)
        if closing:
            self.finish(transport)
            return
        size = transport.get_write_buffer_size()
        if size or self.unsent:
            self.server.budget.held(self, size, self.server.now())

    def wire(self, frames: list[bytes]) -> bytes:
        """The bytes that carry `frames` to the peer: over TCP, the frames one after another
        (the web endpoint wraps each in a WebSocket message: `server.net.web`)."""
        return frames[0] if len(frames) == 1 else b"".join(frames)

    def finish(self, transport: asyncio.Transport) -> None:
        """Close once the frames given are written (the web endpoint says goodbye first)."""
        transport.close()

    # the budget's Holder

    def unsent_now(self) -> int:
        """The bytes the transport holds now."""
        transport = self.transport
        return 0 if transport is None else transport.get_write_buffer_size()

    def unread(self) -> int:
        """Bytes sent that the client has not taken yet: the transport's, and those its socket
        holds unacknowledged (a client that stops reading closes its window: they stay)."""
        held = self.unsent_now()
        if _OUTQ is not None and self._fd >= 0:
            with contextlib.suppress(OSError):  # closed meanwhile
                held += struct.unpack("i", fcntl.ioctl(self._fd, _OUTQ, b"\0\0\0\0"))[0]
        return held

    def drop(self) -> None:
        """Close at once, dropping what is unsent (`budget.Budget`)."""
        if self.transport is not None:
            self.transport.abort()


def told_of_every_byte(transport: asyncio.Transport) -> None:
    """Have `transport` call ``pause_writing`` once it holds a byte unsent and
    ``resume_writing`` once it holds none. A plain transport pauses above its high-water mark,
    so 0 does it; the TLS transport (asyncio's and uvloop's) pauses *at* it, with 0 even when it
    holds nothing, and every other write flips it back, so 1 (and a low mark of 0) does it."""
    if transport.get_extra_info("sslcontext") is None:
        transport.set_write_buffer_limits(high=0)
    else:
        transport.set_write_buffer_limits(high=1, low=0)
