"""Helpers for the server tests on real loopback sockets: an in-process server, clients that
play games to their end and check every opening, and a scripted peer that sends what it likes."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Awaitable, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest
from server_helpers import T, card_settings, expected_turns, hello, hub_on

from sushigo.client.connection import Client, ConnectionLost, ServerError
from sushigo.engine import Action, GameOptions
from sushigo.protocol import (
    CARD_WIRE,
    ClientConnection,
    ClientMessage,
    CreateTable,
    Error,
    ErrorCode,
    GameEnded,
    LoggedIn,
    LoginGuest,
    Message,
    Phase,
    ProtocolError,
    TableJoined,
    TableSettings,
    TurnStart,
    Welcome,
    make_commitment,
)
from sushigo.server.config import HubConfig
from sushigo.server.hub.core import Hub
from sushigo.server.net.app import Server
from sushigo.server.storage.sqlite.storage import SqliteStorage


@dataclass
class Running:
    """An in-process server on loopback."""

    hub: Hub
    server: Server
    host: str
    port: int

    async def client(self, name: str, **kwargs: Any) -> Client:
        return await Client.connect(self.host, self.port, name=name, timeout=5.0, **kwargs)


@asynccontextmanager
async def running_server(
    host: str = "127.0.0.1",
    config: HubConfig | None = None,
    db: str = ":memory:",
    admins: Iterable[bytes] = (),
) -> AsyncIterator[Running]:
    storage = SqliteStorage(db)
    hub = hub_on(storage, config=config, admins=admins)
    server = Server(hub, host, 0, None)
    try:
        (bound_host, port), *_ = await server.start()
        yield Running(hub, server, bound_host, port)
    finally:
        await server.stop()
        storage.close()


async def two_at_a_game(port: int, names: tuple[str, str] = ("p0", "p1")) -> list[Client]:
    """Two players at a table of their own on 127.0.0.1:`port`, its game begun and its first
    turn seen by both."""
    players = [await Client.connect("127.0.0.1", port, name=name) for name in names]
    joined = await players[0].create_table(card_settings(2, turn_seconds=60))
    await players[1].join_table(joined.table.table_id)
    players[0].start_game()
    for c in players:
        await c.wait_for(TurnStart, 10)
    return players


async def turns(players: list[Client], count: int) -> None:
    """Play `count` turns (each the first legal card) and see the next one start."""
    for _ in range(count):
        for c in players:
            c.pick(c.observation.legal_actions()[0])
        for c in players:
            await c.wait_for(TurnStart, 10)


async def finish(players: list[Client], seed: int = 0) -> list[Played]:
    """Play the game to its end (at random) from the turn seen last."""
    rng = random.Random(seed)
    for c in players:
        c.pick(rng.choice(c.observation.legal_actions()))
    return await asyncio.gather(*(play(c, seed=seed + i) for i, c in enumerate(players)))


@dataclass
class Played:
    """What one player saw of a game."""

    ended: GameEnded
    turn_starts: list[TurnStart] = field(default_factory=list)
    errors: list[Error] = field(default_factory=list)


async def play(client: Client, seed: int = 0, timeout: float = 10.0) -> Played:
    """Play (or watch) until GAME_OVER, picking at random; any ERROR is kept for the test."""
    rng = random.Random(seed)
    starts: list[TurnStart] = []
    errors: list[Error] = []
    while True:
        event = await client.next_event(timeout)
        if isinstance(event, Error):
            errors.append(event)
        elif isinstance(event, TurnStart):
            starts.append(event)
            if client.seat is not None:
                client.pick(rng.choice(event.observation.legal_actions()))
        elif isinstance(event, GameEnded):
            return Played(event, starts, errors)


async def background_game(running: Running, name: str = "bystander") -> Played:
    """A client and a server bot play a whole 2-seat game at a table of their own."""
    client = await running.client(name)
    try:
        await client.create_table(card_settings(2, turn_seconds=60))
        await client.add_bot("random")
        client.start_game()
        played = await play(client, seed=7)
        assert client.fairness.final == "verified", client.fairness.failures
        assert client.fairness.openings_verified == expected_turns(GameOptions(players=2)) * 2
        assert not played.errors
        return played
    finally:
        await client.close()


class RawPeer:
    """A scripted client on a real socket: sends whatever it likes, reads what comes back."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.proto = ClientConnection()
        self.table_id = ""
        self.seat: int | None = None
        self.token = b""
        self._eof = False

    @classmethod
    async def open(cls, running: Running) -> RawPeer:
        reader, writer = await asyncio.open_connection(running.host, running.port)
        return cls(reader, writer)

    def send(self, message: ClientMessage) -> None:
        self.writer.write(self.proto.send(message))

    def send_raw(self, data: bytes) -> None:
        self.writer.write(data)

    def ref(self) -> int:
        return self.proto.next_ref()

    async def recv(self, timeout: float = 5.0) -> Message | None:
        """The next message, or None once the server has closed the connection."""
        while True:
            if self.proto.phase is not Phase.CLOSED:
                event = self.proto.next_event()
                if isinstance(event, Message):
                    return event
                if event is not None:
                    return None
            if self._eof:
                return None
            data = await asyncio.wait_for(self.reader.read(65536), timeout)
            self._eof = not data
            if self.proto.phase is not Phase.CLOSED:
                self.proto.receive_data(data)

    async def expect(self, kind: type[T], timeout: float = 5.0) -> T:
        seen = []
        while True:
            message = await self.recv(timeout)
            if message is None:
                raise AssertionError(f"closed before {kind.__name__}; got {seen}")
            if isinstance(message, kind):
                return message
            seen.append(message)

    async def collect(self, *kinds: type[Message], timeout: float = 5.0) -> dict[type, Message]:
        """Read until one message of each kind has come (in whatever order), skipping others."""
        got: dict[type, Message] = {}
        while len(got) < len(kinds):
            message = await self.recv(timeout)
            if message is None:
                raise AssertionError(f"closed; only got {list(got)}")
            if type(message) in kinds and type(message) not in got:
                got[type(message)] = message
        return got

    async def expect_error(self, code: ErrorCode, timeout: float = 5.0) -> Error:
        error = await self.expect(Error, timeout)
        assert error.code == code, f"expected {code.name}, got {error}"
        return error

    async def expect_closed(self, timeout: float = 5.0) -> list[Message]:
        """Everything the server still sends, until it closes the connection."""
        rest = []
        try:
            while (message := await self.recv(timeout)) is not None:
                rest.append(message)
        except (ConnectionError, ProtocolError):
            pass
        return rest

    async def login(self, name: str) -> LoggedIn:
        self.send(hello(self.ref()))
        await self.expect(Welcome)
        self.send(LoginGuest(ref=self.ref(), name=name))
        reply = await self.expect(LoggedIn)
        self.token = reply.resume_token
        return reply

    async def create(self, settings: TableSettings) -> TableJoined:
        self.send(CreateTable(ref=self.ref(), settings=settings))
        reply = await self.expect(TableJoined)
        self.table_id, self.seat = reply.table.table_id, reply.seat
        return reply

    def commitment(self, action: Action, start: TurnStart, nonce: bytes) -> bytes:
        assert self.seat is not None
        part = CARD_WIRE.commit_bytes(action)
        return make_commitment(self.table_id, start.round, start.turn, self.seat, part, nonce)

    def close(self) -> None:
        self.writer.close()


async def dropped(client: Client, timeout: float = 5.0) -> None:
    """Skip a client's events until its connection is reported lost."""
    with pytest.raises(ConnectionLost):
        while True:
            await client.next_event(timeout)


def abort(client: Client) -> None:
    """Break a client's connection the hard way (no FIN, no goodbye)."""
    assert client._writer is not None
    client._writer.transport.abort()


@asynccontextmanager
async def closing(*clients: Client) -> AsyncIterator[None]:
    """Close `clients` on the way out, whatever happened inside."""
    try:
        yield
    finally:
        for client in clients:
            await client.close()


async def refusal(request: Awaitable[object]) -> ServerError:
    """The ERROR (as the client library raises it) with which the server refuses `request`."""
    with pytest.raises(ServerError) as refused:
        await request
    return refused.value


def errors_of(messages: Iterable[Message]) -> list[int]:
    return [m.code for m in messages if isinstance(m, Error)]
