"""A tournament's game played on another node is learnt back by its home node from the stored
record, by the table's id (`Cluster.game_result`, server/cluster_tournaments.py)."""

from __future__ import annotations

from pathlib import Path

from sushigo.server.cluster import Cluster
from sushigo.server.keys import load_or_create_server_key, public_key_bytes
from sushigo.server.pg_storage import PgStorage
from sushigo.server.storage import PlayerResult


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
