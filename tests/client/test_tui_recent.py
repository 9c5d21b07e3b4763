"""The lobby's "my recent games", driven by keystrokes against a real server on loopback: a game
played, then found in the list (h), stepped through (Enter, ←→, End), and left (Esc); a key
player's stored games, a page at a time."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from sample_helpers import play_record
from tui_helpers import Harness, local_server, running_app

from sushigo.client.tui.recent import recent_text
from sushigo.engine import GameOptions
from sushigo.protocol import TableSettings, Version, sign_record
from sushigo.protocol.identity import player_id_for_key
from sushigo.protocol.records import public_key_bytes
from sushigo.server.storage.contract import PlayerResult
from sushigo.server.storage.sqlite.storage import SqliteStorage

SEEDS = (b"\x22" * 32, b"\x33" * 32)


async def _play_out(h: Harness) -> None:
    """Play the game on screen to its end (the first card every turn), then leave the table."""
    while await h.ready_to_pick():
        await h.pick("\r")
    await h.wait(lambda: h.state.fairness.final != "pending", "the record's check")
    h.keys("l")
    await h.wait(lambda: h.state.table is None and h.state.board is None, "the lobby")


async def test_a_game_just_played_is_listed_and_stepped_through(tmp_path: Path) -> None:
    settings = TableSettings(kind="sushi-go", players=2, turn_seconds=0)
    async with local_server(tmp_path) as address, running_app(address, settings) as h:
        state = h.state
        await _play_out(h)
        final = h.client.fairness
        assert final.final == "verified"
        h.keys("h")
        await h.wait(lambda: state.recent is not None and bool(state.recent.games), "the list")
        screen = h.screen()
        assert (
            "My recent games" in screen
            and "only this session's games are kept (--key keeps them all)" in screen
        )
        row = next(line for line in screen.split("\n") if line.startswith("▸ "))
        assert "Sushi Go!" in row and "pt" in row and "random-bot1 " in row
        assert "↑↓ game · Enter replay it · ←→ pages · r refresh · Esc back" in screen
        h.keys("\r")
        await h.wait(lambda: state.replay is not None, "the replay")
        screen = h.screen()
        assert screen.startswith(" Replay · Sushi Go! round 1/3 · turn 1/10")
        assert "verified ✓ the server's signature · seeds · every commitment · scores" in screen
        assert " tester " in screen and "   hand  " in screen and "q/Esc back to the list" in screen
        h.keys("\x1b[C")  # →
        await h.wait(lambda: "step 2/30" in h.screen(), "the next step")
        h.keys("\x1b[F")  # End
        await h.wait(lambda: "Game over ·" in h.screen(), "the end")
        h.keys("q")  # in the replay, q goes back to the list (it does not quit)
        await h.wait(lambda: state.replay is None, "the list again")
        assert not state.confirm_quit and "My recent games" in h.screen()
        h.keys("\x1b")
        await h.wait(lambda: state.recent is None, "the tables again")
        assert "Tables on" in h.screen()
        await h.quit()


async def test_a_server_that_keeps_no_games_says_so(tmp_path: Path) -> None:
    settings = TableSettings(kind="sushi-go", players=2, turn_seconds=0)
    async with local_server(tmp_path) as address, running_app(address, settings) as h:
        state = h.state
        await h.ready_to_pick()
        h.keys("q")
        await h.wait(lambda: state.confirm_quit, "the quit question")
        h.keys("n")
        # As if the server spoke protocol 2.1 (it would not know MY_GAMES).
        assert h.client.welcome is not None
        h.client.welcome = dataclasses.replace(h.client.welcome, version=Version(2, 1))
        state.left_table()
        state.notify()
        h.keys("h")
        await h.wait(lambda: state.recent is not None and not state.recent.loading, "the list")
        assert "this server keeps no games for its players (protocol 2.1)" in "".join(
            text for _, text, *_ in recent_text(state)
        )
        await h.quit()


async def test_a_key_players_games_come_a_page_at_a_time(tmp_path: Path) -> None:
    """Twelve stored games of a player with a key: ten on the first page, two on the next."""
    server_key, player = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    me = player_id_for_key(public_key_bytes(player))
    record = play_record("t-page", GameOptions(players=2), b"\x11" * 32, SEEDS, seed=1)
    signed = sign_record(record, server_key)
    with SqliteStorage(tmp_path / "server.db") as storage:
        for n in range(12):
            results = [PlayerResult(me, "ann", 0, 30, 1), PlayerResult(None, f"bot{n}", 1, 20, 2)]
            storage.finish_game(
                "t-page", f"g{n:02}", "sushi-go", signed.record, signed.signature, results,
                finished_ms=1_700_000_000_000 + n * 60_000,
            )  # fmt: skip
    async with (
        local_server(tmp_path, server_key) as address,
        running_app(address, None, name="ann", key=player) as h,
    ):
        state = h.state
        h.keys("h")
        await h.wait(lambda: state.recent is not None and bool(state.recent.games), "the list")
        screen = h.screen()
        rows = [line for line in screen.split("\n") if "2023-11-" in line]
        assert len(rows) == 10 and "(page 1, more: →)" in screen
        assert "bot11 20" in rows[0] and "bot2 20" in rows[-1]  # newest first
        assert all("1st 30pt" in row for row in rows) and "only this session" not in screen
        h.keys("\x1b[B\x1b[B")
        await h.wait(lambda: state.recent is not None and state.recent.cursor == 2, "the cursor")
        h.keys("\x1b[C")  # →: the next page
        await h.wait(lambda: state.recent is not None and state.recent.offset == 10, "page 2")
        await h.wait(lambda: "bot0 20" in h.screen(), "page 2 drawn")
        screen = h.screen()
        assert "(page 2, ←)" in screen and state.recent.cursor == 0
        assert len([line for line in screen.split("\n") if "2023-11-" in line]) == 2
        h.keys("\x1b[C")  # no page 3: nothing happens
        h.keys("\x1b[D")  # ←: back
        await h.wait(lambda: state.recent is not None and state.recent.offset == 0, "page 1")
        h.keys("\r")
        await h.wait(lambda: state.replay is not None, "the replay")
        assert "verified ✓ the server's signature" in h.screen()
        h.keys("\x1b")  # back to the list, where q quits
        await h.wait(lambda: state.replay is None, "the list again")
        await h.quit()
