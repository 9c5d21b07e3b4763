"""The load test's seats over WebSocket (``--web``): each seat's `LoadClient` speaks through a
`WebSocketSeat`, which upgrades its connection (``GET /ws`` on the server's ``--web`` port, wsproto
as the client) and then carries frames as a browser does, one binary message per frame's body.
The seat itself is the TCP one unchanged: it writes frames to, and reads frames from, what looks
to it like a socket (`_Frames`)."""

from __future__ import annotations

import asyncio
from typing import Any, cast

from wsproto import ConnectionType, WSConnection
from wsproto.events import (
    AcceptConnection,
    BytesMessage,
    CloseConnection,
    Ping,
    RejectConnection,
    Request,
)

from .options import HOST


class _Frames:
    """The transport a seat writes its frames to: each becomes one binary message."""

    def __init__(self, outer: WebSocketSeat) -> None:
        self.outer = outer

    def write(self, data: bytes) -> None:
        self.outer.send_frames(data)

    def close(self) -> None:
        self.outer.close()

    def is_closing(self) -> bool:
        transport = self.outer.transport
        return transport is None or transport.is_closing()

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        transport = self.outer.transport
        return default if transport is None else transport.get_extra_info(name, default)


class WebSocketSeat(asyncio.Protocol):
    """One seat's connection over WebSocket, around the seat's own protocol (`inner`)."""

    def __init__(self, inner: asyncio.Protocol) -> None:
        self.inner = inner
        self.ws = WSConnection(ConnectionType.CLIENT)
        self.transport: asyncio.Transport | None = None
        self.open = False
        self.parts: list[bytes] = []

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)
        port = transport.get_extra_info("peername")[1]
        self.transport.write(self.ws.send(Request(host=f"{HOST}:{port}", target="/ws")))

    def data_received(self, data: bytes) -> None:
        ws = self.ws
        ws.receive_data(data)
        for event in ws.events():
            if isinstance(event, BytesMessage):
                self.parts.append(bytes(event.data))
                if event.message_finished:
                    body = self.parts[0] if len(self.parts) == 1 else b"".join(self.parts)
                    self.parts = []
                    self.inner.data_received(len(body).to_bytes(4, "big") + body)
            elif isinstance(event, AcceptConnection):
                self.open = True
                self.inner.connection_made(cast(asyncio.BaseTransport, _Frames(self)))
            elif isinstance(event, Ping):
                self._write(ws.send(event.response()))
            elif isinstance(event, CloseConnection):
                if self.transport is not None:
                    self.transport.close()
            elif isinstance(event, RejectConnection) and self.transport is not None:
                self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        if self.open:
            self.inner.connection_lost(exc)

    def send_frames(self, data: bytes) -> None:
        """Frames the seat wrote (each write is whole frames): one binary message each."""
        at = 0
        while at < len(data):
            size = int.from_bytes(data[at : at + 4], "big")
            self._write(self.ws.send(BytesMessage(data=data[at + 4 : at + 4 + size])))
            at += 4 + size

    def close(self) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self._write(self.ws.send(CloseConnection(code=1000)))
            self.transport.close()

    def _write(self, data: bytes) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(data)
