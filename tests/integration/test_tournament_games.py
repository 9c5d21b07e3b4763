"""A small tournament from registration to standings, over loopback with real commands."""

from __future__ import annotations

import asyncio
import csv
import json
from pathlib import Path

import pytest
from socket_helpers import closing, refusal

from sushigo.client.bot import parser as bot_parser
from sushigo.client.bot import run as run_bot
from sushigo.client.connection import Client
from sushigo.client.tournament import main as tournament_main
from sushigo.client.tournament import parser as tournament_parser
from sushigo.client.tournament import run as run_tournament
from sushigo.protocol import ErrorCode, TournamentSettings, TournamentStatus
from sushigo.server.storage.sqlite.storage import SqliteStorage


async def test_a_tournament_runs_from_registration_to_final_standings(
    server: tuple[str, int, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    host, port, db = server
    where = f"{host}:{port}"
    csv_file, json_file = tmp_path / "cup.csv", tmp_path / "cup.json"
    organiser = tournament_parser().parse_args(
        [
            where,
            "create",
            "cup",
            "--players",
            "2",
            "--games",
            "3",
            "--entrants",
            "3",
            "--turn-seconds",
            "0",
            "--csv",
            str(csv_file),
            "--json",
            str(json_file),
        ]
    )
    organiser.address_text = where
    run = asyncio.create_task(run_tournament(organiser))
    # Bots register once the tournament exists.
    async with asyncio.timeout(10):
        while not await _exists(host, port, "cup"):
            await asyncio.sleep(0)  # yield to the organiser task; each check is a round trip
    bots = [
        run_bot(
            bot_parser().parse_args(
                [
                    where,
                    "--tournament",
                    "cup",
                    "--name",
                    name,
                    "--strategy",
                    "greedy",
                    "--seed",
                    str(i),
                ]
            )
        )
        for i, name in enumerate(["ann", "bob", "cat"])
    ]
    codes = await asyncio.wait_for(asyncio.gather(run, *bots), timeout=90)
    assert codes == [0, 0, 0, 0]

    out = capsys.readouterr().out
    assert "cup: finished, 3/3 games done" in out
    assert out.count("fairness verified") == 6  # 3 games x 2 seats
    rows = list(csv.DictReader(csv_file.open()))
    assert sorted(r["name"] for r in rows) == ["ann", "bob", "cat"]
    assert sum(int(r["games"]) for r in rows) == 6
    assert abs(sum(float(r["wins"]) for r in rows) - 3) < 1e-9  # shared wins add up
    data = json.loads(json_file.read_text())
    assert data["status"] == "finished" and data["games_done"] == 3
    assert [r["rank"] for r in data["standings"]] == [1, 2, 3]
    wins = [r["wins"] for r in data["standings"]]
    assert wins == sorted(wins, reverse=True)
    with SqliteStorage(db) as storage:
        assert len(storage.list_records()) == 3  # every game's record is stored


async def _exists(host: str, port: int, name: str) -> bool:
    client = await Client.connect(host, port, name="probe")
    async with closing(client):
        return any(t.settings.name == name for t in await client.list_tournaments())


async def test_only_the_host_starts_and_only_with_enough_entrants(
    server: tuple[str, int, Path],
) -> None:
    host, port, _ = server
    boss = await Client.connect(host, port, name="boss")
    other = await Client.connect(host, port, name="other")
    async with closing(boss, other):
        info = await boss.create_tournament(
            TournamentSettings(name="open", kind="sushi-go", players=3, games=2)
        )
        assert info.status is TournamentStatus.REGISTERING
        again = boss.create_tournament(TournamentSettings(name="open", kind="sushi-go", players=2))
        assert (await refusal(again)).code is ErrorCode.BAD_SETTINGS
        await other.register_tournament("open")
        assert (await refusal(other.register_tournament("open"))).code is ErrorCode.NOT_ALLOWED
        assert (await refusal(other.start_tournament("open"))).code is ErrorCode.NOT_ALLOWED
        assert (await refusal(boss.start_tournament("open"))).code is ErrorCode.NOT_ENOUGH_PLAYERS
        assert (await refusal(other.watch_tournament("nope"))).code is ErrorCode.NO_SUCH_TABLE


def test_tournament_command_says_why_it_cannot_connect(capsys: pytest.CaptureFixture[str]) -> None:
    assert tournament_main(["127.0.0.1:1", "list"]) == 1
    err = capsys.readouterr().err
    assert "refused" in err and "Traceback" not in err
