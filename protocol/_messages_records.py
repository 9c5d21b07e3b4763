"""Finished games (since 2.2): a player's own games, a page at a time, and their signed records,
to step through them again (the terminal client's "my recent games").

Only the requester's own games: MY_GAMES lists the games played in a seat the requester held
(a key player: every game stored under its key; a guest, who has no lasting identity: the games
of this session), and GET_RECORD hands out a record only of such a game. The record is the one
the player was given at GAME_OVER, so nothing is disclosed that the player had not been shown;
other people's games stay theirs to share (an exported record verifies anywhere). An unknown
game and another's get the same answer, so nobody learns which games exist.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from ._codec import Range, Size
from ._registry import (
    U32,
    ClientMessage,
    GameKindName,
    Name,
    PlayerId,
    Reply,
    Seat,
    Seats,
    TableId,
    message,
)
from .records import SignedRecord

GameId = Annotated[str, Size(1, 64)]
"""A finished game's id, as the server stores it (the reference server: 32 hex digits)."""
MAX_GAMES_PAGE = 50
"""The most games one GAME_LIST holds."""
DEFAULT_GAMES_PAGE = 20
"""The games a MY_GAMES without ``limit`` gets."""


@dataclass(frozen=True, slots=True, kw_only=True)
class GameResult:
    """One seat's outcome in a finished game."""

    seat: Seat
    """The seat, from 0."""
    name: Name
    """The name shown at the table."""
    player_id: PlayerId | None = None
    """A player with a key's id; nil for a guest or a server bot."""
    score: Annotated[int, Range(-10_000, 10_000)]
    """The final score."""
    place: Annotated[int, Range(1, 8)]
    """1 for first; tied seats share a place."""


@dataclass(frozen=True, slots=True, kw_only=True)
class GameSummary:
    """A finished game as a list shows it."""

    game_id: GameId
    """Its id, for GET_RECORD."""
    table_id: TableId
    """The table it was played at."""
    kind: GameKindName
    """The game."""
    finished_ms: Annotated[int, Range(0, 2**53)]
    """When it ended, Unix milliseconds (the server's clock)."""
    players: Annotated[tuple[GameResult, ...], Seats]
    """Every seat's result, in seat order."""
    seat: Seat | None = None
    """The requester's seat in it."""


# -- requests ----------------------------------------------------------------------------------


@message("my_games")
class MyGames(ClientMessage):
    """Ask for a page of our own finished games, newest first; answered by GAME_LIST."""

    offset: U32 = 0
    """How many of our games to skip (the page's start)."""
    limit: Annotated[int, Range(1, MAX_GAMES_PAGE)] = DEFAULT_GAMES_PAGE
    """The most games to return."""


@message("get_record")
class GetRecord(ClientMessage):
    """Ask for the signed record of one of our finished games; answered by GAME_RECORD, or
    NO_SUCH_TABLE for a game that is unknown or not ours (the same answer for both)."""

    game_id: GameId
    """The game (from GAME_LIST)."""


# -- server messages ---------------------------------------------------------------------------


@message("game_list")
class GameList(Reply):
    """The answer to MY_GAMES."""

    games: Annotated[tuple[GameSummary, ...], Size(0, MAX_GAMES_PAGE)]
    """The page, newest first."""
    offset: U32 = 0
    """The request's ``offset``."""
    more: bool = False
    """Older games follow this page."""
    guest: bool = False
    """The requester is a guest: only this session's games are listed (and kept)."""


@message("game_record")
class GameRecord(Reply):
    """The answer to GET_RECORD: the game and its record, signed by the server's key (the one
    in WELCOME): verify it, then check it (`protocol.fairness.verify_record`)."""

    game: GameSummary
    """The game (its players' names, in seat order, go with the record)."""
    record: SignedRecord
    """The signed record."""
