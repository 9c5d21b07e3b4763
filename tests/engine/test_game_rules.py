"""The rules and rulings of RULES.md section 1, played through real games.

Specific situations come from a deterministic seed search (`engine_helpers.find`): each scenario
plays a fresh game forward with chosen legal actions and reports whether the deal allowed the
situation; the first seed that does is used.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable

import pytest
from engine_helpers import (
    CHOP,
    NIGIRI,
    WASABI,
    avoiding,
    find,
    first_legal,
    play_out,
    play_turn,
    rebuild,
    ref_legal,
    ref_places,
    ref_puddings,
    ref_round,
    ref_round_breakdown,
    reveals,
    seeded_policy,
    seeds,
)

from sushigo.engine import (
    Action,
    Card,
    ChopsticksReturned,
    ChopsticksUnavailableError,
    Event,
    Game,
    GameOptions,
    GameOver,
    PicksRevealed,
    RoundScored,
    RoundStarted,
    WasabiUsed,
    score_round,
)
from sushigo.engine.games.sushi_go.cards import CARDS
from sushigo.engine.games.sushi_go.legal import legal_set, pack

SALMON_SQUID_EGG_WASABI = NIGIRI | {WASABI}


def tableau(game: Game, t: int) -> tuple[Card, ...]:
    return game.observation(None).tableaus[t].cards


# -- a turn ---------------------------------------------------------------------------------


def test_picks_are_revealed_together_and_placed_in_each_tableau() -> None:
    game = Game(GameOptions(4), b"reveal")
    actions = [first_legal(game, s) for s in range(4)]
    events = game.apply(actions)
    assert events[0] == PicksRevealed(1, 1, tuple(actions), None)
    for s in range(4):
        assert tableau(game, s) == (actions[s].first,)
    assert game.history == (tuple(actions),)


@pytest.mark.parametrize("players", [3, 4, 5])
def test_hands_pass_to_the_left(players: int) -> None:
    game = Game(GameOptions(players), b"left")
    before = [Counter(game.hand(s)) for s in range(players)]
    actions = [first_legal(game, s) for s in range(players)]
    game.apply(actions)
    for s in range(players):
        passed = before[s] - Counter(actions[s].cards)
        assert Counter(game.hand((s + 1) % players)) == passed
    assert game.pass_direction == 1


def test_two_players_swap_hands() -> None:
    game = Game(GameOptions(2), b"swap")
    before = [Counter(game.hand(s)) for s in range(2)]
    actions = [first_legal(game, s) for s in range(2)]
    game.apply(actions)
    assert Counter(game.hand(1)) == before[0] - Counter(actions[0].cards)
    assert Counter(game.hand(0)) == before[1] - Counter(actions[1].cards)


def play_to_round(game: Game, round_: int) -> list[object]:
    events: list[object] = []
    while game.round < round_:
        events += play_turn(game, first_legal)
    return events


@pytest.mark.parametrize("players", [3, 4, 5])
def test_pass_both_ways_rounds_1_and_3_left_round_2_right(players: int) -> None:
    game = Game(GameOptions(players, pass_both_ways=True), b"both-ways")
    directions = {}
    for round_ in (1, 2, 3):
        play_to_round(game, round_)
        assert game.observation(0).pass_direction == game.pass_direction
        before = [Counter(game.hand(s)) for s in range(players)]
        actions = [first_legal(game, s) for s in range(players)]
        game.apply(actions)
        step = 1 if round_ != 2 else -1
        for s in range(players):
            assert Counter(game.hand((s + step) % players)) == before[s] - Counter(actions[s].cards)
        directions[round_] = game.pass_direction
    assert directions == {1: 1, 2: -1, 3: 1}


def test_pass_both_ways_round_started_events_announce_the_direction() -> None:
    game = Game(GameOptions(3, pass_both_ways=True), b"announce")
    events = game.initial_events() + play_out(game, first_legal)
    started = [e for e in events if isinstance(e, RoundStarted)]
    assert [(e.round, e.pass_direction) for e in started] == [(1, 1), (2, -1), (3, 1)]


def test_without_the_variant_every_round_passes_left() -> None:
    game = Game(GameOptions(3), b"always-left")
    events = game.initial_events() + play_out(game, first_legal)
    started = [e for e in events if isinstance(e, RoundStarted)]
    assert [(e.round, e.hand_size, e.pass_direction) for e in started] == [
        (1, 9, 1),
        (2, 9, 1),
        (3, 9, 1),
    ]


def test_last_card_is_a_forced_pick_and_still_a_revealed_turn() -> None:
    game = Game(GameOptions(3), b"forced")
    while game.turn < 9:
        play_turn(game, first_legal)
    for s in range(3):
        (card,) = game.hand(s)
        assert game.legal_actions(s) == (Action(card),)
    events = play_turn(game, first_legal)
    assert events[0] == PicksRevealed(1, 9, events[0].actions, None)  # type: ignore[union-attr]
    assert any(isinstance(e, RoundScored) for e in events)


# -- wasabi ---------------------------------------------------------------------------------


def wasabi_then_nigiri(game: Game) -> Card | None:
    """Seat 0: wasabi on turn 1, a nigiri on turn 2 (the others keep away from nigiri)."""
    others = avoiding(SALMON_SQUID_EGG_WASABI)
    if WASABI not in game.hand(0):
        return None
    play_turn(game, others, {0: Action(WASABI)})
    nigiri = [c for c in game.hand(0) if c in NIGIRI]
    return nigiri[0] if nigiri else None


def test_nigiri_after_wasabi_is_placed_on_it_and_tripled() -> None:
    _, game, nigiri = find(GameOptions(2), wasabi_then_nigiri)
    assert isinstance(nigiri, Card)
    assert game.observation(None).tableaus[0].open_wasabi == 1
    events = play_turn(game, avoiding(SALMON_SQUID_EGG_WASABI), {0: Action(nigiri)})
    assert WasabiUsed(0, nigiri) in events
    view = game.observation(None).tableaus[0]
    assert view.cards == (WASABI, nigiri)
    assert view.on_wasabi == (nigiri,)
    assert view.open_wasabi == 0


def two_wasabi_then_two_nigiri(game: Game) -> list[Card] | None:
    others = avoiding(SALMON_SQUID_EGG_WASABI)
    taken: list[Card] = []
    for want in (WASABI, WASABI, NIGIRI, NIGIRI):
        wanted = {want} if isinstance(want, Card) else want
        options = [c for c in game.hand(0) if c in wanted]
        if not options:
            return None
        taken.append(options[0])
        play_turn(game, others, {0: Action(options[0])})
    return taken


def test_wasabi_goes_on_the_oldest_uncovered_wasabi() -> None:
    """Ruling: the oldest uncovered wasabi takes the nigiri. Which wasabi is covered is not
    visible through the API (and never changes a score), so the test checks what is visible:
    each nigiri covers one wasabi, one at a time, in play order, and both are tripled."""
    _, game, taken = find(GameOptions(2), two_wasabi_then_two_nigiri)
    assert isinstance(taken, list)
    view = game.observation(None).tableaus[0]
    assert view.cards[:4] == tuple(taken)
    assert view.on_wasabi == tuple(taken[2:])
    assert view.open_wasabi == 0
    replayed = rebuild(game.options, game.seed, game.history[:3])
    assert replayed.observation(None).tableaus[0].open_wasabi == 1  # one left after the first
    events = replayed.apply(list(game.history[3]))
    assert WasabiUsed(0, taken[3]) in events


def test_nigiri_before_wasabi_is_not_tripled() -> None:
    def nigiri_then_wasabi(game: Game) -> bool:
        others = avoiding(SALMON_SQUID_EGG_WASABI)
        nigiri = [c for c in game.hand(0) if c in NIGIRI]
        if not nigiri:
            return False
        events = play_turn(game, others, {0: Action(nigiri[0])})
        assert not any(isinstance(e, WasabiUsed) for e in events)
        if WASABI not in game.hand(0):
            return False
        events = play_turn(game, others, {0: Action(WASABI)})
        return not any(isinstance(e, WasabiUsed) for e in events)

    _, game, _ = find(GameOptions(3), nigiri_then_wasabi)
    view = game.observation(None).tableaus[0]
    assert view.on_wasabi == ()
    assert view.open_wasabi == 1


# -- chopsticks -----------------------------------------------------------------------------


def chopsticks_in_first_hand(game: Game) -> bool:
    return CHOP in game.hand(0) and len(set(game.hand(0))) > 1


def test_chopsticks_taken_this_turn_cannot_be_used_this_turn() -> None:
    _, game, _ = find(GameOptions(3), chopsticks_in_first_hand)
    other = next(c for c in game.hand(0) if c != CHOP)
    assert all(a.second is None for a in game.legal_actions(0))
    before = game.observation(0)
    for action in (Action(CHOP, other), Action(other, CHOP)):
        with pytest.raises(ChopsticksUnavailableError) as info:
            game.apply([action, first_legal(game, 1), first_legal(game, 2)])
        assert info.value.seat == 0
        assert game.observation(0) == before
    # Taken now, it is ready from the next turn on.
    play_turn(game, avoiding({CHOP}), {0: Action(CHOP)})
    assert game.observation(0).tableaus[0].chopsticks_ready
    assert any(a.second is not None for a in game.legal_actions(0))


def keep_chopsticks_to_the_last_turn(game: Game) -> bool:
    if not chopsticks_in_first_hand(game):
        return False
    play_turn(game, avoiding({CHOP}), {0: Action(CHOP)})
    while len(game.hand(0)) > 1:
        play_turn(game, avoiding({CHOP}))
    return CHOP in tableau(game, 0)


def test_chopsticks_cannot_be_used_with_a_one_card_hand() -> None:
    _, game, _ = find(GameOptions(3), keep_chopsticks_to_the_last_turn)
    (card,) = game.hand(0)
    assert game.observation(0).tableaus[0].chopsticks_ready
    assert game.legal_actions(0) == (Action(card),)
    other = next(c for c in Card if c != card)
    before = game.observation(0), game.history
    for action in (Action(card, card), Action(card, other)):
        with pytest.raises(ChopsticksUnavailableError):
            game.apply([action, first_legal(game, 1), first_legal(game, 2)])
        assert (game.observation(0), game.history) == before


def ready_chopsticks_and(want: Callable[[tuple[Card, ...]], bool]) -> Callable[[Game], bool]:
    """Seat 0 takes chopsticks on turn 1, then single fillers, until `want(hand)` holds."""

    def scenario(game: Game) -> bool:
        if not chopsticks_in_first_hand(game):
            return False
        keep_away = avoiding(SALMON_SQUID_EGG_WASABI | {CHOP})
        play_turn(game, keep_away, {0: Action(CHOP)})
        while len(game.hand(0)) >= 2:
            if want(game.hand(0)):
                return True
            if keep_away(game, 0).first in SALMON_SQUID_EGG_WASABI | {CHOP}:
                return False
            play_turn(game, keep_away)
        return False

    return scenario


def wasabi_and_nigiri(hand: tuple[Card, ...]) -> bool:
    return WASABI in hand and any(c in NIGIRI for c in hand)


@pytest.fixture(scope="module")
def pair_position() -> tuple[GameOptions, bytes, tuple[tuple[Action, ...], ...], Card]:
    options = GameOptions(3)
    seed, game, _ = find(options, ready_chopsticks_and(wasabi_and_nigiri))
    nigiri = next(c for c in game.hand(0) if c in NIGIRI)
    assert game.observation(None).tableaus[0].open_wasabi == 0
    return options, seed, game.history, nigiri


def play_pair(
    position: tuple[GameOptions, bytes, tuple[tuple[Action, ...], ...], Card], wasabi_first: bool
) -> tuple[Card, Action, list[Event], Game]:
    """Seat 0 plays its chopsticks pair of wasabi and a nigiri in the given order at
    `pair_position`: (the nigiri, the pair, the turn's events, the game after it)."""
    options, seed, history, nigiri = position
    game = rebuild(options, seed, history)
    pair = Action(WASABI, nigiri) if wasabi_first else Action(nigiri, WASABI)
    assert pair in game.legal_actions(0)
    return nigiri, pair, play_turn(game, avoiding(SALMON_SQUID_EGG_WASABI), {0: pair}), game


def test_chopsticks_pair_wasabi_then_nigiri_puts_the_nigiri_on_the_wasabi(
    pair_position: tuple[GameOptions, bytes, tuple[tuple[Action, ...], ...], Card],
) -> None:
    nigiri, pair, events, game = play_pair(pair_position, wasabi_first=True)
    assert events[0].actions[0] == pair  # type: ignore[union-attr]
    assert WasabiUsed(0, nigiri) in events
    assert ChopsticksReturned(0) in events
    view = game.observation(None).tableaus[0]
    assert view.cards[-2:] == (WASABI, nigiri)
    assert view.on_wasabi == (nigiri,)
    assert view.open_wasabi == 0


def test_chopsticks_pair_nigiri_then_wasabi_does_not_triple(
    pair_position: tuple[GameOptions, bytes, tuple[tuple[Action, ...], ...], Card],
) -> None:
    nigiri, _, events, game = play_pair(pair_position, wasabi_first=False)
    assert not any(isinstance(e, WasabiUsed) for e in events)
    assert ChopsticksReturned(0) in events
    view = game.observation(None).tableaus[0]
    assert view.cards[-2:] == (nigiri, WASABI)
    assert view.on_wasabi == ()
    assert view.open_wasabi == 1


def test_chopsticks_pair_order_changes_the_round_score(
    pair_position: tuple[GameOptions, bytes, tuple[tuple[Action, ...], ...], Card],
) -> None:
    options, seed, history, nigiri = pair_position
    points = {}
    for pair in (Action(WASABI, nigiri), Action(nigiri, WASABI)):
        game = rebuild(options, seed, history)
        events = play_turn(game, first_legal, {0: pair})
        while not any(isinstance(e, RoundScored) for e in events):
            # Seat 0 keeps away from nigiri for the rest of the round, so only the pair differs.
            events = play_turn(game, first_legal, {0: avoiding(SALMON_SQUID_EGG_WASABI)(game, 0)})
        scored = next(e for e in events if isinstance(e, RoundScored))
        points[pair.first] = scored.points[0].nigiri
    value = {Card.EGG: 1, Card.SALMON: 2, Card.SQUID: 3}[nigiri]
    # The pair's nigiri is worth 3x in one order and 1x in the other; everything else is equal.
    assert points[WASABI] - points[nigiri] == 2 * value


def test_chopsticks_card_returns_to_the_hand_after_the_two_picks() -> None:
    """Ruling: a hand of h cards is passed on with h - 2 + 1 = h - 1 cards, like every other."""
    options = GameOptions(3)
    _, game, _ = find(options, ready_chopsticks_and(lambda hand: len(hand) == 2))
    a, b = game.hand(0)
    pair = Action(a, b)
    assert pair in game.legal_actions(0)
    events = play_turn(game, first_legal, {0: pair})
    assert ChopsticksReturned(0) in events
    # Seat 0 passed left: seat 1 now holds only the chopsticks; every hand has one card.
    assert game.hand(1) == (CHOP,)
    assert [len(game.hand(s)) for s in range(3)] == [1, 1, 1]
    view = game.observation(None).tableaus[0]
    assert CHOP not in view.cards
    assert view.cards[-2:] == (a, b)
    assert not view.chopsticks_ready
    # The receiver must play it on the last turn; it is theirs now.
    assert game.legal_actions(1) == (Action(CHOP),)
    events = play_turn(game, first_legal)
    assert any(isinstance(e, RoundScored) for e in events)


def test_chopsticks_returned_mid_round_keeps_hands_in_step() -> None:
    options = GameOptions(4)
    _, game, _ = find(options, ready_chopsticks_and(lambda hand: len(hand) >= 4))
    size = len(game.hand(0))
    a, b = game.hand(0)[:2]
    events = play_turn(game, first_legal, {0: Action(a, b)})
    assert ChopsticksReturned(0) in events
    assert [len(game.hand(s)) for s in range(4)] == [size - 1] * 4
    assert CHOP in game.hand(1)
    assert game.card_count() == 108


def test_only_one_chopsticks_used_per_turn() -> None:
    """With two chopsticks ready, a pair returns exactly one; the other stays ready."""

    def two_ready(game: Game) -> bool:
        keep_away = avoiding({CHOP})
        for _ in range(game.options.hand_size - 2):
            if CHOP in game.hand(0):
                play_turn(game, keep_away, {0: Action(CHOP)})
            else:
                play_turn(game, keep_away)
            if tableau(game, 0).count(CHOP) == 2:
                return len(game.hand(0)) >= 2
        return False

    _, game, _ = find(GameOptions(2), two_ready, limit=6000)
    a, b = game.hand(0)[:2]
    events = play_turn(game, first_legal, {0: Action(a, b)})
    assert events.count(ChopsticksReturned(0)) == 1
    assert tableau(game, 0).count(CHOP) == 1
    assert game.observation(0).tableaus[0].chopsticks_ready
    assert all(len(a.cards) <= 2 for a in game.legal_actions(0))


# -- round scoring in a game ------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_round_scores_in_a_game_follow_the_rules(players: int) -> None:
    """Each RoundScored equals the reference scorer (and the public score_round) over the
    tableaus in play order, and totals accumulate; puddings are kept across rounds."""
    game = Game(GameOptions(players), b"round-scores-%d" % players)
    policy = seeded_policy(b"round-scores-%d" % players)
    totals = [0] * players
    kept = [0] * players
    while not game.is_terminal():
        before = [list(v.cards) for v in game.observation(None).tableaus]
        actions = [policy(game, s) for s in range(players)]
        events = game.apply(actions)
        scored = [e for e in events if isinstance(e, RoundScored)]
        if not scored:
            continue
        final = [before[s] + [actions[s].first] for s in range(players)]
        expected = ref_round(final)
        assert [p.total for p in scored[0].points] == expected
        assert score_round([[c.label for c in t] for t in final]) == expected
        breakdown = ref_round_breakdown(final)
        for s in range(players):
            p = scored[0].points[s]
            got = {
                "maki": p.maki,
                "tempura": p.tempura,
                "sashimi": p.sashimi,
                "dumpling": p.dumpling,
                "nigiri": p.nigiri,
                "soy_sauce": p.soy_sauce,
            }
            assert got == breakdown[s]
            totals[s] += expected[s]
            kept[s] += final[s].count(Card.PUDDING)
        assert list(scored[0].totals) == totals
        assert list(scored[0].puddings) == kept
    assert game.puddings() == tuple(kept)


# -- the winner -----------------------------------------------------------------------------


def finished(options: GameOptions, predicate: Callable[[Game], bool]) -> Game:
    def scenario(game: Game) -> bool:
        play_out(game, seeded_policy(game.seed))
        return predicate(game)

    return find(options, scenario)[1]


def top_tied(game: Game) -> list[int]:
    totals = game.returns()
    return [s for s, t in enumerate(totals) if t == max(totals)]


def test_highest_total_wins() -> None:
    game = finished(GameOptions(4), lambda g: len(top_tied(g)) == 1)
    (best,) = top_tied(game)
    assert game.winners() == (best,)
    assert game.places()[best] == 1
    assert sorted(game.places())[1] == 2


def test_tied_total_most_puddings_wins() -> None:
    def tie_broken(g: Game) -> bool:
        tied = top_tied(g)
        return len(tied) == 2 and g.puddings()[tied[0]] != g.puddings()[tied[1]]

    game = finished(GameOptions(2), tie_broken)
    a, b = top_tied(game)
    winner = a if game.puddings()[a] > game.puddings()[b] else b
    assert game.returns()[a] == game.returns()[b]
    assert game.winners() == (winner,)
    assert game.places()[winner] == 1
    assert game.places()[a + b - winner] == 2


def test_tied_total_and_puddings_is_a_shared_win() -> None:
    def shared(g: Game) -> bool:
        tied = top_tied(g)
        return len(tied) >= 2 and len({g.puddings()[s] for s in tied}) == 1

    game = finished(GameOptions(2), shared)
    assert game.winners() == (0, 1)
    assert game.places() == (1, 1)
    over_events = rebuild(game.options, game.seed, game.history[:-1]).apply(list(game.history[-1]))
    over = next(e for e in over_events if isinstance(e, GameOver))
    assert over.winners == (0, 1)
    assert over.places == (1, 1)


def test_places_tied_seats_share_a_place_and_the_next_is_skipped() -> None:
    """Ruling: ranked by total, then puddings; still tied seats share the place (1, 1, 3)."""
    game = finished(GameOptions(3), lambda g: sorted(g.places()) == [1, 1, 3])
    places = game.places()
    tied = [s for s in range(3) if places[s] == 1]
    assert game.returns()[tied[0]] == game.returns()[tied[1]]
    assert game.puddings()[tied[0]] == game.puddings()[tied[1]]
    assert set(game.winners()) == set(tied)


def test_places_a_tie_below_the_top_shares_second() -> None:
    game = finished(GameOptions(3), lambda g: sorted(g.places()) == [1, 2, 2])
    assert len(game.winners()) == 1
    assert list(game.places()) == ref_places(game.returns(), game.puddings())


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_final_scores_add_pudding_points_and_rank_seats(players: int) -> None:
    for seed in list(seeds(b"final", 15)):
        game = Game(GameOptions(players), seed)
        events = play_out(game, seeded_policy(seed))
        over = events[-1]
        assert isinstance(over, GameOver)
        rounds = [e for e in events if isinstance(e, RoundScored)]
        assert len(rounds) == 3
        assert list(over.pudding_points) == ref_puddings(list(game.puddings()))
        assert list(over.totals) == [
            rounds[-1].totals[s] + over.pudding_points[s] for s in range(players)
        ]
        assert game.returns() == over.totals
        assert list(over.places) == ref_places(over.totals, game.puddings())
        assert over.winners == tuple(s for s in range(players) if over.places[s] == 1)
        assert game.places() == over.places and game.winners() == over.winners


def test_game_over_event_comes_once_at_the_very_end() -> None:
    game = Game(GameOptions(4), b"the-end")
    events = play_out(game, first_legal)
    assert [type(e) for e in events].count(GameOver) == 1
    assert isinstance(events[-1], GameOver)
    assert game.is_terminal()
    assert game.legal_actions(0) == ()
    assert len(reveals(events)) == 3 * 8


def test_cached_legal_sets_are_every_hand_s_own() -> None:
    """The legal-set caches key a hand by the kinds it holds (and, with chopsticks ready, holds
    twice), two ways by hand size: any two hands sharing a key must have the same legal actions.
    Thousands of random hands of 1 to 11 cards, each checked against the brute-force rules after
    the others filled the caches."""
    rng = random.Random(18)
    deck = [card for card in CARDS for _ in range(15)]
    for _ in range(4000):
        size = rng.randint(1, 11)
        hand = rng.sample(deck, size)
        chopsticks = rng.random() < 0.5
        got = legal_set(pack(hand), size, chopsticks, False)
        assert set(got) == ref_legal(hand, chopsticks, False), (sorted(hand), chopsticks)
        assert len(set(got)) == len(got)
