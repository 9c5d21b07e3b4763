"""The two-player dummy variant and its rulings (RULES.md section 1, Variants)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import pytest
from engine_helpers import (
    CHOP,
    find,
    first_legal,
    play_out,
    play_turn,
    ref_places,
    ref_puddings,
    ref_round,
    ref_round_breakdown,
    seeded_policy,
    shuffled_deck,
    snapshot,
)

from sushigo.engine import (
    Action,
    Card,
    CardNotInHandError,
    ChopsticksReturned,
    DummyPickError,
    Game,
    GameOptions,
    GameOver,
    PicksRevealed,
    RoundScored,
    score_puddings,
    score_round,
)

DUMMY = GameOptions(2, dummy=True)


def test_dummy_has_its_own_tableau_after_the_seats() -> None:
    game = Game(DUMMY, b"own-tableau")
    obs = game.observation(0)
    assert len(obs.tableaus) == 3
    assert [v.is_dummy for v in obs.tableaus] == [False, False, True]
    action = first_legal(game, 0)
    assert action.dummy is not None
    game.apply([action, first_legal(game, 1)])
    assert game.observation(None).tableaus[2].cards == (action.dummy,)
    assert len(game.scores()) == 3
    assert len(game.puddings()) == 3


def test_first_controller_is_seat_0_and_control_alternates_every_turn_across_rounds() -> None:
    game = Game(DUMMY, b"alternate")
    events = play_out(game, first_legal)
    controllers = [
        (e.round, e.turn, e.dummy_controller) for e in events if isinstance(e, PicksRevealed)
    ]
    assert len(controllers) == 27
    # Nine turns a round: round 2 starts with seat 1, round 3 with seat 0 again.
    assert [c for _, _, c in controllers] == [i % 2 for i in range(27)]
    assert controllers[0] == (1, 1, 0)
    assert controllers[9] == (2, 1, 1)
    assert controllers[18] == (3, 1, 0)


def test_controller_is_shown_in_every_observation() -> None:
    game = Game(DUMMY, b"shown")
    turns = 0
    while not game.is_terminal():
        ctrl = game.dummy_controller
        assert ctrl == turns % 2
        for seat in (0, 1, None):
            assert game.observation(seat).dummy_controller == ctrl
        play_turn(game, first_legal)
        turns += 1
    assert game.dummy_controller is None


def test_controller_picks_for_itself_and_the_dummy_the_other_seat_picks_one() -> None:
    seed = b"pick-two"
    cards = shuffled_deck(seed)
    game = Game(DUMMY, seed)
    assert all(a.dummy is not None for a in game.legal_actions(0))
    assert all(a.dummy is None for a in game.legal_actions(1))
    a0, a1 = first_legal(game, 0), first_legal(game, 1)
    hand0, hand1 = Counter(game.hand(0)), Counter(game.hand(1))
    game.apply([a0, a1])
    # The seats swap hands (the dummy pile stays); seat 1 controls now and draws the pile's
    # next card, the 20th card of the deck.
    assert Counter(game.hand(1)) == hand0 - Counter([a0.first, a0.dummy]) + Counter([cards[19]])
    assert Counter(game.hand(0)) == hand1 - Counter([a1.first])
    assert [len(game.hand(0)), len(game.hand(1))] == [8, 9]


def test_after_nine_turns_the_pile_and_the_hands_are_empty() -> None:
    game = Game(DUMMY, b"nine-turns")
    events: list[object] = []
    for _ in range(9):
        assert game.round == 1
        events += play_turn(game, first_legal)
    scored = [e for e in events if isinstance(e, RoundScored)]
    assert len(scored) == 1
    assert len(scored[0].points) == 3
    assert game.round == 2
    assert game.card_count() == 108


def test_dummy_tableau_gets_one_card_per_turn_and_takes_part_in_round_scoring() -> None:
    game = Game(DUMMY, b"dummy-scores")
    policy = seeded_policy(b"dummy-scores")
    while not game.is_terminal():
        before = [list(v.cards) for v in game.observation(None).tableaus]
        actions = [policy(game, s) for s in range(2)]
        events = game.apply(actions)
        ctrl = events[0].dummy_controller  # type: ignore[union-attr]
        dummy_card = actions[ctrl].dummy
        assert dummy_card is not None
        scored = [e for e in events if isinstance(e, RoundScored)]
        if scored:
            final = [before[0] + [actions[0].first], before[1] + [actions[1].first]]
            final.append(before[2] + [dummy_card])
            assert len(final[2]) == 9
            assert [p.total for p in scored[0].points] == ref_round(final)
        else:
            assert game.observation(None).tableaus[2].cards[-1] == dummy_card


def dummy_maki_matters(game: Game) -> list[list[Card]] | None:
    """A round where the dummy wins the maki race outright and a seat is second: its tableaus."""
    policy = seeded_policy(game.seed)
    while not game.is_terminal():
        before = [list(v.cards) for v in game.observation(None).tableaus]
        actions = [policy(game, s) for s in range(2)]
        events = game.apply(actions)
        for e in events:
            if isinstance(e, RoundScored):
                maki = [p.maki for p in e.points]
                if maki[2] == 6 and 3 in maki[:2]:
                    ctrl = events[0].dummy_controller  # type: ignore[union-attr]
                    last = [actions[0].first, actions[1].first, actions[ctrl].dummy]
                    return [before[t] + [last[t]] for t in range(3)]  # type: ignore[list-item]
    return None


def test_dummy_takes_part_in_maki_as_a_third_player() -> None:
    _, _, found = find(DUMMY, dummy_maki_matters, limit=500)
    tableaus: list[list[Card]] = found  # type: ignore[assignment]
    with_dummy = score_round([[c.label for c in t] for t in tableaus])
    assert with_dummy == ref_round(tableaus)
    maki = [p["maki"] for p in ref_round_breakdown(tableaus)]
    second = maki.index(3)
    assert maki[2] == 6
    # Between the two seats alone, the seat that came second had the most maki: it is the
    # dummy's tableau that pushed it down to 3.
    seats_only = [p["maki"] for p in ref_round_breakdown(tableaus[:2])]
    assert seats_only[second] == 6


def test_dummy_takes_part_in_puddings_and_the_fewest_penalty_applies() -> None:
    def penalised_seat(game: Game) -> bool:
        play_out(game, seeded_policy(game.seed))
        return any(p < 0 for p in score_puddings(list(game.puddings()))[:2])

    _, game, _ = find(DUMMY, penalised_seat, limit=500)
    puddings = list(game.puddings())
    assert len(puddings) == 3
    points = score_puddings(puddings)
    assert points == ref_puddings(puddings)
    assert any(p < 0 for p in points[:2])  # a seat loses points: no two-player exemption
    last = game.round_points()[-1]
    round_totals = [sum(r[t].total for r in game.round_points()) for t in range(3)]
    assert list(game.scores()) == [round_totals[t] + points[t] for t in range(3)]
    assert len(last) == 3


def dummy_ahead(measure: Callable[[Game], tuple[int, ...]]) -> Callable[[Game], bool]:
    """Whether a game, played out, leaves the dummy ahead of both seats by `measure` (its
    puddings, its scores): what `find` looks for."""

    def ahead(game: Game) -> bool:
        play_out(game, seeded_policy(game.seed))
        values = measure(game)
        return values[2] > max(values[0], values[1])

    return ahead


def test_dummy_pudding_counts_in_the_most_comparison() -> None:
    _, game, _ = find(DUMMY, dummy_ahead(Game.puddings), limit=500)
    points = score_puddings(list(game.puddings()))
    assert points[2] == 6
    assert points[0] <= 0 and points[1] <= 0


def test_dummy_points_are_shown_but_it_cannot_win() -> None:
    _, game, _ = find(DUMMY, dummy_ahead(Game.scores), limit=1000)
    scores = game.scores()
    assert len(scores) == 3
    assert game.observation(None).tableaus[2].score == scores[2]
    assert len(game.returns()) == 2
    assert len(game.places()) == 2
    assert 2 not in game.winners()
    assert list(game.places()) == ref_places(game.returns(), game.puddings()[:2])
    assert 1 in game.places()


def test_game_over_event_totals_include_the_dummy_places_do_not() -> None:
    game = Game(DUMMY, b"over")
    events = play_out(game, first_legal)
    over = events[-1]
    assert isinstance(over, GameOver)
    assert len(over.totals) == 3
    assert len(over.pudding_points) == 3
    assert len(over.places) == 2
    assert all(w in (0, 1) for w in over.winners)


def test_dummy_never_uses_chopsticks() -> None:
    """A chopsticks card given to the dummy stays in its tableau: it never returns to a hand."""

    def dummy_gets_chopsticks(game: Game) -> bool:
        while game.round == 1:
            ctrl = game.dummy_controller
            give = [a for a in game.legal_actions(ctrl) if a.dummy == CHOP and a.second is None]  # type: ignore[arg-type]
            if give and game.turn <= 5:
                play_turn(game, first_legal, {ctrl: give[0]})  # type: ignore[dict-item]
                return True
            play_turn(game, first_legal)
        return False

    _, game, _ = find(DUMMY, dummy_gets_chopsticks, limit=500)
    assert CHOP in game.observation(None).tableaus[2].cards
    assert not game.observation(None).tableaus[2].chopsticks_ready
    count = game.observation(None).tableaus[2].cards.count(CHOP)
    while game.round == 1:
        ctrl = game.dummy_controller
        # The controller's options for the dummy are single cards; no action names a dummy pair.
        assert all(len(a) == 3 for a in game.legal_actions(ctrl))  # type: ignore[arg-type]
        events = play_turn(game, first_legal)
        assert ChopsticksReturned(2) not in events
        if game.round == 1:
            assert game.observation(None).tableaus[2].cards.count(CHOP) >= count


def controller_with_ready_chopsticks(game: Game) -> bool:
    """Seat 0 takes chopsticks on a turn it controls; two turns later it controls again."""
    while game.round == 1 and game.turn <= 5:
        ctrl = game.dummy_controller
        take = [a for a in game.legal_actions(0) if a.first == CHOP and a.second is None]
        if ctrl == 0 and take:
            play_turn(game, first_legal, {0: take[0]})
            play_turn(game, first_legal)  # seat 1 controls
            return game.dummy_controller == 0 and len(game.hand(0)) >= 3
        play_turn(game, first_legal)
    return False


def test_controller_may_use_own_chopsticks() -> None:
    _, game, _ = find(DUMMY, controller_with_ready_chopsticks, limit=500)
    assert game.observation(0).tableaus[0].chopsticks_ready
    pairs = [a for a in game.legal_actions(0) if a.second is not None]
    assert pairs and all(a.dummy is not None for a in pairs)
    action = pairs[0]
    size = len(game.hand(0))
    events = play_turn(game, first_legal, {0: action})
    assert ChopsticksReturned(0) in events
    tableaus = game.observation(None).tableaus
    assert tableaus[0].cards[-2:] == (action.first, action.second)
    assert tableaus[2].cards[-1] == action.dummy
    # Seat 0 passed size - 3 + 1 cards (chopsticks back in); seat 1 now controls and draws one.
    assert len(game.hand(1)) == size - 3 + 1 + 1
    assert CHOP in game.hand(1)
    assert len(game.hand(0)) == size - 3 + 1


def test_controller_gives_the_dummy_a_card_before_used_chopsticks_return() -> None:
    """Ruling: the returned chopsticks cannot be the dummy's card on the same turn."""
    _, game, _ = find(DUMMY, controller_with_ready_chopsticks, limit=500)
    hand = game.hand(0)
    assert CHOP not in hand  # so the only chopsticks about is the one being used
    a, b = hand[0], hand[1]
    assert not any(x.dummy == CHOP for x in game.legal_actions(0))
    before = snapshot(game)
    with pytest.raises(CardNotInHandError):
        game.apply([Action(a, b, CHOP), first_legal(game, 1)])
    assert snapshot(game) == before


def test_controller_needs_three_cards_to_use_chopsticks() -> None:
    """On the last turn the controller holds two cards: one for itself, one for the dummy."""

    def ready_on_last_turn(game: Game) -> bool:
        while not game.is_terminal() and game.round == 1:
            if game.turn == 9:
                ctrl = game.dummy_controller
                return bool(
                    ctrl is not None and game.observation(ctrl).tableaus[ctrl].chopsticks_ready
                )
            take = [a for a in game.legal_actions(0) if a.first == CHOP and a.second is None]
            play_turn(game, first_legal, {0: take[0]} if take else {})
        return False

    _, game, _ = find(DUMMY, ready_on_last_turn, limit=1500)
    ctrl = game.dummy_controller
    assert ctrl == 0
    assert len(game.hand(ctrl)) == 2
    assert all(a.second is None for a in game.legal_actions(ctrl))


def test_missing_dummy_pick_is_refused() -> None:
    game = Game(DUMMY, b"missing")
    before = snapshot(game)
    own = Action(game.hand(0)[0])
    with pytest.raises(DummyPickError) as info:
        game.apply([own, first_legal(game, 1)])
    assert info.value.seat == 0
    assert snapshot(game) == before


def test_unexpected_dummy_pick_is_refused() -> None:
    game = Game(DUMMY, b"unexpected")
    before = snapshot(game)
    hand = game.hand(1)
    with pytest.raises(DummyPickError) as info:
        game.apply([first_legal(game, 0), Action(hand[0], None, hand[1])])
    assert info.value.seat == 1
    assert snapshot(game) == before


def test_dummy_pick_outside_the_dummy_variant_is_refused() -> None:
    game = Game(GameOptions(2), b"no-dummy")
    before = snapshot(game)
    hand = game.hand(0)
    with pytest.raises(DummyPickError):
        game.apply([Action(hand[0], None, hand[1]), first_legal(game, 1)])
    assert snapshot(game) == before


def test_dummy_pick_must_come_from_the_hand() -> None:
    game = Game(DUMMY, b"from-hand")
    hand = Counter(game.hand(0))
    missing = next(c for c in Card if c not in hand)
    before = snapshot(game)
    with pytest.raises(CardNotInHandError):
        game.apply([Action(game.hand(0)[0], None, missing), first_legal(game, 1)])
    # The controller's own card and the dummy's card are two different cards of the hand.
    single = next((c for c, n in hand.items() if n == 1), None)
    if single is not None:
        with pytest.raises(CardNotInHandError):
            game.apply([Action(single, None, single), first_legal(game, 1)])
    assert snapshot(game) == before
