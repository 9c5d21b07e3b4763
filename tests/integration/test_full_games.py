"""Whole games over real loopback sockets: 2-5 players, every variant, clients and server bots
mixed, a spectator; every commitment and the signed record checked from the client side."""

from __future__ import annotations

import asyncio
import socket

import pytest
from server_helpers import expected_turns, replay_scores
from socket_helpers import closing, play, running_server

from sushigo.engine import SUSHI_GO, GameOptions
from sushigo.protocol import GameStarting, TableSettings, verify_record, verify_signed_record

CASES = [
    pytest.param(TableSettings(kind="sushi-go", players=2), 2, 0, id="2p-plain"),
    pytest.param(
        TableSettings(kind="sushi-go", players=2, variants=("dummy",)), 2, 0, id="2p-dummy"
    ),
    pytest.param(
        TableSettings(kind="sushi-go", players=2, variants=("dummy",)), 1, 1, id="2p-dummy-bot"
    ),
    pytest.param(
        TableSettings(kind="sushi-go", players=3, variants=("pass_both_ways",)),
        2,
        1,
        id="3p-both-ways",
    ),
    pytest.param(
        TableSettings(kind="sushi-go", players=4, variants=("soy_sauce",)), 3, 1, id="4p-soy-sauce"
    ),
    pytest.param(TableSettings(kind="sushi-go", players=4), 4, 0, id="4p-plain"),
    pytest.param(
        TableSettings(kind="sushi-go", players=5, variants=("pass_both_ways", "soy_sauce")),
        2,
        3,
        id="5p-both-variants",
    ),
    pytest.param(TableSettings(kind="sushi-go", players=5), 5, 0, id="5p-plain"),
]


async def full_game(host: str, settings: TableSettings, clients: int, bots: int) -> None:
    async with running_server(host=host) as running:
        players = [await running.client(f"p{i}") for i in range(clients)]
        watcher = await running.client("watcher")
        try:
            joined = await players[0].create_table(settings)
            table_id = joined.table.table_id
            for player in players[1:]:
                await player.join_table(table_id)
            for _ in range(bots):
                await players[0].add_bot("random")
            await watcher.spectate(table_id)
            players[0].start_game()
            played = await asyncio.gather(
                *(play(c, seed=i) for i, c in enumerate(players)), play(watcher)
            )
        finally:
            for c in [*players, watcher]:
                await c.close()

    options = SUSHI_GO.options(settings.players, settings.variants)
    turns = expected_turns(options)
    totals = {p.ended.totals for p in played}
    assert len(totals) == 1, "everyone saw the same final scores"
    record = verify_signed_record(played[0].ended.record, running.hub.server_key)
    assert record.options == options
    assert verify_record(record).ok
    assert replay_scores(record) == record.scores == played[0].ended.totals
    assert len(record.steps) == turns
    for client, seen in zip([*players, watcher], played, strict=True):
        assert not seen.errors, seen.errors
        assert client.fairness.final == "verified", client.fairness.failures
        assert client.fairness.failures == []
        # Server bots commit like players: every opening of every turn is checked, none auto.
        assert client.fairness.openings_verified == turns * options.players
        assert client.fairness.auto_picks == 0
        assert len(seen.turn_starts) == turns
    for start in played[-1].turn_starts:
        assert start.observation.seat is None
        assert start.observation.hand == ()
    for seat, seen in enumerate(played[:-1]):
        assert all(s.observation.seat == seat for s in seen.turn_starts)
        assert all(len(s.observation.hand) > 0 for s in seen.turn_starts)


@pytest.mark.parametrize(("settings", "clients", "bots"), CASES)
async def test_full_game_over_loopback(settings: TableSettings, clients: int, bots: int) -> None:
    await full_game("127.0.0.1", settings, clients, bots)


def _ipv6_loopback() -> bool:
    if not socket.has_ipv6:
        return False
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as s:
            s.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.mark.skipif(not _ipv6_loopback(), reason="IPv6 loopback (::1) is not available here")
async def test_full_game_over_ipv6_loopback() -> None:
    await full_game("::1", TableSettings(kind="sushi-go", players=3), 2, 1)


async def test_spectator_is_told_it_has_no_seat() -> None:
    async with running_server() as running:
        host = await running.client("host")
        watcher = await running.client("watcher")
        async with closing(host, watcher):
            joined = await host.create_table(TableSettings(kind="sushi-go", players=2))
            await host.add_bot("random")
            await watcher.spectate(joined.table.table_id)
            host.start_game()
            starting = await watcher.wait_for(GameStarting, 5)
            assert starting.seat is None
            mine = await host.wait_for(GameStarting, 5)
            assert mine.seat == 0
            await asyncio.gather(play(host), play(watcher))
    assert watcher.fairness.final == "verified"
    assert watcher.fairness.openings_verified == expected_turns(GameOptions(players=2)) * 2
