"""The screen: one function per widget, each drawing from the `AppState` alone.

Every widget is a `*_text(state)` function giving formatted text, wrapped in a window by
`root_container`. The text functions are what the rendering tests call for every state reached in
random playouts; `screen_text` renders the whole screen to plain text (tests, screenshots).

Monochrome first: the cursor is reverse video and a ``▸``, marked cards carry ``[1]``/``[2]``/``[D]``,
a fairness failure is bold reverse with ``!!!`` around it. Colour only adds.
"""

from __future__ import annotations

import re
from collections.abc import Callable

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
from prompt_toolkit.styles import Style
from prompt_toolkit.widgets import Frame

from sushigo.engine import Card, TableauView
from sushigo.engine.cards import MAKI_ICONS, NIGIRI_POINTS

from .cards import KIND_ORDER, NAMES, SHORT, card_style, family, hint
from .lobby import form_text, lobby_text, seats_text
from .roll_layout import (
    ROLL_HELP,
    ROLL_SCORING,
    belts_text,
    my_belt_text,
    roll_default_status,
    roll_fairness_text,
    roll_game_summary_text,
    roll_header_text,
    roll_keys,
    roll_round_summary_text,
)
from .state import AppState, Fragments

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
    "tableau_fragments",
]

STYLE = Style.from_dict(
    {
        "header": "reverse bold",
        "status": "reverse",
        "status.error": "reverse bold fg:ansired",
        "keys": "fg:ansibrightblack",
        "cursor": "reverse bold",
        "marked": "bold underline",
        "dim": "fg:ansibrightblack",
        "title": "bold",
        "me": "bold",
        "fair.ok": "fg:ansigreen",
        "fair.pending": "",
        "fair.fail": "bold reverse fg:ansired",
        "log.round": "bold",
        "log.dim": "fg:ansibrightblack",
        "log.name": "bold",
        "chat.name": "bold fg:ansicyan",
        "card.tempura": "fg:ansimagenta",
        "card.sashimi": "fg:ansigreen",
        "card.dumpling": "fg:ansiblue",
        "card.maki": "fg:ansired",
        "card.nigiri": "fg:ansiyellow",
        "card.wasabi": "fg:ansibrightgreen bold",
        "card.chopsticks": "fg:ansicyan",
        "card.pudding": "fg:ansibrightmagenta",
        "card.soy": "fg:ansibrightyellow",
        "die.appetizer": "fg:ansiblue",
        "die.maki": "fg:ansired",
        "die.nigiri": "fg:ansiyellow",
        "die.specials": "fg:ansigreen",
        "die.pudding": "fg:ansimagenta",
        "overlay": "",
    }
)
"""Colours and attributes by class. prompt_toolkit drops colours under NO_COLOR (1-bit depth)."""

HAND_WIDTH = 42
_TAIL = 60
"""Lines of log and chat kept on screen (the windows scroll to the newest)."""

# -- the game screen ------------------------------------------------------------------------


def header_text(state: AppState) -> Fragments:
    """Top bar: game, round and turn, pass direction, the turn countdown and fairness."""
    if state.is_roll and state.roll is not None:
        return roll_header_text(state)
    obs = state.observation
    out: Fragments = [("class:header", " Sushi Go! ")]
    if obs is None:
        where = f" {state.client.name} @ {state.address}" if state.client else ""
        return [*out, ("class:header", f"· lobby{where} ")]
    hand_size = obs.options.hand_size
    way = "passing left →" if obs.pass_direction > 0 else "← passing right"
    out.append(("", f" round {obs.round}/3 · turn {obs.turn}/{hand_size} · {way}"))
    if state.deadline is not None and state.final is None:
        left = max(0, int(state.deadline - state.now() + 0.999))
        out.append(("class:status.error" if left <= 10 else "class:title", f" · time {left}s"))
    return out


def fairness_bar_text(state: AppState) -> Fragments:
    """The rule under the tableaus, carrying the fairness status."""
    return [("class:dim", "── "), *fairness_text(state), ("class:dim", " " + "─" * 300)]


def fairness_text(state: AppState) -> Fragments:
    """The fairness status: openings verified, the final seed check, any failure loudly."""
    if state.is_roll:
        return roll_fairness_text(state)
    fair = state.fairness
    if fair.failures:
        return [("class:fair.fail", f"!!! FAIRNESS CHECK FAILED: {fair.failures[0]} !!!")]
    verified = f"{fair.openings_verified} picks verified"
    if fair.final == "verified":
        return [("class:fair.ok", f"fair ✓ {verified}, seed check passed")]
    if fair.final == "FAILED":
        return [("class:fair.fail", "!!! SEED CHECK FAILED !!!")]
    return [("class:fair.ok", f"fair ✓ {verified}")]


def tableau_fragments(view: TableauView) -> Fragments:
    """A tableau grouped by kind: maki icons summed, wasabi shown with its nigiri."""
    groups: dict[str, Fragments] = {}
    counts: dict[Card, int] = {}
    icons = 0
    open_wasabi = 0
    nigiri: list[tuple[Card, bool]] = []
    for card in view.cards:
        if card in MAKI_ICONS:
            icons += MAKI_ICONS[card]
        elif card is Card.WASABI:
            open_wasabi += 1
        elif card in NIGIRI_POINTS:
            nigiri.append((card, open_wasabi > 0))
            open_wasabi -= 1 if open_wasabi else 0
        else:
            counts[card] = counts.get(card, 0) + 1
    if icons:
        groups["maki"] = [(card_style(Card.MAKI1), f"maki:{icons}")]
    for card, n in counts.items():
        style = card_style(card)
        groups[family(card)] = [(style, SHORT[card] + (f"×{n}" if n > 1 else ""))]
    parts: Fragments = []
    for card, on_wasabi in nigiri:
        if parts:
            parts.append(("", " "))
        if on_wasabi:
            parts += [("class:card.wasabi", "W+"), (card_style(card), SHORT[card])]
        else:
            parts.append((card_style(card), SHORT[card]))
    if parts:
        groups["nigiri"] = parts
    if open_wasabi:
        groups["wasabi"] = [
            ("class:card.wasabi", "W+_" + (f"×{open_wasabi}" if open_wasabi > 1 else ""))
        ]
    out: Fragments = []
    for kind in KIND_ORDER:
        if kind in groups:
            if out:
                out.append(("", " "))
            out.extend(groups[kind])
    return out or [("class:dim", "(nothing yet)")]


_COMMIT_WORDS = {
    "": "choosing",
    "picked": "picked",
    "committed": "committed",
    "auto": "auto",
    "revealed": "revealed",
}


def players_text(state: AppState) -> Fragments:
    """One line per tableau: name, score, puddings, hand size, this turn's commit, the cards
    (Sushi Roll: every seat's belt and tray)."""
    if state.is_roll:
        return belts_text(state)
    obs = state.observation
    if obs is None:
        return []
    out: Fragments = []
    final = state.final
    for t, view in enumerate(obs.tableaus):
        mine = t == obs.seat
        name = state.name_of(t)
        if obs.dummy_controller is not None and t == obs.dummy_controller:
            name = name[:9] + "(D)"
        if final is not None and t < len(final.places):
            status = f"place {final.places[t]}"
        elif view.is_dummy:
            status = ""
        else:
            status = _COMMIT_WORDS.get(state.commits[t] if t < len(state.commits) else "", "")
        score = final.totals[t] if final is not None and t < len(final.totals) else view.score
        out += [
            ("", "\n" if t else ""),
            ("class:me" if mine else "", ("▸" if mine else " ") + f"{name[:13]:<13}"),
            ("", f"{score:>4}pt p{view.puddings:<2}h{view.hand_size:<2} "),
            ("class:dim" if status in ("choosing", "") else "", f"{status:<9}"),
            ("class:dim", "│ "),
        ]
        out += tableau_fragments(view)
    return out


def hand_text(state: AppState) -> Fragments:
    """The hand: number, marks, name in its colour, and a scoring hint; the cursor reversed
    (Sushi Roll: our belt, die by die)."""
    if state.is_roll:
        return my_belt_text(state)
    obs = state.observation
    if obs is None:
        return []
    if obs.seat is None:
        return [("class:title", "Watching"), ("", "\nspectators see no hand")]
    me = obs.tableaus[obs.seat]
    title = "Your hand"
    if state.final is not None:
        title = "Game over"
    elif state.my_pick is not None:
        title = f"Picked {state.my_pick.describe()}"
    elif not state.picking:
        title = "Your hand (waiting)"
    notes = []
    if me.chopsticks_ready:
        notes.append("chopsticks ready")
    if state.controls_dummy:
        notes.append("you pick for the dummy")
    out: Fragments = [("class:title", title[: HAND_WIDTH - 1])]
    if notes:
        out.append(("class:card.chopsticks", "\n" + ", ".join(notes)))
    for i, card in enumerate(obs.hand):
        out.append(("", "\n"))
        at_cursor = i == state.cursor and state.picking
        if at_cursor:
            out.append(("[SetCursorPosition]", ""))
        if i in state.marked:
            mark = f"[{state.marked.index(i) + 1}]"
        elif i == state.dummy_index:
            mark = "[D]"
        else:
            mark = "[ ]" if me.chopsticks_ready or state.controls_dummy else "   "
        number = str(i + 1) if i < 9 else ("0" if i == 9 else " ")
        line: list[tuple[str, str]] = [
            ("", f"{'▸' if at_cursor else ' '}{number:>2} "),
            ("class:marked" if mark.strip("[ ]") else "", f"{mark} "),
            (card_style(card), f"{NAMES[card]:<13} "),
            ("class:dim", hint(card, me)[: HAND_WIDTH - 22]),
        ]
        if at_cursor:
            line = [("class:cursor " + style, text) for style, text in line]
        out.extend(line)
    if not obs.hand:
        out.append(("class:dim", "\n(empty)"))
    return out


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
    if state.reconnecting:
        text = "connection lost: reconnecting…"
    style = "class:status.error" if state.status_error or state.reconnecting else "class:status"
    prefix = "! " if style == "class:status.error" else " "
    return [(style, prefix + text + " " * 200)]


def _default_status(state: AppState) -> str:
    if state.is_roll and state.roll is not None:
        return roll_default_status(state)
    obs = state.observation
    if state.final is not None:
        return "the game is over"
    if obs is not None:
        if obs.seat is None:
            return "watching the game"
        if state.picking:
            if state.controls_dummy and state.dummy_index is None:
                return "your pick, and the dummy's: choose a card, d gives it to the dummy"
            return "your pick: choose a card and press Enter"
        if state.my_pick is None:
            return "waiting for the turn"
        return "waiting for the others"
    if state.form is not None:
        return "set up the table, then Create"
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
    elif state.summary == "round":
        keys = "Enter/space: continue · ?: help"
    elif state.final is not None:
        keys = ("n: new game · " if state.is_host else "") + "l: leave table · c: chat · q: quit"
    elif state.is_roll and state.roll is not None:
        keys = roll_keys(state)
    elif state.observation is not None:
        parts = ["↑↓/1-9: choose", "Enter: play"]
        me = state.me
        if me is not None and me.chopsticks_ready:
            parts.insert(1, "space: mark 2 cards")
        if state.controls_dummy:
            parts.insert(1, "d: dummy's card")
        keys = " · ".join([*parts, "c: chat", "?: help", "q: quit"])
    elif state.form is not None:
        keys = "↑↓ field · ←→/space change · Enter create · x cancel · q quit"
    elif state.table is not None:
        keys = (
            "b: add bot · s: start · " if state.is_host else ""
        ) + "l: leave · c: chat · q: quit"
    else:
        keys = "↑↓ table · Enter join · w watch · n new · m quick match · g game · r refresh"
    return [("class:keys", " " + keys)]


# -- summaries and overlays -------------------------------------------------------------------

_CATEGORIES = ("maki", "tempura", "sashimi", "dumpling", "nigiri", "soy_sauce")
_HEADS = {"maki": "maki", "tempura": "temp", "sashimi": "sash", "dumpling": "dump"}
_HEADS |= {"nigiri": "nigi", "soy_sauce": " soy"}


def _categories(state: AppState) -> tuple[str, ...]:
    obs = state.observation
    soy = obs is not None and obs.options.soy_sauce
    return _CATEGORIES if soy else _CATEGORIES[:-1]


def round_summary_text(state: AppState) -> Fragments:
    """After a round: points by category per player, the round's total and the running total."""
    if state.is_roll:
        return roll_round_summary_text(state)
    if not state.round_scores:
        return []
    scored = state.round_scores[-1]
    cats = _categories(state)
    out: Fragments = [("class:title", f"Round {scored.round} scores\n")]
    head = f"{'':<13}" + "".join(f"{_HEADS[c]:>5}" for c in cats) + f"{'round':>6}{'total':>6}"
    out.append(("class:dim", head + "\n"))
    best = max(scored.totals)
    for t, points in enumerate(scored.points):
        row = f"{state.name_of(t)[:13]:<13}" + "".join(f"{getattr(points, c):>5}" for c in cats)
        out.append(("class:me" if t == state.seat else "", row))
        out.append(("", f"{points.total:>6}{scored.totals[t]:>6}"))
        out.append(("class:title", " ◂ leads\n" if scored.totals[t] == best else "\n"))
    out.append(("class:dim", "\nEnter or space: continue"))
    return out


def game_summary_text(state: AppState) -> Fragments:
    """At game over: points by category over the game, puddings, totals, places and winners."""
    if state.is_roll:
        return roll_game_summary_text(state, fairness_text(state))
    final = state.final
    if final is None:
        return []
    cats = _categories(state)
    winners = [state.name_of(s) for s in final.winners]
    if len(winners) > 1:
        title = "Tie! " + " and ".join(winners) + " share the win"
    elif final.winners == (state.seat,):
        title = "You win!"
    else:
        title = f"{winners[0]} wins"
    out: Fragments = [("class:title", f"Game over · {title}\n")]
    head = f"{'':<13}" + "".join(f"{_HEADS[c]:>5}" for c in cats) + f"{'pud':>5}{'total':>6}  place"
    out.append(("class:dim", head + "\n"))
    for t, total in enumerate(final.totals):
        sums = [sum(getattr(r.points[t], c) for r in state.round_scores) for c in cats]
        place = f"{final.places[t]:>5}" if t < len(final.places) else "    -"
        row = f"{state.name_of(t)[:13]:<13}" + "".join(f"{n:>5}" for n in sums)
        row += f"{final.pudding_points[t]:>5}{total:>6}{place}"
        win = t in final.winners
        out.append(("class:me" if t == state.seat else "", row))
        out.append(("class:title", " ★\n" if win else "\n"))
    out.append(("", "\n"))
    out.extend(fairness_text(state))
    out.append(("class:dim", "\n\nEnter: close · " + ("n: new game · " if state.is_host else "")))
    out.append(("class:dim", "l: leave · q: quit"))
    return out


_HELP_LOBBY: Fragments = [
    ("class:title", "Keys\n"),
    ("", "Lobby   ↑↓ table · Enter join · w watch · m quick match · g its game\n"),
    ("", "        n new table (↑↓ field, ←→ change, Enter create) · r refresh\n"),
    ("", "Table   b add a bot · s start (host) · l leave\n"),
]
_HELP_CARDS: Fragments = [
    ("", "Game    ↑↓←→ or 1-9, 0 move to a card · Enter play it\n"),
    ("", "        space marks cards for a chopsticks double pick, in order\n"),
    ("", "        d gives the card under the cursor to the dummy (when you control it)\n"),
]
_HELP_ALWAYS: Fragments = [
    ("", "Over    n new game (host) · l leave\n"),
    ("", "Always  c chat · ? this help · q quit (asks first) · Ctrl-L redraw\n"),
]
_HELP_CARD_SCORING: Fragments = [
    ("class:title", "Scoring\n"),
    ("", "maki most 6, second 3 · tempura pair 5 · sashimi three 10\n"),
    ("", "dumplings 1 3 6 10 15 · nigiri 1/2/3, x3 on wasabi\n"),
    ("", "pudding at game end: most +6, fewest -6 · chopsticks: 2 cards later\n"),
]


def help_text(state: AppState) -> Fragments:
    """The help overlay: every key, and the point of the game on screen in a few lines (in the
    lobby, the keys of both games)."""
    lines = list(_HELP_LOBBY)
    if not state.in_game:
        lines += [*_HELP_CARDS, *ROLL_HELP, *_HELP_ALWAYS]
    elif state.is_roll:
        lines += [*ROLL_HELP, *_HELP_ALWAYS, ("", "\n"), *ROLL_SCORING]
    else:
        lines += [*_HELP_CARDS, *_HELP_ALWAYS, ("", "\n"), *_HELP_CARD_SCORING]
    lines.append(("class:dim", "\n? or Enter closes this help"))
    return lines


def quit_text(state: AppState) -> Fragments:
    """The quit confirmation."""
    during = state.in_game and state.final is None
    extra = "\nYour seat is kept for a while: run the client again to resume." if during else ""
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
    """The players' window: Sushi Roll's belts keep every line (two or three per seat) before the
    panels below get any; the card game's line per seat sizes itself."""
    if not state.is_roll or state.roll is None:
        return D()
    lines = 1 + sum(text.count("\n") for _, text, *_ in belts_text(state))
    return D(min=lines, preferred=lines)


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
                Condition(lambda: state.form is None and state.table is None),
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
    body = HSplit(
        [
            ConditionalContainer(game, in_game),
            ConditionalContainer(lobby, in_lobby),
            chat_input,
            status,
            _window(state, keys_text, height=1),
        ]
    )

    def overlay(text: Callable[[AppState], Fragments], shown: Callable[[], bool]) -> Float:
        frame = Frame(_window(state, text, dont_extend_height=True, dont_extend_width=True))
        return Float(ConditionalContainer(frame, Condition(shown)))

    floats = [
        overlay(round_summary_text, lambda: state.summary == "round" and state.final is None),
        overlay(game_summary_text, lambda: state.summary == "game" and state.final is not None),
        overlay(help_text, lambda: state.show_help),
        overlay(quit_text, lambda: state.confirm_quit),
    ]
    return FloatContainer(body, floats), status


def screen_text(app: Application[None], width: int = 80, height: int = 24) -> str:
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
