"""`sushigo-replay`'s text of a game (`server.replay.describe`) ends as a person reads it: each
player's final score by name and who won, by name; the legend of ``*`` only under a game that
has one."""

from __future__ import annotations

import re

from sample_helpers import play_record, play_roll_record

from sushigo.engine import GameOptions
from sushigo.engine.games.sushi_roll import Reroll, Swap
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


def test_sushi_roll_is_told_as_its_screens_tell_it() -> None:
    """Cycles, not turns (the board's "cycle 2/7", the log's "R1C2"), and seats and dice
    numbered from 1, as the screens number them (the keys 1-8 choose a belt's dice)."""
    record = play_roll_record("t3", 3, b"\x11" * 32, (b"\x22" * 32,) * 3, seed=5)
    lines = describe(record, ["ann", "bob", "cy"])
    assert lines[1] == "players: 1:ann, 2:bob, 3:cy"
    said = [line for line in lines if line.startswith("round ")]
    assert len(said) == len(record.steps)
    kinds = set()
    for line, step in zip(said, record.steps, strict=True):
        assert line.startswith(f"round {step.round} cycle {step.turn:2}: "), line
        action = step.openings[0].action
        kinds.add(type(action).__name__)
        if isinstance(action, Reroll):
            words = "re-roll " + ",".join(str(d + 1) for d in action.dice)
        elif isinstance(action, Swap):
            mine, seat, theirs = action.mine + 1, action.other_seat + 1, action.theirs + 1
            words = f"swap {mine} with seat {seat}'s {theirs}"
        else:
            words = f"take {action.position + 1}"
        assert line.endswith(f"={words}"), (line, action)
    assert kinds == {"Reroll", "Swap", "Take"}  # each kind of action was told
    took = [line for line in lines if " took " in line]
    assert took and all(re.match(r"  seat [123] took ", line) for line in took)
    assert "seat 3 took" in "".join(took)  # (seat 0's would have said "seat 0")
