"""Key bindings, one `load_*_bindings(state)` function per screen, merged by the app.

The board of the game on screen brings the keys of a turn (`board.Board.key_bindings`); they
are looked up afresh at every key press, so a new game's board brings its own.

Modal things first: the quit confirmation and the help overlay take every key while shown; chat
input takes the keyboard while open. The screens' keys are filtered off in those moments, so a
stray ``q`` typed into a chat line is text, not a quit.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from prompt_toolkit.buffer import Buffer
from prompt_toolkit.filters import Condition, Filter
from prompt_toolkit.key_binding import (
    DynamicKeyBindings,
    KeyBindings,
    KeyPressEvent,
    merge_key_bindings,
)
from prompt_toolkit.key_binding.key_bindings import KeyBindingsBase
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import Window

from sushigo.bots import LEVELS, levels
from sushigo.engine.games import kinds

from . import ops
from .form import game_title
from .recent import load_recent_bindings
from .state import AppState, CreateForm

__all__ = [
    "load_chat_bindings",
    "load_game_bindings",
    "load_global_bindings",
    "load_key_bindings",
    "load_lobby_bindings",
]


def _free(state: AppState) -> Filter:
    """No modal is up (nor a replay, which has keys of its own: `recent`): the screen's own keys
    work."""
    return Condition(
        lambda: (
            not (state.chatting or state.confirm_quit or state.show_help or state.leaderboard)
            and state.replay is None
        )
    )


def _spawn(state: AppState, coro: object) -> None:
    assert state.spawn is not None, "the app installs state.spawn"
    state.spawn(ops.guarded(state, coro))  # type: ignore[arg-type]


Handler = Callable[[KeyPressEvent], None]
Operation = Callable[[AppState], Coroutine[Any, Any, None]]


def _keys(kb: KeyBindings, on: Filter, *keys: str) -> Callable[[Handler], Handler]:
    """A decorator: the handler, bound in `kb` to each of `keys` (each one key) while `on`."""

    def bind(handler: Handler) -> Handler:
        for key in keys:
            kb.add(key, filter=on)(handler)
        return handler

    return bind


def _bind_ops(kb: KeyBindings, state: AppState, on: Filter, keys: dict[str, Operation]) -> None:
    """Keys that each start one of `ops`' operations on the state (in the background, its
    failure said in the status line), while `on`."""
    for key, operation in keys.items():
        _keys(kb, on, key)(_starter(state, operation))


def _starter(state: AppState, operation: Operation) -> Handler:
    def handler(event: KeyPressEvent) -> None:
        _spawn(state, operation(state))

    return handler


def load_global_bindings(state: AppState) -> KeyBindings:
    """Help, quit (with confirmation), chat, redraw."""
    kb = KeyBindings()
    free = _free(state)
    confirming = Condition(lambda: state.confirm_quit)
    helping = Condition(lambda: state.show_help and not state.confirm_quit)

    @kb.add("?", filter=free)
    @_keys(kb, helping, "?", "enter", "escape")
    def _help(event: KeyPressEvent) -> None:
        state.show_help = not state.show_help
        state.notify()

    ranking = Condition(lambda: state.leaderboard is not None and not state.confirm_quit)

    @_keys(kb, ranking, "l", "enter", "escape")
    def _close_leaderboard(event: KeyPressEvent) -> None:
        state.leaderboard = None
        state.notify()

    @kb.add("q", filter=free)
    @kb.add("c-c", filter=~confirming)
    def _quit(event: KeyPressEvent) -> None:
        state.chatting = False
        state.confirm_quit = True
        state.notify()

    @_keys(kb, confirming, "y", "Y", "c-c")
    def _really(event: KeyPressEvent) -> None:
        state.interrupted = event.key_sequence[-1].key == Keys.ControlC
        event.app.exit()

    @_keys(kb, confirming, "n", "N", "escape", "enter")
    def _stay(event: KeyPressEvent) -> None:
        state.confirm_quit = False
        state.notify()

    @kb.add("c-l")
    def _redraw(event: KeyPressEvent) -> None:
        event.app.renderer.clear()

    return kb


def load_chat_bindings(state: AppState, chat_buffer: Buffer, home: Window) -> KeyBindings:
    """``c`` opens the chat line; Enter sends (the buffer's accept handler), Esc cancels."""
    kb = KeyBindings()
    free = _free(state)
    chatting = Condition(lambda: state.chatting)
    not_round = Condition(lambda: state.summary != "round" or state.final is not None)

    @kb.add("c", filter=free & not_round)
    def _open(event: KeyPressEvent) -> None:
        state.chatting = True
        state.notify()
        event.app.layout.focus(chat_buffer)

    @kb.add("escape", filter=chatting, eager=True)
    @kb.add("c-g", filter=chatting)
    def _cancel(event: KeyPressEvent) -> None:
        chat_buffer.reset()
        close_chat(state, event, home)

    return kb


def close_chat(state: AppState, event: KeyPressEvent | None, home: Window) -> None:
    """Leave the chat line and give the keys back to the screen."""
    state.chatting = False
    state.notify()
    if event is not None:
        event.app.layout.focus(home)


_FORM_KEYS: tuple[tuple[tuple[str, ...], Callable[[CreateForm], None]], ...] = (
    (("up", "k", "s-tab"), lambda form: form.move(-1)),
    (("down", "j", "tab"), lambda form: form.move(1)),
    (("left", "h", "-"), lambda form: form.change(-1)),
    (("right", "l", "+", "space"), lambda form: form.change(1)),
)
"""The create-table form's keys: a field up or down, its value less or more."""


def _form_editor(state: AppState, edit: Callable[[CreateForm], None]) -> Handler:
    def handler(event: KeyPressEvent) -> None:
        assert state.form is not None
        edit(state.form)
        state.notify()

    return handler


def load_lobby_bindings(state: AppState) -> KeyBindings:
    """The lobby: the table list, the create-table form, our table before its game."""
    kb = KeyBindings()
    lobby = _free(state) & Condition(lambda: not state.in_game)
    listing = lobby & Condition(
        lambda: state.form is None and state.table is None and state.recent is None
    )
    form = lobby & Condition(lambda: state.form is not None)
    seated = lobby & Condition(lambda: state.form is None and state.table is not None)
    host = seated & Condition(lambda: state.is_host)

    @_keys(kb, listing, "up", "k")
    def _up(event: KeyPressEvent) -> None:
        state.table_cursor = max(0, state.table_cursor - 1)
        state.notify()

    @_keys(kb, listing, "down", "j")
    def _down(event: KeyPressEvent) -> None:
        state.table_cursor = min(max(0, len(state.tables) - 1), state.table_cursor + 1)
        state.notify()

    _bind_ops(
        kb,
        state,
        listing,
        {
            "enter": ops.join_selected,
            "w": ops.watch_selected,
            "m": ops.quick_match,
            "l": ops.show_leaderboard,
            "b": ops.play_bots,
            "r": ops.refresh_tables,
        },
    )

    @kb.add("v", filter=listing)
    def _level(event: KeyPressEvent) -> None:
        offered = levels(state.quick_kind) or LEVELS
        at = offered.index(state.bot_level) if state.bot_level in offered else -1
        state.bot_level = offered[(at + 1) % len(offered)]
        state.say(f"bots (b) now play at level {state.bot_level}")

    @kb.add("g", filter=listing)
    def _game(event: KeyPressEvent) -> None:
        games = list(kinds())
        at = games.index(state.quick_kind) if state.quick_kind in games else -1
        state.quick_kind = games[(at + 1) % len(games)]
        state.say(f"quick match (m) now finds {game_title(state.quick_kind)} tables")

    @kb.add("n", filter=listing)
    def _new(event: KeyPressEvent) -> None:
        state.form = CreateForm()
        state.notify()

    for keys, edit in _FORM_KEYS:
        _keys(kb, form, *keys)(_form_editor(state, edit))
    _bind_ops(kb, state, form, {"enter": ops.create_from_form})

    @_keys(kb, form, "x", "escape")
    def _cancel(event: KeyPressEvent) -> None:
        state.form = None
        state.notify()

    _bind_ops(kb, state, host, {"b": ops.add_bot, "s": ops.start_game})
    _bind_ops(kb, state, seated, {"l": ops.leave})
    return kb


def load_game_bindings(state: AppState) -> KeyBindingsBase:
    """The game: the board's keys while a step is played; the summaries; after the game."""
    kb = KeyBindings()
    game = _free(state) & Condition(lambda: state.in_game)
    round_summary = game & Condition(lambda: state.summary == "round" and state.final is None)
    playing = game & Condition(lambda: state.summary != "round" and state.final is None)
    over = game & Condition(lambda: state.final is not None)

    @_keys(kb, round_summary, "enter", "space", "escape")
    def _continue(event: KeyPressEvent) -> None:
        state.summary = None
        state.notify()

    @_keys(kb, over, "enter", "escape")
    def _close(event: KeyPressEvent) -> None:
        state.summary = None if state.summary == "game" else "game"
        state.notify()

    _bind_ops(kb, state, over & Condition(lambda: state.is_host), {"n": ops.start_game})

    # A spectator may stop watching at any time (a player's seat is theirs until the game ends).
    watching = playing & Condition(lambda: state.board is not None and state.board.seat is None)

    _bind_ops(kb, state, over | watching, {"l": ops.leave})

    def board_keys() -> KeyBindingsBase | None:
        board = state.board
        return board.key_bindings(playing) if board is not None else None

    return merge_key_bindings([kb, DynamicKeyBindings(board_keys)])


def load_key_bindings(state: AppState, chat_buffer: Buffer, home: Window) -> KeyBindingsBase:
    """Every binding of the client, merged."""
    return merge_key_bindings(
        [
            load_global_bindings(state),
            load_chat_bindings(state, chat_buffer, home),
            load_lobby_bindings(state),
            load_recent_bindings(state),
            load_game_bindings(state),
        ]
    )
