"""The state object alone: the hand choice, the countdown on an injected clock, the form."""

from __future__ import annotations

from feed import NAMES
from tui_helpers import card

from sushigo.client.tui import AppState, CreateForm
from sushigo.client.tui.games.sushi_go.card_board import tableau_fragments
from sushigo.client.tui.layout import header_text, keys_text, status_text
from sushigo.engine import Action, Card, Game, GameOptions, Observation, TableauView
from sushigo.protocol import Commitments, GameStarting, TurnStart


def _text(fragments: list[tuple[str, str]]) -> str:
    return "".join(f[1] for f in fragments)


def _turn(state: AppState, obs: Observation, deadline_ms: int = 0) -> None:
    """The card game's TURN_START of `obs` (after its GAME_STARTING, the first time)."""
    if state.board is None:
        state.apply(
            GameStarting(
                table_id="t1",
                kind="sushi-go",
                options=obs.options,
                seat=obs.seat,
                players=NAMES[: obs.players],
                server_seed_hash=bytes(32),
            )
        )
    seats = tuple(range(obs.players))
    state.apply(
        TurnStart(
            round=obs.round, turn=obs.turn, seats=seats, observation=obs, deadline_ms=deadline_ms
        )
    )


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
    card(state).select(3)
    card(state).toggle_mark()
    card(state).select(1)
    card(state).toggle_mark()
    assert card(state).marked == [3, 1]
    action, why = card(state).chosen_action()
    assert action is None and "chopsticks" in why
    assert "Enter will refuse" in state.status
    card(state).toggle_mark()  # cursor on 1: unmark it
    assert card(state).marked == [3]
    action, why = card(state).chosen_action()
    assert action == Action(obs.hand[3]) and why == ""
    card(state).select(40)
    assert "there is no card 41" in state.status and card(state).cursor == 1


def test_chopsticks_ready_allows_two_cards_in_the_chosen_order() -> None:
    hand = (Card.EGG, Card.SALMON, Card.WASABI)
    me = TableauView((Card.CHOPSTICKS,), (), 0, 0, 0, (), 3, True)
    other = TableauView((), (), 0, 0, 0, (), 3, False)
    obs = Observation(GameOptions(players=2), 0, 1, 2, hand, (me, other), 1, None, False)
    state = AppState()
    _turn(state, obs)
    assert "space: mark 2 cards" in _text(keys_text(state))
    for index in (2, 1):  # wasabi first, then salmon: the salmon lands on it
        card(state).select(index)
        card(state).toggle_mark()
    assert card(state).chosen_action() == (Action(Card.WASABI, Card.SALMON), "")
    card(state).select(0)
    card(state).toggle_mark()
    assert "two cards are marked already" in state.status


def test_the_dummy_controller_must_choose_the_dummys_card() -> None:
    game = Game(GameOptions(players=2, dummy=True), b"seed")
    obs = game.observation(0)
    assert obs.dummy_controller == 0
    state = AppState()
    _turn(state, obs)
    assert "d: dummy's card" in _text(keys_text(state))
    assert "and the dummy's" in _text(status_text(state))
    action, why = card(state).chosen_action()
    assert action is None and "you control the dummy" in why
    card(state).select(1)
    card(state).toggle_dummy()
    card(state).select(0)
    action, why = card(state).chosen_action()
    assert action == Action(obs.hand[0], dummy=obs.hand[1])
    card(state).toggle_mark()
    card(state).select(1)
    card(state).toggle_mark()  # marking the dummy's card for ourselves takes it from the dummy
    assert card(state).dummy_index is None
    # The other seat does not control the dummy: d is refused.
    other = AppState()
    _turn(other, game.observation(1))
    card(other).toggle_dummy()
    assert "do not control the dummy" in other.status and card(other).dummy_index is None


def test_after_a_pick_nothing_more_can_be_confirmed() -> None:
    state = AppState()
    obs = Game(GameOptions(players=2), b"seed").observation(0)
    _turn(state, obs)
    card(state).played(Action(obs.hand[0]))
    action, why = card(state).chosen_action()
    assert action is None and "already" in why
    watcher = AppState()
    _turn(watcher, Game(GameOptions(players=2), b"seed").observation(None))
    assert card(watcher).chosen_action()[1].startswith("you are watching")


def test_tableau_groups_kinds_and_pairs_wasabi_with_its_nigiri() -> None:
    cards = (Card.SALMON, Card.WASABI, Card.MAKI3, Card.SQUID, Card.MAKI2, Card.WASABI, Card.EGG)
    cards += (Card.TEMPURA, Card.TEMPURA, Card.WASABI)
    view = TableauView(cards, (Card.SQUID, Card.EGG), 1, 0, 0, (), 0, False)
    assert _text(tableau_fragments(view)) == "maki:5 tempura×2 salmon W+squid W+egg W+_"


def test_the_form_keeps_settings_that_make_a_game() -> None:
    form = CreateForm()
    assert form.fields() == (
        "game",
        "players",
        "variant:pass_both_ways",
        "variant:dummy",
        "variant:soy_sauce",
        "turn_seconds",
        "bots",
        "strategy",
        "create",
    )
    form.field = form.fields().index("variant:dummy")
    form.change(1)  # the dummy needs two players: the count follows
    assert (form.variants, form.players, form.bots) == (["dummy"], 2, 1)
    form.field = form.fields().index("players")
    form.change(1)  # three players allow no dummy: it goes off
    assert (form.variants, form.players) == ([], 3)
    form.field = form.fields().index("bots")
    for _ in range(5):
        form.change(1)
    assert form.bots == 2
    settings = form.settings()
    assert (settings.kind, settings.players, settings.variants) == ("sushi-go", 3, ())
    form.field = form.fields().index("variant:soy_sauce")
    form.change(1)
    assert form.settings().variants == ("soy_sauce",)


def test_the_form_offers_what_each_game_has() -> None:
    form = CreateForm()
    form.variants = ["soy_sauce"]
    form.change(1)  # the game field: the next installed game
    assert form.game == "sushi-roll" and form.variants == []
    assert not any(f.startswith("variant:") for f in form.fields())
    form.field = form.fields().index("strategy")
    seen = set()
    for _ in range(len(form.strategies())):
        form.change(1)
        seen.add(form.strategy)
    # Bots by level, for people, not by algorithm.
    assert seen == set(form.strategies()) == {"easy", "medium", "hard", "expert"}
    settings = form.settings()
    assert settings.kind == "sushi-roll" and settings.variants == ()
