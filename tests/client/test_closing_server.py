"""A server that says a fatal ERROR (its restart, a kick) and has not yet closed the socket: for
the client library the connection is lost from that ERROR on, so what the caller does next (a
bot leaving its table after its game) raises `ConnectionLost`, which every caller answers by
taking the session back, never the protocol's own refusal to send after the end (a chaos run's
bots exited 1 on `LocalProtocolError: OUT_OF_PHASE` in that moment)."""

from __future__ import annotations

import asyncio

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from scripted import guest_server, logged_in, tcp_server

from sushigo.client.connection import Client, ConnectionLost
from sushigo.protocol import ClientMessage, Error, ErrorCode, LoginGuest, ServerMessage


@pytest.mark.parametrize("code", [ErrorCode.SHUTTING_DOWN, ErrorCode.KICKED])
async def test_a_request_after_a_fatal_error_is_a_lost_connection(code: ErrorCode) -> None:
    said = asyncio.Event()
    key = Ed25519PrivateKey.generate()

    def answer(message: ClientMessage) -> list[ServerMessage]:
        """Log a guest in, then say ERROR `code` (no ref) and keep the socket open."""
        if not isinstance(message, LoginGuest):
            return []
        said.set()
        return [logged_in(message), Error(code=code, message="the server restarts")]

    async with tcp_server(guest_server(key, answer)) as port:
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
