"""What the lobby's keys ask of the server: tables, bots, chat. Errors land in the status line
(a board sends its game's actions itself: `board.Board.play`).

Each operation runs as a background task (`AppState.spawn`), so a slow server never freezes the
keyboard, and none of them raises: a refusal or a dropped connection is said in the status line.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

from sushigo.bots import levels
from sushigo.client.connection import Client, ConnectError, ConnectionLost, ServerError
from sushigo.engine.games import rules as game_rules
from sushigo.protocol import TableSettings, TableStatus

from .form import game_title
from .state import AppState

__all__ = [
    "add_bot",
    "create_from_form",
    "guarded",
    "join_selected",
    "leave",
    "play_bots",
    "quick_match",
    "refresh_tables",
    "seat_with_bots",
    "send_chat",
    "show_leaderboard",
    "start_game",
    "watch_selected",
]

LOBBY_REFRESH_SECONDS = 3.0
"""How often the lobby's table list is asked for again while it is on screen."""


async def guarded(state: AppState, coro: Coroutine[Any, Any, None]) -> None:
    """Run an operation; say in the status line why it failed, if it did."""
    try:
        await coro
    except ServerError as exc:
        state.say(f"server: {exc.error.message or exc}", error=True)
    except ConnectionLost:
        state.say("not connected: reconnecting…", error=True)
    except ConnectError as exc:
        state.say(str(exc), error=True)
    except Exception as exc:  # whatever else: said, never an exception in the event loop
        state.say(f"{type(exc).__name__}: {exc}", error=True)


def _client(state: AppState) -> Client:
    if state.client is None:
        raise ConnectError("not connected")
    return state.client


async def refresh_tables(state: AppState) -> None:
    """Ask for the table list (the reply updates the state as an event)."""
    await _client(state).list_tables()


async def lobby_refresher(state: AppState) -> None:
    """Keep the lobby's table list fresh while it is shown."""
    while True:
        if state.client is not None and state.client.connected and state.table is None:
            await guarded(state, refresh_tables(state))
        await asyncio.sleep(LOBBY_REFRESH_SECONDS)


def _selected(state: AppState) -> str | None:
    if not state.tables:
        state.say("no table chosen: n creates one", error=True)
        return None
    return state.tables[min(state.table_cursor, len(state.tables) - 1)].table_id


async def join_selected(state: AppState) -> None:
    """Sit at the table under the cursor (watch it if its game runs)."""
    table_id = _selected(state)
    if table_id is None:
        return
    table = next(t for t in state.tables if t.table_id == table_id)
    if table.status is TableStatus.PLAYING:
        await _client(state).spectate(table_id)
        state.say(f"that game is running: watching table {table_id}")
        return
    await _client(state).join_table(table_id)
    state.say(f"seated at table {table_id}")


async def watch_selected(state: AppState) -> None:
    """Watch the table under the cursor."""
    table_id = _selected(state)
    if table_id is not None:
        await _client(state).spectate(table_id)
        state.say(f"watching table {table_id}")


async def quick_match(state: AppState, players: int = 4) -> None:
    """Be seated at a table of the lobby's chosen game that starts by itself when full."""
    title = game_title(state.quick_kind)
    state.say(f"looking for a {players}-player {title} table…")
    await _client(state).quick_match(players, state.quick_kind)
    state.say("seated: the game starts when the table is full")


async def show_leaderboard(state: AppState) -> None:
    """The ladder of the lobby's chosen game, over the lobby."""
    state.leaderboard = await _client(state).leaderboard(state.quick_kind)
    state.notify()


async def play_bots(state: AppState, players: int = 4) -> None:
    """A quick game against bots: a table of the lobby's chosen game, every other seat a bot of
    the chosen level, started at once (a game that has no levels gets the server's default
    bots)."""
    rules = game_rules(state.quick_kind)
    seats = players if players in rules.players else rules.players[0]
    level = state.bot_level if state.bot_level in levels(state.quick_kind) else "default"
    settings = TableSettings(kind=state.quick_kind, players=seats, turn_seconds=60)
    await seat_with_bots(state, settings, seats - 1, level)


async def seat_with_bots(
    state: AppState, settings: TableSettings, bots: int, strategy: str = "default"
) -> None:
    """Create a table, seat `bots` server bots and start it when every seat is taken."""
    client = _client(state)
    state.say("creating a table…")
    await client.create_table(settings)
    for _ in range(min(bots, settings.players - 1)):
        await client.add_bot(strategy)
    if bots >= settings.players - 1:
        client.start_game()
        state.say("starting the game…")
    else:
        state.say(f"table open: waiting for {settings.players - 1 - bots} more (s starts)")


async def create_from_form(state: AppState) -> None:
    """Create the table the form describes."""
    form = state.form
    if form is None:
        return
    await seat_with_bots(state, form.settings(), form.bots, form.strategy)


async def add_bot(state: AppState, strategy: str = "default") -> None:
    """Host: seat a bot."""
    await _client(state).add_bot(strategy)


async def start_game(state: AppState) -> None:
    """Host: start (or restart) the table's game."""
    _client(state).start_game()
    state.say("starting the game…")


async def leave(state: AppState) -> None:
    """Leave the table for the lobby."""
    await _client(state).leave()
    state.left_table()
    state.say("back in the lobby")
    await refresh_tables(state)


async def send_chat(state: AppState, text: str) -> None:
    """Say something at the table, or in the lobby."""
    _client(state).chat(text)
