"""Every widget renders at 80x24, without an exception, for every state random playouts reach."""

from __future__ import annotations

import random

import pytest
from feed import Feed
from tui_helpers import Output80x24, card, render_all

from sushigo.client.tui import AppState, CreateForm, build_application, screen_text
from sushigo.engine import GameOptions, RoundScored
from sushigo.engine.games import rules
from sushigo.protocol import (
    SeatInfo,
    TableInfo,
    TableList,
    TableSettings,
    TableStatus,
)

VARIANTS = [
    GameOptions(players=2),
    GameOptions(players=3, soy_sauce=True),
    GameOptions(players=4, pass_both_ways=True),
    GameOptions(players=5),
    GameOptions(players=5, pass_both_ways=True, soy_sauce=True),
    GameOptions(players=2, dummy=True),
    GameOptions(players=2, dummy=True, soy_sauce=True, pass_both_ways=True),
]

NAMES = ("a-name-of-24-characters!", "default-bot-1", "Zoë", "heuristic-bot-12", "b")


@pytest.mark.parametrize(
    "options", VARIANTS, ids=lambda o: f"{o.players}p-{'+'.join(o.variants())}"
)
def test_widgets_render_through_random_playouts(options: GameOptions) -> None:
    rng = random.Random(f"render {options}")
    clock = [100.0]
    state = AppState(now=lambda: clock[0], address="127.0.0.1:7777")
    app = build_application(state, output=Output80x24())
    feed = Feed(state, "sushi-go", options.players, variants=options.variants())
    feed.names = NAMES[: options.players]
    feed.start()
    step = 0
    while not feed.game.is_terminal():
        step += 1
        feed.seat = None if step % 7 == 0 else step % options.players
        state.seat = feed.seat
        feed.turn_start(deadline_ms=30_000)
        board = card(state)
        hand = board.hand
        clock[0] += rng.uniform(0, 40)
        # A random choice in progress: cursor, marks, a dummy card; sometimes an overlay.
        if hand:
            board.cursor = rng.randrange(len(hand))
            board.marked = rng.sample(range(len(hand)), k=min(len(hand), rng.randint(0, 2)))
            board.dummy_index = rng.choice([None, rng.randrange(len(hand))])
        state.show_help = rng.random() < 0.05
        state.confirm_quit = rng.random() < 0.05
        board.chosen_action()
        board.describe_choice()
        screen = render_all(state, app)
        if feed.seat is not None and not (state.show_help or state.confirm_quit):
            assert "round" in screen.split("\n")[0]
        board.commits = [rng.choice(["", "picked", "committed", "auto"]) for _ in hand]
        render_all(state, app)
        events = feed.play(feed.random_actions(rng))
        if any(isinstance(e, RoundScored) for e in events) and not feed.game.is_terminal():
            state.show_help = state.confirm_quit = False
            assert state.summary == "round"
            assert "Round " in screen_text(app, 80, 24) and " scores" in screen_text(app, 80, 24)
            state.summary = None
    assert len(card(state).round_scores) == 3 and card(state).game_over is not None
    feed.end()
    state.show_help = state.confirm_quit = False
    screen = render_all(state, app)
    assert "Game over" in screen and "pud" in screen
    state.own_fairness.failures.append("round 1 turn 1: seat 1's pick does not open its commitment")
    screen = render_all(state, app)
    assert "FAIRNESS CHECK FAILED" in screen


def _table(
    table_id: str, players: int, taken: int, status: TableStatus, *variants: str
) -> TableInfo:
    seats = tuple(
        SeatInfo(
            seat=i,
            player_id=f"p{i}" if i < taken else None,
            name=NAMES[i] if i < taken else None,
            bot=i == 1 and i < taken,
        )
        for i in range(players)
    )
    return TableInfo(
        table_id=table_id,
        settings=TableSettings(kind="sushi-go", players=players, variants=variants),
        status=status,
        host="p0",
        seats=seats,
        spectators=players - taken,
    )


def test_lobby_widgets_render() -> None:
    state = AppState(address="[::1]:7777")
    app = build_application(state, output=Output80x24())
    assert "no tables yet" in render_all(state, app)
    statuses = list(TableStatus)
    tables = (
        *(
            _table(f"table{i:07d}", 2 + i % 4, i % 3, statuses[i % 3], *("soy_sauce",) * (i % 2))
            for i in range(40)
        ),
        _table("dummy", 2, 1, TableStatus.OPEN, "dummy", "pass_both_ways"),
    )
    state.apply(TableList(tables=tables))
    state.table_cursor = 30
    screen = render_all(state, app)
    assert "▸ table0000030" in screen  # the list scrolls to the cursor
    state.form = CreateForm()
    for field in range(len(state.form.fields()) * 2):
        state.form.field = field % len(state.form.fields())
        for _ in range(8):
            state.form.change(1)
            screen = render_all(state, app)
            assert "Create a table" in screen
            settings = state.form.settings()
            # Every combination the form reaches makes a game.
            assert rules(settings.kind).options(settings.players, settings.variants) is not None
    state.form = None
    state.table, state.seat = tables[-1], 0
    screen = render_all(state, app)
    assert "seat 2: (empty)" in screen


def test_summaries_say_who_won_the_maki_and_pudding_races() -> None:
    """Each round's summary names the maki race's winners and the game's the pudding race's,
    as the score pad's notes would, from the points the events carry."""
    state = AppState(address="127.0.0.1:7777")
    app = build_application(state, output=Output80x24())
    feed = Feed(state, "sushi-go", 4)
    feed.names = ("ann", "bob", "cy", "di")
    feed.seat = state.seat = 0
    feed.start()
    rng = random.Random(8)
    races = 0
    while not feed.game.is_terminal():
        feed.turn_start()
        for event in feed.play(feed.random_actions(rng)):
            if isinstance(event, RoundScored) and not feed.game.is_terminal():
                maki = [p.maki for p in event.points]
                screen = " ".join(screen_text(app, 80, 24).split())
                if any(maki):
                    best = max(maki)
                    most = ", ".join(_who(s) for s, got in enumerate(maki) if got == best)
                    assert f"maki: most {most} (+{best})" in screen, screen
                    races += 1
                else:
                    assert "maki:" not in screen
                state.summary = None
    feed.end()
    pudding = card(state).game_over.pudding_points  # type: ignore[union-attr]
    screen = " ".join(screen_text(app, 80, 24).split())
    assert races >= 2
    if any(pudding):
        most = ", ".join(_who(s) for s, got in enumerate(pudding) if got == max(pudding))
        assert f"pudding: most {most} (+{max(pudding)})" in screen, screen
    if min(pudding) < 0:
        fewest = ", ".join(_who(s) for s, got in enumerate(pudding) if got == min(pudding))
        assert f"fewest {fewest} ({min(pudding)})" in screen, screen


def _who(seat: int) -> str:
    return "you" if seat == 0 else ("ann", "bob", "cy", "di")[seat]
