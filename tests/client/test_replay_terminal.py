"""End to end: the replay viewer in a real terminal (tmux), by keystrokes, as a person runs it:
`sushigo-replay FILE --view` for both games, `sushigo-replay --db PATH GAME_ID --view` on a
server's database, and `sushigo-client --replay FILE`; a terminal too small, and NO_COLOR; and the
client's lobby listing a player's games and stepping through them."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from sample_helpers import play_record, play_roll_record
from terminal import Session, needs_tmux, terminal
from tui_helpers import local_server, quit_in

from sushigo.client.identity import load_or_create_key
from sushigo.engine import GameOptions
from sushigo.protocol import FairRecord, sign_record
from sushigo.protocol.identity import player_id_for_key
from sushigo.protocol.records import export_bytes, public_key_bytes
from sushigo.server.keys import load_or_create_server_key
from sushigo.server.storage.contract import PlayerResult
from sushigo.server.storage.sqlite.storage import SqliteStorage

pytestmark = needs_tmux

BIN = Path(sys.executable).parent
SEEDS = (b"\x22" * 32, b"\x33" * 32, b"\x44" * 32)


def card_record() -> FairRecord:
    return play_record("t-e2e", GameOptions(players=3), b"\x11" * 32, SEEDS, seed=3)


def roll_record() -> FairRecord:
    return play_roll_record("t-e2e", 2, b"\x11" * 32, SEEDS[:2], seed=5)


def exported(tmp_path: Path, record: FairRecord, names: list[str]) -> Path:
    key = load_or_create_server_key(tmp_path / "server.key")
    path = tmp_path / "game.rec"
    path.write_bytes(export_bytes(sign_record(record, key), names))
    return path


async def leave(term: Session, expected: int = 0) -> None:
    await term.keys("q")
    assert await term.exit_code() == expected


async def test_sushigo_replay_views_a_card_game_step_by_step(tmp_path: Path) -> None:
    path = exported(tmp_path, card_record(), ["ann", "bob", "cy"])
    async with terminal(tmp_path, [str(BIN / "sushigo-replay"), str(path), "--view"]) as term:
        screen = await term.until(lambda s: "Replay · Sushi Go!" in s, "the replay")
        assert "round 1/3 · turn 1/9" in screen and "step 1/27" in screen
        assert "verified ✓ signature (key " in screen and "unpinned) · seeds" in screen
        assert " ann " in screen and " bob " in screen and " cy " in screen
        assert screen.count("   hand  ") == 3 and screen.count("picks ") == 3
        await term.keys("Right")
        screen = await term.until(lambda s: "step 2/27" in s, "the second step")
        assert "turn 2/9" in screen and "before: R1T1 ann:" in screen
        await term.keys("Down")
        screen = await term.until(lambda s: "round 2/3 · turn 1/9" in s, "round 2")
        assert "round 1 scored:" in screen
        await term.keys("End")
        screen = await term.until(lambda s: "Game over ·" in s, "the end")
        assert "total  place" in screen and "★" in screen
        await term.keys("Home")
        await term.until(lambda s: "step 1/27" in s, "the start again")
        await leave(term)


async def test_sushigo_replay_views_a_sushi_roll_game(tmp_path: Path) -> None:
    path = exported(tmp_path, roll_record(), ["ann", "bob"])
    async with terminal(tmp_path, [str(BIN / "sushigo-replay"), str(path), "--view"]) as term:
        screen = await term.until(lambda s: "Replay · Sushi Roll" in s, "the replay")
        assert "round 1/3 · cycle 1/" in screen and "moving" in screen
        assert "belt" in screen and "tray" in screen and "actions, dice · scores" in screen
        await term.keys("PageDown")
        screen = await term.until(lambda s: "round 2/3" in s, "round 2")
        assert "round 1 scored:" in screen
        await term.keys("End")
        screen = await term.until(lambda s: "Game over ·" in s, "the end")
        assert "tok total  place" in screen
        await leave(term)


async def test_sushigo_replay_views_a_game_of_a_servers_database(tmp_path: Path) -> None:
    db = tmp_path / "server.db"
    key = load_or_create_server_key(db.with_name(db.name + ".key"))
    record = card_record()
    signed = sign_record(record, key)
    with SqliteStorage(db) as storage:
        storage.finish_game(
            record.table_id,
            "g-e2e",
            record.game,
            signed.record,
            signed.signature,
            [
                PlayerResult(None, name, seat, record.scores[seat], 1 + seat)
                for seat, name in enumerate(["ann", "bob", "greedy-bot-1"])
            ],
            finished_ms=1_700_000_000_000,
        )
    command = [str(BIN / "sushigo-replay"), "--db", str(db), "g-e2e", "--view"]
    async with terminal(tmp_path, command) as term:
        screen = await term.until(lambda s: "Replay · Sushi Go!" in s, "the replay")
        # The names come from the database (a bot's as the game showed it), the signature is
        # checked against the server's key.
        assert " greedy-bot1 " in screen and "verified ✓ the server's signature" in screen
        await leave(term)
    # The temporary export is gone with the viewer.
    assert not list(Path(tmp_path).glob("sushigo-replay-*"))


async def test_the_client_opens_a_record_file_and_a_tampered_one_says_so(tmp_path: Path) -> None:
    path = exported(tmp_path, card_record(), ["ann", "bob", "cy"])
    data = bytearray(path.read_bytes())
    data[-80] ^= 1  # a byte of the signature
    path.write_bytes(bytes(data))
    command = [str(BIN / "sushigo-client"), "--replay", str(path)]
    async with terminal(tmp_path, command) as term:
        screen = await term.until(lambda s: "Replay · Sushi Go!" in s, "the replay")
        assert "!!! NOT VERIFIED: signature: " in screen
        await leave(term, expected=1)


async def test_a_small_terminal_is_told_and_no_color_draws_no_colour(tmp_path: Path) -> None:
    path = exported(tmp_path, card_record(), ["ann", "bob", "cy"])
    command = [str(BIN / "sushigo-replay"), str(path), "--view"]
    async with terminal(tmp_path, command, size=(60, 20), env=["NO_COLOR=1"]) as term:
        screen = await term.until(lambda s: "too small" in s, "the size message")
        assert "It is 60x20: the replay needs at least 80x24." in screen
        await term.resize(80, 24)
        await term.until(lambda s: "Replay · Sushi Go!" in s, "the replay once it fits")
        painted = await term.term.tmux("capture-pane", "-p", "-e", "-t", "play")
        # Attributes only (bold, reverse), never a colour: no SGR code that sets one (30-37,
        # 38;..., 40-47, 48;..., 90-97, 100-107; 39 and 49 put the default back).
        codes = {
            int(c) for m in re.findall(r"\x1b\[([0-9;]*)m", painted) for c in m.split(";") if c
        }
        assert {1, 7} <= codes, painted
        assert not {c for c in codes if 30 <= c <= 38 or 40 <= c <= 48 or c >= 90}, codes
        await leave(term)


# -- the lobby's "my recent games" -------------------------------------------------------------


def store_games(db: Path, key: Ed25519PrivateKey, player_key: Path) -> None:
    """Two finished games of the player with `player_key` in a server's database (a Sushi Go!
    game, then a Sushi Roll one), and one of somebody else, signed by the server's `key`."""
    me = player_id_for_key(public_key_bytes(load_or_create_key(player_key)))
    other = "k:" + "0" * 32
    games = [
        ("g-cards", card_record(), [(me, "ann"), (None, "greedy-bot-1"), (other, "cy")], 0),
        ("g-dice", roll_record(), [(None, "greedy-bot-1"), (me, "ann")], 600_000),
        ("g-other", card_record(), [(other, "cy"), (None, "bot"), (None, "dee")], 900_000),
    ]
    with SqliteStorage(db) as storage:
        for game_id, record, seats, when in games:
            signed = sign_record(record, key)
            results = [
                PlayerResult(player_id, name, seat, record.scores[seat], 1)
                for seat, (player_id, name) in enumerate(seats)
            ]
            storage.finish_game(
                record.table_id, game_id, record.game, signed.record, signed.signature, results,
                finished_ms=1_700_000_000_000 + when,
            )  # fmt: skip


async def test_the_lobby_lists_my_games_and_steps_through_them(tmp_path: Path) -> None:
    player_key, key = tmp_path / "ann.key", Ed25519PrivateKey.generate()
    store_games(tmp_path / "server.db", key, player_key)
    async with local_server(tmp_path, key) as (host, port):
        command = [
            str(BIN / "sushigo-client"), f"{host}:{port}", "--name", "ann", "--key", str(player_key),
        ]  # fmt: skip
        async with terminal(tmp_path, command) as term:
            await term.until(lambda s: "Tables on" in s and "h games" in s, "the lobby")
            await term.keys("h")
            screen = await term.until(lambda s: "(page 1)" in s, "the list")
            rows = [line for line in screen.split("\n") if "2023-11-" in line]
            # Newest first, ours only (not somebody else's game), our seat's place and score.
            assert len(rows) == 2, screen
            assert rows[0].startswith("▸ 2023-11-14 22:23 Sushi Roll") and "greedy-bot1 " in rows[0]
            assert rows[1].startswith("  2023-11-14 22:13 Sushi Go!") and "1st" in rows[1]
            assert "only this session" not in screen
            await term.keys("Down", "Enter")
            screen = await term.until(lambda s: "Replay · Sushi Go!" in s, "the card game's replay")
            assert "verified ✓ the server's signature" in screen and " ann " in screen
            await term.keys("Right", "Right")
            await term.until(lambda s: "step 3/27" in s, "two steps on")
            await term.keys("Escape")
            await term.until(lambda s: "My recent games" in s, "the list again")
            await term.keys("Up", "Enter")
            screen = await term.until(
                lambda s: "Replay · Sushi Roll" in s, "the dice game's replay"
            )
            assert "every action and die" in screen and "belt" in screen
            await term.keys("End")
            await term.until(lambda s: "Game over ·" in s, "its end")
            await term.keys("q")
            await term.until(lambda s: "My recent games" in s, "the list once more")
            await term.keys("Escape")
            await term.until(lambda s: "Tables on" in s, "the tables")
            await quit_in(term)
