"""The deck, the deal and the deterministic generator behind every shuffle."""

from __future__ import annotations

from collections import Counter

import pytest
from engine_helpers import (
    BASE_COUNTS,
    SpecRng,
    first_legal,
    play_out,
    play_turn,
    shuffled_deck,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from sushigo.engine import (
    Card,
    DeterministicRng,
    Game,
    GameOptions,
    OptionsError,
    PicksRevealed,
    RoundScored,
    RoundStarted,
)
from sushigo.engine.games.sushi_go.cards import deck

# -- the deck -------------------------------------------------------------------------------


def test_deck_has_108_cards_with_the_rulebook_counts() -> None:
    cards = deck()
    assert len(cards) == 108
    assert {c.label: n for c, n in Counter(cards).items()} == BASE_COUNTS


def test_soy_sauce_deck_adds_three_soy_sauce_cards() -> None:
    cards = deck(soy_sauce=True)
    assert len(cards) == 111
    counts = Counter(c.label for c in cards)
    assert counts.pop("soy_sauce") == 3
    assert dict(counts) == BASE_COUNTS


def test_unshuffled_deck_order_is_by_card_value() -> None:
    cards = deck()
    assert cards == sorted(cards)


@pytest.mark.parametrize(("players", "size"), [(2, 10), (3, 9), (4, 8), (5, 7)])
def test_hand_size_by_player_count(players: int, size: int) -> None:
    game = Game(GameOptions(players), b"hand-size")
    assert [len(game.hand(s)) for s in range(players)] == [size] * players
    assert GameOptions(players).hand_size == size
    assert game.initial_events() == [RoundStarted(1, size, 1)]


def test_dummy_variant_deals_three_hands_of_nine() -> None:
    game = Game(GameOptions(2, dummy=True), b"dummy-deal")
    obs = game.observation(None)
    # Seat 0 controls the dummy on turn 1 and has already drawn its top card.
    assert [len(game.hand(0)), len(game.hand(1))] == [10, 9]
    assert obs.tableaus[2].is_dummy
    assert obs.tableaus[2].hand_size == 8  # the dummy pile, after the draw


@pytest.mark.parametrize("players", [1, 6, 0, -2])
def test_player_count_outside_2_to_5_is_refused(players: int) -> None:
    with pytest.raises(OptionsError):
        GameOptions(players)


@pytest.mark.parametrize("players", [3, 4, 5])
def test_dummy_variant_needs_two_players(players: int) -> None:
    with pytest.raises(OptionsError, match="2 players"):
        GameOptions(players, dummy=True)


def test_options_round_trip_as_plain_data() -> None:
    options = GameOptions(2, pass_both_ways=True, dummy=True, soy_sauce=True)
    assert GameOptions.from_data(options.to_data()) == options
    with pytest.raises(OptionsError):
        GameOptions.from_data({"players": 3, "jokers": True})


# -- the deal order ----------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_deal_order_seat_0_first_from_the_front_of_the_shuffled_deck(players: int) -> None:
    seed = b"deal-order-%d" % players
    cards = shuffled_deck(seed)
    size = GameOptions(players).hand_size
    game = Game(GameOptions(players), seed)
    for s in range(players):
        assert game.hand(s) == tuple(sorted(cards[s * size : (s + 1) * size]))


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_three_rounds_on_one_deck_and_leftover_cards_ignored(players: int) -> None:
    """Each round deals the next n * h cards; the rest of the deck is never dealt."""
    seed = b"three-rounds-%d" % players
    options = GameOptions(players)
    cards = shuffled_deck(seed)
    size = options.hand_size
    game = Game(options, seed)
    dealt: list[Card] = []
    rounds_seen = []
    while not game.is_terminal():
        if game.turn == 1:
            rounds_seen.append(game.round)
            start = (game.round - 1) * players * size
            for s in range(players):
                hand = cards[start + s * size : start + (s + 1) * size]
                assert game.hand(s) == tuple(sorted(hand))
                dealt += hand
        play_turn(game, first_legal)
        assert game.card_count() == 108
    assert rounds_seen == [1, 2, 3]
    leftover = cards[3 * players * size :]
    assert len(leftover) == 108 - 3 * players * size
    assert Counter(dealt) + Counter(leftover) == Counter(cards)
    assert game.card_count() == 108


def test_dummy_deal_order_hands_then_pile_with_pile_top_first() -> None:
    seed = b"dummy-deal-order"
    cards = shuffled_deck(seed)
    game = Game(GameOptions(2, dummy=True), seed)
    # Round 1: seat 0 gets cards 0-8, seat 1 cards 9-17, the pile 18-26 with card 18 on top.
    assert game.hand(0) == tuple(sorted([*cards[0:9], cards[18]]))
    assert game.hand(1) == tuple(sorted(cards[9:18]))
    before = Counter(game.hand(0))
    actions = [first_legal(game, 0), first_legal(game, 1)]
    game.apply(actions)
    # Turn 2: seat 1 controls and draws the pile's next card (card 19) into the hand it received.
    assert game.dummy_controller == 1
    passed = before - Counter(actions[0].cards)
    assert Counter(game.hand(1)) == passed + Counter([cards[19]])


def test_dummy_pile_draws_follow_the_deal_order_all_round() -> None:
    seed = b"dummy-pile-order"
    cards = shuffled_deck(seed)
    game = Game(GameOptions(2, dummy=True), seed)
    drawn = []
    for turn in range(1, 10):
        ctrl = game.dummy_controller
        assert ctrl is not None
        other = 1 - ctrl
        # The controller holds one card more than the other seat: the card drawn from the pile.
        assert len(game.hand(ctrl)) == len(game.hand(other)) + 1 == 11 - turn
        assert game.observation(None).tableaus[2].hand_size == 9 - turn
        drawn.append(ctrl)
        play_turn(game, first_legal)
    assert game.round == 2
    # Round 2 is dealt from the next 27 cards.
    assert game.hand(1) == tuple(sorted([*cards[27 + 9 : 27 + 18], cards[27 + 18]]))
    assert game.hand(0) == tuple(sorted(cards[27:36]))


# -- the generator ----------------------------------------------------------------------------


def test_golden_first_words_of_the_generator() -> None:
    rng = DeterministicRng(b"golden", b"deck")
    assert [rng.word() for _ in range(4)] == [0xBEC5, 0x8797, 0xBE13, 0x2264]


def test_golden_first_hand_of_a_fixed_seed() -> None:
    """Pinned: any change to the generator, the deck order or the deal changes this hand."""
    game = Game(GameOptions(4), b"golden")
    assert [c.label for c in game.hand(0)] == [
        "tempura",
        "dumpling",
        "dumpling",
        "dumpling",
        "maki2",
        "maki2",
        "pudding",
        "pudding",
    ]


def test_golden_shuffled_deck_front() -> None:
    assert [c.label for c in shuffled_deck(b"golden")[:12]] == [
        "dumpling",
        "dumpling",
        "pudding",
        "pudding",
        "maki2",
        "tempura",
        "maki2",
        "dumpling",
        "dumpling",
        "squid",
        "egg",
        "tempura",
    ]


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=40), st.binary(max_size=12))
def test_generator_words_follow_the_documented_spec(seed: bytes, stream: bytes) -> None:
    rng, spec = DeterministicRng(seed, stream), SpecRng(seed, stream)
    assert [rng.word() for _ in range(21)] == [spec.word() for _ in range(21)]


OPS = st.lists(
    st.one_of(
        st.tuples(st.just("word"), st.just(0)),
        st.tuples(st.just("below"), st.integers(min_value=1, max_value=2**16)),
        st.tuples(st.just("shuffle"), st.integers(min_value=0, max_value=120)),
    ),
    max_size=12,
)


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=16), OPS)
def test_generator_matches_the_spec_for_any_mix_of_calls(
    seed: bytes, ops: list[tuple[str, int]]
) -> None:
    rng, spec = DeterministicRng(seed, b"mix"), SpecRng(seed, b"mix")
    for op, n in ops:
        if op == "word":
            assert rng.word() == spec.word()
        elif op == "below":
            assert rng.below(n) == spec.below(n)
        else:
            a, b = list(range(n)), list(range(n))
            rng.shuffle(a)
            spec.shuffle(b)  # type: ignore[arg-type]
            assert a == b


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=16), st.integers(min_value=0, max_value=111), st.integers(0, 20))
def test_shuffle_equals_repeated_below_calls(seed: bytes, n: int, skip: int) -> None:
    one, two = DeterministicRng(seed, b"s"), DeterministicRng(seed, b"s")
    for _ in range(skip):
        assert one.word() == two.word()
    items = list(range(n))
    one.shuffle(items)
    expected = list(range(n))
    for i in range(n - 1, 0, -1):
        j = two.below(i + 1)
        expected[i], expected[j] = expected[j], expected[i]
    assert items == expected
    assert one.word() == two.word()  # and both stand at the same place in the stream


def test_shuffle_equals_repeated_below_calls_across_a_rejection() -> None:
    """White box: rejections are too rare to meet by chance, so plant a rejected word in the
    buffer of unread words (0xFFFFFFFF is rejected by below(3)) and compare with below()."""
    one, two = DeterministicRng(b"r", b"s"), DeterministicRng(b"r", b"s")
    planted = (7, 0xFFFFFFFF, 5)  # the shuffle of 4 items draws below(4), below(3), below(2)
    for rng in (one, two):
        rng._words, rng._pos = planted, 0  # type: ignore[attr-defined]
    items = list(range(4))
    one.shuffle(items)
    expected = list(range(4))
    for i in range(3, 0, -1):
        j = two.below(i + 1)
        expected[i], expected[j] = expected[j], expected[i]
    assert items == expected
    assert one.word() == two.word()


def test_below_rejects_words_at_or_over_the_limit() -> None:
    rng = DeterministicRng(b"reject", b"s")
    spec = SpecRng(b"reject", b"s")
    n = 2**15 + 1  # limit 2**15 + 1: about half of all words are rejected
    assert [rng.below(n) for _ in range(30)] == [spec.below(n) for _ in range(30)]


@pytest.mark.parametrize("n", [0, -1, 2**16 + 1])
def test_below_refuses_an_empty_or_too_large_range(n: int) -> None:
    with pytest.raises(ValueError):
        DeterministicRng(b"x", b"y").below(n)


def test_generator_streams_are_independent() -> None:
    a = DeterministicRng(b"seed", b"deck")
    b = DeterministicRng(b"seed", b"dice")
    assert [a.word() for _ in range(8)] != [b.word() for _ in range(8)]


def test_generator_refuses_non_bytes() -> None:
    with pytest.raises(TypeError):
        DeterministicRng("seed", b"deck")  # type: ignore[arg-type]


# -- determinism ----------------------------------------------------------------------------


def test_same_seed_and_actions_give_the_same_game() -> None:
    options = GameOptions(4, pass_both_ways=True)
    one, two = Game(options, b"same"), Game(options, b"same")
    while not one.is_terminal():
        actions = [first_legal(one, s) for s in range(4)]
        assert one.observation(None) == two.observation(None)
        assert [one.hand(s) for s in range(4)] == [two.hand(s) for s in range(4)]
        assert one.apply(actions) == two.apply(actions)
    assert two.is_terminal()
    assert one.returns() == two.returns()
    assert one.history == two.history


def test_different_seeds_give_different_deals() -> None:
    hands = {Game(GameOptions(3), b"seed-%d" % i).hand(0) for i in range(10)}
    assert len(hands) > 1


def test_game_refuses_a_non_bytes_seed_or_bad_options() -> None:
    with pytest.raises(TypeError):
        Game(GameOptions(3), "seed")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Game({"players": 3}, b"seed")  # type: ignore[arg-type]


def test_a_round_has_exactly_hand_size_turns() -> None:
    for players in (2, 3, 4, 5):
        game = Game(GameOptions(players), b"turns")
        events = play_out(game, first_legal)
        size = GameOptions(players).hand_size
        turns_by_round = Counter(e.round for e in events if isinstance(e, PicksRevealed))
        assert turns_by_round == {1: size, 2: size, 3: size}
        picks = [(e.round, e.turn) for e in events if isinstance(e, PicksRevealed)]
        assert picks == [(r, t) for r in (1, 2, 3) for t in range(1, size + 1)]
        assert [e.round for e in events if isinstance(e, RoundScored)] == [1, 2, 3]


@pytest.mark.parametrize("start", [0, 250, 65_530])
def test_generator_words_follow_the_spec_across_its_block_counters(start: int) -> None:
    """Blocks under 2**16 hash only their counter's last two bytes after a shared prefix; the
    words stay those of the spec on both sides of that boundary (and of the small table)."""
    rng, spec = DeterministicRng(b"seed", b"deck"), SpecRng(b"seed", b"deck")
    rng._counter = spec.block = start  # (as if the blocks before `start` had been read)
    assert [rng.word() for _ in range(160)] == [spec.word() for _ in range(160)]


def test_a_game_dealt_from_a_given_order_and_its_undealt_cards_redrawn() -> None:
    options = GameOptions(3, soy_sauce=True)
    order = shuffled_deck(b"d" * 32, soy_sauce=True)
    seeded, dealt = Game(options, b"d" * 32), Game.from_deck(options, order)
    assert dealt.seed == b"" and dealt.observation(1) == seeded.observation(1)
    assert dealt.undealt() == seeded.undealt() == tuple(order[27:])
    later = list(reversed(order[27:]))
    redealt = dealt.with_undealt(later)
    assert redealt.undealt() == tuple(later) and dealt.undealt() == tuple(order[27:])
    assert redealt.observation(0) == dealt.observation(0)
    while redealt.round == 1:  # round 2 is dealt from the new order
        redealt.apply([redealt.legal_actions(s)[0] for s in range(3)])
    assert [redealt.hand(s) for s in range(3)] == [
        tuple(sorted(later[9 * s : 9 * s + 9])) for s in range(3)
    ]
    with pytest.raises(ValueError, match="the deck must be 111 cards"):
        Game.from_deck(options, order[:-1])
    with pytest.raises(ValueError, match="the undealt cards must be 84 cards"):
        dealt.with_undealt(order[:84])
