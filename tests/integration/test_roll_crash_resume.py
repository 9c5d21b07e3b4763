"""Crash safety of a Sushi Roll table end to end: the real `sushigo-server` process is killed with
SIGKILL in round 2, in the middle of a turn (after a re-roll and a swap), started again on the
same database; every player resumes with its token at the same turn with the same dice, the
server bot plays on, the game finishes, and the signed record replays to the final scores."""

from __future__ import annotations

import asyncio
import dataclasses
import random
from collections.abc import Callable

from processes import server_process
from roll_server_helpers import RollClient, roll_settings, take_only
from server_helpers import hello

from sushigo.engine.games.sushi_roll import Reroll, Swap
from sushigo.protocol import (
    Acted,
    AddBot,
    JoinTable,
    Message,
    Phase,
    Resume,
    Resumed,
    StartGame,
    TableJoined,
    TurnStart,
    Welcome,
)


def round_two_turn_of(seats: set[int]) -> Callable[[Message], bool]:
    """Stop at the first ROLL_TURN of round 2 whose mover is one of `seats`."""

    def stop(message: Message) -> bool:
        return isinstance(message, TurnStart) and message.round == 2 and message.seats[0] in seats

    return stop


async def test_sigkill_mid_turn_in_round_two_then_restart_and_finish(
    server_db: tuple[str, ...],
) -> None:
    db = server_db
    rng = random.Random(21)
    async with server_process(db) as server:
        port = server.port
        players = [await RollClient.connect("127.0.0.1", port) for _ in range(2)]
        for i, peer in enumerate(players):
            await peer.login(f"p{i}")
        await players[0].create(roll_settings(3, turn_seconds=60))
        players[1].send(JoinTable(ref=players[1].ref(), table_id=players[0].table_id))
        joined = await players[1].expect(TableJoined)
        players[1].table_id, players[1].seat = joined.table.table_id, joined.seat
        players[0].send(AddBot(ref=players[0].ref(), strategy="heuristic"))
        players[0].send(StartGame(ref=players[0].ref()))
        seats = {p.seat for p in players if p.seat is not None}
        # Round 1 with plain takes (every token kept), up to a turn of a player in round 2.
        await asyncio.gather(
            *(p.play(rng, chooser=take_only, until=round_two_turn_of(seats)) for p in players)
        )
        (mover,) = [p for p in players if p.proto.phase is Phase.MOVING]
        other = next(p for p in players if p is not mover)
        assert mover.seat is not None and mover.last is not None and mover.last.round == 2
        mover.act(Reroll((0, 2)))
        await mover.expect(Acted)
        bot_seat = ({0, 1, 2} - seats).pop()
        mover.act(Swap(1, bot_seat, 0))
        shown = (await mover.expect(Acted)).observation
        for _ in range(2):
            await other.expect(Acted)
        await server.kill()
        last_seqs = [p.proto.last_seq for p in players]
        for p in players:
            p.close()

    async with server_process(db) as server:
        port = server.port
        backs = []
        for peer, last_seq in zip(players, last_seqs, strict=True):
            back = await RollClient.connect("127.0.0.1", port)
            back.witness, back.last = peer.witness, peer.last
            back.table_id, back.seat = peer.table_id, peer.seat
            back.send(hello(back.ref()))
            await back.expect(Welcome)
            back.send(Resume(ref=back.ref(), token=peer.token, last_seq=last_seq))
            resumed = await back.expect(Resumed)
            snapshot = resumed.snapshot
            assert snapshot is not None  # a restarted server has no log to replay
            assert resumed.phase is (Phase.MOVING if peer.seat == mover.seat else Phase.WAITING)
            assert (resumed.round, resumed.turn) == (2, shown.cycle)
            assert snapshot.observation == dataclasses.replace(shown, seat=peer.seat), "same dice"
            back.last = snapshot.observation
            backs.append(back)
        played = await asyncio.gather(*(b.play(rng, act_first=b.seat == mover.seat) for b in backs))
        for b in backs:
            b.close()

    records = [seen.verify() for seen in played]  # every update, before and after the crash
    assert records[0] == records[1]
    record = records[0]
    assert not any(s.openings[0].auto for s in record.steps)
    assert {s.seats[0] for s in record.steps} == {0, 1, 2}
    assert all(seen.errors == [] for seen in played)
