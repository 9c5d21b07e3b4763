"""The requests a `client.link.Link` makes of the server below the game, one method each: the
lobby (tables, seats, a quick match, the leaderboard), our finished games and tournaments. Each
sends its request and awaits the reply by ``ref`` (`ServerError` for an ERROR); on a cluster, a
REDIRECT to the node that holds the table or tournament is followed and the request asked again
there.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable
from typing import TypedDict, TypeVar, Unpack

from sushigo.protocol import (
    MAX_PAGE,
    AddBot,
    Chat,
    ClientConnection,
    ClientMessage,
    CreateTable,
    CreateTournament,
    ErrorCode,
    GameList,
    GameRecord,
    GetLeaderboard,
    GetRecord,
    JoinTable,
    Leaderboard,
    LeaveTable,
    ListTables,
    ListTournaments,
    Message,
    MyGames,
    QuickMatch,
    Redirect,
    RegisterTournament,
    Spectate,
    Spectating,
    StartGame,
    StartTournament,
    TableInfo,
    TableJoined,
    TableLeft,
    TableList,
    TableSettings,
    TableStatus,
    TableUpdate,
    TournamentInfo,
    TournamentList,
    TournamentSettings,
    TournamentUpdate,
    WatchTournament,
    Welcome,
)
from sushigo.protocol.versions import PLACES_VERSION, RECORDS_VERSION

from .errors import ConnectError, ServerError

log = logging.getLogger("sushigo.client")


T = TypeVar("T")


class PageOptions(TypedDict, total=False):
    """Which page of the tables `Link.table_page` asks for (and `Link.list_tables`)."""

    status: TableStatus | None
    offset: int
    limit: int


class LobbyCalls:
    """The requests of a `Link` (its part below the connection: `Link` supplies these members)."""

    proto: ClientConnection
    welcome: Welcome | None
    table: TableInfo | None
    seat: int | None
    queued: tuple[int, str] | None

    def send(self, message: ClientMessage) -> None:
        raise NotImplementedError

    async def request(
        self, make: Callable[[int], ClientMessage], *, patient: bool = False
    ) -> Message:
        raise NotImplementedError

    async def follow(self, redirect: Redirect) -> None:
        raise NotImplementedError

    async def list_tables(
        self, kind: str | None = None, **page: Unpack[PageOptions]
    ) -> tuple[TableInfo, ...]:
        """One page of the server's tables, newest first (see `table_page` for the page's options
        and the total)."""
        return (await self.table_page(kind, **page)).tables

    async def table_page(
        self,
        kind: str | None = None,
        *,
        status: TableStatus | None = None,
        offset: int = 0,
        limit: int = MAX_PAGE,
    ) -> TableList:
        """One page of the tables of game `kind` (None: any) in `status` (None: any), newest
        first, from `offset` on; its ``total`` counts every page's."""
        reply = await self.request(
            lambda ref: ListTables(ref=ref, kind=kind, status=status, offset=offset, limit=limit)
        )
        return _expect(reply, TableList)

    async def create_table(self, settings: TableSettings) -> TableJoined:
        """Open a table and sit at seat 0 as its host (on a cluster, perhaps on another node, the
        least loaded: the redirect is followed)."""
        reply = await self._redirected(lambda ref: CreateTable(ref=ref, settings=settings))
        return self._joined(_expect(reply, TableJoined))

    async def join_table(self, table_id: str, seat: int | None = None) -> TableJoined:
        """Take a seat at an open table (on whichever node of a cluster holds it: a redirect is
        followed)."""
        reply = await self._redirected(lambda ref: JoinTable(ref=ref, table_id=table_id, seat=seat))
        return self._joined(_expect(reply, TableJoined))

    async def _redirected(self, make: Callable[[int], ClientMessage]) -> Message:
        """`request`, following a REDIRECT (once: the node it names holds the table, or is to
        open it) and asking that node the same again."""
        reply = await self.request(make)
        if isinstance(reply, Redirect):
            await self.follow(reply)
            reply = await self.request(make)
        return reply

    async def quick_match(self, players: int, kind: str) -> TableJoined:
        """Be seated at a table that starts by itself when full (on a cluster, at a table of the
        node we are on; the cluster's matcher may move us to another node's, which the library
        follows by itself: `Link.next_event`). A draining node sends us to another node: the
        redirect is followed and the quick match asked for again there.

        What a person would wait out is waited out, one line logged each time, and asked again
        (`QUICK_RETRY_FIRST`, doubling up to `QUICK_RETRY_MOST`): a redirect's node that cannot
        be reached or refuses its ticket (we are back where we were), a node that drains or
        cannot store games now, a limit reached. `ConnectionLost` if our connection drops (the
        caller takes the session back: `client.connection.reconnect` queues again)."""

        def ask(ref: int) -> QuickMatch:
            return QuickMatch(ref=ref, kind=kind, players=players)

        pause = QUICK_RETRY_FIRST
        while True:
            try:
                reply = await self.request(ask)
                for _ in range(QUICK_REDIRECTS):
                    if not isinstance(reply, Redirect):
                        break
                    await self.follow(reply)
                    reply = await self.request(ask)
                joined = self._joined(_expect(reply, TableJoined))
                self.queued = (players, kind)
                return joined
            except ServerError as exc:
                if exc.code not in QUICK_RETRIED:
                    raise
                why = str(exc)
            except ConnectError as exc:  # a redirect not followed: we are where we were
                why = str(exc)
            log.warning("quick match: %s; asking again in %.1f s", why, pause)
            await asyncio.sleep(pause * (0.5 + random.random()))
            pause = min(pause * 2, QUICK_RETRY_MOST)

    def _joined(self, reply: TableJoined) -> TableJoined:
        self.table, self.seat = reply.table, reply.seat
        return reply

    async def spectate(self, table_id: str) -> Spectating:
        """Watch a table."""
        reply = _expect(
            await self._redirected(lambda ref: Spectate(ref=ref, table_id=table_id)), Spectating
        )
        self.table, self.seat = reply.table, None
        return reply

    async def leave(self) -> None:
        """Leave the table (out of the quick match too, if we waited in one). The server
        answers once the seat's release is saved: a node whose database is paused or slow
        answers late, which a person would wait out, so it is waited for (a line logged each
        request timeout) until it comes or the connection drops."""
        self.queued = None
        _expect(await self.request(lambda ref: LeaveTable(ref=ref), patient=True), TableLeft)
        self.table = self.seat = None

    async def add_bot(self, strategy: str = "default", seat: int | None = None) -> TableInfo:
        """Host: seat a server bot; the table with it (the TABLE_UPDATE that answers by ref)."""
        reply = await self.request(lambda ref: AddBot(ref=ref, strategy=strategy, seat=seat))
        return _expect(reply, TableUpdate).table

    def start_game(self) -> None:
        """Host: start the game (GAME_STARTING follows as an event)."""
        self.send(StartGame(ref=self.proto.next_ref()))

    def chat(self, text: str) -> None:
        """Say something at the table (or in the lobby)."""
        self.send(Chat(ref=self.proto.next_ref(), text=text))

    async def leaderboard(
        self, kind: str = "sushi-go", limit: int = 20, player_id: str | None = None
    ) -> Leaderboard:
        """A game's ladder: its best `limit` rated players, how many it holds, and our own row
        (None for a guest or a player not yet rated at that game), or the row of `player_id`
        (a server older than 2.5 answers with our own)."""
        reply = await self.request(
            lambda ref: GetLeaderboard(ref=ref, kind=kind, limit=limit, player_id=player_id)
        )
        return _expect(reply, Leaderboard)

    @property
    def names_places(self) -> bool:
        """The server answers GET_LEADERBOARD with the place of the player it names (2.5)."""
        welcome = self.welcome
        return welcome is not None and welcome.version >= PLACES_VERSION

    # -- finished games -----------------------------------------------------------------------

    @property
    def keeps_games(self) -> bool:
        """The server answers MY_GAMES and GET_RECORD (it speaks protocol 2.2 or later)."""
        welcome = self.welcome
        return welcome is not None and welcome.version >= RECORDS_VERSION

    async def my_games(self, offset: int = 0, limit: int = 20) -> GameList:
        """A page of our finished games, newest first (a guest's: this session's)."""
        reply = await self.request(lambda ref: MyGames(ref=ref, offset=offset, limit=limit))
        return _expect(reply, GameList)

    async def get_record(self, game_id: str) -> GameRecord:
        """One of our finished games and its signed record (not yet verified: see
        `protocol.verify_signed_record`); `ServerError` NO_SUCH_TABLE if it is not ours."""
        reply = await self.request(lambda ref: GetRecord(ref=ref, game_id=game_id))
        return _expect(reply, GameRecord)

    # -- tournaments --------------------------------------------------------------------------

    async def list_tournaments(self) -> tuple[TournamentInfo, ...]:
        """The server's tournaments (without standings)."""
        reply = await self.request(lambda ref: ListTournaments(ref=ref))
        return _expect(reply, TournamentList).tournaments

    async def create_tournament(self, settings: TournamentSettings) -> TournamentInfo:
        """Create a tournament; we are its host (not an entrant)."""
        return await self._tournament(lambda ref: CreateTournament(ref=ref, settings=settings))

    async def register_tournament(self, name: str) -> TournamentInfo:
        """Enter a tournament; the server seats us at its games from now on."""
        return await self._tournament(lambda ref: RegisterTournament(ref=ref, name=name))

    async def watch_tournament(self, name: str) -> TournamentInfo:
        """Receive a tournament's updates (as TournamentUpdate events)."""
        return await self._tournament(lambda ref: WatchTournament(ref=ref, name=name))

    async def start_tournament(self, name: str) -> TournamentInfo:
        """Host: close registration and start scheduling games."""
        return await self._tournament(lambda ref: StartTournament(ref=ref, name=name))

    async def _tournament(self, make: Callable[[int], ClientMessage]) -> TournamentInfo:
        """A tournament request, answered by the tournament's TOURNAMENT_UPDATE (on a cluster,
        by the node that runs it: a REDIRECT there is followed)."""
        return _expect(await self._redirected(make), TournamentUpdate).tournament


QUICK_REDIRECTS = 3
"""Redirects one quick match follows (a draining node sends it on; so may the next, if it
began to drain meanwhile)."""
QUICK_RETRIED = frozenset(
    {
        ErrorCode.INTERNAL_ERROR,  # the database away: no new table starts until it is back
        ErrorCode.NOT_ALLOWED,  # the node drains (and no other takes players)
        ErrorCode.LIMIT_REACHED,  # the server's tables are all taken
        ErrorCode.RATE_LIMITED,
        ErrorCode.UNKNOWN_SESSION,  # a redirect's node refused the ticket (we came back)
    }
)
"""Refusals of a quick match that a person would wait out and ask again."""
QUICK_RETRY_FIRST = 0.5
"""Seconds before a refused quick match is asked again (jittered)."""
QUICK_RETRY_MOST = 10.0
"""The longest wait between two asks."""


def _expect(message: Message, kind: type[T]) -> T:
    if not isinstance(message, kind):
        raise ServerError.of(ErrorCode.INTERNAL_ERROR, f"unexpected reply {message.TYPE}")
    return message
