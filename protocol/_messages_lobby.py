"""Lobby messages: tables, seats, bots, chat and quick match."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated

import msgpack

from ._codec import Range, Size, array_header, codec, packed_int
from ._registry import (
    MAX_SEATS,
    U32,
    ClientMessage,
    GameKindName,
    Name,
    PlayerId,
    Reply,
    Seat,
    ServerMessage,
    TableId,
    Text,
    message,
    register_packer,
)

PlayerCount = Annotated[int, Range(1, MAX_SEATS)]
VariantName = Annotated[str, Size(1, 32)]
MAX_PAGE = 100
"""The most tables one TABLE_LIST holds (since 2.1: a reply's size is bounded)."""
DEFAULT_PAGE = 50
"""The tables a LIST_TABLES without ``limit`` gets."""


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

    kind: GameKindName
    """The game."""
    players: PlayerCount
    """Seats at the table (the game says which counts it supports: else BAD_SETTINGS)."""
    variants: Annotated[tuple[VariantName, ...], Size(0, 16)] = ()
    """The game's optional rules that are on, by name (Sushi Go!: ``pass_both_ways``, ``dummy``,
    ``soy_sauce``; an unknown one, or a combination that makes no game: BAD_SETTINGS)."""
    turn_seconds: Annotated[int, Range(0, 600)] = 60
    """Seconds for each step a seat owes (a commitment, a reveal, or a mover's whole turn) before
    the server acts for it; 0: no timer."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatInfo:
    """One seat of a table as the lobby shows it."""

    seat: Seat
    """The seat index."""
    player_id: PlayerId | None = None
    """Who sits there: nil for an empty seat, and for a seat a bot was added to (``bot``
    true); a bot standing in for a player who left keeps the player's id."""
    name: Name | None = None
    """Their display name (a bot's name for a bot's seat); nil for an empty seat."""
    bot: bool = False
    """A server-side bot holds the seat (added, or standing in for a player who left)."""
    connected: bool = True
    """False while the seat's player is disconnected (it may RESUME)."""
    away: bool = False
    """(2.5) The seat's player let two deadlines in a row pass and has not acted since: a bot
    plays the seat (``bot`` true), or, at a table where nobody else plays and no tournament
    waits, the game is paused for them (``bot`` false: no timer runs until they act)."""


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
    seats: Annotated[tuple[SeatInfo, ...], Size(1, MAX_SEATS)]
    """Every seat, in order."""
    spectators: U32 = 0
    """How many are watching."""


# -- requests ----------------------------------------------------------------------------------


@message("list_tables")
class ListTables(ClientMessage):
    """Ask for one page of the tables, newest first; answered by TABLE_LIST."""

    kind: GameKindName | None = None
    """Only tables of this game; nil for all."""
    status: TableStatus | None = None
    """Only tables in this status (``open``: the ones taking players); nil for all."""
    offset: U32 = 0
    """How many of the matching tables to skip (the page's start)."""
    limit: Annotated[int, Range(1, MAX_PAGE)] = DEFAULT_PAGE
    """The most tables to return (a server may return fewer: see TABLE_LIST's ``total``)."""


@message("create_table")
class CreateTable(ClientMessage):
    """Open a new table and sit at seat 0 as its host; answered by TABLE_JOINED."""

    settings: TableSettings
    """The table's game and variants."""


@message("join_table")
class JoinTable(ClientMessage):
    """Take a seat at an open table; answered by TABLE_JOINED."""

    table_id: TableId
    """The table."""
    seat: Seat | None = None
    """The seat wanted; nil for any free seat."""


@message("spectate")
class Spectate(ClientMessage):
    """Watch a table (no hand is ever shown); answered by SPECTATING."""

    table_id: TableId
    """The table."""


@message("leave_table")
class LeaveTable(ClientMessage):
    """Leave the table (during a game a bot takes the seat over); answered by TABLE_LEFT."""


@message("add_bot")
class AddBot(ClientMessage):
    """Host only: seat a server-side bot; answered by TABLE_UPDATE with this request's ``ref``
    (the other people at the table get it without)."""

    strategy: Annotated[str, Size(1, 32)] = "default"
    """The bot's strategy name (unknown: UNKNOWN_BOT)."""
    seat: Seat | None = None
    """The seat; nil for the first free one."""


@message("start_game")
class StartGame(ClientMessage):
    """Host only: start the game once every seat is taken; the server sends GAME_STARTING. (A
    table made by CREATE_TABLE waits for this even when full; a quick-match table starts by
    itself.)"""


@message("quick_match")
class QuickMatch(ClientMessage):
    """Be seated at the first table that fits; the game starts by itself when the table fills.

    Answered by TABLE_JOINED (its ``ref`` is this request's) when a seat is found."""

    kind: GameKindName
    """The game."""
    players: PlayerCount = 4
    """The table size wanted."""


@message("chat")
class Chat(ClientMessage):
    """Say something: to the table when at one, else to the lobby."""

    text: Annotated[str, Size(1, 500)]
    """1-500 characters."""


# -- server messages ---------------------------------------------------------------------------


@message("table_list")
class TableList(Reply):
    """The answer to LIST_TABLES."""

    tables: Annotated[tuple[TableInfo, ...], Size(0, 1000)]
    """The page: the matching tables from ``offset`` on, newest first (at most the request's
    ``limit``, and at most `MAX_PAGE`; the reference server sends fewer when more would take
    the frame past 64 KiB)."""
    total: U32 = 0
    """How many tables match the request's filters, on every page together."""
    offset: U32 = 0
    """The request's ``offset``: where this page starts among them."""


@message("table_joined")
class TableJoined(Reply):
    """The client now holds a seat at a table (after CREATE_TABLE, JOIN_TABLE or QUICK_MATCH)."""

    table: TableInfo
    """The table."""
    seat: Seat
    """The client's seat."""


@message("spectating")
class Spectating(Reply):
    """The client now watches a table."""

    table: TableInfo
    """The table."""


@message("table_update")
class TableUpdate(Reply):
    """Something about the client's table changed (a seat, the status, the spectators). Its
    ``ref`` is the ADD_BOT's it answers, in the host's copy only; nil in every other update."""

    table: TableInfo
    """The table now."""


@message("table_left")
class TableLeft(Reply):
    """The client is no longer at the table (it left, or the table closed); back in the lobby.
    Its ``ref`` is the LEAVE_TABLE's; nil when the server closed the table."""

    table_id: TableId
    """The table."""
    reason: Text = ""
    """Why, for people."""


@message("chat_message")
class ChatMessage(ServerMessage):
    """Someone said something, in the lobby or at the client's table."""

    table_id: TableId | None = None
    """The table it was said at; nil for the lobby."""
    player_id: PlayerId
    """Who said it."""
    name: Name
    """Their display name."""
    text: Annotated[str, Size(1, 500)]
    """What they said."""


_pack = msgpack.Packer(use_bin_type=True, autoreset=True).pack
_TABLE_LIST_KEYS = tuple(_pack(name) for name in ("ref", "tables", "total", "offset"))
_packed_pages: dict[int, tuple[tuple[TableInfo, ...], bytes]] = {}
"""The tables of the last few pages packed, by the identity of their tuple (kept, so the
identity is not reused): a server that sends one page to many clients (a lobby browsing, or a
flood of requests) packs it once."""


def _pack_table_list(message: TableList, game: object) -> tuple[int, bytes]:
    """TABLE_LIST's fields packed (see `register_packer`): its tables once per page."""
    tables = message.tables
    known = _packed_pages.get(id(tables))
    if known is None or known[0] is not tables:
        encode = codec(TableInfo)[0]
        packed = array_header(len(tables)) + b"".join([_pack(encode(t)) for t in tables])
        if len(_packed_pages) >= 16:
            del _packed_pages[next(iter(_packed_pages))]
        _packed_pages[id(tables)] = known = (tables, packed)
    k_ref, k_tables, k_total, k_offset = _TABLE_LIST_KEYS
    ref = message.ref
    return 4, b"".join(
        (
            k_ref,
            b"\xc0" if ref is None else packed_int(ref),
            k_tables,
            known[1],
            k_total,
            packed_int(message.total),
            k_offset,
            packed_int(message.offset),
        )
    )


register_packer(TableList, _pack_table_list)
