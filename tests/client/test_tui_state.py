"""The state object alone: the hand choice, the countdown on an injected clock, the form."""

from __future__ import annotations

import dataclasses
import random

import pytest
from feed import NAMES, Feed
from tui_helpers import Output80x24, card, render_all

from sushigo.client.tui import AppState, CreateForm, build_application
from sushigo.client.tui.games.sushi_go.card_board import tableau_fragments
from sushigo.client.tui.games.sushi_go.card_state import CardState
from sushigo.client.tui.layout import header_text, keys_text, players_text, status_text
from sushigo.engine import Action, Card, Game, GameOptions, Observation, TableauView
from sushigo.engine.games.sushi_go.observation import wasabi_placements
from sushigo.protocol import (
    Commitments,
    GameStarting,
    SeatInfo,
    Spectating,
    TableInfo,
    TableLeft,
    TableSettings,
    TableStatus,
    TurnStart,
)


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
    assert "space: mark 2 ·" in _text(keys_text(state))
    for index in (2, 1):  # wasabi first, then salmon: the salmon lands on it
        card(state).select(index)
        card(state).toggle_mark()
    assert card(state).chosen_action() == (Action(Card.WASABI, Card.SALMON), "")
    card(state).select(0)
    card(state).toggle_mark()
    assert "two cards are marked already" in state.status


def test_the_keys_line_fits_80_columns_with_chopsticks_ready_and_the_dummy_to_feed() -> None:
    game = Game(GameOptions(players=2, dummy=True), b"seed")
    obs = game.observation(0)
    me = dataclasses.replace(obs.tableaus[0], cards=(Card.CHOPSTICKS,), chopsticks_ready=True)
    obs = dataclasses.replace(obs, tableaus=(me, *obs.tableaus[1:]))
    state = AppState()
    app = build_application(state, output=Output80x24())
    _turn(state, obs)
    screen = render_all(state, app).split("\n")
    assert screen[-1].endswith("q: quit") and "space: mark 2" in screen[-1], screen[-1]
    assert "d: dummy" in screen[-1]


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


@pytest.mark.parametrize(
    ("players", "variants"),
    [(2, ()), (4, ()), (5, ("soy_sauce",)), (2, ("dummy",)), (3, ("pass_both_ways",))],
)
def test_a_turns_result_shows_every_pick_played_as_the_rules_place_it(
    players: int, variants: tuple[str, ...]
) -> None:
    """Through random playouts with chopsticks and wasabi: after each turn's result (before the
    next turn's start) the board's tableaus are the engine's after that turn, a round's last
    turn included (the engine's as they were scored); at the game's end every hand is empty."""
    rng = random.Random(f"{players}{variants}")
    for seat in (0, None):
        state = AppState()
        feed = Feed(
            state, "sushi-go", players, seat=seat, seed=bytes([players]) * 8, variants=variants
        )
        feed.start()
        while not feed.game.is_terminal():
            feed.turn_start()
            actions = feed.random_actions(rng)
            before = feed.game.clone()
            feed.play(actions)
            board = state.board
            assert isinstance(board, CardState) and board.obs is not None
            shown = board.obs.tableaus
            if feed.game.position[0] == before.position[0] and not feed.game.is_terminal():
                expected = feed.game.observation(seat).tableaus
            else:
                # The round's end cleared the engine's tableaus: the cards as they were scored.
                expected = _scored_tableaus(before, actions)
            for t, (got, want) in enumerate(zip(shown, expected, strict=True)):
                assert (got.cards, got.on_wasabi, got.open_wasabi) == (
                    want.cards,
                    want.on_wasabi,
                    want.open_wasabi,
                ), (t, actions)
                if not got.is_dummy:
                    assert got.puddings == want.puddings, (t, actions)
        feed.end()
        board = state.board
        assert isinstance(board, CardState) and board.obs is not None
        assert board.hand == () and all(v.hand_size == 0 for v in board.obs.tableaus[:players])
        # The last round's totals, before the puddings (the final totals come with the end).
        puddings = feed.game.pudding_points()
        assert [v.score for v in board.obs.tableaus] == [
            total - pudding for total, pudding in zip(feed.game.scores(), puddings, strict=True)
        ]


def _scored_tableaus(before: Game, actions: list[Action]) -> tuple[TableauView, ...]:
    """The tableaus of the round `before` is in once `actions` are played on them (the engine
    clears them as it scores the round, so they are rebuilt from its record of picks)."""
    cards = [list(view.cards) for view in before.observation(None).tableaus]
    for seat, action in enumerate(actions):
        cards[seat].append(action.first)
        if action.second is not None:
            cards[seat] += [action.second]
            cards[seat].remove(Card.CHOPSTICKS)
        if action.dummy is not None:
            cards[-1].append(action.dummy)
    views = []
    for view, played in zip(before.observation(None).tableaus, cards, strict=True):
        on, open_wasabi = wasabi_placements(tuple(played))
        views.append(
            TableauView(
                tuple(played),
                on,
                open_wasabi,
                view.puddings + played.count(Card.PUDDING) - view.cards.count(Card.PUDDING),
                0,
                (),
                0,
                False,
                view.is_dummy,
            )
        )
    return tuple(views)


def test_watching_another_table_shows_its_players_not_the_last_ones() -> None:
    """A spectator who watched one game and then another, both joined mid-game: the second
    game's seats carry its own players' names (they were the first table's)."""

    def table(table_id: str, names: tuple[str, ...]) -> TableInfo:
        seats = tuple(
            SeatInfo(seat=i, player_id=f"g:{name}", name=name) for i, name in enumerate(names)
        )
        settings = TableSettings(kind="sushi-go", players=len(names))
        return TableInfo(
            table_id=table_id, settings=settings, status=TableStatus.PLAYING, seats=seats
        )

    state = AppState()
    for table_id, names in (("t1", ("ann", "bob")), ("t2", ("cat", "dan"))):
        state.apply(Spectating(table=table(table_id, names)))
        obs = Game(GameOptions(players=2), table_id.encode()).observation(None)
        state.apply(TurnStart(round=1, turn=1, seats=(0, 1), observation=obs))
        assert [state.name_of(seat) for seat in (0, 1)] == list(names)
        assert all(name in _text(players_text(state)) for name in names)
        state.apply(TableLeft(table_id=table_id))
