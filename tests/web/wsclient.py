"""A WebSocket client for the tests of `sushigo-server --web`: wsproto over an asyncio socket,
speaking the protocol with the project's own `ClientConnection` (a frame's body is one binary
message), plus the raw socket for the tests that send what no browser would.

`relay` puts the unmodified client library (TCP) onto the WebSocket endpoint: a local listener
whose every connection is carried to the server as a WebSocket, frame by frame, so a whole game
(resumes included) is played over the web transport by the same code as over TCP.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from wsproto import ConnectionType, WSConnection
from wsproto.events import (
    AcceptConnection,
    BytesMessage,
    CloseConnection,
    Message,
    Ping,
    RejectConnection,
    Request,
    TextMessage,
)

from sushigo.protocol import ClientConnection, ClientMessage
from sushigo.protocol import Message as ProtoMessage
from sushigo.protocol.frames import HEADER_SIZE

TIMEOUT = 10.0


class Rejected(Exception):
    """The server answered the upgrade with an HTTP status, not 101."""

    def __init__(self, status: int) -> None:
        super().__init__(f"upgrade refused: {status}")
        self.status = status


class WsClient:
    """One WebSocket connection: messages in and out, and the protocol over them."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.ws = WSConnection(ConnectionType.CLIENT)
        self.proto = ClientConnection()
        self.inbox: asyncio.Queue[bytes | str | None] = asyncio.Queue()
        self.close_code: int | None = None
        self._parts: list[bytes | str] = []
        self._task: asyncio.Task[None] | None = None

    async def handshake(self, host: str, path: str = "/ws") -> None:
        self.writer.write(self.ws.send(Request(host=host, target=path)))
        while True:
            data = await asyncio.wait_for(self.reader.read(65536), TIMEOUT)
            if not data:
                raise ConnectionError("closed during the upgrade")
            self.ws.receive_data(data)
            for event in self.ws.events():
                if isinstance(event, AcceptConnection):
                    self._task = asyncio.create_task(self._read())
                    return
                if isinstance(event, RejectConnection):
                    raise Rejected(event.status_code)

    async def _read(self) -> None:
        try:
            # What came with the upgrade's answer first (the server may send at once).
            data = b""
            while True:
                if data:
                    self.ws.receive_data(data)
                for event in self.ws.events():
                    if isinstance(event, Message):
                        self._parts.append(event.data)
                        if event.message_finished:
                            parts, self._parts = self._parts, []
                            if isinstance(parts[0], str):
                                self.inbox.put_nowait("".join(str(p) for p in parts))
                            else:
                                self.inbox.put_nowait(b"".join(bytes(p) for p in parts))
                    elif isinstance(event, Ping):
                        self.writer.write(self.ws.send(event.response()))
                    elif isinstance(event, CloseConnection):
                        self.close_code = event.code
                        with contextlib.suppress(Exception):
                            self.writer.write(self.ws.send(event.response()))
                        return
                data = await self.reader.read(65536)
                if not data:
                    return
        except (ConnectionError, OSError):
            pass
        finally:
            self.inbox.put_nowait(None)

    def send_bytes(self, data: bytes) -> None:
        self.writer.write(self.ws.send(BytesMessage(data=data)))

    def send_text(self, text: str) -> None:
        self.writer.write(self.ws.send(TextMessage(data=text)))

    def send(self, message: ClientMessage) -> None:
        """One protocol message: its frame's body as one binary message."""
        self.send_bytes(self.proto.send(message)[HEADER_SIZE:])

    async def message(self, timeout: float = TIMEOUT) -> bytes | str | None:
        """The next whole message (None: the connection ended)."""
        return await asyncio.wait_for(self.inbox.get(), timeout)

    async def receive(self, timeout: float = TIMEOUT) -> ProtoMessage | None:
        """The next protocol message (None: the connection ended)."""
        data = await self.message(timeout)
        if data is None:
            return None
        assert isinstance(data, bytes), f"a text message from the server: {data!r}"
        self.proto.receive_data(len(data).to_bytes(HEADER_SIZE, "big") + data)
        event = self.proto.next_event()
        assert isinstance(event, ProtoMessage), event
        return event

    async def ended(self, timeout: float = TIMEOUT) -> list[ProtoMessage]:
        """Every protocol message until the connection ends."""
        got = []
        while (message := await self.receive(timeout)) is not None:
            got.append(message)
        return got

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            self.writer.write(self.ws.send(CloseConnection(code=1000)))
        self.writer.close()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task


@asynccontextmanager
async def ws_connect(
    port: int, *, host: str = "127.0.0.1", path: str = "/ws", tls: bool = False
) -> AsyncIterator[WsClient]:
    """An upgraded WebSocket to the server's web port."""
    context = None
    if tls:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    reader, writer = await asyncio.open_connection(host, port, ssl=context)
    client = WsClient(reader, writer)
    try:
        await client.handshake(f"{host}:{port}", path)
        yield client
    finally:
        await client.close()


@asynccontextmanager
async def relay(web_port: int) -> AsyncIterator[int]:
    """A local TCP port whose connections reach the server over its WebSocket endpoint."""

    async def carry(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        async with ws_connect(web_port) as ws:

            async def up() -> None:
                buffered = b""
                while data := await reader.read(65536):
                    buffered += data
                    while len(buffered) >= HEADER_SIZE:
                        size = int.from_bytes(buffered[:HEADER_SIZE], "big")
                        if len(buffered) < HEADER_SIZE + size:
                            break
                        ws.send_bytes(buffered[HEADER_SIZE : HEADER_SIZE + size])
                        buffered = buffered[HEADER_SIZE + size :]

            async def down() -> None:
                while isinstance(data := await ws.inbox.get(), bytes):
                    writer.write(len(data).to_bytes(HEADER_SIZE, "big") + data)
                writer.close()

            tasks = [asyncio.create_task(up()), asyncio.create_task(down())]
            with contextlib.suppress(ConnectionError, OSError):
                await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            for task in tasks:
                task.cancel()
            writer.close()

    listener = await asyncio.start_server(carry, "127.0.0.1", 0)
    try:
        yield listener.sockets[0].getsockname()[1]
    finally:
        listener.close()
