"""An entrant that follows its placed game's REDIRECT only after the tournament's home took the
game back (a lease on, nobody had arrived) and seated it at home: the node it was sent to logs
it in and sends it home at once; its client library leaves behind the session (and the table)
it had, and hears the tournament finish (its `play_tournament` returns: before, it took
itself for seated at the table it had left, and waited for that game's end for ever)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from nodes import eventually, replayed
from test_cluster_tournament_faults import enter, finished, loaded_pair


async def test_an_entrant_following_after_the_take_back_hears_its_tournament_finish(
    pg_url: str, tmp_path: Path
) -> None:
    async with loaded_pair(pg_url, tmp_path) as two:
        # turns of a second: the table's timer plays for the seats left behind
        (ann, bob), go = await enter(two, 1, redirect=True, turn_seconds=1)
        (placed,) = {r.table_id for r in ann.kept + bob.kept}

        async def taken_back() -> bool:
            return b"within a lease: played here" in two.a.log

        await eventually(taken_back)  # b alive, but nobody arrived: a plays it at home
        go.set()  # now both follow to b, which sends them home at once

        results = await asyncio.wait_for(asyncio.gather(*two.tasks), 30)
        assert all(r.verified for played in results for r in played)
        records = await finished(two, 1, ["ann", "bob"])
        assert placed in {r["table_id"] for r in records}
        for row in records:
            assert "verified:" in replayed(two.pg_url, tmp_path, row["game_id"])
        assert all(c.connected and c.port == two.a.port and c.table is None for c in (ann, bob))
