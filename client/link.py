"""The connection to a sushigo server below the game (`client.connection.Client` adds the game).

`Link.connect` opens the socket (TLS pinned on first use), says HELLO and logs in; lobby and
tournament calls send a request and await its reply by ``ref`` (`ServerError` for an ERROR);
`events()` yields every server message in order, as typed values; PONG answers pings.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import ssl
from collections.abc import AsyncIterator, Callable
from typing import Any, Required, Self, TypedDict, TypeVar, Unpack

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from sushigo.protocol import (
    MAX_PAGE,
    PROTOCOL_NAME,
    SUPPORTED_VERSIONS,
    AddBot,
    Chat,
    ClientConnection,
    ClientMessage,
    ConnectionClosed,
    CreateTable,
    CreateTournament,
    Error,
    ErrorCode,
    GameList,
    GameRecord,
    GetLeaderboard,
    GetRecord,
    Hello,
    JoinTable,
    Leaderboard,
    LeaveTable,
    ListTables,
    ListTournaments,
    LoggedIn,
    LoginGuest,
    LoginTicket,
    Message,
    MyGames,
    Pong,
    ProtocolError,
    QuickMatch,
    Redirect,
    RegisterTournament,
    Restarting,
    ServerPing,
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
    Version,
    WatchTournament,
    Welcome,
    login_key_message,
)

from .address import AddressError, parse_address
from .known_hosts import (
    CertificateChanged,
    KnownHosts,
    KnownHostsError,
    client_ssl_context,
    peer_fingerprint,
)

log = logging.getLogger("sushigo.client")

RECORDS_VERSION = Version(2, 2)
"""The first protocol version with MY_GAMES and GET_RECORD."""

T = TypeVar("T")


class ConnectError(Exception):
    """The server could not be reached or refused us; the message says why, for a person."""


class ServerError(Exception):
    """The server answered a request with ERROR."""

    def __init__(self, error: Error) -> None:
        code = error.error_code
        super().__init__(f"{code.name if code else error.code}: {error.message}")
        self.error = error
        self.code = code

    @classmethod
    def of(cls, code: ErrorCode, message: str) -> ServerError:
        """The ERROR the server would answer, made here: what the library refuses itself, with
        nothing sent."""
        return cls(Error(code=code, message=message))


class ConnectionLost(Exception):
    """The connection dropped (the session may be resumed)."""


class LinkOptions(TypedDict, total=False):
    """The keyword arguments of `Link` (and `Client`, which passes them on)."""

    name: Required[str]
    tls: bool
    known_hosts: KnownHosts | None
    key: Ed25519PrivateKey | None
    timeout: float
    software: str


class PageOptions(TypedDict, total=False):
    """Which page of the tables `Link.table_page` asks for (and `Link.list_tables`)."""

    status: TableStatus | None
    offset: int
    limit: int


class Link:
    """One connection (and session) to a server: the socket, the handshake and login, requests
    and their replies, and the events in order. `Client` adds the game."""

    def __init__(
        self,
        host: str,
        port: int,
        *,
        name: str,
        tls: bool = False,
        known_hosts: KnownHosts | None = None,
        key: Ed25519PrivateKey | None = None,
        timeout: float = 10.0,
        software: str = "sushigo",
    ) -> None:
        self.host, self.port, self.name = host, port, name
        self.tls, self.known_hosts, self.key = tls, known_hosts, key
        self.timeout = timeout
        self.software = software
        self.proto = ClientConnection()
        self.player_id = ""
        self.token = b""
        self.server_key = b""
        self.welcome: Welcome | None = None
        self.table: TableInfo | None = None
        self.seat: int | None = None
        self.kind: str | None = None
        """The game of the table we are at (or of the game last started), as the caller has read
        it."""
        self.connected = False
        self.protocol_error: ProtocolError | None = None
        """Why the last connection was dropped, when the server broke the protocol."""
        self.nodes: tuple[str, ...] = ()
        """A cluster's live nodes (``HOST:PORT``, the one we are on first), as the last login or
        resume gave them: where `client.connection.auto_reconnect` goes on when ours is gone."""
        self.moved: Redirect | None = None
        """A stopping node said where our table went (an unasked REDIRECT): the drop that
        follows is taken back there (`client.connection.auto_reconnect`)."""
        self.restarting: Restarting | None = None
        """The server said it is restarting (RESTARTING, since the last connection that was
        welcomed): the drop that follows is taken back by `client.connection.auto_reconnect`
        with patience."""
        self.refusal: Error | None = None
        """The ERROR that answered no request, last received: why the server closed the
        connection (a limit reached, a deadline passed, the server shutting down)."""
        self._writer: asyncio.StreamWriter | None = None
        self._reader_task: asyncio.Task[None] | None = None
        self._replies: dict[int, asyncio.Future[Message]] = {}
        self._events: asyncio.Queue[Message | ConnectionLost] = asyncio.Queue()
        self._lost = asyncio.Event()

    # -- connecting ---------------------------------------------------------------------------

    @classmethod
    async def connect(cls, host: str, port: int, **options: Unpack[LinkOptions]) -> Self:
        """Connect, say HELLO and log in (as a guest, or with `key`)."""
        client = cls(host, port, **options)
        try:
            await client._open()
            await client._login()
        except ConnectionLost:
            await client.close()
            why = client.protocol_error or (
                ServerError(client.refusal) if client.refusal is not None else None
            )
            raise ConnectError(
                f"{client._where()} closed the connection during the handshake"
                + (f": {why}" if why else "")
            ) from None
        except BaseException:
            await client.close()
            raise
        return client

    @classmethod
    async def connect_unique(
        cls, host: str, port: int, *, tries: int = 50, **options: Unpack[LinkOptions]
    ) -> Self:
        """`connect` under `options["name"]`, or, while another player holds that name (names
        are unique among the connected), under "NAME-2", "NAME-3", ... up to `tries` names: for
        a default name such as the login name or a bot's, which two people on one machine, or
        two bots of one strategy, would otherwise share. A name the person chose should use
        `connect`, so that it is that name or an error."""
        name = options["name"]
        for attempt in range(1, tries + 1):
            options["name"] = name if attempt == 1 else f"{name[:20]}-{attempt}"
            try:
                return await cls.connect(host, port, **options)
            except ServerError as exc:
                if exc.code is not ErrorCode.NAME_TAKEN or attempt == tries:
                    raise
        raise AssertionError("unreachable")

    async def _open(self) -> None:
        """Open the socket and complete the handshake (a fresh protocol state)."""
        context: ssl.SSLContext | None = client_ssl_context() if self.tls else None
        try:
            reader, writer = await asyncio.wait_for(
                asyncio.open_connection(
                    self.host,
                    self.port,
                    ssl=context,
                    server_hostname=self.host if context else None,
                ),
                self.timeout,
            )
        except TimeoutError:
            raise ConnectError(
                f"{self._where()} did not answer within {self.timeout:.0f} s"
            ) from None
        except ConnectionRefusedError:
            raise ConnectError(
                f"{self._where()} refused the connection: is the server running?"
            ) from None
        except ssl.SSLError as exc:
            raise ConnectError(f"TLS with {self._where()} failed: {exc.reason or exc}") from None
        except OSError as exc:
            raise ConnectError(f"cannot reach {self._where()}: {exc.strerror or exc}") from None
        if context is not None:
            ssl_object = writer.get_extra_info("ssl_object")
            try:
                fingerprint = peer_fingerprint(ssl_object)
                (self.known_hosts or KnownHosts()).check(self.host, self.port, fingerprint)
            except CertificateChanged as exc:
                writer.close()
                raise ConnectError(str(exc)) from None
            except KnownHostsError as exc:
                writer.close()
                raise ConnectError(f"cannot check the server's certificate: {exc}") from None
        old_writer, old_reader = self._writer, self._reader_task
        self.proto = ClientConnection()
        self._writer = writer
        self._lost = asyncio.Event()
        self.connected = True
        self._reader_task = asyncio.create_task(self._read(reader))
        # A connection this one replaces (one a refused resume left open) is closed, and its
        # reader stopped: it no longer speaks for this client (its end is not a drop of ours).
        if old_writer is not None:
            old_writer.close()
        if old_reader is not None and not old_reader.done():
            old_reader.cancel()
        self._forget_drops()
        hello = Hello(
            ref=self.proto.next_ref(),
            protocol=PROTOCOL_NAME,
            version=SUPPORTED_VERSIONS[-1],
            capabilities=("chat", "spectate", "resume", "placement", "tournament_redirect"),
            software=self.software[:64],
        )
        reply = await self._request(hello)
        assert isinstance(reply, Welcome)
        self.welcome = reply
        self.restarting = None  # back
        self.server_key = reply.server_key

    def _forget_drops(self) -> None:
        """Take the drops of earlier connections out of the events not yet read (their messages
        stay, in order). Whoever opened this connection (a resume, a fresh login) has handled
        the drop; a caller that read the stale one later would take the session back again on a
        third connection, and whatever it had sent on this one in between (a game's seed, say)
        would be lost with it."""
        events = self._events
        kept = [events.get_nowait() for _ in range(events.qsize())]
        for item in kept:
            if not isinstance(item, ConnectionLost):
                events.put_nowait(item)

    def _where(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"

    async def _login(self) -> None:
        if self.key is not None:
            assert self.welcome is not None
            message: ClientMessage = login_key_message(
                self.key, self.name, self.server_key, self.welcome.challenge, self.proto.next_ref()
            )
        else:
            message = LoginGuest(ref=self.proto.next_ref(), name=self.name)
        self._logged_in(await self._request(message))

    def _logged_in(self, reply: Message) -> None:
        assert isinstance(reply, LoggedIn)
        self.player_id, self.name, self.token = reply.player_id, reply.name, reply.resume_token
        self.nodes = reply.nodes

    async def follow(self, redirect: Redirect) -> None:
        """Go where a REDIRECT says (a cluster's node that holds the table): a new connection
        there, logged in with the redirect's ticket as the same identity. The caller then asks
        again for what it asked for. `ConnectError` if that node cannot be reached (we stay
        where we were); `ServerError` if it refuses the ticket."""
        try:
            host, port = parse_address(redirect.address)
        except AddressError as exc:
            raise ConnectError(f"a redirect to a bad address: {exc}") from None
        where = self.host, self.port
        self.host, self.port = host, port
        try:
            await self._open()
        except BaseException:
            self.host, self.port = where
            raise
        log.info("redirected to %s for table %s", redirect.address, redirect.table_id)
        ticket = LoginTicket(ref=self.proto.next_ref(), ticket=redirect.ticket)
        self._logged_in(await self._request(ticket))

    async def close(self) -> None:
        """Close the connection (the session ends on the server after its resume window)."""
        self.connected = False
        if self._writer is not None:
            self._writer.close()
            with contextlib.suppress(Exception):
                await self._writer.wait_closed()
        if self._reader_task is not None:
            self._reader_task.cancel()
            with contextlib.suppress(BaseException):
                await self._reader_task

    # -- requests -------------------------------------------------------------------------------

    def send(self, message: ClientMessage) -> None:
        """Send a message now (no reply awaited)."""
        if self._writer is None or not self.connected:
            raise ConnectionLost("not connected")
        self._writer.write(self.proto.send(message))

    async def _request(self, message: ClientMessage) -> Message:
        """Send and await the reply with the same ref; an ERROR with the ref raises
        `ServerError`. (Since protocol 2.1 every request's answer carries its ref.)"""
        future: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self._replies[message.ref] = future
        try:
            self.send(message)
            lost: asyncio.Future[Any] = asyncio.ensure_future(self._lost.wait())
            waiting: set[asyncio.Future[Any]] = {future, lost}
            done, _ = await asyncio.wait(
                waiting, timeout=self.timeout, return_when=asyncio.FIRST_COMPLETED
            )
            lost.cancel()
            if future in done:
                return future.result()
            if lost in done:
                raise ConnectionLost("the connection dropped")
            raise ConnectError(
                f"no answer to {message.TYPE} from {self._where()} within {self.timeout:.0f} s"
            )
        finally:
            self._replies.pop(message.ref, None)

    async def request(self, make: Callable[[int], ClientMessage]) -> Message:
        """Send the message `make(ref)` and await its reply (`ServerError` for ERROR)."""
        return await self._request(make(self.proto.next_ref()))

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
        """Be seated at a table that starts by itself when full (on a cluster, perhaps at
        another node's table that waits for players, or at a new one on the least loaded node:
        the redirect is followed and the quick match asked for again there, where the table it
        names waits; if that table filled meanwhile, that node finds another)."""

        def ask(ref: int) -> QuickMatch:
            return QuickMatch(ref=ref, kind=kind, players=players)

        reply = await self.request(ask)
        for _ in range(QUICK_REDIRECTS):
            if not isinstance(reply, Redirect):
                break
            await self.follow(reply)
            reply = await self.request(ask)
        return self._joined(_expect(reply, TableJoined))

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
        """Leave the table."""
        _expect(await self.request(lambda ref: LeaveTable(ref=ref)), TableLeft)
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

    async def leaderboard(self, kind: str = "sushi-go", limit: int = 20) -> Leaderboard:
        """A game's ladder: its best `limit` rated players, how many it holds, and our own row
        (None for a guest or a player not yet rated at that game)."""
        reply = await self.request(lambda ref: GetLeaderboard(ref=ref, kind=kind, limit=limit))
        return _expect(reply, Leaderboard)

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

    # -- events ---------------------------------------------------------------------------------

    async def events(self) -> AsyncIterator[Message]:
        """Every server message, in order; raises `ConnectionLost` when the connection drops."""
        while True:
            yield await self.next_event()

    async def next_event(self, timeout: float | None = None) -> Message:
        """The next server message (`ConnectionLost` if the connection drops first).

        The caller's view (table, seat, observation, which game's `fairness`) moves as events are
        taken here, not as they arrive, so it always matches the event just returned: a bot
        reading GAME_OVER sees that game's verdict even if the next game's start is already queued.
        The protocol's duties (seed, reveal, pong) and the checks happen on arrival.
        """
        item = await asyncio.wait_for(self._events.get(), timeout)
        if isinstance(item, ConnectionLost):
            raise item
        if isinstance(item, Redirect) and not item.ref and item.ticket:
            # Sent on unasked, with a ticket: a tournament's game on another node, or home
            # again after it. Followed here, so every caller of the library goes.
            self.moved = None
            await self.follow(item)
        self._view(item)
        return item

    async def wait_for(self, kind: type[T], timeout: float | None = None) -> T:
        """Skip events until one of type `kind`."""
        while True:
            event = await self.next_event(timeout)
            if isinstance(event, kind):
                return event

    # -- receiving ------------------------------------------------------------------------------

    async def _read(self, reader: asyncio.StreamReader) -> None:
        proto = self.proto
        try:
            while True:
                data = await reader.read(65536)
                proto.receive_data(data)
                while (event := proto.next_event()) is not None:
                    if isinstance(event, ConnectionClosed):
                        return
                    self._on_message(event)
                if not data:
                    return
        except ProtocolError as exc:
            # A server that breaks the protocol cannot be trusted: drop it and say why.
            log.warning("protocol error from the server: %s", exc)
            self.protocol_error = exc
        except (ConnectionError, OSError):
            pass
        finally:
            if proto is self.proto:
                self.connected = False
                self._lost.set()
                self._events.put_nowait(ConnectionLost("the connection to the server was lost"))

    def _on_message(self, msg: Message) -> None:
        ref = getattr(msg, "ref", None)
        if isinstance(msg, ServerPing):
            with contextlib.suppress(ConnectionLost, ProtocolError):
                self.send(Pong(ref=self.proto.next_ref(), nonce=msg.nonce))
            return
        if isinstance(msg, Error) and ref and ref in self._replies:
            self._replies[ref].set_exception(ServerError(msg))
            return
        if isinstance(msg, Error) and not ref:
            self.refusal = msg
        elif isinstance(msg, Restarting):
            self.restarting = msg
        elif isinstance(msg, Redirect) and not ref:
            self.moved = msg
        self._duty(msg)
        if ref and ref in self._replies and not self._replies[ref].done():
            self._replies[ref].set_result(msg)
        self._events.put_nowait(msg)

    def _view(self, msg: Message) -> None:
        """Move the caller's view as it takes `msg` (see `next_event`)."""
        if isinstance(msg, TableUpdate | TableJoined | Spectating):
            self.table = msg.table
            self.kind = msg.table.settings.kind

    def _duty(self, msg: Message) -> None:
        """What the connection does as `msg` arrives, before any reply or event is handed on
        (`Client` does the seat's part of the game here)."""


QUICK_REDIRECTS = 3
"""Redirects one quick match follows (each node it is sent to may find the table it was sent
for filled meanwhile, and send it on)."""


def _expect(message: Message, kind: type[T]) -> T:
    if not isinstance(message, kind):
        raise ServerError.of(ErrorCode.INTERNAL_ERROR, f"unexpected reply {message.TYPE}")
    return message
