"""The state object alone: the hand choice, the countdown on an injected clock, the form."""

from __future__ import annotations

from sushigo.client.tui import AppState, CreateForm
from sushigo.client.tui.layout import header_text, keys_text, status_text, tableau_fragments
from sushigo.engine import Action, Card, Game, GameOptions, Observation, TableauView
from sushigo.protocol import Commitments, TurnStart


def _text(fragments: list[tuple[str, str]]) -> str:
    return "".join(f[1] for f in fragments)


def _turn(state: AppState, obs: Observation, deadline_ms: int = 0) -> None:
    state.apply(TurnStart(round=obs.round, turn=obs.turn, observation=obs, deadline_ms=deadline_ms))


def test_countdown_follows_the_injected_clock() -> None:
    clock = [1000.0]
    state = AppState(now=lambda: clock[0])
    _turn(state, Game(GameOptions(players=3), b"seed").observation(0), deadline_ms=30_000)
    assert "time 30s" in _text(header_text(state))
    clock[0] += 12.5
    assert "time 18s" in _text(header_text(state))
    clock[0] += 100
    assert "time 0s" in _text(header_text(state))
    state.apply(Commitments(round=1, turn=1, commitments=(None, None, None)))
    assert state.deadline is None and "time" not in _text(header_text(state))
    assert "the server picked for you" in state.status and state.status_error


def test_marks_keep_their_order_and_need_chopsticks() -> None:
    state = AppState()
    obs = Game(GameOptions(players=2), b"seed").observation(0)
    _turn(state, obs)
    state.select(3)
    state.toggle_mark()
    state.select(1)
    state.toggle_mark()
    assert state.marked == [3, 1]
    action, why = state.chosen_action()
    assert action is None and "chopsticks" in why
    assert "Enter will refuse" in state.status
    state.toggle_mark()  # cursor on 1: unmark it
    assert state.marked == [3]
    action, why = state.chosen_action()
    assert action == Action(obs.hand[3]) and why == ""
    state.select(40)
    assert "there is no card 41" in state.status and state.cursor == 1


def test_chopsticks_ready_allows_two_cards_in_the_chosen_order() -> None:
    hand = (Card.EGG, Card.SALMON, Card.WASABI)
    me = TableauView((Card.CHOPSTICKS,), (), 0, 0, 0, (), 3, True)
    other = TableauView((), (), 0, 0, 0, (), 3, False)
    obs = Observation(GameOptions(players=2), 0, 1, 2, hand, (me, other), 1, None, False)
    state = AppState()
    _turn(state, obs)
    assert "space: mark 2 cards" in _text(keys_text(state))
    for index in (2, 1):  # wasabi first, then salmon: the salmon lands on it
        state.select(index)
        state.toggle_mark()
    assert state.chosen_action() == (Action(Card.WASABI, Card.SALMON), "")
    state.select(0)
    state.toggle_mark()
    assert "two cards are marked already" in state.status


def test_the_dummy_controller_must_choose_the_dummys_card() -> None:
    game = Game(GameOptions(players=2, dummy=True), b"seed")
    obs = game.observation(0)
    assert obs.dummy_controller == 0
    state = AppState()
    _turn(state, obs)
    assert "d: dummy's card" in _text(keys_text(state))
    assert "and the dummy's" in _text(status_text(state))
    action, why = state.chosen_action()
    assert action is None and "you control the dummy" in why
    state.select(1)
    state.toggle_dummy()
    state.select(0)
    action, why = state.chosen_action()
    assert action == Action(obs.hand[0], dummy=obs.hand[1])
    state.toggle_mark()
    state.select(1)
    state.toggle_mark()  # marking the dummy's card for ourselves takes it from the dummy
    assert state.dummy_index is None
    # The other seat does not control the dummy: d is refused.
    other = AppState()
    _turn(other, game.observation(1))
    other.toggle_dummy()
    assert "do not control the dummy" in other.status and other.dummy_index is None


def test_after_a_pick_nothing_more_can_be_confirmed() -> None:
    state = AppState()
    obs = Game(GameOptions(players=2), b"seed").observation(0)
    _turn(state, obs)
    state.picked(Action(obs.hand[0]))
    action, why = state.chosen_action()
    assert action is None and "already" in why
    watcher = AppState()
    _turn(watcher, Game(GameOptions(players=2), b"seed").observation(None))
    assert watcher.chosen_action()[1].startswith("you are watching")


def test_tableau_groups_kinds_and_pairs_wasabi_with_its_nigiri() -> None:
    cards = (Card.SALMON, Card.WASABI, Card.MAKI3, Card.SQUID, Card.MAKI2, Card.WASABI, Card.EGG)
    cards += (Card.TEMPURA, Card.TEMPURA, Card.WASABI)
    view = TableauView(cards, (Card.SQUID, Card.EGG), 1, 0, 0, (), 0, False)
    assert _text(tableau_fragments(view)) == "maki:5 tempura×2 salmon W+squid W+egg W+_"


def test_the_form_keeps_settings_that_make_a_game() -> None:
    form = CreateForm()
    form.field = CreateForm.FIELDS.index("dummy")
    form.change(1)
    assert (form.dummy, form.players, form.bots) == (True, 2, 1)
    form.field = CreateForm.FIELDS.index("players")
    form.change(1)
    assert (form.dummy, form.players) == (False, 3)
    form.field = CreateForm.FIELDS.index("bots")
    for _ in range(5):
        form.change(1)
    assert form.bots == 2
    form.settings().options()
