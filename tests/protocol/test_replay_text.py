"""`sushigo-replay`'s text of a game (`server.replay.describe`) ends as a person reads it: each
player's final score by name and who won, by name; the legend of ``*`` only under a game that
has one."""

from __future__ import annotations

import re

from sample_helpers import play_record, play_roll_record

from sushigo.engine import GameOptions
from sushigo.server.replay import describe


def test_the_end_names_the_scores_and_the_winner() -> None:
    record = play_record("t1", GameOptions(players=2), b"\x11" * 32, (b"\x22" * 32,) * 2, seed=7)
    lines = describe(record, ["ann", "bob"])
    end = re.fullmatch(r"final: ann (\d+), bob (\d+) · won by (ann|bob|ann and bob)", lines[-1])
    assert end is not None, lines[-1]
    scores = {"ann": int(end[1]), "bob": int(end[2])}
    assert (scores["ann"], scores["bob"]) == record.scores
    assert all(scores[name] == max(scores.values()) for name in end[3].split(" and "))
    assert not any("chosen by the server" in line for line in lines)  # no auto pick to explain


def test_a_sushi_roll_game_ends_the_same_way() -> None:
    record = play_roll_record("t2", 3, b"\x11" * 32, (b"\x22" * 32,) * 3, seed=5)
    last = describe(record, ["ann", "bob", "cy"])[-1]
    assert re.fullmatch(r"final: ann -?\d+, bob -?\d+, cy -?\d+ · won by \w+( and \w+)*", last)
