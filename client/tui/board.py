"""A game's part of the terminal client: its board inside the one shell.

The shell (`state.AppState`, `layout`, `keys`) knows no particular game: the lobby, chat, help,
the status line, the countdown, the log and the summaries are its own. Everything on screen that
depends on the game is asked of the game's `Board`: the header's game part, the players' lines,
the panel of our own (hand, belt), what the status line says by default, the keys of a turn and
the scores after a round or at the end.

This module's `Board` is also the board of a game that brings none of its own: the observation's
fields as they are, the legal actions as a numbered menu, and the rules' words for actions and
events. So any installed game is playable in the terminal, if plainly. A game draws its own by
exposing a `Board` subclass as its ``BOARD`` (`client.tui.games`, the terminal client's door to the
games).

A board keeps the game as it is shown: the last observation, which seats act in the current step,
what each did, and our own choice. The shell hands it every game message (`turn_start`,
`commitments`, `turn_result`, `acted`, `game_ended`, `refused`, `resumed`); what the board draws
comes from that state alone, so rendering tests need no server.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, ClassVar, Protocol

from prompt_toolkit.application.current import get_app
from prompt_toolkit.filters import Condition, Filter
from prompt_toolkit.formatted_text import StyleAndTextTuples, fragment_list_width
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

from sushigo.client.checks import Fairness
from sushigo.client.connection import Client, ConnectError, ConnectionLost, ServerError
from sushigo.engine import EngineError
from sushigo.engine.api import Rules
from sushigo.engine.games import rules
from sushigo.protocol import Acted, Commitments, GameEnded, Resumed, TurnResult, TurnStart

__all__ = [
    "Board",
    "Fragments",
    "Shell",
    "fit_row",
    "panel_line",
    "player_label",
    "terminal_size",
]

Fragments = StyleAndTextTuples
"""prompt_toolkit formatted text: (style, text) pairs."""

MENU_WIDTH = 42
"""The panel's width (the hand's window)."""
FRAME_ROWS = 4
"""Rows of the game screen that are neither the players' nor the panels': the header, the
fairness rule, the status line and the keys."""


class Shell(Protocol):
    """What a board sees of the shell (`state.AppState`)."""

    client: Client | None
    names: tuple[str, ...]
    """Display names in seat order."""
    seat: int | None
    final: GameEnded | None
    deadline: float | None
    """When the step's timer runs out, on the `now` clock."""
    summary: str | None
    """The summary shown over the game: "round", "game" or None."""

    def now(self) -> float: ...

    @property
    def fairness(self) -> Fairness: ...

    @property
    def is_host(self) -> bool: ...

    def name_of(self, seat: int, short: bool = False) -> str: ...

    def seat_note(self, seat: int) -> str:
        """ "away" or "bot plays" for a seat whose player let two turns pass; "" otherwise."""
        ...

    def log_line(self, line: Fragments) -> None: ...

    def set_status(self, text: str, error: bool = False) -> None: ...

    def say(self, text: str, error: bool = False) -> None: ...

    def notify(self) -> None: ...


class Board:
    """The board of one game on screen, and the plain board of a game without its own."""

    help_lines: ClassVar[Fragments] = [
        ("", "Game    ↑↓ or 1-9 choose what to do · Enter play it\n")
    ]
    """The help overlay's lines on this game's keys."""
    scoring_lines: ClassVar[Fragments] = []
    """The help overlay's lines on how the game scores (the plain board: none)."""

    def __init__(self, shell: Shell, kind: str) -> None:
        self.shell = shell
        self.kind = kind
        self.rules: Rules | None
        try:
            self.rules = rules(kind)
        except EngineError:
            self.rules = None  # a game this installation lacks: watched as data, not played
        self.title = self.rules.title if self.rules is not None else kind
        self.observation: Any = None
        """Our latest observation (the public one when watching)."""
        self.position: tuple[int, int] | None = None
        """(round, turn) of the current step."""
        self.acting: tuple[int, ...] = ()
        """The seats that act in the current step."""
        self.secret = True
        """The current step is chosen at once in secret (commit-reveal), not move by move."""
        self.waiting = False
        """The current step waits for an action of ours."""
        self.my_pick: Any = None
        """What we committed to in the current secret step."""
        self.pending: Any = None
        """Our open-step action the server has not answered yet."""
        self.commits: list[str] = []
        """Per seat in a secret step: "" (choosing), "picked", "committed", "auto", "revealed"."""
        self.cursor = 0
        """The plain board's menu cursor (an index into `legal_actions()`)."""
        self._keys: KeyBindings | None = None

    # -- what the shell asks ---------------------------------------------------------------------

    @property
    def seat(self) -> int | None:
        """Our seat (None: watching)."""
        return self.shell.seat

    @property
    def final(self) -> GameEnded | None:
        return self.shell.final

    def legal_actions(self) -> tuple[Any, ...]:
        """What we may do now (nothing when it is not our step)."""
        obs = self.observation
        if obs is None or not self.waiting or self.final is not None:
            return ()
        return tuple(obs.legal_actions())

    def describe(self, action: Any) -> str:
        """An action in words."""
        if self.rules is not None:
            try:
                return self.rules.describe(action)
            except Exception:  # a plug-in's describe failing must not take the screen down
                pass
        return str(action)

    def seat_name(self, seat: int) -> str | None:
        """A name of the game's own for `seat` (the card game's dummy); None: the player's."""
        return None

    # -- game messages ---------------------------------------------------------------------------

    def turn_start(self, msg: TurnStart) -> None:
        """A step begins (or is shown again after a resume)."""
        if self.is_new_step(msg.round, msg.turn, msg.seats):
            self.my_pick = None
            self.new_step()
            self.shell.set_status("")
        self.position, self.acting, self.secret = (msg.round, msg.turn), msg.seats, msg.secret
        self.observation = msg.observation
        players = len(self.shell.names) or len(msg.seats)
        self.commits = [""] * players
        self.pending = None
        self.waiting = self.seat is not None and self.seat in msg.seats and self.my_pick is None
        self.fit()

    def commitments(self, msg: Commitments) -> None:
        """Every commitment is in (None: the server chose for that seat)."""
        self.commits = ["auto" if c is None else "committed" for c in msg.commitments]
        self.shell.deadline = None
        if self.waiting and self.my_pick is None:
            self.waiting = False
            self.shell.set_status("time ran out: the server picked for you", error=True)

    def turn_result(self, msg: TurnResult) -> None:
        """A secret step's picks are open."""
        self.commits = ["auto" if o.auto else "revealed" for o in msg.openings]
        self.waiting = False
        self.log_openings(msg)
        for event in msg.events:
            self.event(event)

    def acted(self, msg: Acted) -> None:
        """A seat's action in an open step."""
        before = self.observation
        self.observation = msg.observation
        self.log_acted(msg, before)
        for event in msg.events:
            self.event(event)
        if msg.seat == self.seat and self.seat is not None:
            self.pending = None
            self.waiting = msg.more
            if not msg.more:
                self.shell.deadline = None
            if msg.auto:
                self.shell.set_status(
                    f"the server played {self.describe(msg.action)} for you", error=True
                )
        self.fit()

    def game_ended(self, msg: GameEnded) -> None:
        """The game is over (the shell keeps the totals, places and winners)."""
        self.waiting, self.pending = False, None

    def refused(self) -> None:
        """The server refused our open-step action: it changed nothing, we may choose again."""
        if self.pending is not None:
            self.pending = None
            self.waiting = self.seat is not None and self.seat in self.acting and not self.secret

    def resumed(self, reply: Resumed) -> None:
        """The session is back on a new connection: pick the step up where it is."""
        client = self.shell.client
        if client is None:
            return
        obs = client.observation
        if obs is not None:
            self.observation = obs
        position = (reply.round, reply.turn) if reply.round and reply.turn else self.position
        snap = reply.snapshot
        acting = snap.seats if snap is not None and snap.seats else self.acting
        if position is not None and self.is_new_step(*position, acting):
            self.my_pick = None
            self.new_step()
        self.position, self.acting = position, acting
        if snap is not None and snap.seats:
            self.secret = snap.secret
        self.pending = None
        self.waiting = client.awaiting
        self.fit()

    def is_new_step(self, round_: int, turn: int, seats: tuple[int, ...]) -> bool:
        """A step other than the one on screen (the same one comes again after a resume)."""
        return (round_, turn) != self.position or seats != self.acting

    def played(self, action: Any) -> None:
        """Our action was sent: committed in a secret step, awaiting its answer in an open one."""
        if self.secret:
            self.my_pick = action
            self.waiting = False
            if self.seat is not None and self.seat < len(self.commits):
                self.commits[self.seat] = "picked"
            self.shell.set_status(f"you picked {self.describe(action)}: waiting for the others")
        else:
            self.pending = action

    def event(self, event: Any) -> None:
        """One of the game's events: logged in the rules' words (if it has any)."""
        text = self.rules.describe_event(event) if self.rules is not None else None
        if text:
            self.shell.log_line([("class:log.round", text)])

    def new_step(self) -> None:
        """A new step: forget the choice of the last one."""
        self.cursor = 0

    def fit(self) -> None:
        """Keep the choice inside what the observation now allows."""
        self.cursor = min(self.cursor, max(0, len(self.legal_actions()) - 1))

    def log_openings(self, msg: TurnResult) -> None:
        """A secret step's log line: every seat's action."""
        line: Fragments = [("class:log.dim", f"R{msg.round}T{msg.turn} ")]
        for seat, opening in enumerate(msg.openings):
            if seat:
                line.append(("", " "))
            line.append(("class:log.name", f"{self.shell.name_of(seat, short=True)[:8]}:"))
            line.extend(self.action_fragments(opening.action))
            if opening.auto:
                line.append(("class:log.dim", "(auto)"))
        self.shell.log_line(line)

    def log_acted(self, msg: Acted, before: Any) -> None:
        """An open step's log line: who did what."""
        line: Fragments = [
            ("class:log.dim", f"R{msg.round}T{msg.turn} "),
            ("class:log.name", self.shell.name_of(msg.seat, short=True)),
            ("", ": "),
            *self.action_fragments(msg.action),
        ]
        if msg.auto:
            line.append(("class:log.dim", " (auto)"))
        self.shell.log_line(line)

    def action_fragments(self, action: Any) -> Fragments:
        """An action in the log."""
        return [("", self.describe(action))]

    # -- the plain board's choice ----------------------------------------------------------------

    def move(self, delta: int) -> None:
        """Move the menu cursor (wrapping)."""
        legal = self.legal_actions()
        if legal:
            self.cursor = (self.cursor + delta) % len(legal)
            self.shell.notify()

    def select(self, index: int) -> None:
        """Put the cursor on menu entry `index` (from 0), as a number key does."""
        if index < len(self.legal_actions()):
            self.cursor = index
            self.shell.notify()
        else:
            self.shell.say(f"there is no choice {index + 1}", error=True)

    def chosen_action(self) -> tuple[Any, str]:
        """The action Enter would play, or None and the reason it cannot be played."""
        if self.final is not None or self.observation is None:
            return None, "no game is running"
        if self.seat is None:
            return None, "you are watching: spectators do not play"
        if self.my_pick is not None:
            return None, f"you picked {self.describe(self.my_pick)} already: waiting for the others"
        if self.pending is not None:
            return None, "waiting for the server's answer"
        legal = self.legal_actions()
        if not legal:
            return None, "not your turn: wait for it"
        return legal[min(self.cursor, len(legal) - 1)], ""

    def play_chosen(self) -> bool:
        """Enter: play the chosen action if it is legal now; else say why and send nothing."""
        action, reason = self.chosen_action()
        if action is None:
            self.shell.say(reason, error=True)
            return False
        return self.play(action)

    def play(self, action: Any) -> bool:
        """Send our action (commit it in a secret step); say why not if it cannot be sent."""
        client = self.shell.client
        if client is None:
            self.shell.say("not connected", error=True)
            return False
        try:
            client.play(action, seen=None if self.secret else self.observation)
        except ServerError as exc:
            self.shell.say(f"cannot {self.describe(action)}: {exc.error.message}", error=True)
            return False
        except (ConnectionLost, ConnectError):
            self.shell.say(
                "not connected: nothing was sent; try again once reconnected", error=True
            )
            return False
        self.played(action)
        self.shell.notify()
        return True

    def key_bindings(self, playing: Filter) -> KeyBindings:
        """The keys of a turn, active under `playing` (made once per board)."""
        if self._keys is None:
            # A spectator has no turn to play: its keys are the shell's (l stops watching).
            self._keys = self.make_key_bindings(playing & Condition(lambda: self.seat is not None))
        return self._keys

    def make_key_bindings(self, playing: Filter) -> KeyBindings:
        """The plain board's keys: ↑↓ or a number choose, Enter plays."""
        kb = KeyBindings()
        steps: list[tuple[tuple[str, ...], Callable[[], object]]] = [
            (("up", "k", "left"), lambda: self.move(-1)),
            (("down", "j", "right"), lambda: self.move(1)),
            (("enter",), self.play_chosen),
        ]
        for keys, run in steps:
            for key in keys:
                kb.add(key, filter=playing)(_runner(run))
        for digit in "123456789":
            kb.add(digit, filter=playing)(_runner(partial(self.select, int(digit) - 1)))
        return kb

    # -- drawing ---------------------------------------------------------------------------------

    def header(self) -> Fragments:
        """The header's game part: where the game stands."""
        if self.position is None:
            return []
        round_, turn = self.position
        return [("", f" round {round_} · turn {turn}")]

    def players(self) -> Fragments:
        """One line per seat: name, score, what it is doing."""
        obs = self.observation
        scores = getattr(obs, "scores", None)
        final = self.final
        out: Fragments = []
        for seat in range(len(self.shell.names)):
            mine = seat == self.seat
            if final is not None and seat < len(final.places):
                status = f"place {final.places[seat]}"
            elif self.shell.seat_note(seat):
                status = self.shell.seat_note(seat)
            elif seat in self.acting:
                word = self.commits[seat] if seat < len(self.commits) else ""
                status = word or ("choosing" if self.secret else "moving")
            else:
                status = ""
            score: Any = ""
            if final is not None and seat < len(final.totals):
                score = final.totals[seat]
            elif isinstance(scores, tuple) and seat < len(scores):
                score = scores[seat]
            out += [
                ("", "\n" if seat else ""),
                (
                    "class:me" if mine else "",
                    ("▸" if mine else " ") + f"{self.shell.name_of(seat)[:13]:<13}",
                ),
                ("", f"{score!s:>4}pt " if score != "" else "       "),
                ("class:dim" if status in ("choosing", "") else "class:title", status),
            ]
        return out

    def panel(self) -> Fragments:
        """Our own panel: the observation's fields, and the menu of what we may do."""
        obs = self.observation
        if obs is None:
            return []
        out: Fragments = [("class:title", "Watching" if self.seat is None else self.panel_title())]
        if dataclasses.is_dataclass(obs) and not isinstance(obs, type):
            for f in dataclasses.fields(obs):
                if f.name != "seat":
                    out.append(("class:dim", f"\n{f.name}: {getattr(obs, f.name)!s}"[:MENU_WIDTH]))
        else:
            out.append(("class:dim", f"\n{obs!s}"))
        legal = self.legal_actions()
        for i, action in enumerate(legal):
            out.append(("", "\n"))
            at_cursor = i == self.cursor
            if at_cursor:
                out.append(("[SetCursorPosition]", ""))
            number = str(i + 1) if i < 9 else " "
            text = f"{'▸' if at_cursor else ' '}{number:>2} {self.describe(action)}"[:MENU_WIDTH]
            out.append(("class:cursor" if at_cursor else "", text))
        return out

    def panel_title(self) -> str:
        if self.final is not None:
            return "Game over"
        if self.my_pick is not None:
            return f"Picked {self.describe(self.my_pick)}"
        if self.pending is not None:
            return f"Sent: {self.describe(self.pending)}"
        return "Your move" if self.waiting else "Waiting"

    def default_status(self) -> str:
        """What to do now, when the status line has nothing else to say."""
        if self.final is not None:
            return "the game is over"
        if self.seat is None:
            return "watching the game"
        if self.pending is not None:
            return "waiting for the server…"
        if self.waiting:
            return "your move: choose (↑↓ or a number) and press Enter"
        if self.my_pick is not None:
            return "waiting for the others"
        return "waiting for the turn"

    def keys(self) -> str:
        """The keys of a turn, on one line."""
        return "↑↓/1-9: choose · Enter: play · c: chat · ?: help · q: quit"

    def round_summary(self) -> Fragments:
        """The scores after a round (the plain board shows none)."""
        return []

    def game_summary(self) -> Fragments:
        """The final table's rows: totals and places."""
        return self.game_table([], {})

    def round_table(self, scored: Any, columns: dict[str, str]) -> Fragments:
        """A round's scores (an event with ``round``, ``points`` and ``totals``): each seat's
        points in `columns` (attribute: heading), the round's total and the running total."""
        name_of = self.shell.name_of
        out: Fragments = [("class:title", f"Round {scored.round} scores\n")]
        head = "".join(f"{h:>5}" for h in columns.values())
        out.append(("class:dim", f"{'':<13}{head}{'round':>6}{'total':>6}\n"))
        best = max(scored.totals)
        for seat, points in enumerate(scored.points):
            row = f"{name_of(seat)[:13]:<13}" + "".join(f"{getattr(points, c):>5}" for c in columns)
            out.append(("class:me" if seat == self.seat else "", row))
            out.append(("", f"{points.total:>6}{scored.totals[seat]:>6}"))
            out.append(("class:title", " ◂ leads\n" if scored.totals[seat] == best else "\n"))
        return out

    def game_table(
        self,
        rounds: Sequence[Any],
        columns: dict[str, str],
        extras: Sequence[tuple[str, int, Sequence[int]]] = (),
    ) -> Fragments:
        """The final table: each seat's points in `columns` summed over the `rounds`' scores,
        then `extras` (heading, width, a number per seat), the total, the place; ★ the
        winners."""
        final = self.final
        if final is None:
            return []
        head = "".join(f"{h:>5}" for h in columns.values())
        head += "".join(f"{h:>{width}}" for h, width, _ in extras)
        out: Fragments = [("class:dim", f"{'':<13}{head}{'total':>6}  place\n")]
        for seat, total in enumerate(final.totals):
            sums = [sum(getattr(r.points[seat], c) for r in rounds) for c in columns]
            row = f"{self.shell.name_of(seat)[:13]:<13}" + "".join(f"{n:>5}" for n in sums)
            for _, width, values in extras:
                row += f"{values[seat] if seat < len(values) else 0:>{width}}"
            place = f"{final.places[seat]:>5}" if seat < len(final.places) else "    -"
            out.append(("class:me" if seat == self.seat else "", f"{row}{total:>6}{place}"))
            out.append(("class:title", " ★\n" if seat in final.winners else "\n"))
        return out

    def race(self, title: str, points: Sequence[int], places: tuple[str, str]) -> Fragments:
        """Who won a race, as a score pad's note says it: `title`, then the seats of the best
        `points` (the first of `places`, "most"), then those of any other non-zero points (the
        second: "second" or "fewest"), each with what they got. Nothing when nobody scored."""
        groups: dict[int, list[str]] = {}
        for seat, got in enumerate(points):
            if got:
                groups.setdefault(got, []).append(self.shell.name_of(seat))
        if not groups:
            return []
        best = max(groups)
        parts = [f"{places[0]} {', '.join(groups.pop(best))} ({best:+d})"]
        parts += [f"{places[1]} {', '.join(names)} ({got:+d})" for got, names in groups.items()]
        return [("class:dim", f"{title}: " + " · ".join(parts) + "\n")]

    def fairness(self) -> Fragments:
        """The fairness status: what has been checked so far, any failure loudly."""
        fair = self.shell.fairness
        if fair.failures:
            return [("class:fair.fail", f"!!! FAIRNESS CHECK FAILED: {fair.failures[0]} !!!")]
        if fair.final == "FAILED":
            return [("class:fair.fail", "!!! SEED CHECK FAILED !!!")]
        if fair.final == "verified":
            return [("class:fair.ok", f"fair ✓ {self.checked()}, seed check passed")]
        return [("class:fair.ok", f"fair ✓ {self.checking()}")]

    def checking(self) -> str:
        """What the fairness line says has been checked while the game runs."""
        fair = self.shell.fairness
        if self.rules is None or self.rules.secret:
            count = fair.openings_verified
            return f"{count} pick{'' if count == 1 else 's'} verified"
        count = fair.actions_seen
        return f"{count} action{'' if count == 1 else 's'} legal"

    def checked(self) -> str:
        """What the fairness line says was checked, once the record verified."""
        return self.checking()

    def players_height(self) -> int | None:
        """Lines the players' window keeps before the panels below get any (None: as needed)."""
        return None

    def spare_rows(self, players_lines: int, panel: Fragments) -> int:
        """Rows of the terminal left over once the frame, `players_lines` lines of players and
        every line of our `panel` have theirs: what long rows of the players may wrap into."""
        rows = terminal_size()[1]
        failing = 1 if self.shell.fairness.failures else 0
        panel_lines = 1 + sum(text.count("\n") for _, text, *_ in panel)
        return max(0, rows - FRAME_ROWS - failing - players_lines - panel_lines)


def panel_line(
    at_cursor: bool, number: str, mark: str, style: str, name: str, hint: str, *, focus: bool
) -> Fragments:
    """One line of a panel's list (a card of the hand, a die of the belt): number, mark, name in
    its style, a hint; reversed under the cursor, which the terminal's own follows when `focus`."""
    out: Fragments = [("", "\n")]
    if at_cursor and focus:
        out.append(("[SetCursorPosition]", ""))
    line: Fragments = [
        ("", f"{'▸' if at_cursor else ' '}{number:>2} "),
        ("class:marked" if mark.strip("[ ]") else "", f"{mark} "),
        (style, f"{name:<13} "),
        ("class:dim", hint[: MENU_WIDTH - 22]),
    ]
    if at_cursor:
        line = [("class:cursor " + style, text) for style, text, *_ in line]
    return out + line


def player_label(name: str, short: bool = False) -> str:
    """A player's name as the screens show it: server bots ("medium-bot-2") as "medium-bot2",
    or "bot2" when `short` (the log, where room is scarce); anyone else's as it is."""
    bot = re.fullmatch(r"(.*)-bot-(\d+)", name)
    if bot is None:
        return name
    return f"bot{bot.group(2)}" if short else f"{bot.group(1)[:7]}-bot{bot.group(2)}"


def terminal_size() -> tuple[int, int]:
    """The terminal's (columns, rows), as the application draws on it (80x24 outside one)."""
    try:
        size = get_app().output.get_size()
    except Exception:  # no terminal to ask (a snapshot outside an app)
        return 80, 24
    return size.columns, size.rows


def fit_row(
    head: Fragments, body: Fragments, columns: int, spare: int, rule: str = "│ "
) -> tuple[Fragments, int]:
    """One row of the players' window that never wraps on its own: `head` (a name and its
    figures), then `body` (a tableau, a belt) broken between its words onto at most `spare`
    more lines, each starting under the body's first column (after `rule`, which ends the head);
    what still does not fit is left out and marked ``…``. The row's fragments (no newline at its
    end), and the extra lines it took."""
    indent = fragment_list_width(head)
    width = max(8, columns - indent)
    words: list[Fragments] = [[]]
    for style, text, *_ in body:
        for i, piece in enumerate(text.split(" ")):
            if i:
                words.append([])
            if piece:
                words[-1].append((style, piece))
    lines: list[list[Fragments]] = [[]]
    cut = False
    for word in (w for w in words if w):
        line = lines[-1]
        if _line_width(line) + (1 if line else 0) + fragment_list_width(word) <= width:
            line.append(word)
        elif len(lines) <= spare and line:
            lines.append([word])
        else:
            cut = True
            break
    if cut:
        last = lines[-1]
        while last and _line_width(last) + 2 > width:
            last.pop()
        last.append([("class:dim", "…")])
    out: Fragments = list(head)
    for n, line in enumerate(lines):
        if n:
            out += [("", "\n" + " " * max(0, indent - len(rule))), ("class:dim", rule)]
        for i, word in enumerate(line):
            if i:
                out.append(("", " "))
            out += word
    return out, len(lines) - 1


def _line_width(words: list[Fragments]) -> int:
    """Columns of a line of words, one space between each two."""
    return sum(fragment_list_width(word) for word in words) + max(0, len(words) - 1)


def _runner(run: Callable[[], object]) -> Callable[[KeyPressEvent], None]:
    def handler(event: KeyPressEvent) -> None:
        run()

    return handler
