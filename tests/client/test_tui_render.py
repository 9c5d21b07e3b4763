"""Every widget renders at 80x24, without an exception, for every state random playouts reach."""

from __future__ import annotations

import random

import pytest
from prompt_toolkit.application.current import set_app
from tui_helpers import Output80x24

from sushigo.client.tui import AppState, CreateForm, build_application, screen_text
from sushigo.client.tui.layout import WIDGETS
from sushigo.engine import Game, GameOptions, GameOver, PicksRevealed, RoundScored
from sushigo.protocol import (
    GameKind,
    GameStarting,
    Opening,
    SeatInfo,
    TableInfo,
    TableList,
    TableSettings,
    TableStatus,
    TurnResult,
    TurnStart,
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


def _render_all(state: AppState, app: object) -> str:
    with set_app(app):  # type: ignore[arg-type]  # (outside an app, get_app() builds one each call)
        for name, widget in WIDGETS.items():
            fragments = widget(state)
            assert isinstance(fragments, list), name
            for fragment in fragments:
                assert isinstance(fragment[0], str) and isinstance(fragment[1], str), name
    screen = screen_text(app, 80, 24)  # type: ignore[arg-type]
    lines = screen.split("\n")
    assert len(lines) == 24 and all(len(line) <= 80 for line in lines)
    return screen


@pytest.mark.parametrize(
    "options", VARIANTS, ids=lambda o: f"{o.players}p-{'+'.join(o.variants())}"
)
def test_widgets_render_through_random_playouts(options: GameOptions) -> None:
    rng = random.Random(f"render {options}")
    clock = [100.0]
    state = AppState(now=lambda: clock[0], address="127.0.0.1:7777")
    app = build_application(state, output=Output80x24())
    game = Game(options, rng.randbytes(32))
    players = options.players
    state.apply(
        GameStarting(
            table_id="t1",
            kind=GameKind.SUSHI_GO,
            options=options,
            seat=0,
            players=NAMES[:players],
            server_seed_hash=bytes(32),
        )
    )
    step = 0
    while not game.is_terminal():
        step += 1
        seat = None if step % 7 == 0 else step % players
        obs = game.observation(seat)
        state.apply(TurnStart(round=obs.round, turn=obs.turn, observation=obs, deadline_ms=30_000))
        clock[0] += rng.uniform(0, 40)
        # A random choice in progress: cursor, marks, a dummy card; sometimes an overlay.
        if obs.hand:
            state.cursor = rng.randrange(len(obs.hand))
            state.marked = rng.sample(range(len(obs.hand)), k=min(len(obs.hand), rng.randint(0, 2)))
            state.dummy_index = rng.choice([None, rng.randrange(len(obs.hand))])
        state.show_help = rng.random() < 0.05
        state.confirm_quit = rng.random() < 0.05
        state.chosen_action()
        state.describe_choice()
        screen = _render_all(state, app)
        if seat is not None and not (state.show_help or state.confirm_quit):
            assert "round" in screen.split("\n")[0]
        actions = [rng.choice(game.legal_actions(s)) for s in range(players)]
        events = game.apply(actions)
        state.commits = [rng.choice(["", "picked", "committed", "auto"]) for _ in range(players)]
        openings = tuple(Opening(action=a, nonce=None, auto=True) for a in actions)
        wire_events = tuple(
            e for e in events if not isinstance(e, PicksRevealed | RoundScored | GameOver)
        )
        state.apply(
            TurnResult(round=obs.round, turn=obs.turn, openings=openings, events=wire_events)
        )
        for event in events:
            if isinstance(event, RoundScored):
                state.record_round(event)
                state.show_help = state.confirm_quit = False
                assert f"Round {event.round} scores" in screen_text(app, 80, 24)
                state.summary = None
            elif isinstance(event, GameOver):
                state.record_game_over(event)
    state.observation = game.observation(0)
    state.show_help = state.confirm_quit = False
    screen = _render_all(state, app)
    assert "Game over" in screen
    state.own_fairness.failures.append("round 1 turn 1: seat 1's pick does not open its commitment")
    screen = _render_all(state, app)
    assert "FAIRNESS CHECK FAILED" in screen


def _table(
    table_id: str, players: int, taken: int, status: TableStatus, **variants: bool
) -> TableInfo:
    seats = tuple(
        SeatInfo(
            seat=i,
            player_id=f"p{i}" if i < taken else None,
            name=NAMES[i] if i < taken else None,
            bot=i == 1,
        )
        for i in range(players)
    )
    return TableInfo(
        table_id=table_id,
        settings=TableSettings(players=players, **variants),
        status=status,
        host="p0",
        seats=seats,
        spectators=players - taken,
    )


def test_lobby_widgets_render() -> None:
    state = AppState(address="[::1]:7777")
    app = build_application(state, output=Output80x24())
    assert "no tables yet" in _render_all(state, app)
    statuses = list(TableStatus)
    tables = (
        *(
            _table(f"table{i:07d}", 2 + i % 4, i % 3, statuses[i % 3], soy_sauce=bool(i % 2))
            for i in range(40)
        ),
        _table("dummy", 2, 1, TableStatus.OPEN, dummy=True, pass_both_ways=True),
    )
    state.apply(TableList(tables=tables))
    state.table_cursor = 30
    screen = _render_all(state, app)
    assert "▸ table0000030" in screen  # the list scrolls to the cursor
    state.form = CreateForm()
    for field in range(len(CreateForm.FIELDS)):
        state.form.field = field
        for _ in range(8):
            state.form.change(1)
            screen = _render_all(state, app)
            assert "Create a table" in screen
            settings = state.form.settings()
            if settings.kind == GameKind.SUSHI_ROLL:
                assert settings.roll_options() is not None
                assert "Sushi Go! only" in screen
            else:
                assert settings.options() is not None
    state.form = None
    state.table, state.seat = tables[-1], 0
    screen = _render_all(state, app)
    assert "seat 2: (empty)" in screen
