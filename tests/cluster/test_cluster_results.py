"""A tournament's game played on another node is learnt back by its home node from the stored
record, by the table's id (`Cluster.game_result`, server/cluster/tournaments.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from sushigo.server.cluster.node import Cluster
from sushigo.server.keys import load_or_create_server_key, public_key_bytes
from sushigo.server.storage.contract import PlayerResult
from sushigo.server.storage.postgres.storage import PgStorage


async def test_a_games_result_is_read_by_its_tables_id(pg_url: str, tmp_path: Path) -> None:
    storage = PgStorage(pg_url)  # as the node that played it stores it
    results = [
        PlayerResult(player_id="k:bob", name="bob", seat=1, score=31, place=1),
        PlayerResult(player_id="k:ann", name="ann", seat=0, score=27, place=2),
    ]
    storage.finish_game("t-away", "g1", "sushi-go", b"record", b"sig", results, finished_ms=1)
    storage.close()
    key = public_key_bytes(load_or_create_server_key(tmp_path / "cluster.key"))
    home = Cluster(
        pg_url, node="a", address="127.0.0.1:1", server_key=key, protocol="2.4", lease=30
    )
    await home.join()
    try:
        assert await home.game_result("t-away") == [(27, 2), (31, 1)]  # in seat order
        assert await home.game_result("t-still-playing") is None
    finally:
        await home.close()


async def joined(pg_url: str, tmp_path: Path) -> tuple[Cluster, Cluster]:
    """Nodes a and b of a cluster on `pg_url` (its schema made), joined, with a 1 s lease."""
    key = public_key_bytes(load_or_create_server_key(tmp_path / "cluster.key"))
    a, b = (
        Cluster(pg_url, node=n, address=f"127.0.0.1:{i}", server_key=key, protocol="2.4", lease=1)
        for i, n in enumerate("ab", 1)
    )
    await a.join()
    await b.join()
    return a, b


async def test_a_placed_games_table_is_one_nodes(pg_url: str, tmp_path: Path) -> None:
    """A placed game's table is claimed by one node of two asking at once (the node it was
    placed on as an entrant arrives, its home as it gives up waiting): one conditional row, the
    table's lease. A node asking twice at once (two entrants arriving) gets it both times; a
    game whose record is stored is nobody's any more; and home is told to take a game back only
    once no table is made for it by the deadline of the database's clock."""
    storage = PgStorage(pg_url)  # the schema; and a record stored below, as a node does
    a, b = await joined(pg_url, tmp_path)
    try:
        ids = [f"t{i}" for i in range(20)]
        won = await asyncio.gather(*(node.claim_game(t) for t in ids for node in (a, b)))
        assert all(won[2 * i] != won[2 * i + 1] for i in range(len(ids))), won
        again = await asyncio.gather(*(node.claim_game(t) for t in ids for node in (a, b)))
        assert again == won  # each keeps what it has
        assert await asyncio.gather(b.claim_game("x"), b.claim_game("x")) == [True, True]

        result = [PlayerResult(player_id="k:ann", name="ann", seat=0, score=3, place=1)]
        storage.finish_game("done", "g1", "sushi-go", b"record", b"sig", result, finished_ms=1)
        storage.flush(wait=True)
        assert not any(await asyncio.gather(a.claim_game("done"), b.claim_game("done")))

        deadline = await a.placed("late", [(b"t" * 16, "k:ann")])
        assert await a.game_result_when("late", deadline, lambda: True) is None
        assert await a.claim_game("late")  # taken back
        deadline = await a.placed("made", [(b"u" * 16, "k:ann")])
        assert await b.claim_game("made")  # made where it was placed: never due at home
        waiting = asyncio.ensure_future(a.game_result_when("made", deadline, lambda: True))
        assert not (await asyncio.wait([waiting], timeout=2))[0]  # past the deadline
        waiting.cancel()
    finally:
        storage.close()
        await asyncio.gather(a.close(), b.close())


async def test_home_hears_a_placed_games_record_at_once(pg_url: str, tmp_path: Path) -> None:
    """The node that stores a placed game's record NOTIFYs its table's id in the same commit:
    the home node waiting for it reads the result then, not at its next slow look (5 s)."""
    storage = PgStorage(pg_url)
    a, b = await joined(pg_url, tmp_path)
    await a.listen()
    b.storage = storage
    try:
        deadline = await a.placed("p", [(b"v" * 16, "k:ann")])
        assert await b.claim_game("p")
        waiting = asyncio.ensure_future(a.game_result_when("p", deadline, lambda: True))
        assert not (await asyncio.wait([waiting], timeout=0.5))[0]  # it looked, and waits
        result = [PlayerResult(player_id="k:ann", name="ann", seat=0, score=3, place=1)]
        storage.finish_game("p", "g1", "sushi-go", b"record", b"sig", result, finished_ms=1)
        b.recorded_soon("p")
        storage.flush(wait=True)
        assert await asyncio.wait_for(waiting, 2) == [(3, 1)]
    finally:
        storage.close()
        await asyncio.gather(a.close(), b.close())
