"""Seats kept for a resume across runs of the client (`client.seats`): one use each, a day at
most, the file the user's alone, a damaged file no harm; and the quit question says what a quit
does (scripts/play's server stops with its client: no seat to come back to)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from sushigo.client import seats
from sushigo.client.tui import AppState
from sushigo.client.tui.layout import quit_text
from sushigo.engine import Game, GameOptions
from sushigo.protocol import GameStarting, TurnStart


@pytest.fixture(autouse=True)
def _state_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))


def test_a_kept_seat_is_taken_once_and_the_file_is_the_users_alone() -> None:
    seats.keep("h:1", b"\x01" * 32, "ann")
    seats.keep("h:2", b"\x02" * 32, "bob")
    assert seats.path().stat().st_mode & 0o777 == 0o600
    assert seats.take("h:1") == seats.KeptSeat(b"\x01" * 32, "ann")
    assert seats.take("h:1") is None, "a token is good for one resume"
    assert seats.take("h:2") == seats.KeptSeat(b"\x02" * 32, "bob")


def test_stale_or_damaged_entries_are_no_seat() -> None:
    old = time.time() - (seats.KEPT_HOURS + 1) * 3600
    seats.path().parent.mkdir(parents=True)
    seats.path().write_text(
        json.dumps(
            {
                "old": {"token": "aa", "name": "ann", "at": old},
                "bad": {"token": "not hex", "name": "bob", "at": time.time()},
                "odd": [1, 2],
            }
        )
    )
    assert seats.take("old") is None and seats.take("bad") is None and seats.take("odd") is None
    seats.keep("new", b"\x03", "cy")  # and keeping another drops whatever is stale
    assert set(json.loads(seats.path().read_text())) == {"new"}
    seats.path().write_text("{not json")
    assert seats.take("new") is None
    seats.keep("new", b"\x03", "cy")
    assert seats.take("new") == seats.KeptSeat(b"\x03", "cy")


@pytest.mark.parametrize("ends_with_us", [False, True])
def test_the_quit_question_says_whether_the_seat_is_kept(ends_with_us: bool) -> None:
    state = AppState(server_ends_with_us=ends_with_us)
    obs = Game(GameOptions(players=2), b"seed").observation(0)
    state.apply(
        GameStarting(
            table_id="t",
            kind="sushi-go",
            options=obs.options,
            seat=0,
            players=("a", "b"),
            server_seed_hash=bytes(32),
        )
    )
    state.apply(TurnStart(round=1, turn=1, seats=(0, 1), observation=obs))
    said = "".join(text for _, text, *_ in quit_text(state))
    if ends_with_us:
        assert "Quitting ends this game: scripts/play stops its server with you." in said
    else:
        assert "run the client again, without --bots, to take it back" in said
