"""The scoring contract of DESIGN.md: `engine.score_round` and `engine.score_puddings`.

Each rulebook example and each scoring ruling of RULES.md section 1 is its own test. The same rules
are checked again through real games in test_game_rules.py, test_dummy.py and test_soy_sauce.py.
"""

from __future__ import annotations

import pytest
from engine_helpers import ref_puddings, ref_round
from hypothesis import given, settings
from hypothesis import strategies as st

from sushigo import engine
from sushigo.engine import Card, score_puddings, score_round
from sushigo.engine.games.sushi_go.cards import COLOUR_FAMILIES, DUMPLING_POINTS, SOY_SAUCE_COUNT


def maki(icons: int) -> list[str]:
    """Maki cards with `icons` icons in total (3s, then a 2 or a 1)."""
    cards = ["maki3"] * (icons // 3)
    rest = icons % 3
    if rest:
        cards.append(f"maki{rest}")
    return cards


# -- the contract itself ------------------------------------------------------------------------


def test_contract_names_are_exported_from_engine() -> None:
    assert engine.score_round is score_round
    assert engine.score_puddings is score_puddings
    assert "score_round" in engine.__all__
    assert "score_puddings" in engine.__all__


def test_contract_card_names_are_exactly_those_of_design_md() -> None:
    names = "tempura sashimi dumpling maki1 maki2 maki3 egg salmon squid wasabi chopsticks pudding soy_sauce"
    assert sorted(c.label for c in Card) == sorted(names.split())
    singles = {name: score_round([[name]])[0] for name in names.split()}
    assert singles == {
        "tempura": 0,
        "sashimi": 0,
        "dumpling": 1,
        "maki1": 6,
        "maki2": 6,
        "maki3": 6,
        "egg": 1,
        "salmon": 2,
        "squid": 3,
        "wasabi": 0,
        "chopsticks": 0,
        "pudding": 0,
        "soy_sauce": 4,
    }


def test_score_round_rejects_an_unknown_card_name() -> None:
    with pytest.raises(ValueError, match="nori"):
        score_round([["tempura"], ["nori"]])


def test_score_round_returns_plain_ints_one_per_tableau() -> None:
    result = score_round([["squid"], [], ["tempura", "tempura"]])
    assert result == [3, 0, 5]
    assert all(type(x) is int for x in result)


def test_empty_tableaus_score_nothing() -> None:
    assert score_round([[], [], []]) == [0, 0, 0]


# -- maki -------------------------------------------------------------------------------------


def test_rulebook_maki_example_5_3_3_2() -> None:
    # Chris 5, Phil 3, Amy 3, Lisa 2 -> 6, 1, 1, 0.
    assert score_round([maki(5), maki(3), maki(3), maki(2)]) == [6, 1, 1, 0]


def test_maki_tie_for_first_splits_6_and_awards_no_second() -> None:
    assert score_round([maki(4), maki(4), maki(2)]) == [3, 3, 0]
    assert score_round([maki(4), maki(4), maki(4), maki(1)]) == [2, 2, 2, 0]
    # 6 // 4 = 1, remainder ignored; nobody gets second place.
    assert score_round([maki(3)] * 4 + [maki(1)]) == [1, 1, 1, 1, 0]


def test_maki_tie_for_second_splits_3_remainder_ignored() -> None:
    assert score_round([maki(6), maki(2), maki(2)]) == [6, 1, 1]
    assert score_round([maki(6), maki(2), maki(2), maki(2), maki(1)]) == [6, 1, 1, 1, 0]
    assert score_round([maki(6), maki(2), maki(2), maki(2), maki(2)]) == [6, 0, 0, 0, 0]
    assert score_round([maki(9), maki(5), maki(5), maki(1), maki(1)]) == [6, 1, 1, 0, 0]


def test_nobody_with_maki_scores_no_maki() -> None:
    assert score_round([["tempura"], ["egg"], []]) == [0, 1, 0]


def test_one_player_with_maki_scores_6_and_nobody_is_second() -> None:
    # Players without maki cards do not take part, so nobody has "second most".
    assert score_round([["maki1"], [], ["tempura"]]) == [6, 0, 0]


def test_maki_icons_are_summed_not_cards_counted() -> None:
    # One maki3 (3 icons) beats two maki1 (2 icons).
    assert score_round([["maki3"], ["maki1", "maki1"]]) == [6, 3]


def test_maki_only_the_top_two_distinct_counts_score() -> None:
    assert score_round([maki(7), maki(5), maki(3), maki(1)]) == [6, 3, 0, 0]


# -- tempura, sashimi, dumplings, nigiri, wasabi, chopsticks, pudding ---------------------------


@pytest.mark.parametrize(("count", "points"), [(0, 0), (1, 0), (2, 5), (3, 5), (4, 10), (5, 10)])
def test_tempura_each_pair_scores_5(count: int, points: int) -> None:
    assert score_round([["tempura"] * count]) == [points]


@pytest.mark.parametrize(("count", "points"), [(1, 0), (2, 0), (3, 10), (5, 10), (6, 20), (9, 30)])
def test_sashimi_each_set_of_3_scores_10(count: int, points: int) -> None:
    assert score_round([["sashimi"] * count]) == [points]


@pytest.mark.parametrize(
    ("count", "points"),
    [(0, 0), (1, 1), (2, 3), (3, 6), (4, 10), (5, 15), (6, 15), (7, 15), (10, 15), (14, 15)],
)
def test_dumplings_1_3_6_10_15_capped(count: int, points: int) -> None:
    assert score_round([["dumpling"] * count]) == [points]


def test_seven_dumplings_still_score_15() -> None:
    assert score_round([["dumpling"] * 7]) == [15]


@pytest.mark.parametrize(
    ("nigiri", "plain", "dipped"), [("egg", 1, 3), ("salmon", 2, 6), ("squid", 3, 9)]
)
def test_nigiri_values_and_tripled_on_wasabi(nigiri: str, plain: int, dipped: int) -> None:
    assert score_round([[nigiri]]) == [plain]
    assert score_round([["wasabi", nigiri]]) == [dipped]


def test_wasabi_alone_scores_nothing() -> None:
    assert score_round([["wasabi"], ["wasabi", "wasabi"]]) == [0, 0]


def test_nigiri_played_before_the_wasabi_is_not_tripled() -> None:
    assert score_round([["squid", "wasabi"]]) == [3]


def test_one_nigiri_per_wasabi() -> None:
    assert score_round([["wasabi", "squid", "squid"]]) == [9 + 3]


def test_several_wasabi_each_take_one_nigiri() -> None:
    assert score_round([["wasabi", "wasabi", "squid", "egg", "salmon"]]) == [9 + 3 + 2]


def test_wasabi_goes_on_oldest_uncovered_wasabi_scoring_is_the_same() -> None:
    # Ruling: the oldest uncovered wasabi; which one is covered never changes a score.
    assert score_round([["wasabi", "salmon", "wasabi", "wasabi", "egg", "squid"]]) == [6 + 3 + 9]
    assert score_round([["wasabi", "wasabi", "squid", "wasabi", "egg"]]) == [9 + 3]


def test_chopsticks_score_nothing() -> None:
    assert score_round([["chopsticks", "chopsticks"]]) == [0]


def test_pudding_scores_nothing_in_the_round() -> None:
    assert score_round([["pudding", "pudding", "pudding"], []]) == [0, 0]


def test_a_mixed_round() -> None:
    tableau = ["tempura", "wasabi", "tempura", "salmon", "dumpling", "dumpling", "maki2", "sashimi"]
    other = ["maki1", "sashimi", "sashimi", "sashimi", "egg", "pudding", "chopsticks"]
    # 5 (tempura) + 6 (salmon on wasabi) + 3 (dumplings) + 6 (maki) | 3 (maki) + 10 + 1
    assert score_round([tableau, other]) == [20, 14]


# -- puddings -------------------------------------------------------------------------------


def test_rulebook_pudding_example_4_3_0_0() -> None:
    # Chris 4, Phil 3, Lisa 0, Amy 0 -> +6, 0, -3, -3.
    assert score_puddings([4, 3, 0, 0]) == [6, 0, -3, -3]


def test_pudding_tie_for_most_splits_6() -> None:
    assert score_puddings([3, 3, 1]) == [3, 3, -6]
    assert score_puddings([2, 2, 2, 2, 0]) == [1, 1, 1, 1, -6]


def test_pudding_tie_for_fewest_splits_the_loss_rounding_toward_zero() -> None:
    # -(6 // k), never -6 // k: with k = 4, -1 each (and not -2).
    assert score_puddings([5, 0, 0, 0, 0]) == [6, -1, -1, -1, -1]
    assert score_puddings([1, 0, 0, 0]) == [6, -2, -2, -2]
    assert score_puddings([4, 2, 2, 3]) == [6, -3, -3, 0]


def test_pudding_zero_counts_as_fewest() -> None:
    assert score_puddings([2, 1, 0]) == [6, 0, -6]


def test_pudding_all_tied_nobody_scores() -> None:
    assert score_puddings([2, 2, 2, 2]) == [0, 0, 0, 0]
    assert score_puddings([0, 0, 0]) == [0, 0, 0]
    assert score_puddings([3, 3]) == [0, 0]


def test_pudding_two_players_no_penalty() -> None:
    assert score_puddings([3, 0]) == [6, 0]
    assert score_puddings([0, 5]) == [0, 6]


def test_pudding_three_tableaus_apply_the_penalty() -> None:
    # The dummy variant compares three tableaus: the fewest-pudding penalty applies.
    assert score_puddings([3, 0, 1]) == [6, -6, 0]


def test_pudding_counts_cannot_be_negative() -> None:
    with pytest.raises(ValueError):
        score_puddings([1, -1, 0])


# -- soy sauce (variant): contract level ------------------------------------------------------


def test_soy_sauce_assumed_count_and_colour_families_are_one_data_table() -> None:
    assert SOY_SAUCE_COUNT == 3
    families: dict[str, set[str]] = {}
    for card, family in COLOUR_FAMILIES.items():
        families.setdefault(family, set()).add(card.label)
    assert families == {
        "maki": {"maki1", "maki2", "maki3"},
        "tempura": {"tempura"},
        "sashimi": {"sashimi"},
        "dumpling": {"dumpling"},
        "nigiri": {"egg", "salmon", "squid", "wasabi"},
        "chopsticks": {"chopsticks"},
        "pudding": {"pudding"},
        "soy_sauce": {"soy_sauce"},
    }


# Single tempura, sashimi, wasabi, chopsticks and pudding cards score nothing in a round, so these
# tableaus isolate the soy sauce points.


def test_soy_sauce_player_with_most_colours_scores_4() -> None:
    # colours: soy + tempura + sashimi = 3 against tempura + wasabi = 2.
    assert score_round([["soy_sauce", "tempura", "sashimi"], ["tempura", "wasabi"]]) == [4, 0]


def test_soy_sauce_counts_as_a_colour() -> None:
    # soy + tempura = 2 colours ties tempura + sashimi = 2: the soy player is at the top.
    assert score_round([["soy_sauce", "tempura"], ["tempura", "sashimi"]]) == [4, 0]


def test_soy_sauce_not_at_the_top_scores_nothing() -> None:
    # A player without soy sauce has the most colours (3 against 2): nobody scores soy sauce.
    assert score_round([["soy_sauce", "tempura"], ["tempura", "wasabi", "sashimi"]]) == [0, 0]


def test_soy_sauce_ties_split_4_among_soy_players_only() -> None:
    two = [["soy_sauce", "tempura"], ["soy_sauce", "wasabi"], ["tempura", "sashimi"]]
    assert score_round(two) == [2, 2, 0]
    three = [
        ["soy_sauce", "wasabi"],
        ["soy_sauce", "sashimi"],
        ["soy_sauce", "pudding"],
        ["tempura"],
    ]
    assert score_round(three) == [1, 1, 1, 0]
    five = [["soy_sauce", "tempura"]] * 5
    assert score_round(five) == [0, 0, 0, 0, 0]


def test_soy_sauce_only_one_per_player_scores_per_round() -> None:
    assert score_round([["soy_sauce", "soy_sauce", "tempura"], ["tempura"]]) == [4, 0]
    # Two soy players tied: the one holding two soy sauce still counts once in the split.
    assert score_round([["soy_sauce", "soy_sauce", "wasabi"], ["soy_sauce", "sashimi"]]) == [2, 2]


def test_soy_sauce_colour_families_group_maki_and_nigiri_with_wasabi() -> None:
    # maki1+maki2+maki3 is one colour; egg+salmon+squid+wasabi is one colour: 3 with soy sauce.
    one = ["soy_sauce", "maki1", "maki2", "maki3", "egg", "salmon", "squid", "wasabi"]
    # Points of `one` without soy sauce: maki 6 (alone in the maki race) + nigiri 1 + 2 + 3.
    base = 6 + 1 + 2 + 3
    three_colours = ["tempura", "sashimi", "dumpling"]  # tie at 3 colours: soy scores
    assert score_round([one, three_colours]) == [base + 4, 1]
    four_colours = ["tempura", "sashimi", "dumpling", "pudding"]  # 4 > 3: soy scores nothing
    assert score_round([one, four_colours]) == [base, 1]


def test_soy_sauce_chopsticks_and_pudding_count_as_colours() -> None:
    # soy + chopsticks + pudding = 3 colours against tempura + sashimi + wasabi = 3: a tie at the top.
    assert score_round(
        [["soy_sauce", "chopsticks", "pudding"], ["tempura", "sashimi", "wasabi"]]
    ) == [4, 0]
    # Without the chopsticks colour the soy player would be behind.
    assert score_round([["soy_sauce", "pudding"], ["tempura", "sashimi", "wasabi"]]) == [0, 0]


def test_soy_sauce_without_any_soy_player_nobody_scores_it() -> None:
    assert score_round([["egg", "tempura", "sashimi"], ["egg"]]) == [1, 1]


# -- properties: the contract agrees with an independent reading of the rules -----------------

CARD_NAMES = [c.label for c in Card]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.sampled_from(CARD_NAMES), max_size=14), min_size=1, max_size=6))
def test_score_round_matches_reference_scorer(tableaus: list[list[str]]) -> None:
    assert score_round(tableaus) == ref_round(tableaus)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=10), min_size=2, max_size=6))
def test_score_puddings_matches_reference(puddings: list[int]) -> None:
    result = score_puddings(puddings)
    assert result == ref_puddings(puddings)
    assert all(-6 <= p <= 6 for p in result)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.sampled_from(CARD_NAMES), max_size=12), min_size=1, max_size=5))
def test_score_round_does_not_depend_on_seat_order(tableaus: list[list[str]]) -> None:
    forward = score_round(tableaus)
    backward = score_round(list(reversed(tableaus)))
    assert forward == list(reversed(backward))


def test_dumpling_table_is_the_rulebook_one() -> None:
    assert tuple(DUMPLING_POINTS[1:]) == (1, 3, 6, 10, 15)
