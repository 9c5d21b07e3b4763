"""Reconnecting over real sockets: a drop in the middle of a turn, a token that replaces a live
connection, and a stolen token refused after it rotated."""

from __future__ import annotations

import asyncio

import pytest
from server_helpers import expected_turns
from socket_helpers import Running, abort, closing, dropped, play, refusal, running_server

from sushigo.client.connection import Client, ConnectionLost
from sushigo.engine import GameOptions
from sushigo.protocol import (
    Commitments,
    Error,
    ErrorCode,
    Phase,
    Ping,
    ServerPong,
    TableSettings,
    TurnResult,
    TurnStart,
)


async def two_seats(running: Running) -> tuple[Client, Client, TurnStart, TurnStart]:
    a = await running.client("alice")
    b = await running.client("bob")
    joined = await a.create_table(TableSettings(kind="sushi-go", players=2))
    await b.join_table(joined.table.table_id)
    a.start_game()
    start_a = await a.wait_for(TurnStart, 5)
    start_b = await b.wait_for(TurnStart, 5)
    return a, b, start_a, start_b


async def waiting_for_alice(
    running: Running, stranger: str
) -> tuple[Client, Client, TurnStart, Client]:
    """`two_seats` where bob has picked (the turn waits for alice), and a client named `stranger`,
    not yet connected: (alice, bob, alice's TURN_START, the stranger)."""
    a, b, start_a, start_b = await two_seats(running)
    b.pick(start_b.observation.legal_actions()[0])
    return a, b, start_a, Client(running.host, running.port, name=stranger, timeout=5.0)


async def sync(client: Client) -> None:
    """Round-trip a ping: the server has processed everything sent before it."""
    reply = await client.request(lambda ref: Ping(ref=ref))
    assert isinstance(reply, ServerPong)


async def test_drop_after_commit_before_reveal_then_resume() -> None:
    async with running_server() as running:
        a, b, start_a, start_b = await two_seats(running)
        async with closing(a, b):
            a.pick(start_a.observation.legal_actions()[0])  # committed, not yet revealed
            await sync(a)
            abort(a)
            await dropped(a)
            b.pick(start_b.observation.legal_actions()[0])  # now all have committed
            await b.wait_for(Commitments, 5)
            resumed = await a.resume()
            assert resumed.phase in (Phase.COMMITTED, Phase.REVEALING)
            # A reveals (automatically, from its kept pick) and the turn completes for both,
            # without A committing twice or being refused anything.
            before = []
            while not isinstance(event := await a.next_event(5), TurnResult):
                before.append(event)
            assert not [e for e in before if isinstance(e, Error)], before
            result = event
            assert (result.round, result.turn) == (1, 1)
            assert not any(o.auto for o in result.openings), "A's own pick was revealed"
            assert result.openings[0].action == start_a.observation.legal_actions()[0]
            played = await asyncio.gather(play(a, seed=1), play(b, seed=2))
    for client, seen in zip((a, b), played, strict=True):
        assert not seen.errors, seen.errors
        assert client.fairness.final == "verified", client.fairness.failures
        assert client.fairness.openings_verified == expected_turns(GameOptions(players=2)) * 2


async def test_drop_before_commit_then_resume_and_pick() -> None:
    async with running_server() as running:
        a, b, start_a, start_b = await two_seats(running)
        async with closing(a, b):
            abort(a)
            await dropped(a)
            b.pick(start_b.observation.legal_actions()[0])
            await sync(b)
            resumed = await a.resume()
            assert resumed.phase is Phase.COMMITTING
            assert a.observation == start_a.observation
            a.pick(start_a.observation.legal_actions()[-1])
            result = await a.wait_for(TurnResult, 5)
            assert result.openings[0].action == start_a.observation.legal_actions()[-1]
            played = await asyncio.gather(play(a, seed=1), play(b, seed=2))
    assert not played[0].errors and not played[1].errors
    assert a.fairness.final == b.fairness.final == "verified"


async def test_token_replaces_a_live_connection() -> None:
    async with running_server() as running:
        a, b, start_a, twin = await waiting_for_alice(running, "alice")
        async with closing(twin, a, b):
            twin.token = a.token
            resumed = await twin.resume()
            assert resumed.player_id == a.player_id
            assert resumed.snapshot is not None and resumed.snapshot.seat == 0
            # The old connection is told why, then closed.
            error = await a.wait_for(Error, 5)
            assert error.code == ErrorCode.UNKNOWN_SESSION
            await dropped(a)
            assert twin.observation is not None
            assert twin.observation.hand == start_a.observation.hand
            twin.pick(twin.observation.legal_actions()[0])
            played = await asyncio.gather(play(twin, seed=3), play(b, seed=4))
    assert not played[0].errors and not played[1].errors
    assert twin.fairness.final == "verified", twin.fairness.failures
    assert b.fairness.final == "verified"


async def test_stolen_token_refused_after_rotation() -> None:
    async with running_server() as running:
        a, b, start_a, thief = await waiting_for_alice(running, "thief")
        async with closing(thief, a, b):
            stolen = a.token
            abort(a)
            await dropped(a)
            await a.resume()
            assert a.token != stolen
            thief.token = stolen
            assert (await refusal(thief.resume())).code is ErrorCode.UNKNOWN_SESSION
            # The rightful player is still seated and connected.
            await sync(a)
            a.pick(start_a.observation.legal_actions()[0])
            played = await asyncio.gather(play(a, seed=5), play(b, seed=6))
    assert not played[0].errors
    assert a.fairness.final == "verified"


async def test_a_drop_handled_by_a_resume_is_not_reported_again() -> None:
    """A request that fails with the drop (the caller resumes there) leaves no stale drop among
    the events: read later, it would take the session back a second time, on a third
    connection, and what was sent on the second (a seed, a commitment) would be lost."""
    async with running_server() as running:
        a, b, start_a, start_b = await two_seats(running)
        async with closing(a, b):
            abort(a)
            with pytest.raises(ConnectionLost):
                await a.request(lambda ref: Ping(ref=ref))
            await a.resume()
            connection = a._writer
            a.pick(start_a.observation.legal_actions()[0])
            b.pick(start_b.observation.legal_actions()[0])
            # Every event up to the turn's result is a message: the drop was handled.
            while not isinstance(await a.next_event(5), TurnResult):
                pass
            assert a._writer is connection and a.connected
