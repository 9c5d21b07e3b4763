"""Tournament messages: create, register, start, watch, and the standings the server publishes.

A tournament is a series of games among its entrants. The server schedules each game at a table
of its own, seats the entrants there (TABLE_JOINED), starts it, and returns them to the lobby
(TABLE_LEFT) afterwards; entrants need do nothing but play. Fractional figures (shared wins, mean
places, ratings) travel as integers in thousandths, since the wire has no floats.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated

from ._codec import Range, Size
from ._messages_lobby import PlayerCount, VariantName
from ._registry import U32, ClientMessage, GameKindName, Name, PlayerId, Reply, message

TournamentName = Annotated[str, Size(1, 32)]
Milli = Annotated[int, Range(-(2**40), 2**40)]


class TournamentFormat(StrEnum):
    """How a tournament seats its entrants game by game."""

    ROUND_ROBIN = "round_robin"
    """Every group of entrants of the table size in turn, each with its seats rotated, so every
    entrant meets every other and plays every seat equally often over a full cycle."""
    RANDOM = "random"
    """A random group of entrants in random seats each game."""


class TournamentStatus(StrEnum):
    """Where a tournament is in its life."""

    REGISTERING = "registering"
    """Entrants may register; the host starts it."""
    RUNNING = "running"
    """Games are being played."""
    FINISHED = "finished"
    """Every game has been played; the standings are final."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentSettings:
    """How a tournament is set up."""

    name: TournamentName
    """Its unique name."""
    kind: GameKindName
    """The game."""
    players: PlayerCount = 4
    """Seats per game."""
    variants: Annotated[tuple[VariantName, ...], Size(0, 16)] = ()
    """The game's variants that are on (as in TableSettings)."""
    games: Annotated[int, Range(1, 10_000)] = 12
    """Games in the tournament."""
    format: TournamentFormat = TournamentFormat.ROUND_ROBIN
    """How entrants are seated."""
    turn_seconds: Annotated[int, Range(0, 600)] = 30
    """Turn time at its tables; 0: no timer."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Standing:
    """One entrant's results so far."""

    player_id: PlayerId
    name: Name
    games: U32 = 0
    """Games played."""
    wins_milli: Milli = 0
    """Wins in thousandths (a win shared by k counts 1/k)."""
    points: Milli = 0
    """Total score over its games."""
    mean_place_milli: Milli = 0
    """Mean place in thousandths (0 before the first game)."""
    rating_milli: Milli = 0
    """Tournament openskill rating (ordinal, mu - 3 sigma) in thousandths."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentInfo:
    """A tournament as everyone may see it."""

    settings: TournamentSettings
    status: TournamentStatus
    host: PlayerId | None = None
    """Who may start it."""
    games_done: U32 = 0
    """Games finished so far."""
    games_running: U32 = 0
    """Games being played now."""
    standings: Annotated[tuple[Standing, ...], Size(0, 256)] = ()
    """Every entrant, best first (by wins, then points)."""


# -- requests ----------------------------------------------------------------------------------


@message("list_tournaments")
class ListTournaments(ClientMessage):
    """Ask for the tournaments; answered by TOURNAMENT_LIST."""


@message("create_tournament")
class CreateTournament(ClientMessage):
    """Create a tournament (the creator is its host, not an entrant); answered by TOURNAMENT_INFO.
    Errors: BAD_SETTINGS (variants that make no game, a name in use), UNSUPPORTED_GAME_KIND."""

    settings: TournamentSettings


@message("register_tournament")
class RegisterTournament(ClientMessage):
    """Enter a tournament that is registering; answered by TOURNAMENT_INFO. Entrants then receive
    every TOURNAMENT_INFO update and are seated at its tables by the server.
    Errors: NO_SUCH_TABLE (no such tournament), NOT_ALLOWED (not registering, already entered)."""

    name: TournamentName


@message("watch_tournament")
class WatchTournament(ClientMessage):
    """Receive a tournament's TOURNAMENT_INFO updates without playing; answered by one."""

    name: TournamentName


@message("start_tournament")
class StartTournament(ClientMessage):
    """Host only: close registration and begin scheduling games; answered by TOURNAMENT_INFO.
    Errors: NOT_ALLOWED (not the host, not registering), NOT_ENOUGH_PLAYERS (fewer entrants than
    seats per game)."""

    name: TournamentName


# -- server messages ---------------------------------------------------------------------------


@message("tournament_list")
class TournamentList(Reply):
    """The answer to LIST_TOURNAMENTS."""

    tournaments: Annotated[tuple[TournamentInfo, ...], Size(0, 100)]
    """The tournaments, newest first (standings left out: watch one to see them)."""


@message("tournament_info")
class TournamentUpdate(Reply):
    """A tournament now (wire type ``tournament_info``): the answer to a tournament request, and sent
    to its entrants and watchers whenever it changes (registration, a game started or finished)."""

    tournament: TournamentInfo
