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
    TableInfo,
    TableSettings,
    TableStatus,
    maker,
)
from sushigo.server.errors import TableError
from sushigo.server.stats import Stats

MISSES_BEFORE_BOT = 2
"""Timeouts in a row after which a seat's player is away: a bot plays the seat until its player
acts again, or, where no other person plays, the game waits for them (`Table.paused`)."""

_seat_info = maker(SeatInfo)
_table_info = maker(TableInfo)
"""Made positionally through their slots (`maker`): a table's view goes out at every change."""


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
    """The seats and spectators of a table and its lobby view. The table says by `status` and
    `playing` where its game is, and what a bot does when it takes a seat over."""

    table_id: str
    settings: TableSettings
    host_player: str | None
    seats: list[Seat]
    spectators: list[Player]

    @property
    def status(self) -> TableStatus:
        """Open, playing or finished."""
        raise NotImplementedError

    @property
    def playing(self) -> bool:
        """A game is in progress."""
        raise NotImplementedError

    def info(self) -> TableInfo:
        """The table as the lobby shows it."""
        return _table_info(
            self.table_id,
            self.settings,
            self.status,
            self.host_player,
            tuple([seat.info() for seat in self.seats]),
            len(self.spectators),
        )

    def people(self) -> list[Player]:
        """Everyone to tell about the table: seated players and spectators."""
        seated = [s.session for s in self.seats if s.session is not None]
        return seated + self.spectators

    def free_seat(self, wanted: int | None) -> Seat:
        """The seat a newcomer may take (TableError when there is none)."""
        if self.playing:
            raise TableError(ErrorCode.GAME_IN_PROGRESS, f"table {self.table_id} is playing")
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

    def sit(self, session: Player, wanted: int | None = None) -> Seat:
        """Seat a player (one seat per player: NOT_ALLOWED for a second one)."""
        for seat in self.seats:
            if seat.player_id == session.player_id:
                raise TableError(
                    ErrorCode.NOT_ALLOWED,
                    f"you hold seat {seat.index} at table {self.table_id} already: one seat per"
                    " player (the same key logged in twice is one player)",
                )
        seat = self.free_seat(wanted)
        seat.player_id, seat.name, seat.session = session.player_id, session.name, session
        return seat

    def leave(self, session: Player) -> None:
        """A player leaves (a bot takes the seat over during a game) or stops watching."""
        if session in self.spectators:
            self.spectators.remove(session)
            return
        for seat in self.seats:
            if seat.session is session:
                seat.session = None
                if self.playing:
                    # The game goes on: the seat becomes a bot's for the rest of it.
                    seat.bot = "default"
                    self._bot_takes_over(seat)
                else:
                    seat.player_id = seat.name = None
                if self.host_player == session.player_id:
                    self.host_player = next(
                        (s.player_id for s in self.seats if s.session is not None), None
                    )

    def _bot_takes_over(self, seat: Seat) -> None:
        """`seat`'s player left during a game: give the seat the default bot and let it act."""
        raise NotImplementedError

    @property
    def full(self) -> bool:
        """Every seat is taken."""
        return all(not seat.empty for seat in self.seats)

    @property
    def abandoned(self) -> bool:
        """No player is seated or watching: the table can go."""
        return not self.spectators and all(seat.player_id is None for seat in self.seats)
