"""`sushigo-bot` against a real server on loopback, then `sushigo-replay` on what it stored."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest
from socket_helpers import closing

from sushigo.client.bot import Strategies, play_one
from sushigo.client.bot import main as bot_main
from sushigo.client.bot import parser as bot_parser
from sushigo.client.bot import run as run_bot
from sushigo.client.connection import Client
from sushigo.server.replay import main as replay_main
from sushigo.server.storage.sqlite.storage import SqliteStorage


async def bots(*argvs: list[str]) -> list[int]:
    """`sushigo-bot` run once per command line `argvs`, all at once in this process (a minute at
    most): their exit codes."""
    return await asyncio.wait_for(
        asyncio.gather(*(run_bot(bot_parser().parse_args(argv)) for argv in argvs)), timeout=60
    )


async def test_bots_without_a_name_take_numbered_ones_and_a_given_taken_name_fails(
    server: tuple[str, int, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    # Names are unique among the connected: two bots of one strategy cannot both be
    # "greedy-bot"; without --name the second takes "greedy-bot-2" and both play.
    host, port, _ = server
    argv = [f"{host}:{port}", "--players", "2", "--games", "1", "--strategy", "greedy"]
    assert await bots([*argv, "--seed", "1"], [*argv, "--seed", "2"]) == [0, 0]
    out = capsys.readouterr().out
    assert "(won by greedy-bot" in out and out.count("fairness verified") == 2
    holder = await Client.connect(host, port, name="taken")
    async with closing(holder):
        code = await run_bot(bot_parser().parse_args([*argv, "--name", "TAKEN"]))
    assert code == 1
    assert "NAME_TAKEN" in capsys.readouterr().err


async def test_a_bot_with_a_time_budget_plays(
    server: tuple[str, int, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    # `--strategy`'s help offers `ismcts@ms=100`: a search bounded by time, which needs the
    # clock the bot gives it (strategies read none of their own).
    host, port, _ = server
    argv = [f"{host}:{port}", "--players", "2", "--games", "1"]
    timed = [*argv, "--strategy", "ismcts@ms=5", "--name", "timed"]
    assert await bots(timed, [*argv, "--strategy", "random", "--name", "rand"]) == [0, 0]
    captured = capsys.readouterr()
    assert captured.out.count("fairness verified") == 2, captured.err


async def test_two_bots_play_their_games_and_every_game_verifies(
    server: tuple[str, int, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    host, port, db = server
    argv = [f"{host}:{port}", "--players", "2", "--games", "2", "--strategy", "greedy"]
    ann, bob = [*argv, "--name", "ann", "--seed", "1"], [*argv, "--name", "bob", "--seed", "2"]
    assert await bots(ann, bob) == [0, 0]
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("game ")]
    assert len(lines) == 4
    assert all(line.endswith("fairness verified") for line in lines)

    # The server stored both games; the replay tool verifies each of them.
    with SqliteStorage(db) as storage:
        games = storage.list_records()
    assert len(games) == 2
    for game in games:
        assert replay_main(["--db", str(db), game.game_id]) == 0
    out = capsys.readouterr().out
    assert "round 3 turn 10" in out and "verified:" in out


async def test_replay_refuses_a_record_with_one_changed_byte(
    server: tuple[str, int, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    host, port, db = server
    argv = [f"{host}:{port}", "--players", "2", "--games", "1"]
    assert await bots(argv, argv) == [0, 0]
    with SqliteStorage(db) as storage:
        (game,) = storage.list_records()
    exported = tmp_path / "game.rec"
    assert replay_main(["--db", str(db), game.game_id, "--export", str(exported)]) == 0
    assert replay_main([str(exported)]) == 0
    data = bytearray(exported.read_bytes())
    data[len(data) // 2] ^= 1
    tampered = tmp_path / "tampered.rec"
    tampered.write_bytes(bytes(data))
    capsys.readouterr()
    assert replay_main([str(tampered)]) == 1
    said = capsys.readouterr()
    # Depending on the byte, the signature fails or the file no longer parses: refused either way.
    assert "NOT VERIFIED" in said.out or "not an exported sushigo record" in said.err
    assert replay_main([str(tmp_path / "missing.rec")]) == 1


def test_bot_refuses_a_bad_address_and_an_unknown_strategy(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        bot_main(["localhost", "--games", "1"])
    assert exit_info.value.code == 2
    assert "expected HOST:PORT" in capsys.readouterr().err
    assert bot_main(["127.0.0.1:1", "--strategy", "no-such-bot", "--games", "1"]) == 2
    assert "no-such-bot" in capsys.readouterr().err


def test_bot_says_why_when_the_server_is_not_there(capsys: pytest.CaptureFixture[str]) -> None:
    assert bot_main(["127.0.0.1:1", "--games", "1"]) == 1
    err = capsys.readouterr().err
    assert "refused" in err and "Traceback" not in err


async def test_bots_with_keys_are_rated_under_their_identities(
    server: tuple[str, int, Path], tmp_path: Path
) -> None:
    host, port, db = server
    argv = [f"{host}:{port}", "--players", "2", "--games", "2", "--strategy", "greedy"]
    keys = [[*argv, "--key", str(tmp_path / key)] for key in ("a.key", "b.key")]
    assert await bots(*keys) == [0, 0]
    assert (tmp_path / "a.key").stat().st_mode & 0o777 == 0o600
    with SqliteStorage(db) as storage:
        board = storage.leaderboard(kind="sushi-go")
    assert len(board) == 2
    assert all(entry.player_id.startswith("k:") and entry.games == 2 for entry in board)
    assert all(entry.sigma < 25 / 3 for entry in board)  # rated games narrowed the uncertainty


@pytest.mark.parametrize(
    ("kind", "steady_strategy"), [("sushi-go", "greedy"), ("sushi-roll", "heuristic")]
)
async def test_a_bot_whose_connection_drops_mid_game_resumes_and_finishes(
    server: tuple[str, int, Path], kind: str, steady_strategy: str
) -> None:
    host, port, _ = server
    dropper = await Client.connect(host, port, name="dropper")
    steady = await Client.connect(host, port, name="steady")

    async def cut_once_in_round_two() -> None:
        while dropper.state is None or dropper.state.round < 2:
            await asyncio.sleep(0)  # yield until the game reaches round 2 (bounded by wait_for)
        assert dropper._writer is not None
        dropper._writer.transport.abort()

    original = dropper.proto
    async with closing(dropper, steady):
        games = asyncio.gather(
            play_one(dropper, Strategies("greedy"), random.Random(5), 2, kind),
            play_one(steady, Strategies(steady_strategy), random.Random(6), 2, kind),
        )
        cut = asyncio.create_task(cut_once_in_round_two())
        first, second = await asyncio.wait_for(games, timeout=60)
        await asyncio.wait_for(cut, timeout=1)
        # A new connection carried the game on to its end.
        assert dropper.proto is not original and dropper.connected
    assert first.verified and second.verified, (first.problems, second.problems)
    assert first.players == second.players == 2
    if kind == "sushi-roll":  # open steps: every action seen was checked against the replay
        assert dropper.fairness.observations_verified >= dropper.fairness.actions_seen > 0
