"""Crash safety end to end: the real `sushigo-server` process is killed with SIGKILL in round 2,
started again on the same database, every player resumes with its token at the same turn with
the same hands and tableaus, the game finishes, and the record replays to the final scores."""

from __future__ import annotations

import asyncio
import random

from processes import server_process
from server_helpers import expected_turns, replay_scores
from socket_helpers import dropped, play

from sushigo.client.connection import Client
from sushigo.engine import SUSHI_GO
from sushigo.protocol import Phase, TableSettings, TurnStart, verify_record, verify_signed_record


async def test_sigkill_in_round_two_then_restart_and_finish(server_db: tuple[str, ...]) -> None:
    db = server_db
    settings = TableSettings(kind="sushi-go", players=3, turn_seconds=60)
    rng = random.Random(11)
    async with server_process(db) as server:
        port = server.port
        players = [await Client.connect("127.0.0.1", port, name=f"p{i}") for i in range(2)]
        joined = await players[0].create_table(settings)
        await players[1].join_table(joined.table.table_id)
        await players[0].add_bot("random")
        players[0].start_game()
        # Play round 1 and two turns of round 2; stop at the third turn's start.
        while True:
            starts = [await c.wait_for(TurnStart, 10) for c in players]
            if (starts[0].round, starts[0].turn) == (2, 3):
                break
            for c, s in zip(players, starts, strict=True):
                c.pick(rng.choice(s.observation.legal_actions()))
        before = [c.observation for c in players]
        verified_before = [c.fairness.openings_verified for c in players]
        await server.kill()
        for c in players:
            await dropped(c)

    async with server_process(db) as server:
        port = server.port
        for c in players:
            c.port = port
            resumed = await c.resume()
            assert resumed.phase is Phase.COMMITTING
            assert (resumed.round, resumed.turn) == (2, 3)
        for c, old in zip(players, before, strict=True):
            assert c.observation is not None and old is not None
            assert c.observation.hand == old.hand
            assert c.observation.tableaus == old.tableaus
            assert c.observation == old
        for c in players:
            c.pick(rng.choice(c.observation.legal_actions()))  # type: ignore[union-attr]
        played = await asyncio.gather(*(play(c, seed=i) for i, c in enumerate(players)))
        for c in players:
            await c.close()

    options = SUSHI_GO.options(settings.players, settings.variants)
    ended = played[0].ended
    record = verify_signed_record(ended.record, players[0].server_key)
    report = verify_record(record)
    assert report.ok, report.problems
    assert replay_scores(record) == record.scores == ended.totals
    assert len(record.steps) == expected_turns(options)
    assert not report.auto_picks
    for c, seen, count in zip(players, played, verified_before, strict=True):
        assert not seen.errors, seen.errors
        assert c.fairness.final == "verified", c.fairness.failures
        assert c.fairness.openings_verified == expected_turns(options) * 3
        assert count == (9 + 2) * 3
