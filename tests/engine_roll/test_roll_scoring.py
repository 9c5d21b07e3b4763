"""Golden tests of every Sushi Roll scoring table (RULES.md section 2), the rulebook's examples,
and a property test of the scorer against the independent reference in roll_helpers."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from roll_helpers import ref_puddings, ref_round

from sushigo.engine.games.sushi_roll import (
    Face,
    appetizer_points,
    maki_points,
    nigiri_points,
    round_breakdown,
    score_puddings,
    score_round,
    token_bonus,
)
from sushigo.engine.games.sushi_roll.dice import APPETIZER_POINTS

# n icons: 0..7 (sets of 3 repeat: (n // 3) * T[3] + T[n % 3]).
APPETIZERS = {
    "dumpling": [0, 2, 4, 8, 10, 12, 16, 18],
    "tempura": [0, 1, 5, 10, 11, 15, 20, 21],
    "sashimi": [0, 0, 6, 13, 13, 19, 26, 26],
}


@pytest.mark.parametrize("name", sorted(APPETIZERS))
def test_appetizer_tables(name: str) -> None:
    face = Face.from_label(name)
    for n, expected in enumerate(APPETIZERS[name]):
        assert appetizer_points(face, n) == expected, (name, n)
        assert score_round([[name] * n]) == [expected]


def test_rulebook_seventeen_points() -> None:
    """Chris: 4 tempura + 2 sashimi = 10 (first set) + 1 (second set) + 6 (sashimi) = 17."""
    tray = ["tempura", "sashimi", "tempura", "tempura", "sashimi", "tempura"]
    assert score_round([tray]) == [17]
    (points,) = round_breakdown([[Face.from_label(f) for f in tray]])
    assert (points.tempura, points.sashimi, points.appetizers, points.total) == (11, 6, 17, 17)


def test_maki_rulebook_tie_both_places() -> None:
    """Andrew and Chris 4 icons, Karen and Meredith 3: 6, 6, 3, 3."""
    assert maki_points([4, 4, 3, 3]) == [6, 6, 3, 3]
    trays = [["maki3", "maki1"], ["maki2", "maki2"], ["maki3"], ["maki1", "maki2"]]
    assert score_round(trays) == [6, 6, 3, 3]


@pytest.mark.parametrize(
    ("icons", "expected"),
    [
        ([5, 3, 3, 2], [6, 3, 3, 0]),  # a tie for second: both get the full 3
        ([4, 4, 2], [6, 6, 3]),  # a tie for first still leaves second place
        ([2, 2, 2, 2, 2], [6] * 5),
        ([0, 0, 3], [0, 0, 6]),  # no maki: not in the race, not "second"
        ([0, 1], [0, 6]),
        ([0, 0], [0, 0]),
        ([6, 1], [6, 3]),
    ],
)
def test_maki_places(icons: list[int], expected: list[int]) -> None:
    assert maki_points(icons) == expected


@pytest.mark.parametrize(
    ("tray", "points"),
    [
        (["egg"], 1),
        (["salmon"], 2),
        (["squid"], 3),
        (["wasabi"], 0),
        (["wasabi", "wasabi"], 0),
        (["wasabi", "salmon"], 6),
        (["salmon", "wasabi"], 2),  # a nigiri taken before the wasabi is not tripled
        (["wasabi", "squid", "egg"], 10),  # one nigiri per wasabi
        (["wasabi", "wasabi", "egg", "squid"], 12),
        (["egg", "wasabi", "salmon", "squid"], 1 + 6 + 3),
    ],
)
def test_nigiri_and_wasabi(tray: list[str], points: int) -> None:
    assert nigiri_points([Face.from_label(f) for f in tray]) == points
    assert score_round([tray]) == [points]


def test_tokens_faces_score_nothing_in_a_round() -> None:
    tray = ["pudding3", "menu2", "chopsticks1", "wasabi", "pudding1"]
    assert score_round([tray]) == [0]


@pytest.mark.parametrize(
    ("puddings", "expected"),
    [
        ([6, 6, 0, 0], [6, 6, -6, -6]),  # the rulebook's example
        ([4, 3, 0, 0], [6, 0, -6, -6]),  # ties lose the full 6 each
        ([3, 3, 1], [6, 6, -6]),
        ([5, 2, 2, 2, 9], [0, -6, -6, -6, 6]),
        ([3, 0], [6, 0]),  # 2 players: no penalty
        ([0, 0], [0, 0]),
        ([2, 2, 2], [0, 0, 0]),  # Ruling: all equal, nobody scores
        ([0, 0, 0, 0, 0], [0] * 5),
    ],
)
def test_puddings(puddings: list[int], expected: list[int]) -> None:
    assert score_puddings(puddings) == expected


@pytest.mark.parametrize(
    ("menu", "chopsticks", "bonus"),
    [(0, 0, 0), (1, 0, 0), (1, 1, 1), (3, 2, 2), (0, 4, 2), (5, 0, 2), (7, 6, 6)],
)
def test_token_bonus(menu: int, chopsticks: int, bonus: int) -> None:
    assert token_bonus(menu, chopsticks) == bonus


def test_unknown_face_label() -> None:
    with pytest.raises(ValueError, match="nori"):
        score_round([["nori"]])


FACES = [f.label for f in Face]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(st.sampled_from(FACES), max_size=10), min_size=2, max_size=5))
def test_scorer_matches_reference(trays: list[list[str]]) -> None:
    assert score_round(trays) == ref_round(trays)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 12), min_size=2, max_size=5))
def test_puddings_match_reference(puddings: list[int]) -> None:
    assert score_puddings(puddings) == ref_puddings(puddings)


def test_the_dumpling_values_are_marked_assumed_wherever_they_are_stated() -> None:
    """No legible line of the rulebook gives a dumpling value: docs/RULES.md and the dice module
    say so where they state them (and say what the rulebook does show)."""
    root = Path(__file__).resolve().parents[2]
    values = ", ".join(map(str, APPETIZER_POINTS[Face.DUMPLING][1:]))  # "2, 4, 8"
    rules = (root / "docs" / "RULES.md").read_text(encoding="utf-8")
    stated = [line for line in rules.splitlines() if values in line]
    assert stated and all("**Assumed" in line for line in stated), stated
    assert "What the rulebook shows" in rules
    dice = (root / "engine" / "games" / "sushi_roll" / "dice.py").read_text(encoding="utf-8")
    table = dice[dice.index("APPETIZER_POINTS: dict") :]
    table = table[: table.index('"""', table.index('"""') + 3)]  # the table and its docstring
    assert table.count("**Assumed**") >= 1 and "dumpling" in table.lower()
    face_doc = next(line for line in dice.splitlines() if "1 dumpling icon" in line)
    assert values in face_doc and "**Assumed**" in face_doc, face_doc
