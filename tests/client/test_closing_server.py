"""A server that says a fatal ERROR (its restart, a kick) and has not yet closed the socket: for
the client library the connection is lost from that ERROR on, so what the caller does next (a
bot leaving its table after its game) raises `ConnectionLost`, which every caller answers by
taking the session back, never the protocol's own refusal to send after the end (a chaos run's
bots exited 1 on `LocalProtocolError: OUT_OF_PHASE` in that moment)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from sushigo.client.connection import Client, ConnectionLost
from sushigo.protocol import (
    Error,
    ErrorCode,
    Hello,
    LoggedIn,
    LoginGuest,
    ServerConnection,
    ServerMessage,
    Welcome,
)
from sushigo.protocol.records import public_key_bytes


@asynccontextmanager
async def closing_server(code: ErrorCode) -> AsyncIterator[tuple[int, asyncio.Event]]:
    """A server on 127.0.0.1 that logs a guest in, then says ERROR `code` (no ref) and keeps the
    socket open until the test ends: its port, and an event set once it has said it."""
    said = asyncio.Event()
    key = Ed25519PrivateKey.generate()
    held: list[asyncio.StreamWriter] = []

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)
        conn = ServerConnection()

        def send(message: ServerMessage) -> None:
            writer.write(conn.send(message))

        while data := await reader.read(65536):
            conn.receive_data(data)
            while (message := conn.next_event()) is not None:
                if isinstance(message, Hello):
                    send(
                        Welcome(
                            ref=message.ref,
                            version=message.version,
                            server_key=public_key_bytes(key),
                            challenge=bytes(32),
                        )
                    )
                elif isinstance(message, LoginGuest):
                    send(
                        LoggedIn(
                            ref=message.ref,
                            player_id="g:0123",
                            name=message.name,
                            guest=True,
                            resume_token=bytes(16),
                        )
                    )
                    send(Error(code=code, message="the server restarts"))
                    said.set()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1], said
    finally:
        for writer in held:
            writer.close()
        server.close()
        await server.wait_closed()


@pytest.mark.parametrize("code", [ErrorCode.SHUTTING_DOWN, ErrorCode.KICKED])
async def test_a_request_after_a_fatal_error_is_a_lost_connection(code: ErrorCode) -> None:
    async with closing_server(code) as (port, said):
        client = await Client.connect("127.0.0.1", port, name="ann")
        try:
            await asyncio.wait_for(said.wait(), 10)
            error = await client.wait_for(Error, 10)
            assert error.code == code
            assert client.connected  # the socket is still open: the end is not read yet
            with pytest.raises(ConnectionLost):
                await client.leave()
            with pytest.raises(ConnectionLost):
                await client.quick_match(2, "sushi-go")
        finally:
            await client.close()
