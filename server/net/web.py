"""``sushigo-server --web HOST:PORT``: the web client's page and its WebSocket endpoint.

A second adapter beside the TCP one (`server.net.app`, `server.net.connection`), as thin: bytes in,
the hub's calls out. Each connection begins as HTTP/1.1 (`h11`): a GET or HEAD of one of the
page's files is answered from memory (`server.net.web_files`), and kept alive for the next. A GET of
`/ws` asking to upgrade becomes a WebSocket (`wsproto`, sans-IO, handed the request h11 parsed),
and from then on it is, to the hub, a connection like any other: opened with `Hub.open` (the
per-address caps, bans and the handshake deadline as over TCP), its frames fed to `Hub.data`,
and what the hub sends written by the adapter's waves (coalesced, held until durable, taken back
when fenced, what a client has not taken bounded by the budget: `server.net.budget`).

The transport (docs/PROTOCOL.md section 1): one binary WebSocket message is one frame's msgpack
body, the message's length standing for the 4-byte prefix. Each message is given to the hub
with that prefix put back, so every check of the protocol's (its limits, rate limits, phases,
errors) is the same code as over TCP. Before that, what only a WebSocket can get wrong is
answered here, as the hub answers a bad frame (an ERROR naming it, then the close):

- a message past the client's frame limit: the hub is given its length so far, which it refuses
  as FRAME_TOO_LARGE before any more is kept (so a message is never held past 16 KiB);
- a message whose bytes do not all arrive within `frame_seconds` of its first: TIMEOUT;
- a text message, or a message that carries the 4-byte prefix itself: MALFORMED_FRAME, saying
  what the transport wants;
- bytes that are not WebSocket frames: MALFORMED_FRAME, and the WebSocket close code wsproto
  gives.

No WebSocket extension is accepted: compressing messages of a few hundred bytes saves little,
and permessage-deflate would keep a zlib context of hundreds of KiB per player.

Before its upgrade a connection is not the hub's. What bounds it here: its request's head within
`MAX_HEAD_BYTES` (431 past it) and `REQUEST_SECONDS` (then closed, as is a kept-alive connection
idle that long), and `PAGE_PER_ADDRESS` such connections per address, `PAGE_CONNECTIONS` in all
(503 past them). No Origin is checked: the protocol carries no ambient credential (no cookie;
the page signs the server's challenge with a key only it holds), so another site's page that
opens a WebSocket here gains nothing a direct client would not have.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import ssl
import struct
from http import HTTPStatus
from typing import cast

import h11
from wsproto.connection import Connection as WsConnection
from wsproto.connection import ConnectionState, ConnectionType
from wsproto.events import (
    AcceptConnection,
    BytesMessage,
    CloseConnection,
    Ping,
    TextMessage,
)
from wsproto.handshake import H11Handshake
from wsproto.utilities import RemoteProtocolError as WsRemoteProtocolError

from sushigo.protocol import ErrorCode, RemoteProtocolError
from sushigo.protocol.frames import CLIENT_FRAME_LIMIT, HEADER_SIZE

from .app import Server
from .connection import Connection, told_of_every_byte
from .web_files import Answer, PageFiles, refusal
from .web_frames import whole_messages

log = logging.getLogger("sushigo.server")

WS_PATH = b"/ws"
"""The WebSocket endpoint's path (the page's files are everything else)."""
REQUEST_SECONDS = 10.0
"""How long a request's head may take to arrive, and a kept-alive connection may stay idle."""
MAX_HEAD_BYTES = 16 * 1024
"""The largest request head taken (a browser's are under 2 KiB)."""
PAGE_PER_ADDRESS = 64
"""Connections from one address not (yet) upgraded to a WebSocket: a browser opens six at most
to load a page, and a NAT hides many browsers."""
PAGE_CONNECTIONS = 2048
"""Such connections in all."""
_LENGTH = struct.Struct(">I")


class WebServer:
    """The web endpoint of one server: its page's files, and its connections not yet upgraded
    (counted per address)."""

    def __init__(self, server: Server, files: PageFiles, url: str = "") -> None:
        self.server = server
        self.files = files
        self.url = url
        """Where browsers reach its WebSocket (``ws://HOST:PORT/ws``), as it is advertised."""
        self.unupgraded: dict[str, int] = {}
        """Connections not upgraded, per address."""
        self.total = 0

    def listen(self, sockets: list[socket.socket], tls: ssl.SSLContext | None) -> None:
        """Serve on bound `sockets` (`app.bind`), with the server's TLS context if any."""
        self.server.listen(sockets, lambda: WebConnection(self), tls)

    def arrived(self, address: str) -> str | None:
        """Count a new connection from `address`; why it is refused, or None."""
        count = self.unupgraded.get(address, 0)
        if count >= PAGE_PER_ADDRESS:
            return f"{PAGE_PER_ADDRESS} connections from your address already"
        if self.total >= PAGE_CONNECTIONS:
            return "the server is busy: try again in a moment"
        self.unupgraded[address] = count + 1
        self.total += 1
        return None

    def left(self, address: str) -> None:
        """A connection counted by `arrived` upgraded or ended."""
        count = self.unupgraded.get(address, 0) - 1
        if count > 0:
            self.unupgraded[address] = count
        else:
            self.unupgraded.pop(address, None)
        self.total -= 1


class WebConnection(Connection):
    """One browser's connection: HTTP for the page, then (upgraded) the hub's, as a WebSocket."""

    def __init__(self, web: WebServer) -> None:
        super().__init__(web.server)
        self.web = web
        self.http: h11.Connection | None = h11.Connection(
            h11.SERVER, max_incomplete_event_size=MAX_HEAD_BYTES
        )
        self.ws: WsConnection | None = None
        self.address = "?"
        self.port = 0
        self.counted = False
        """Counted among the connections not upgraded (`WebServer.arrived`)."""
        self.timer: asyncio.TimerHandle | None = None
        self.parts: list[bytes | bytearray] = []
        """The message being received, in parts."""
        self.size = 0
        self.since: float | None = None
        """When the message being received began (None: none is)."""
        self.slow = False
        """Its frames go to wsproto (one was not of the common kind: `server.net.web_frames`)."""
        self.close_code = 1000
        """The WebSocket close code `finish` sends (1000, or why the peer's bytes were bad)."""

    # asyncio.Protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)
        peer = transport.get_extra_info("peername") or ("?", 0)
        self.address, self.port = str(peer[0]), int(peer[1])
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._fd = sock.fileno()
        told_of_every_byte(self.transport)  # (for `budget`)
        why = self.web.arrived(self.address)
        if why is not None:
            # Said before any request is read (h11 answers only one it has read), then closed.
            self.server.stats.count(self.server.stats.rejected, "per_address")
            body = why.encode() + b"\n"
            self.transport.write(
                b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n"
                b"content-length: %d\r\nretry-after: 5\r\nconnection: close\r\n\r\n%s"
                % (len(body), body)
            )
            self.transport.close()
            return
        self.counted = True
        self._deadline()

    def data_received(self, data: bytes) -> None:
        if self.ws is not None:
            self._ws_data(data)
        elif self.http is not None:
            self._http_data(data)

    def eof_received(self) -> bool:
        if self.ws is not None and self.conn is not None:
            return super().eof_received()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self._uncount()
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        super().connection_lost(exc)

    # HTTP, until the upgrade

    def _http_data(self, data: bytes) -> None:
        http = self.http
        assert http is not None and self.transport is not None
        http.receive_data(data)
        while self.http is not None and not self.transport.is_closing():
            try:
                event = http.next_event()
            except h11.RemoteProtocolError as exc:
                status = exc.error_status_hint
                why = "request head too large" if status == 431 else "not an HTTP/1.1 request"
                if http.our_state in (h11.IDLE, h11.SEND_RESPONSE):
                    self._answer(refusal(status, why), close=True)
                else:
                    self.transport.close()
                return
            if event is h11.NEED_DATA:
                return
            if isinstance(event, h11.Request):
                self._request(event)
            elif isinstance(event, h11.ConnectionClosed):
                self.transport.close()
                return
            elif event is h11.PAUSED:
                if http.our_state is h11.DONE and http.their_state is h11.DONE:
                    http.start_next_cycle()
                    self._deadline()
                    continue
                return
            elif http.our_state is h11.DONE and http.their_state is h11.DONE:
                http.start_next_cycle()  # keep-alive: the next file
                self._deadline()

    def _request(self, request: h11.Request) -> None:
        # h11 bounds a head that arrives in parts (`MAX_HEAD_BYTES`); this, one that came whole.
        size = len(request.target) + sum(len(n) + len(v) + 4 for n, v in request.headers)
        if size > MAX_HEAD_BYTES:
            self._answer(refusal(431, "request head too large"), close=True)
            return
        path = request.target.split(b"?", 1)[0]
        wants = any(name == b"upgrade" for name, _ in request.headers)
        if path == WS_PATH:
            if not wants:
                answer = refusal(
                    426,
                    "this is the game's WebSocket endpoint: connect with a WebSocket",
                    [(b"upgrade", b"websocket")],
                )
                self._answer(answer, close=True)
                return
            self._upgrade(request)
            return
        self._answer(self.web.files.answer(request.method, request.target, request.headers))

    def _answer(self, answer: Answer, *, close: bool = False) -> None:
        """Send an HTTP answer (and close after it when told)."""
        transport = self.transport
        http = self.http
        if transport is None or http is None:
            return
        headers = list(answer.headers)
        if close:
            headers.append((b"connection", b"close"))
        try:
            reason = HTTPStatus(answer.status).phrase.encode()
            response = h11.Response(status_code=answer.status, headers=headers, reason=reason)
            out = http.send(response) or b""
            if answer.body:
                out += http.send(h11.Data(data=answer.body)) or b""
            out += http.send(h11.EndOfMessage()) or b""
        except h11.LocalProtocolError:  # the exchange cannot carry an answer any more
            transport.close()
            return
        transport.write(out)
        if close or http.our_state is h11.MUST_CLOSE:
            transport.close()

    def _upgrade(self, request: h11.Request) -> None:
        """Switch to WebSocket (the checks of RFC 6455 are wsproto's), and open a connection of
        the hub."""
        http, transport = self.http, self.transport
        assert http is not None and transport is not None
        if self.web.server.stopping:
            self._answer(refusal(503, "the server is stopping"), close=True)
            return
        handshake = H11Handshake(ConnectionType.SERVER)
        try:
            handshake.initiate_upgrade_connection(list(request.headers), request.target)
            for _ in handshake.events():
                pass  # the Request it parsed: nothing in it to choose from
            out = handshake.send(AcceptConnection())
        except WsRemoteProtocolError as exc:
            hint = exc.event_hint
            status = getattr(hint, "status_code", 400)
            extra = list(getattr(hint, "headers", None) or [])
            self._answer(refusal(status, f"not a WebSocket upgrade: {exc}", extra), close=True)
            return
        except ValueError as exc:  # a Host that is no host name (wsproto decodes it)
            self._answer(refusal(400, f"not a WebSocket upgrade: {exc}"), close=True)
            return
        trailing, _ = http.trailing_data
        self.http = None
        self.ws = handshake.connection
        self._uncount()
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        transport.write(out)
        server = self.server
        # Refused (a cap, a ban): the hub has written why and closed it; `done` sends that.
        self.conn = server.hub.open(self, self.address, self.port, server.now(), web=True)
        server.done()
        if trailing:
            self._ws_data(bytes(trailing))

    def _uncount(self) -> None:
        if self.counted:
            self.counted = False
            self.web.left(self.address)

    def _deadline(self) -> None:
        """(Re)start the request deadline: the next request's head is due within it."""
        if self.timer is not None:
            self.timer.cancel()
        self.timer = self.web.server.loop.call_later(REQUEST_SECONDS, self._too_slow)

    def _too_slow(self) -> None:
        self.timer = None
        if self.transport is not None and self.ws is None:
            self.transport.close()

    # WebSocket

    def _ws_data(self, data: bytes) -> None:
        ws = self.ws
        assert ws is not None
        server = self.server
        server.stats.bytes_in += len(data)
        if ws.state is not ConnectionState.OPEN:
            return  # closing: whatever comes after the close frame is not read
        try:
            if not self.slow:
                # A browser's frames, the common case, read here; wsproto reads the rest, and
                # from then on every byte of this connection (`server.net.web_frames`).
                messages, used = whole_messages(data)
                for body in messages:
                    self._part(body, True)
                    if self.conn is None or self.conn.closed:
                        return
                if used == len(data):
                    return
                data = data[used:]
                self.slow = True
            ws.receive_data(data)
            for event in ws.events():
                if isinstance(event, BytesMessage):
                    self._part(event.data, event.message_finished)
                elif isinstance(event, Ping):
                    self._control(ws.send(event.response()))
                elif isinstance(event, CloseConnection):
                    self._closed_by_peer(ws, event)
                    return
                elif isinstance(event, TextMessage):
                    self._refuse(
                        ErrorCode.MALFORMED_FRAME,
                        "a text message: each frame is one binary WebSocket message",
                    )
                    return
                if self.conn is None or self.conn.closed:
                    return
        finally:
            server.soon()

    def _part(self, data: bytes | bytearray, finished: bool) -> None:
        """A part of a binary message: the whole message goes to the hub as one frame."""
        conn = self.conn
        if conn is None or conn.closed:
            return
        self.size += len(data)
        server = self.server
        if self.size > CLIENT_FRAME_LIMIT:
            # The hub refuses a frame by its declared length alone, as over TCP.
            size, self.parts, self.size, self.since = self.size, [], 0, None
            server.hub.data(conn, _LENGTH.pack(size), server.clock())
            return
        self.parts.append(data)
        if not finished:
            if self.since is None:
                self.since = server.now()
                seconds = server.hub.config.frame_seconds
                self.web.server.loop.call_later(seconds, self._message_due, self.since)
            return
        body = self.parts[0] if len(self.parts) == 1 else b"".join(self.parts)
        self.parts, self.size, self.since = [], 0, None
        if (
            len(body) >= HEADER_SIZE
            and body[0] == 0
            and _LENGTH.unpack_from(body)[0] == len(body) - 4
        ):
            self._refuse(
                ErrorCode.MALFORMED_FRAME,
                "a WebSocket message is one frame's msgpack body, without the 4-byte length",
            )
            return
        server.hub.data(conn, _LENGTH.pack(len(body)) + body, server.clock())

    def _message_due(self, since: float) -> None:
        if self.since != since or self.conn is None:
            return
        seconds = self.server.hub.config.frame_seconds
        log.info("dropping %s: a message took over %.0f s to arrive", self.conn.peer, seconds)
        self._refuse(
            ErrorCode.TIMEOUT, f"a message's bytes must arrive within {seconds:g} s of its first"
        )
        self.server.done()

    def _refuse(self, code: ErrorCode, message: str) -> None:
        """Close the hub's connection with an ERROR saying why (a fatal code)."""
        conn = self.conn
        if conn is not None and not conn.closed:
            self.server.hub.close(conn, RemoteProtocolError(code, message))

    def _closed_by_peer(self, ws: WsConnection, event: CloseConnection) -> None:
        """The peer closed, or sent what is not a WebSocket frame (wsproto's close code)."""
        if ws.state is ConnectionState.OPEN:  # not a close frame: bytes wsproto could not parse
            # The hub says why in an ERROR, and closes; the close frame carries wsproto's code.
            self.close_code = event.code
            conn = self.conn
            if conn is not None and not conn.closed:
                self._refuse(ErrorCode.MALFORMED_FRAME, f"not a WebSocket frame: {event.reason}")
                return
            self._control(ws.send(CloseConnection(code=event.code)))
        elif ws.state is ConnectionState.REMOTE_CLOSING:
            self._control(ws.send(event.response()))
        if self.transport is not None:
            self.transport.close()

    def _control(self, data: bytes) -> None:
        """Write a WebSocket control frame now (it may go between two messages' frames)."""
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(data)

    # the adapter's hooks (`Connection.flush`)

    def wire(self, frames: list[bytes]) -> bytes:
        out: list[bytes | memoryview] = []
        for frame in frames:
            body = memoryview(frame)[HEADER_SIZE:]
            out.append(_head(len(body)))
            out.append(body)
        return b"".join(out)

    def finish(self, transport: asyncio.Transport) -> None:
        ws = self.ws
        if ws is not None and ws.state is ConnectionState.OPEN:
            transport.write(ws.send(CloseConnection(code=self.close_code)))
        transport.close()


def _head(length: int) -> bytes:
    """A final binary frame's header, unmasked (a server's), for a payload of `length` bytes."""
    if length < 126:
        return bytes((0x82, length))
    if length < 65536:
        return struct.pack(">BBH", 0x82, 126, length)
    return struct.pack(">BBQ", 0x82, 127, length)
