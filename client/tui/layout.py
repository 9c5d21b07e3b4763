"""The screen: one function per widget, each drawing from the `AppState` alone.

Every widget is a `*_text(state)` function giving formatted text, wrapped in a window by
`root_container`. The text functions are what the rendering tests call for every state reached in
random playouts; `screen_text` renders the whole screen to plain text (tests, screenshots).

Monochrome first: the cursor is reverse video and a ``▸``, marked cards carry ``[1]``/``[2]``/``[D]``,
a fairness failure is bold reverse with ``!!!`` around it. Colour only adds.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.application.current import get_app, set_app
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.filters import Condition
from prompt_toolkit.layout import (
    ConditionalContainer,
    Float,
    FloatContainer,
    HSplit,
    VSplit,
    Window,
)
from prompt_toolkit.layout.containers import AnyContainer
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
from prompt_toolkit.layout.dimension import Dimension as D
from prompt_toolkit.layout.mouse_handlers import MouseHandlers
from prompt_toolkit.layout.screen import Char, Screen, WritePosition
from prompt_toolkit.widgets import Frame

from sushigo.engine.games import kinds

from .board import MENU_WIDTH
from .form import game_title
from .games import board_class
from .lobby import form_text, leaderboard_lines, lobby_text, seats_text
from .recent import recent_text
from .replay_view import replay_container
from .state import LOST, AppState, Fragments
from .style import MIN_COLUMNS, MIN_ROWS, STYLE, too_small

__all__ = [
    "STYLE",
    "WIDGETS",
    "chat_text",
    "fairness_bar_text",
    "fairness_text",
    "form_text",
    "game_summary_text",
    "hand_text",
    "header_text",
    "help_text",
    "keys_text",
    "lobby_text",
    "log_text",
    "players_text",
    "quit_text",
    "root_container",
    "round_summary_text",
    "screen_text",
    "seats_text",
    "status_text",
]

HAND_WIDTH = MENU_WIDTH
_TAIL = 60
"""Lines of log and chat kept on screen (the windows scroll to the newest)."""

# -- the game screen ------------------------------------------------------------------------


def header_text(state: AppState) -> Fragments:
    """Top bar: the game, where it stands (the board's part) and the step's countdown."""
    board = state.board
    if board is None or not state.in_game:
        # Where we are: a table of ours (before its game, or between games), or the lobby.
        where = f" · {state.client.name} @ {state.address}" if state.client else ""
        table = state.table
        if table is not None:
            title = game_title(table.settings.kind)
            return [("class:header", f" {title} · table {table.table_id}{where} ")]
        return [("class:header", f" sushigo · lobby{where} ")]
    out: Fragments = [("class:header", f" {board.title} "), *board.header()]
    if state.paused and state.final is None:
        table = state.table
        waiting = [s.seat for s in table.seats if s.away and not s.bot] if table else []
        who = ", ".join(state.name_of(seat) for seat in waiting)
        out.append(("class:status.error", f" · paused: waiting for {who}"))
    elif state.deadline is not None and state.final is None:
        left = max(0, int(state.deadline - state.now() + 0.999))
        out.append(("class:status.error" if left <= 10 else "class:title", f" · time {left}s"))
    return out


def fairness_bar_text(state: AppState) -> Fragments:
    """The rule under the players, carrying the fairness status."""
    return [("class:dim", "── "), *fairness_text(state), ("class:dim", " " + "─" * 300)]


def fairness_text(state: AppState) -> Fragments:
    """The fairness status: what has been verified, any failure loudly."""
    board = state.board
    if board is None:
        return []
    return board.fairness()


def players_text(state: AppState) -> Fragments:
    """Every seat: the board's lines."""
    return state.board.players() if state.board is not None else []


def hand_text(state: AppState) -> Fragments:
    """Our own panel (the hand, our belt): the board's."""
    return state.board.panel() if state.board is not None else []


def _log_width() -> int:
    """Columns of the log window (the terminal's width beside the hand)."""
    try:
        columns = get_app().output.get_size().columns
    except Exception:  # no terminal to ask (a snapshot outside an app)
        columns = 80
    return max(20, columns - HAND_WIDTH - 1)


def word_wrap(line: Fragments, width: int) -> Fragments:
    """Break a line of fragments between words so no line passes `width` (words longer than a
    line are left to the window's own wrapping)."""
    out: Fragments = []
    column = 0
    width -= 1  # a word's trailing space must fit too
    for style, text, *_ in line:
        for word in re.split(r"(?<= )", text):
            if column and column + len(word.rstrip()) > width:
                out.append(("", "\n  "))
                column = 2
                word = word.lstrip()
            out.append((style, word))
            column += len(word)
    return out


def log_text(state: AppState) -> Fragments:
    """The event log, newest last (the window scrolls to it)."""
    out: Fragments = [("class:title", "Log")]
    width = _log_width()
    for line in list(state.log)[-_TAIL:]:
        out.append(("", "\n"))
        out.extend(word_wrap(line, width))
    out.append(("[SetCursorPosition]", ""))
    return out


def chat_text(state: AppState) -> Fragments:
    """Chat, newest last."""
    out: Fragments = [("class:title", "Chat")]
    if not state.chat:
        out.append(("class:dim", "  (c to say something)"))
    for line in list(state.chat)[-_TAIL:]:
        out.append(("", "\n"))
        out.extend(line)
    out.append(("[SetCursorPosition]", ""))
    return out


def status_text(state: AppState) -> Fragments:
    """The status line: the last message, else what to do now."""
    text = state.status or _default_status(state)
    # A server that said it is restarting (or moved our table) is no fault: not shown as one.
    expected = state.reconnect_note != LOST
    if state.reconnecting:
        text = state.reconnect_note
    alarm = state.status_error or (state.reconnecting and not expected)
    style = "class:status.error" if alarm else "class:status"
    prefix = "! " if style == "class:status.error" else " "
    return [(style, prefix + text + " " * 200)]


def _default_status(state: AppState) -> str:
    if state.board is not None and state.in_game:
        return state.away_note() or state.board.default_status()
    if state.form is not None:
        return "set up the table, then Create"
    if state.recent is not None:
        return "choose a game and press Enter to step through it (Esc: back to the tables)"
    if state.table is not None:
        return "host: add bots (b) and start (s)" if state.is_host else "waiting for the host"
    return "choose a table (Enter joins), n creates one, m quick match"


def keys_text(state: AppState) -> Fragments:
    """The keys that work now."""
    if state.chatting:
        keys = "Enter: send · Esc/Ctrl-G: cancel"
    elif state.confirm_quit:
        keys = "y: quit · n: stay"
    elif state.show_help:
        keys = "?/Enter: close help"
    elif state.leaderboard is not None:
        keys = "l/Enter/Esc: close the leaderboard"
    elif state.summary == "round":
        keys = "Enter/space: continue · ?: help"
    elif state.final is not None:
        keys = ("n: new game · " if state.is_host else "") + "l: leave table · c: chat · q: quit"
    elif state.board is not None and state.in_game and state.board.seat is None:
        keys = "watching · l: stop watching · c: chat · ?: help · q: quit"
    elif state.board is not None and state.in_game:
        keys = state.board.keys()
    elif state.form is not None:
        keys = "↑↓ field · ←→/space change · Enter create · x cancel · q quit"
    elif state.recent is not None:
        keys = "↑↓ game · Enter replay it · ←→ pages · r refresh · Esc back · q quit"
    elif state.table is not None:
        keys = (
            "b: add bot · s: start · " if state.is_host else ""
        ) + "l: leave · c: chat · q: quit"
    else:
        keys = "↑↓ Enter join · w watch · n new · m quick · b bots · l ranks · h games · g game"
    return [("class:keys", " " + keys)]


# -- summaries and overlays -------------------------------------------------------------------


def round_summary_text(state: AppState) -> Fragments:
    """After a round: the board's scores, and how to go on."""
    board = state.board
    lines = board.round_summary() if board is not None else []
    if not lines:
        return []
    return [*lines, ("class:dim", "\nEnter or space: continue")]


def game_summary_text(state: AppState) -> Fragments:
    """At game over: who won, the board's final table, the fairness verdict."""
    final = state.final
    if final is None or state.board is None:
        return []
    winners = [state.name_of(s) for s in final.winners]
    if len(winners) > 1:
        title = "Tie! " + " and ".join(winners) + " share the win"
    elif final.winners == (state.seat,):
        title = "You win!"
    else:
        title = f"{winners[0]} wins"
    out: Fragments = [("class:title", f"Game over · {title}\n"), *state.board.game_summary()]
    out.append(("", "\n"))
    out.extend(fairness_text(state))
    out.append(("class:dim", "\n\nEnter: close · " + ("n: new game · " if state.is_host else "")))
    out.append(("class:dim", "l: leave · q: quit"))
    return out


_HELP_LOBBY: Fragments = [
    ("class:title", "Keys\n"),
    ("", "Lobby   ↑↓ table · Enter join · w watch · m quick match · g its game\n"),
    ("", "        n new table (↑↓ field, ←→ change, Enter create) · r refresh\n"),
    ("", "        b play bots now · v their level · l leaderboard of the game\n"),
    ("", "        h my recent games (Enter steps through one: ←→ step, ↑↓ round)\n"),
    ("", "Table   b add a bot · s start (host) · l leave\n"),
]
_HELP_ALWAYS: Fragments = [
    ("", "Over    n new game (host) · l leave\n"),
    ("", "Always  c chat · ? this help · q quit (asks first) · Ctrl-L redraw\n"),
    ("", "Chat    /mute NAME hides their lines here · /unmute NAME · /muted\n"),
]


def help_text(state: AppState) -> Fragments:
    """The help overlay: every key, and the point of the game on screen in a few lines (in the
    lobby, the keys of every installed game)."""
    lines = list(_HELP_LOBBY)
    board = state.board
    if board is not None and state.in_game:
        lines += [*board.help_lines, *_HELP_ALWAYS]
        if board.scoring_lines:
            lines += [("", "\n"), *board.scoring_lines]
    else:
        for kind in kinds():
            lines += [("class:title", f"{game_title(kind)}\n"), *board_class(kind).help_lines]
        lines += _HELP_ALWAYS
    lines.append(("class:dim", "\n? or Enter closes this help"))
    return lines


def leaderboard_text(state: AppState) -> Fragments:
    """The ladder overlay of the lobby (l)."""
    board = state.leaderboard
    if board is None:
        return []
    client = state.client
    lines = leaderboard_lines(
        board,
        client.player_id if client is not None else "",
        signed_in=client is not None and client.key is not None,
    )
    out: Fragments = [("class:title", lines[0] + "\n")]
    for line in lines[1:]:
        out.append(("class:me" if "▸" in line[:7] else "", line + "\n"))
    out.append(("class:dim", "\nl, Enter or Esc closes this"))
    return out


def quit_text(state: AppState) -> Fragments:
    """The quit confirmation."""
    during = state.in_game and state.final is None
    extra = (
        ""
        if not during
        else "\nQuitting ends this game: scripts/play stops its server with you."
        if state.server_ends_with_us
        else "\nYour seat is kept for a while (two minutes, on a server's defaults):"
        "\nrun the client again, without --bots, to take it back."
    )
    return [("class:title", "Quit sushigo?"), ("", extra), ("", "\n\ny: quit   n: stay")]


WIDGETS: dict[str, Callable[[AppState], Fragments]] = {
    "header": header_text,
    "fairness": fairness_text,
    "fairness_bar": fairness_bar_text,
    "players": players_text,
    "hand": hand_text,
    "log": log_text,
    "chat": chat_text,
    "status": status_text,
    "keys": keys_text,
    "round_summary": round_summary_text,
    "game_summary": game_summary_text,
    "help": help_text,
    "quit": quit_text,
    "lobby": lobby_text,
    "form": form_text,
    "seats": seats_text,
}
"""Every widget's text function by name (the rendering tests walk it)."""


# -- assembly ---------------------------------------------------------------------------------


def _window(state: AppState, text: Callable[[AppState], Fragments], **kw: object) -> Window:
    control = FormattedTextControl(lambda: text(state), focusable=False)
    return Window(control, always_hide_cursor=True, **kw)  # type: ignore[arg-type]


def _players_height(state: AppState) -> D:
    """The players' window: as high as the board asks (Sushi Roll keeps every belt line), else
    as its text needs."""
    lines = state.board.players_height() if state.board is not None and state.in_game else None
    return D() if lines is None else D(min=lines, preferred=lines)


def root_container(state: AppState, chat_buffer: Buffer) -> tuple[AnyContainer, Window]:
    """The whole screen, and the window that holds the focus when not chatting."""
    in_game = Condition(lambda: state.in_game)
    in_lobby = ~in_game
    status = Window(
        FormattedTextControl(lambda: status_text(state), focusable=True),
        height=1,
        always_hide_cursor=True,
    )
    failing = Condition(lambda: bool(state.fairness.failures))
    game = HSplit(
        [
            _window(state, header_text, height=1),
            ConditionalContainer(_window(state, fairness_text, height=1, wrap_lines=True), failing),
            _window(
                state,
                players_text,
                wrap_lines=True,
                dont_extend_height=True,
                height=lambda: _players_height(state),
            ),
            _window(state, fairness_bar_text, height=1),
            VSplit(
                [
                    _window(state, hand_text, width=HAND_WIDTH),
                    Window(width=1, char="│", style="class:dim"),
                    HSplit(
                        [
                            _window(state, log_text, wrap_lines=True),
                            _window(state, chat_text, wrap_lines=True, height=D(min=2, max=4)),
                        ]
                    ),
                ]
            ),
        ]
    )
    lobby_main = HSplit(
        [
            ConditionalContainer(
                _window(state, form_text, dont_extend_height=True),
                Condition(lambda: state.form is not None),
            ),
            ConditionalContainer(
                _window(state, seats_text, dont_extend_height=True),
                Condition(lambda: state.form is None and state.table is not None),
            ),
            ConditionalContainer(
                _window(state, lobby_text),
                Condition(
                    lambda: state.form is None and state.table is None and state.recent is None
                ),
            ),
            ConditionalContainer(
                _window(state, recent_text),
                Condition(
                    lambda: state.form is None and state.table is None and state.recent is not None
                ),
            ),
        ]
    )
    lobby = HSplit(
        [
            _window(state, header_text, height=1, style="class:header"),
            lobby_main,
            Window(height=1, char="─", style="class:dim"),
            _window(state, chat_text, wrap_lines=True, height=D(min=3, max=8)),
        ]
    )
    chat_input = ConditionalContainer(
        VSplit(
            [
                Window(FormattedTextControl("say: "), width=5, style="class:title"),
                Window(BufferControl(chat_buffer), height=1),
            ]
        ),
        Condition(lambda: state.chatting),
    )
    # A replay of one of our games takes the whole screen (it has its own keys line); the lobby's
    # status and keys come back with the list under it.
    replaying = Condition(lambda: state.replay is not None)
    body = HSplit(
        [
            ConditionalContainer(game, in_game),
            ConditionalContainer(lobby, in_lobby & ~replaying),
            ConditionalContainer(replay_container(lambda: state.replay), replaying),
            chat_input,
            ConditionalContainer(status, ~replaying),
            ConditionalContainer(_window(state, keys_text, height=1), ~replaying),
        ]
    )

    def overlay(text: Callable[[AppState], Fragments], shown: Callable[[], bool]) -> Float:
        frame = Frame(_window(state, text, dont_extend_height=True, dont_extend_width=True))
        return Float(ConditionalContainer(frame, Condition(shown)))

    floats = [
        overlay(round_summary_text, lambda: state.summary == "round" and state.final is None),
        overlay(game_summary_text, lambda: state.summary == "game" and state.final is not None),
        overlay(help_text, lambda: state.show_help),
        overlay(leaderboard_text, lambda: state.leaderboard is not None),
        overlay(quit_text, lambda: state.confirm_quit),
    ]
    small_terminal = Condition(too_small)
    small = Window(FormattedTextControl(too_small_text), wrap_lines=True, style="class:title")
    return (
        HSplit(
            [
                ConditionalContainer(FloatContainer(body, floats), ~small_terminal),
                ConditionalContainer(small, small_terminal),
            ]
        ),
        status,
    )


def too_small_text() -> Fragments:
    """What a terminal too small for the screens shows instead of a broken one (the game, if
    any, goes on meanwhile, and its screen comes back as soon as the terminal is large enough)."""
    size = get_app().output.get_size()
    text = (
        f"sushigo needs a terminal of at least {MIN_COLUMNS}x{MIN_ROWS}; this one is"
        f" {size.columns}x{size.rows}. Make it larger to go on (a game goes on meanwhile, its"
        " turn timer too), or press Ctrl-C twice to quit."
    )
    return [("", textwrap.fill(text, max(size.columns - 1, 10)))]


def screen_text(app: Application[Any], width: int = 80, height: int = 24) -> str:
    """The application's screen as plain text, as a terminal of that size would show it."""
    screen = Screen(default_char=Char(" ", ""), initial_width=width, initial_height=height)
    with set_app(app):
        # Controls cache their text per render; a snapshot is a render of its own.
        app.render_counter += 1
        app.layout.update_parents_relations()
        app.layout.container.write_to_screen(
            screen, MouseHandlers(), WritePosition(0, 0, width, height), "", False, None
        )
        screen.draw_all_floats()
    rows = []
    for y in range(height):
        row = screen.data_buffer[y]
        rows.append("".join(row[x].char for x in range(width)).rstrip())
    return "\n".join(rows)
