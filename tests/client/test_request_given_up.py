"""A request given up in the very moment its ERROR comes (the caller cancelled, as a player
quitting during a resume): the answer is dropped quietly. (Before, asyncio printed "Future
exception was never retrieved" with the server's error, on the terminal of a chaos run's
player.)"""

from __future__ import annotations

import asyncio
import gc
import logging

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from scripted import guest_server, logged_in, tcp_server

from sushigo.client.connection import Client
from sushigo.protocol import (
    ClientMessage,
    Error,
    ErrorCode,
    JoinTable,
    LoginGuest,
    ServerMessage,
)


async def test_an_error_for_a_request_given_up_is_not_printed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.ERROR, logger="asyncio")
    key = Ed25519PrivateKey.generate()

    def answer(message: ClientMessage) -> list[ServerMessage]:
        if isinstance(message, LoginGuest):
            return [logged_in(message)]
        if isinstance(message, JoinTable):
            return [Error(ref=message.ref, code=ErrorCode.NO_SUCH_TABLE, message="no such table")]
        return []

    async with tcp_server(guest_server(key, answer)) as port:
        client = await Client.connect("127.0.0.1", port, name="ann")
        try:
            asked = asyncio.ensure_future(
                client.request(lambda ref: JoinTable(ref=ref, table_id="t"))
            )
            await asyncio.sleep(0)  # one step: the request is sent, its answer awaited
            (reply,) = client._replies.values()
            # The asker is cancelled as the answer is read, before it could look at it.
            reply.add_done_callback(lambda _: asked.cancel())
            del reply
            with pytest.raises(asyncio.CancelledError):
                await asked
        finally:
            await client.close()
    gc.collect()
    assert "never retrieved" not in caplog.text, caplog.text
