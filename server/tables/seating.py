"""What every table has, whatever its game: seats, spectators, the lobby's view, and what a table
needs of the server around it and of its players.

A table never imports the hub or the sessions: it reaches them through the two narrow Protocols
here (`TableHost`, `Player`), so the table driver sits below the sessions in the server's layers
(docs/ARCHITECTURE.md, "The server").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from sushigo.bots import Strategy
from sushigo.protocol import (
    ErrorCode,
    FairRecord,
    Message,
    SeatInfo,
    SignedRecord,
    maker,
)
from sushigo.server.errors import TableError
from sushigo.server.stats import Stats

MISSES_BEFORE_BOT = 2
"""Timeouts in a row after which a seat's player is away: a bot plays the seat until its player
acts again, or, where no other person plays, the game waits for them (`Table.paused`)."""

_seat_info = maker(SeatInfo)
"""Made positionally through its slots (`maker`): a table's view goes out at every change."""


class Player(Protocol):
    """A seated player or a spectator, as a table sees them (the server's session)."""

    @property
    def player_id(self) -> str:
        """Who they are."""

    @property
    def name(self) -> str:
        """Their display name."""

    @property
    def attached(self) -> bool:
        """They are connected now."""

    def send(self, message: Message) -> None:
        """Send (or, while they are away, only record) a message to them."""


class TableHost(Protocol):
    """What a table needs from the server around it."""

    @property
    def stats(self) -> Stats:
        """The server's counters (turns, their latency, bot takeovers)."""

    def save_table(self, table: Any) -> None:
        """Persist the table (after every step, before anyone hears of it)."""

    def sign(self, record: FairRecord, steps: Sequence[bytes] | None = None) -> SignedRecord:
        """Sign a finished game's record with the server's key (`steps`: its steps packed by
        `protocol.step_record_bytes`, when the table has them)."""

    def game_finished(self, table: Any, signed: SignedRecord) -> None:
        """Store the finished game (record, results, ratings)."""

    def table_changed(self, table: Any) -> None:
        """Seats, status or spectators changed: tell the table's people."""


@dataclass(eq=False, slots=True)
class Seat:
    """One seat: empty, a player's, or a server bot's."""

    index: int
    player_id: str | None = None
    name: str | None = None
    session: Player | None = None
    """The player (None for a bot, or while a restarted server waits for them to resume)."""
    bot: str | None = None
    """The strategy name when a server bot holds the seat."""
    strategy: Strategy | None = None
    """The bot's strategy, or the one that plays for a player who missed too many steps."""
    misses: int = 0
    """Timeouts in a row."""
    bot_control: bool = False
    """A bot plays for the seat's player, who missed too many steps, until they act again."""

    @property
    def empty(self) -> bool:
        """Nobody holds the seat."""
        return self.player_id is None and self.bot is None

    @property
    def person(self) -> bool:
        """A player holds the seat (not a bot, nor a bot standing in for a player who left)."""
        return self.player_id is not None and self.bot is None

    @property
    def away(self) -> bool:
        """The seat's player let `MISSES_BEFORE_BOT` deadlines in a row pass, and has not acted
        since."""
        return self.misses >= MISSES_BEFORE_BOT and self.bot is None

    def info(self) -> SeatInfo:
        """The seat as the lobby shows it."""
        bot = self.bot is not None
        session = self.session
        connected = bot or (session is not None and session.attached)
        empty = self.player_id is None and not bot
        return _seat_info(
            self.index,
            self.player_id,
            self.name,
            bot or self.bot_control,
            connected or empty,
            self.away,
        )


class Seating:
    """The seats and spectators of a table, and who hosts it: who is at the table, whatever its
    game. When a player may sit or what happens to a seat left during a game is the table's to say
    (`server.tables.table.Table`)."""

    def __init__(self, table_id: str, players: int, host_player: str | None) -> None:
        self.table_id = table_id
        """For messages that name the table."""
        self.seats = [Seat(i) for i in range(players)]
        self.spectators: list[Player] = []
        self.host_player = host_player
        """Who may start the table's games (None: nobody seated, or a tournament's table)."""

    def infos(self) -> tuple[SeatInfo, ...]:
        """The seats as the lobby shows them."""
        return tuple([seat.info() for seat in self.seats])

    def people(self) -> list[Player]:
        """Everyone to tell about the table: seated players and spectators."""
        seated = [s.session for s in self.seats if s.session is not None]
        return seated + self.spectators

    def free_seat(self, wanted: int | None) -> Seat:
        """The seat a newcomer may take (TableError when there is none)."""
        if wanted is not None:
            if wanted >= len(self.seats):
                raise TableError(
                    ErrorCode.OUT_OF_RANGE, f"table {self.table_id} has no seat {wanted}"
                )
            if not self.seats[wanted].empty:
                raise TableError(ErrorCode.TABLE_FULL, f"seat {wanted} is taken")
            return self.seats[wanted]
        for seat in self.seats:
            if seat.empty:
                return seat
        raise TableError(ErrorCode.TABLE_FULL, f"table {self.table_id} is full")

    def holds(self, player_id: str) -> bool:
        """`player_id` holds a seat here (a bot standing in for them included)."""
        return any(seat.player_id == player_id for seat in self.seats)

    def check_newcomer(self, player_id: str) -> None:
        """One seat per player: NOT_ALLOWED for a player who holds one here already."""
        for seat in self.seats:
            if seat.player_id == player_id:
                raise TableError(
                    ErrorCode.NOT_ALLOWED,
                    f"you hold seat {seat.index} at table {self.table_id} already: one seat per"
                    " player (the same key logged in twice is one player)",
                )

    def unseat(self, session: Player) -> Seat | None:
        """`session` stops watching, or leaves its seat: the seat it left (its player's name and
        id still on it, for the table to clear or keep), None for a spectator or a stranger.
        The host's part passes to the next connected player."""
        if session in self.spectators:
            self.spectators.remove(session)
            return None
        left: Seat | None = None
        for seat in self.seats:
            if seat.session is session:
                seat.session = None
                left = seat
        if left is not None and self.host_player == session.player_id:
            self.host_player = next(
                (s.player_id for s in self.seats if s.session is not None), None
            )
        return left

    @property
    def full(self) -> bool:
        """Every seat is taken."""
        return all(not seat.empty for seat in self.seats)

    @property
    def abandoned(self) -> bool:
        """No player is seated or watching: the table can go."""
        return not self.spectators and all(seat.player_id is None for seat in self.seats)
