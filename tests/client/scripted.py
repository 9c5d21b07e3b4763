"""The pieces of a scripted server for the client's tests: a TCP server on 127.0.0.1 that runs a
test's own coroutine for each connection, and the handshake's and a guest login's answers as
docs/PROTOCOL.md gives them."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from sushigo.protocol import (
    ClientMessage,
    Hello,
    LoggedIn,
    LoginGuest,
    ServerConnection,
    ServerMessage,
    Welcome,
)
from sushigo.protocol.records import public_key_bytes

Serve = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]
Answer = Callable[[ClientMessage], list[ServerMessage]]
"""What a scripted server says to one message of the client's (after its handshake)."""
"""What the server does with one connection (the socket stays open until the test ends)."""


@asynccontextmanager
async def tcp_server(serve: Serve) -> AsyncIterator[int]:
    """A server on 127.0.0.1 running `serve` for each connection: its port. Every connection it
    took is closed at the end, and only then."""
    held: list[asyncio.StreamWriter] = []

    async def take(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)
        await serve(reader, writer)

    server = await asyncio.start_server(take, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        for writer in held:
            writer.close()
        server.close()
        await server.wait_closed()


def welcome(hello: Hello, key: Ed25519PrivateKey) -> Welcome:
    """The server's answer to `hello`, signed by `key` (a challenge of zeros)."""
    return Welcome(
        ref=hello.ref, version=hello.version, server_key=public_key_bytes(key), challenge=bytes(32)
    )


def logged_in(login: LoginGuest, player_id: str = "g:tester") -> LoggedIn:
    """The server's answer to a guest's `login` (a resume token of zeros)."""
    return LoggedIn(
        ref=login.ref, player_id=player_id, name=login.name, guest=True, resume_token=bytes(16)
    )


def guest_server(key: Ed25519PrivateKey, answer: Answer) -> Serve:
    """A server's side of a connection: WELCOME (signed by `key`) to HELLO, and to every later
    message of the client's (LOGIN_GUEST included) what `answer` says, in order."""

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conn = ServerConnection()
        while data := await reader.read(65536):
            conn.receive_data(data)
            while (message := conn.next_event()) is not None:
                said = [welcome(message, key)] if isinstance(message, Hello) else answer(message)
                for one in said:
                    writer.write(conn.send(one))

    return serve
