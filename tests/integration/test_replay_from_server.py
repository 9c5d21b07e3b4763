"""`sushigo-replay HOST:PORT [GAME_ID]`: a player lists their finished games on a server and
fetches one's signed record, verified at home; nobody else's game is handed out."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest
from server_helpers import card_settings
from socket_helpers import play, running_server

from sushigo.client.identity import load_or_create_key
from sushigo.server.replay import main


async def test_a_player_lists_and_fetches_their_own_games(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    ann_key, bob_key = tmp_path / "ann.pem", tmp_path / "bob.pem"
    async with running_server() as running:
        ann = await running.client("ann", key=load_or_create_key(ann_key))
        bob = await running.client("bob", key=load_or_create_key(bob_key))
        try:
            games = []
            for host in (ann, bob):  # each plays a game of its own against a server bot
                await host.create_table(card_settings(2, turn_seconds=0))
                await host.add_bot("random")
                host.start_game()
                games.append((await play(host, seed=random.randrange(100))).ended)
        finally:
            await ann.close()
            await bob.close()
        address = f"{running.host}:{running.port}"
        ann_game = games[0].record
        listed = await asyncio.to_thread(main, [address, "--identity", str(ann_key)])
        out = capfd.readouterr().out
        fetched = await asyncio.to_thread(
            main,
            [
                address,
                "--identity",
                str(ann_key),
                _game_id(out),
                "--export",
                str(tmp_path / "x.rec"),
            ],
        )
        shown = capfd.readouterr().out
        others = await asyncio.to_thread(main, [address, "--identity", str(bob_key), _game_id(out)])
        refused = capfd.readouterr().err
        as_guest = await asyncio.to_thread(main, [address])
        guest_out = capfd.readouterr().out
    assert (listed, fetched, others, as_guest) == (0, 0, 1, 0)
    assert len(out.strip().splitlines()) == 1 and "ann" in out and "bob" not in out
    assert shown.rstrip().endswith("check out") and "verified" in shown
    assert (tmp_path / "x.rec").read_bytes() and ann_game.record
    assert "not a game of yours on this server" in refused and len(refused.splitlines()) == 1
    assert "give your key with --identity" in guest_out


def _game_id(listing: str) -> str:
    return listing.split(maxsplit=1)[0]


async def test_an_unreachable_server_is_one_line(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    code = await asyncio.to_thread(main, ["127.0.0.1:9", "some-game"])
    err = capfd.readouterr().err.strip()
    assert code == 1 and len(err.splitlines()) == 1 and err.startswith("sushigo-replay: error:")
