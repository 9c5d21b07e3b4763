"""A game start the client library did not expect: a scripted server answers a quick match with
a seat at one table, then starts a game at another (as a cluster's node may, when the order of
its words and a resume cross). The library says so in one line and plays the game it was told
of (its seed sent for the seat named), never a traceback; a pick before any game is refused
as a person's would be (`OUT_OF_PHASE`), nothing sent."""

from __future__ import annotations

import asyncio
import logging

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from scripted import guest_server, logged_in, tcp_server

from sushigo.client.connection import Client, ServerError
from sushigo.engine.games.sushi_go.options import GameOptions
from sushigo.protocol import (
    ClientMessage,
    ErrorCode,
    GameStarting,
    LoginGuest,
    QuickMatch,
    SeatInfo,
    Seed,
    ServerMessage,
    TableInfo,
    TableJoined,
    TableSettings,
    TableStatus,
    server_seed_hash,
)

ASKED = "0a0a0a0a0a0a"
"""The table the quick match seats the client at."""
OTHER = "0b0b0b0b0b0b"
"""The table whose game starts."""


def _table(table_id: str) -> TableInfo:
    return TableInfo(
        table_id=table_id,
        settings=TableSettings(kind="sushi-go", players=2),
        status=TableStatus.OPEN,
        seats=(SeatInfo(seat=0, player_id="g:tester", name="ann"), SeatInfo(seat=1)),
    )


async def test_a_game_start_at_another_table_is_said_and_played(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="sushigo.client")
    key = Ed25519PrivateKey.generate()
    seeded: asyncio.Future[Seed] = asyncio.get_running_loop().create_future()

    def answer(message: ClientMessage) -> list[ServerMessage]:
        """Log a guest in; answer its quick match with seat 0 at ASKED, then start a game at
        OTHER with it in seat 1; note its seed."""
        if isinstance(message, LoginGuest):
            return [logged_in(message)]
        if isinstance(message, QuickMatch):
            start = GameStarting(
                table_id=OTHER,
                kind="sushi-go",
                options=GameOptions(2),
                seat=1,
                players=("bob", "ann"),
                server_seed_hash=server_seed_hash(bytes(32)),
            )
            return [TableJoined(ref=message.ref, table=_table(ASKED), seat=0), start]
        if isinstance(message, Seed) and not seeded.done():
            seeded.set_result(message)
        return []

    async with tcp_server(guest_server(key, answer)) as port:
        client = await Client.connect("127.0.0.1", port, name="ann")
        try:
            with pytest.raises(ServerError) as refused:
                client.pick(None)  # no game yet: refused here, nothing sent
            assert refused.value.code is ErrorCode.OUT_OF_PHASE
            joined = await client.quick_match(2, "sushi-go")
            assert joined.table.table_id == ASKED and client.seat == 0
            start = await client.wait_for(GameStarting, 10)
            assert start.table_id == OTHER
            assert client.seat == 1  # the seat the game names, not the one asked for
            assert len((await asyncio.wait_for(seeded, 10)).seed) == 32
        finally:
            await client.close()
    said = [r.getMessage() for r in caplog.records if "a game starts at table" in r.getMessage()]
    assert said == [
        f"a game starts at table {OTHER}, not at table {ASKED} where we were: played there"
    ]
