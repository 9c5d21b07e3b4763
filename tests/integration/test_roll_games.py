"""Whole Sushi Roll games over real loopback sockets, with scripted protocol clients
(`protocol.ClientConnection`): 2-5 players, server bots in some seats, a spectator; every client
checks the signed roll record, the seed chain and every update against a replay. Hostile moves
get their documented errors while another table's game completes; a mover that loses its
connection mid-turn resumes and carries on."""

from __future__ import annotations

import asyncio
import dataclasses
import random

import pytest
from roll_server_helpers import RollClient, RollWitness, roll_settings
from server_helpers import hello, raw_frame
from socket_helpers import RawPeer, Running, running_server

from sushigo.engine.games.sushi_roll import Reroll, Swap, Take
from sushigo.protocol import (
    ROLL_WIRE,
    Act,
    Acted,
    AddBot,
    Commit,
    ErrorCode,
    GameStarting,
    JoinTable,
    Phase,
    Resume,
    Resumed,
    Seed,
    Spectate,
    Spectating,
    StartGame,
    TableJoined,
    TableSettings,
    TableUpdate,
    TurnStart,
    Welcome,
    new_seed,
)


async def client(running: Running, name: str) -> RollClient:
    peer = await RollClient.connect(running.host, running.port)
    await peer.login(name)
    return peer


async def join(peer: RollClient, table_id: str) -> None:
    peer.send(JoinTable(ref=peer.ref(), table_id=table_id))
    reply = await peer.expect(TableJoined)
    peer.table_id, peer.seat = reply.table.table_id, reply.seat


async def roll_table(
    running: Running, players: int, clients: int, bots: tuple[str, ...] = ()
) -> tuple[list[RollClient], RollClient]:
    """`clients` scripted players and `bots` server bots at a new table, and a spectator."""
    peers = [await client(running, f"p{i}") for i in range(clients)]
    await peers[0].create(roll_settings(players))
    for peer in peers[1:]:
        await join(peer, peers[0].table_id)
    for strategy in bots:
        peers[0].send(AddBot(ref=peers[0].ref(), strategy=strategy))
    watcher = await client(running, "watcher")
    watcher.send(Spectate(ref=watcher.ref(), table_id=peers[0].table_id))
    await watcher.expect(Spectating)
    return peers, watcher


async def started_pair(
    running: Running, turn_seconds: int
) -> tuple[RollClient, RollClient, TurnStart]:
    """Two scripted players at a new table, its game started: (the mover, the other, the first
    TURN_START)."""
    a, b = await client(running, "ann"), await client(running, "bob")
    await a.create(roll_settings(2, turn_seconds=turn_seconds))
    await join(b, a.table_id)
    a.send(StartGame(ref=a.ref()))
    for peer in (a, b):
        await peer.expect(GameStarting)
        peer.send(Seed(ref=peer.ref(), seed=new_seed()))
    turns = [await p.expect(TurnStart) for p in (a, b)]
    mover, other = (a, b) if turns[0].seats[0] == a.seat else (b, a)
    return mover, other, turns[0]


def check_game(players: list[RollClient], watcher: RollClient, seats: int) -> None:
    witnesses = [p.witness for p in (*players, watcher)]
    records = [w.verify() for w in witnesses]
    assert all(r == records[0] for r in records), "everyone saw the same game"
    record = records[0]
    assert record.options.players == seats and len(record.scores) == seats
    assert {s.seats[0] for s in record.steps} == set(range(seats))
    assert not any(s.openings[0].auto for s in record.steps), "nobody timed out"
    for seen in witnesses:
        assert seen.errors == [], seen.errors
        assert len(seen.turns) == len(witnesses[0].turns)
    assert all(t.observation.seat is None for t in watcher.witness.turns)
    for player in players:
        for mine, public in zip(player.witness.turns, watcher.witness.turns, strict=True):
            # A Sushi Roll view holds nothing private: it is the spectators' but for its seat.
            assert dataclasses.replace(mine.observation, seat=None) == public.observation


CASES = [
    pytest.param(2, 2, (), id="2p"),
    pytest.param(3, 3, (), id="3p"),
    pytest.param(4, 4, (), id="4p"),
    pytest.param(5, 5, (), id="5p"),
    pytest.param(3, 1, ("heuristic", "greedy"), id="3p-two-bots"),
    pytest.param(5, 2, ("random", "heuristic", "default"), id="5p-three-bots"),
]


@pytest.mark.parametrize(("seats", "clients", "bots"), CASES)
async def test_full_roll_game_over_loopback(
    seats: int, clients: int, bots: tuple[str, ...]
) -> None:
    async with running_server() as running:
        players, watcher = await roll_table(running, seats, clients, bots)
        try:
            players[0].send(StartGame(ref=players[0].ref()))
            await asyncio.gather(
                *(p.play(random.Random(i)) for i, p in enumerate(players)),
                watcher.play(random.Random(99)),
            )
        finally:
            for peer in (*players, watcher):
                peer.close()
        stored = running.hub.storage.list_records()
    check_game(players, watcher, seats)
    assert len(stored) == 1 and stored[0].kind == "sushi-roll"
    assert tuple(r.score for r in stored[0].players) == players[0].witness.verify().scores


async def bystander_game(running: Running) -> RollWitness:
    """A scripted player and two server bots play a whole game at a table of their own."""
    peer = await client(running, "bystander")
    try:
        await peer.create(roll_settings(3))
        for strategy in ("heuristic", "random"):
            peer.send(AddBot(ref=peer.ref(), strategy=strategy))
        peer.send(StartGame(ref=peer.ref()))
        seen = await peer.play(random.Random(7), timeout=20)
        seen.verify()
        assert seen.errors == []
        return seen
    finally:
        peer.close()


async def test_hostile_moves_get_their_errors_while_another_game_completes() -> None:
    async with running_server() as running:
        background = asyncio.create_task(bystander_game(running))
        mover, waiting, turn = await started_pair(running, turn_seconds=0)
        assert mover.seat is not None and waiting.seat is not None
        here = (turn.round, turn.turn)

        # Out of turn, the wrong cycle, a card message, illegal actions: refused, nothing changes.
        waiting.send_raw(
            raw_frame(Act(ref=50, round=here[0], turn=here[1], action=Take(0)), ROLL_WIRE)
        )
        assert (await waiting.expect_error(ErrorCode.OUT_OF_PHASE)).ref == 50
        mover.send_raw(
            raw_frame(Act(ref=51, round=here[0], turn=here[1] + 1, action=Take(0)), ROLL_WIRE)
        )
        assert (await mover.expect_error(ErrorCode.WRONG_TURN)).ref == 51
        mover.send_raw(raw_frame(Commit(ref=52, round=1, turn=1, commitment=bytes(32))))
        assert (await mover.expect_error(ErrorCode.OUT_OF_PHASE)).ref == 52
        for action in (Swap(0, mover.seat, 0), Reroll((3, 1)), Reroll((2, 2))):
            ref = mover.act(action)
            assert (await mover.expect_error(ErrorCode.ILLEGAL_ACTION)).ref == ref
        # The seat tries again with legal ones, and the game plays out for both.
        mover.act(Reroll((0,)))
        assert (await mover.expect(Acted)).action == Reroll((0,))
        refused = [len(mover.witness.errors), len(waiting.witness.errors)]
        assert refused == [5, 1]
        played = await asyncio.gather(
            mover.play(random.Random(1), act_first=True), waiting.play(random.Random(2))
        )
        record = played[0].verify()
        assert played[1].verify() == record
        assert [len(mover.witness.errors), len(waiting.witness.errors)] == refused
        await background
        for peer in (mover, waiting):
            peer.close()

    # The card game on a table of its own: a ROLL_ACTION there is out of phase.
    async with running_server() as running:
        card = await RawPeer.open(running)
        await card.login("card")
        try:
            await card.create(TableSettings(kind="sushi-go", players=2))
            card.send(AddBot(ref=card.ref(), strategy="random"))
            card.send(StartGame(ref=card.ref()))
            await card.expect(GameStarting)
            card.send(Seed(ref=card.ref(), seed=new_seed()))
            start = await card.expect(TurnStart)
            act = Act(ref=60, round=start.round, turn=start.turn, action=Take(0))
            card.send_raw(raw_frame(act, ROLL_WIRE))
            assert (await card.expect_error(ErrorCode.OUT_OF_PHASE)).ref == 60
        finally:
            card.close()


async def test_the_mover_loses_its_connection_mid_turn_and_resumes() -> None:
    async with running_server() as running:
        mover, other, _ = await started_pair(running, turn_seconds=30)
        mover.act(Reroll((0, 1, 2)))
        shown = await mover.expect(Acted)
        last_seq = mover.proto.last_seq
        assert mover.writer.transport is not None
        mover.writer.transport.abort()  # the connection breaks, no goodbye
        while True:  # the other player is told the mover is gone
            update = await other.expect(TableUpdate)
            if not update.table.seats[mover.seat or 0].connected:
                break

        back = await RollClient.connect(running.host, running.port)
        back.witness = mover.witness
        back.last = mover.last
        back.table_id, back.seat = mover.table_id, mover.seat
        back.send(hello(back.ref()))
        await back.expect(Welcome)
        back.send(Resume(ref=back.ref(), token=mover.token, last_seq=last_seq))
        resumed = await back.expect(Resumed)
        assert (resumed.round, resumed.turn) == (shown.round, shown.turn)
        assert resumed.phase is Phase.MOVING
        if resumed.snapshot is not None:  # (the server saw the connection closed): a snapshot
            assert resumed.snapshot.observation == shown.observation
            back.last = resumed.snapshot.observation
        assert back.proto.phase is Phase.MOVING
        played = await asyncio.gather(
            back.play(random.Random(3), act_first=True), other.play(random.Random(4))
        )
        assert played[0].verify() == played[1].verify()
        assert played[0].errors == played[1].errors == []
        for peer in (back, other):
            peer.close()
