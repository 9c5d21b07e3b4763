"""GET_LEADERBOARD over a real socket: a game's ladder, best first, and the asker's own row wherever
it stands; guests and unrated players have none; an unknown game is refused."""

from __future__ import annotations

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from socket_helpers import running_server

from sushigo.client.connection import ServerError
from sushigo.protocol import ErrorCode


async def test_the_ladder_and_my_place_on_it() -> None:
    async with running_server() as running:
        players = [
            await running.client(f"p{i}", key=Ed25519PrivateKey.generate()) for i in range(25)
        ]
        # p0 best (ordinal 40) ... p24 worst; p3 plays Sushi Roll too.
        running.hub.storage.set_ratings(
            {c.player_id: (40.0 - i + 3 * 2.0, 2.0) for i, c in enumerate(players)}, "sushi-go"
        )
        running.hub.storage.set_ratings({players[3].player_id: (30.0, 1.0)}, "sushi-roll")
        guest = await running.client("guest")
        try:
            board = await players[22].leaderboard("sushi-go", limit=20)
            assert board.kind == "sushi-go" and board.total == 25
            assert [r.name for r in board.top] == [f"p{i}" for i in range(20)]
            assert [r.rank for r in board.top] == list(range(1, 21))
            top = board.top[0]
            assert (top.rating_milli, top.mu_milli, top.sigma_milli) == (40_000, 46_000, 2_000)
            # Our own row, though it is not among the top 20.
            mine = board.mine
            assert mine is not None and (mine.rank, mine.name) == (23, "p22")
            assert mine.player_id == players[22].player_id and mine.rating_milli == 18_000

            roll = await players[3].leaderboard("sushi-roll")
            assert roll.total == 1 and [r.name for r in roll.top] == ["p3"]
            assert roll.mine is not None and roll.mine.rank == 1
            # Not rated at this game, or a guest: no row of our own.
            assert (await players[0].leaderboard("sushi-roll")).mine is None
            as_guest = await guest.leaderboard(limit=3)
            assert as_guest.mine is None and len(as_guest.top) == 3 and as_guest.total == 25

            with pytest.raises(ServerError) as refused:
                await guest.leaderboard("sushi-party")
            assert refused.value.code is ErrorCode.UNSUPPORTED_GAME_KIND
        finally:
            for client in (*players, guest):
                await client.close()
