"""The terminal client's one state object: everything the shell shows, and every change to it.

`AppState` holds no widget and does no IO, and knows no particular game: the lobby, our table,
chat, the log, the status line, the step's countdown, the game's end. What depends on the game is
its `board` (see `board`), made when a game comes on screen from the game's kind. Server messages
come in through `apply`; each change ends with `notify()`, which redraws the screen (the app
installs `app.invalidate` as a listener) and wakes whoever waits for a change (tests). The clock
is passed in (`now`), so the countdown is tested without waiting.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from sushigo.bots import DEFAULT_LEVEL
from sushigo.client.checks import Fairness
from sushigo.client.connection import Client
from sushigo.protocol import (
    Acted,
    Announcement,
    ChatMessage,
    Commitments,
    Error,
    GameEnded,
    GameStarted,
    GameStarting,
    Leaderboard,
    Message,
    Restarting,
    Resumed,
    Spectating,
    TableInfo,
    TableJoined,
    TableLeft,
    TableList,
    TableStatus,
    TableUpdate,
    TurnResult,
    TurnStart,
)

from .board import Board, Fragments, player_label
from .form import CreateForm, game_title
from .games import board_class
from .mute import ChatLine, Mutes
from .replay_state import RecentGames
from .replay_view import ReplayScreen

__all__ = ["LOST", "AppState", "CreateForm", "Fragments", "reconnect_note"]

LOST = "connection lost: reconnecting…"
"""The status line while a link that broke unannounced is taken back."""


def reconnect_note(client: Client) -> str:
    """Why the link is down, for the status line: a server that said it is restarting, or a
    table handed to another node, is expected and says so; anything else is a lost link."""
    if client.restarting is not None:
        return f"{client.restarting.message or 'the server is restarting'}: reconnecting…"
    if client.moved is not None:
        return "the table moved to another server: following it…"
    return LOST


@dataclass(eq=False)
class AppState:
    """Everything the terminal client shows. One instance per application."""

    client: Client | None = None
    """The connection (None in rendering tests)."""
    now: Callable[[], float] = time.monotonic
    """The clock, in seconds; the countdown is `deadline - now()`."""
    address: str = ""
    """``host:port`` of the server, for the header."""

    # -- lobby --------------------------------------------------------------------------------
    tables: tuple[TableInfo, ...] = ()
    table_cursor: int = 0
    form: CreateForm | None = None
    """The create-table form while it is open."""
    quick_kind: str = "sushi-go"
    """The game a quick match asks for (g switches it)."""
    leaderboard: Leaderboard | None = None
    """The ladder shown over the lobby (l), until closed."""
    bot_level: str = DEFAULT_LEVEL
    """The level of the bots a quick game against bots seats (v changes it)."""
    table: TableInfo | None = None
    """Our table (seated or watching)."""
    seat: int | None = None
    recent: RecentGames | None = None
    """Our finished games, while their list is on screen (h in the lobby)."""
    replay: ReplayScreen | None = None
    """The finished game being stepped through (over the list of our games)."""

    # -- the game -----------------------------------------------------------------------------
    board: Board | None = None
    """The game on screen (None: the lobby)."""
    names: tuple[str, ...] = ()
    """Display names in seat order."""
    deadline: float | None = None
    """When the step's timer runs out, on the `now` clock; None: no timer."""
    final: GameEnded | None = None
    """The game's end: totals, places and winners."""
    summary: str | None = None
    """The summary shown over the game: "round" or "game"; None when dismissed."""
    log: deque[Fragments] = field(default_factory=lambda: deque(maxlen=200))
    chat: deque[Fragments] = field(default_factory=lambda: deque(maxlen=100))
    """The chat lines shown (not those of players muted here: `mutes`)."""
    mutes: Mutes = field(default_factory=Mutes)
    """Players whose chat this client hides (/mute NAME), and every line received."""

    # -- the frame ----------------------------------------------------------------------------
    show_help: bool = False
    confirm_quit: bool = False
    interrupted: bool = False
    """The player quit with Ctrl-C (not q then y)."""
    signalled: int = 0
    """The signal that ended the client (SIGHUP: its terminal closed; SIGTERM), or 0."""
    server_ends_with_us: bool = False
    """The server stops when this client quits (scripts/play's): a quit ends the game."""
    chatting: bool = False
    status: str = ""
    status_error: bool = False
    reconnecting: bool = False
    reconnect_note: str = LOST
    """What the status line says while `reconnecting`: why the link is down, as far as we know."""
    reconnects: int = 0
    """Times the connection was taken back."""
    own_fairness: Fairness = field(default_factory=Fairness)
    """Used when there is no client (rendering tests)."""
    listeners: list[Callable[[], None]] = field(default_factory=list)
    spawn: Callable[[Coroutine[Any, Any, None]], None] | None = None
    """Runs a network operation in the background (installed by the app)."""
    version: int = 0
    """Counts changes."""

    # -- notification -------------------------------------------------------------------------

    def notify(self) -> None:
        """Something changed: redraw, and wake whoever waits."""
        self.version += 1
        for listener in list(self.listeners):
            listener()

    def set_status(self, text: str, error: bool = False) -> None:
        """Put a message in the status line (shown at the next redraw)."""
        self.status, self.status_error = text, error

    def say(self, text: str, error: bool = False) -> None:
        """Put a message in the status line, and redraw."""
        self.set_status(text, error)
        self.notify()

    def log_line(self, line: Fragments) -> None:
        """Add a line to the game's log."""
        self.log.append(line)

    # -- derived ------------------------------------------------------------------------------

    @property
    def fairness(self) -> Fairness:
        """What has been verified of this game."""
        return self.client.fairness if self.client is not None else self.own_fairness

    @property
    def in_game(self) -> bool:
        """The game screen is up (a game runs, or its end is still shown)."""
        board = self.board
        return board is not None and (board.observation is not None or self.final is not None)

    @property
    def is_host(self) -> bool:
        client = self.client
        return self.table is not None and client is not None and self.table.host == client.player_id

    def name_of(self, seat: int, short: bool = False) -> str:
        """A seat's owner: "you", a player's name, or the game's own name for it (the dummy).
        Server bots ("greedy-bot-2") show as "greedy-bot2", or "bot2" when `short`."""
        special = self.board.seat_name(seat) if self.board is not None else None
        if special is not None:
            return special
        if seat == self.seat and self.seat is not None:
            return "you"
        if seat < len(self.names):
            return player_label(self.names[seat], short)
        return f"seat {seat + 1}"

    # -- server messages ----------------------------------------------------------------------

    def apply(self, msg: Message) -> None:
        """Take in one server message and redraw."""
        if isinstance(msg, TableJoined | Spectating | GameStarting):
            # A table of ours comes on screen (a tournament seats us, say): the list of our
            # games and a replay give way to it.
            self.recent = self.replay = None
        if isinstance(msg, TableJoined | Spectating | TableUpdate):
            self._seen(msg.table)
        if isinstance(msg, TableList):
            self.tables = msg.tables
            self.table_cursor = min(self.table_cursor, max(0, len(msg.tables) - 1))
        elif isinstance(msg, TableJoined):
            self.names = ()  # another table's players, until its game says who sits where
            self.table, self.seat = msg.table, msg.seat
            self.form = None
            self.log_line([("", f"joined table {msg.table.table_id} at seat {msg.seat + 1}")])
        elif isinstance(msg, Spectating):
            self.names, self.board, self.final = (), None, None  # nothing of another table's
            self.table, self.seat = msg.table, None
            self.log_line([("", f"watching table {msg.table.table_id}")])
        elif isinstance(msg, TableUpdate):
            self._table_update(msg.table)
        elif isinstance(msg, TableLeft):
            self.left_table()
            self.set_status(f"left the table. {msg.reason}".strip())
        elif isinstance(msg, ChatMessage):
            self._chat(
                msg.player_id, msg.name, [("class:chat.name", f"{msg.name}: "), ("", msg.text)]
            )
        elif isinstance(msg, Announcement):
            # From the server's operators: never muted here, and shown in the status line too.
            who = f"announcement from {msg.by}: " if msg.by else "announcement: "
            self._chat("", "", [("class:chat.announce", who), ("", msg.text)])
            self.set_status(who + msg.text)
        elif isinstance(msg, Restarting):
            # The drop that follows is taken back by itself once the server is back.
            self.set_status(f"{msg.message or 'the server is restarting'}: back in a moment")
        elif isinstance(msg, GameStarting):
            self._game_starting(msg)
        elif isinstance(msg, GameStarted):
            self.log_line([("class:log.dim", "seeds in: the deal is fixed and will be verified")])
            if self.seat is not None and self.seat in msg.drawn:
                self.log_line([("class:log.dim", "your seed came late: the server drew it")])
        elif isinstance(msg, TurnStart):
            self._turn_start(msg)
        elif isinstance(msg, Commitments):
            if self.board is not None:
                self.board.commitments(msg)
        elif isinstance(msg, TurnResult):
            if self.board is not None:
                self.board.turn_result(msg)
        elif isinstance(msg, Acted):
            if self.board is not None:
                self.board.acted(msg)
        elif isinstance(msg, GameEnded):
            self._game_ended(msg)
        elif isinstance(msg, Error):
            if self.board is not None and (self.client is None or self.client.pending is None):
                self.board.refused()
            self.set_status(f"server: {msg.message}", error=True)
        self.notify()

    def _chat(self, player_id: str, name: str, line: Fragments) -> None:
        mutes = self.mutes
        mutes.learn(player_id, name)
        mutes.received.append(ChatLine(player_id, name, line))
        if not mutes.hides(player_id, name):
            self.chat.append(line)

    def chat_command(self, text: str) -> bool:
        """Handle a chat command typed in the chat line (``/mute NAME``: `client.tui.mute`);
        False for plain chat, which is for the server."""
        own = self.client.player_id if self.client is not None else None
        said = self.mutes.command(text, own)
        if said is None:
            return False
        self.chat.clear()
        self.chat.extend(self.mutes.shown())
        self.say(said)
        return True

    def left_table(self) -> None:
        """We are back in the lobby: no table, no game on screen, and the table's log gone
        with it (the next table's starts afresh)."""
        self.log.clear()
        self.names = ()
        self.table = self.board = self.final = None
        self.seat, self.summary, self.deadline = None, None, None

    def _seen(self, table: TableInfo) -> None:
        for seat in table.seats:
            self.mutes.learn(seat.player_id, seat.name)

    def _table_update(self, table: TableInfo) -> None:
        if self.table is not None and self.table.table_id == table.table_id:
            was = self.away_note()
            self.table = table
            now = self.away_note()
            if now and now != was:
                self.set_status(now, error=True)
            elif was and not now and self.in_game:
                self.set_status("you are back: the seat is yours again")
        self.tables = tuple(table if t.table_id == table.table_id else t for t in self.tables)

    @property
    def paused(self) -> bool:
        """Our table's game waits for a player who let two turns pass (docs/PROTOCOL.md section
        2.5: every person at it is away, so no bot plays for them)."""
        table = self.table
        return (
            table is not None
            and table.status is TableStatus.PLAYING
            and any(seat.away and not seat.bot for seat in table.seats)
        )

    def seat_note(self, seat: int) -> str:
        """A seat's player, when away, in the players' lines: "away" (the game waits for them)
        or "bot plays" (for them, until they play again); "" otherwise."""
        table = self.table
        if table is None or seat >= len(table.seats) or not table.seats[seat].away:
            return ""
        return "bot plays" if table.seats[seat].bot else "away"

    def away_note(self) -> str:
        """What our seat being away means, in words ("": we are not away)."""
        table, seat = self.table, self.seat
        if table is None or seat is None or seat >= len(table.seats) or self.final is not None:
            return ""
        info = table.seats[seat]
        if not info.away:
            return ""
        if info.bot:
            return "you missed two turns: a bot plays for you until you play again"
        return "you missed two turns: the game is paused until you play (no timer runs)"

    def _new_board(self, kind: str) -> Board:
        self.board = board_class(kind)(self, kind)
        return self.board

    def _game_starting(self, msg: GameStarting) -> None:
        self.names, self.seat = msg.players, msg.seat
        self.final, self.summary, self.deadline = None, None, None
        self.form = None
        self._new_board(msg.kind)
        names = ", ".join(self.name_of(seat) for seat in range(len(msg.players)))
        self.log_line([("class:log.round", f"{game_title(msg.kind)} starting: {names}")])

    def _turn_start(self, msg: TurnStart) -> None:
        board = self.board
        if board is None:
            # Watching a game under way: its start (with the names) was not shown.
            kind = self.table.settings.kind if self.table is not None else ""
            board = self._new_board(kind)
        if not self.names:
            self._names_from_table(max(msg.seats, default=-1) + 1)
        self.seat = getattr(msg.observation, "seat", self.seat)
        board.turn_start(msg)
        self.deadline = self.now() + msg.deadline_ms / 1000 if msg.deadline_ms else None

    def _names_from_table(self, count: int = 0) -> None:
        """The players' names from our table's seats (a game whose start we did not see: one
        watched from the middle, or a seat taken back by a new run of the client)."""
        seats = self.table.seats if self.table is not None else ()
        count = max(len(seats), count)
        self.names = tuple(
            (seats[i].name if i < len(seats) else None) or f"seat {i + 1}" for i in range(count)
        )

    def _game_ended(self, msg: GameEnded) -> None:
        """The game ended: show the final summary (and the seed check, by now complete)."""
        self.final = msg
        self.summary = "game"
        self.deadline = None
        if self.board is not None:
            self.board.game_ended(msg)
        names = ", ".join(self.name_of(s) for s in msg.winners)
        verb = "share the win" if len(msg.winners) > 1 else "wins"
        if msg.winners == (self.seat,):
            verb = "win"
        self.log_line([("class:log.round", f"game over: {names} {verb}")])
        self.set_status(f"game over: {names} {verb}")

    def resumed(self, reply: Resumed) -> None:
        """The connection was taken back: pick up the seat where it was."""
        client = self.client
        self.reconnecting = False
        self.reconnects += 1
        if client is not None:
            self.table, self.seat = client.table, client.seat
            kind = client.kind
            if self.board is None and kind is not None and client.observation is not None:
                # A game this run did not see start: the seat was taken back from a kept token.
                if not self.names:
                    self._names_from_table()
                self._new_board(kind)
                if self.table is not None:
                    self.log_line([("", f"back at table {self.table.table_id}")])
            if self.board is not None:
                self.board.resumed(reply)
            snap = reply.snapshot
            if snap is not None and snap.deadline_ms:
                self.deadline = self.now() + snap.deadline_ms / 1000
        where = f" at seat {self.seat + 1}" if self.seat is not None else ""
        board = self.board
        if board is not None and self.in_game and board.waiting:
            # The step is ours to play again (a restarted server asks for it afresh): say so
            # where the prompt would have been, or the player may wait for the turn timer.
            self.say(f"reconnected{where} · {board.default_status()}")
        else:
            self.say(f"reconnected: the session is back{where}")
