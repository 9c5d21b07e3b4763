"""Lobby messages: tables, seats, bots, chat and quick match."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, ClassVar

from sushigo.engine import GameOptions, OptionsError
from sushigo.engine.roll import RollOptions

from ._codec import Range, Size
from ._registry import (
    U32,
    ClientMessage,
    Name,
    Ref,
    Seat,
    ServerMessage,
    TableId,
    Text,
    register,
)

PlayerCount = Annotated[int, Range(2, 5)]
PlayerId = Annotated[str, Size(1, 64)]


class GameKind(StrEnum):
    """The game a table plays. A str on the wire, so later versions can add kinds."""

    SUSHI_GO = "sushi-go"
    """Sushi Go!, the card game."""
    SUSHI_ROLL = "sushi-roll"
    """Sushi Roll, the dice game: sequential turns (docs/PROTOCOL.md, "Sushi Roll")."""


class TableStatus(StrEnum):
    """Where a table is in its life."""

    OPEN = "open"
    """Waiting for players; seats may be joined."""
    PLAYING = "playing"
    """A game is in progress."""
    FINISHED = "finished"
    """The game is over; players may stay for another or leave."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TableSettings:
    """How a table is set up, chosen by whoever creates it."""

    kind: GameKind = GameKind.SUSHI_GO
    """The game."""
    players: PlayerCount
    """Seats at the table, 2-5."""
    pass_both_ways: bool = False
    """Variant: round 2 passes right."""
    dummy: bool = False
    """Variant: the two-player dummy (needs players = 2, else BAD_SETTINGS)."""
    soy_sauce: bool = False
    """Variant: soy sauce cards in the deck."""
    turn_seconds: Annotated[int, Range(0, 600)] = 60
    """Seconds to commit, and again to reveal, before the seat is auto-picked; 0: no timer."""

    def options(self) -> GameOptions:
        """The card game's engine options; `engine.OptionsError` when the combination makes no
        game, and for a ``sushi-roll`` table (use `roll_options`)."""
        if self.kind != GameKind.SUSHI_GO:
            raise OptionsError(f"a {GameKind(self.kind).value} table has no card-game options")
        return GameOptions(
            players=self.players,
            pass_both_ways=self.pass_both_ways,
            dummy=self.dummy,
            soy_sauce=self.soy_sauce,
        )

    def roll_options(self) -> RollOptions:
        """The dice game's engine options (players only); `engine.OptionsError` for a table that is
        not ``sushi-roll`` or that sets a card-game variant."""
        if self.kind != GameKind.SUSHI_ROLL:
            raise OptionsError(f"a {GameKind(self.kind).value} table has no Sushi Roll options")
        if self.pass_both_ways or self.dummy or self.soy_sauce:
            raise OptionsError("Sushi Roll has no variants (pass_both_ways, dummy, soy_sauce)")
        return RollOptions(players=self.players)


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatInfo:
    """One seat of a table as the lobby shows it."""

    seat: Seat
    """The seat index."""
    player_id: PlayerId | None = None
    """Who sits there; nil for an empty seat."""
    name: Name | None = None
    """Their display name; nil for an empty seat."""
    bot: bool = False
    """A server-side bot holds the seat (added, or standing in for a player who left)."""
    connected: bool = True
    """False while the seat's player is disconnected (it may RESUME)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TableInfo:
    """A table as the lobby shows it."""

    table_id: TableId
    """The server's id for the table."""
    settings: TableSettings
    """How it is set up."""
    status: TableStatus
    """Open, playing or finished."""
    host: PlayerId | None = None
    """The player who may start the game and add bots."""
    seats: Annotated[tuple[SeatInfo, ...], Size(2, 5)]
    """Every seat, in order."""
    spectators: U32 = 0
    """How many are watching."""


# -- requests ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class ListTables(ClientMessage):
    """Ask for the tables; answered by TABLE_LIST."""

    TYPE: ClassVar[str] = "list_tables"

    kind: GameKind | None = None
    """Only tables of this kind; nil for all."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CreateTable(ClientMessage):
    """Open a new table and sit at seat 0 as its host; answered by TABLE_JOINED."""

    TYPE: ClassVar[str] = "create_table"

    settings: TableSettings
    """The table's game and variants."""


@dataclass(frozen=True, slots=True, kw_only=True)
class JoinTable(ClientMessage):
    """Take a seat at an open table; answered by TABLE_JOINED."""

    TYPE: ClassVar[str] = "join_table"

    table_id: TableId
    """The table."""
    seat: Seat | None = None
    """The seat wanted; nil for any free seat."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Spectate(ClientMessage):
    """Watch a table (no hand is ever shown); answered by SPECTATING."""

    TYPE: ClassVar[str] = "spectate"

    table_id: TableId
    """The table."""


@dataclass(frozen=True, slots=True, kw_only=True)
class LeaveTable(ClientMessage):
    """Leave the table (during a game a bot takes the seat over); answered by TABLE_LEFT."""

    TYPE: ClassVar[str] = "leave_table"


@dataclass(frozen=True, slots=True, kw_only=True)
class AddBot(ClientMessage):
    """Host only: seat a server-side bot; answered by TABLE_UPDATE."""

    TYPE: ClassVar[str] = "add_bot"

    strategy: Annotated[str, Size(1, 32)] = "default"
    """The bot's strategy name (unknown: UNKNOWN_BOT)."""
    seat: Seat | None = None
    """The seat; nil for the first free one."""


@dataclass(frozen=True, slots=True, kw_only=True)
class StartGame(ClientMessage):
    """Host only: start the game once every seat is taken; the server sends GAME_STARTING."""

    TYPE: ClassVar[str] = "start_game"


@dataclass(frozen=True, slots=True, kw_only=True)
class QuickMatch(ClientMessage):
    """Be seated at the first table that fits; the game starts by itself when the table fills.

    Answered by TABLE_JOINED (its ``ref`` is this request's) when a seat is found."""

    TYPE: ClassVar[str] = "quick_match"

    kind: GameKind = GameKind.SUSHI_GO
    """The game."""
    players: PlayerCount = 4
    """The table size wanted."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Chat(ClientMessage):
    """Say something: to the table when at one, else to the lobby."""

    TYPE: ClassVar[str] = "chat"

    text: Annotated[str, Size(1, 500)]
    """1-500 characters."""


# -- server messages ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class TableList(ServerMessage):
    """The answer to LIST_TABLES."""

    TYPE: ClassVar[str] = "table_list"

    ref: Ref | None = None
    """The LIST_TABLES ref."""
    tables: Annotated[tuple[TableInfo, ...], Size(0, 1000)]
    """The tables, newest first."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TableJoined(ServerMessage):
    """The client now holds a seat at a table (after CREATE_TABLE, JOIN_TABLE or QUICK_MATCH)."""

    TYPE: ClassVar[str] = "table_joined"

    ref: Ref | None = None
    """The request's ref."""
    table: TableInfo
    """The table."""
    seat: Seat
    """The client's seat."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Spectating(ServerMessage):
    """The client now watches a table."""

    TYPE: ClassVar[str] = "spectating"

    ref: Ref | None = None
    """The SPECTATE ref."""
    table: TableInfo
    """The table."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TableUpdate(ServerMessage):
    """Something about the client's table changed (a seat, the status, the spectators)."""

    TYPE: ClassVar[str] = "table_update"

    table: TableInfo
    """The table now."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TableLeft(ServerMessage):
    """The client is no longer at the table (it left, or the table closed); back in the lobby."""

    TYPE: ClassVar[str] = "table_left"

    ref: Ref | None = None
    """The LEAVE_TABLE ref; nil when the server closed the table."""
    table_id: TableId
    """The table."""
    reason: Text = ""
    """Why, for people."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ChatMessage(ServerMessage):
    """Someone said something, in the lobby or at the client's table."""

    TYPE: ClassVar[str] = "chat_message"

    table_id: TableId | None = None
    """The table it was said at; nil for the lobby."""
    player_id: PlayerId
    """Who said it."""
    name: Name
    """Their display name."""
    text: Annotated[str, Size(1, 500)]
    """What they said."""


register(
    ListTables,
    CreateTable,
    JoinTable,
    Spectate,
    LeaveTable,
    AddBot,
    StartGame,
    QuickMatch,
    Chat,
    TableList,
    TableJoined,
    Spectating,
    TableUpdate,
    TableLeft,
    ChatMessage,
)
