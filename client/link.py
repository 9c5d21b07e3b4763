"""The connection to a sushigo server below the game (`client.connection.Client` adds the game).

`Link.connect` opens the socket (TLS pinned on first use), says HELLO and logs in; lobby and
tournament calls send a request and await its reply by ``ref`` (`ServerError` for an ERROR; the
calls are `client.lobby_calls.LobbyCalls`, the errors `client.errors`); `events()` yields every
server message in order, as typed values; PONG answers pings.
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
    PROTOCOL_NAME,
    SUPPORTED_VERSIONS,
    ClientConnection,
    ClientMessage,
    ConnectionClosed,
    Error,
    ErrorCode,
    GameStarting,
    Hello,
    LoggedIn,
    LoginGuest,
    LoginTicket,
    Message,
    Phase,
    Pong,
    ProtocolError,
    Redirect,
    Restarting,
    ServerPing,
    Spectating,
    TableInfo,
    TableJoined,
    TableLeft,
    TableUpdate,
    Welcome,
    login_key_message,
)

from .address import AddressError, parse_address
from .errors import ConnectError, ConnectionLost, NoAnswer, ServerError
from .known_hosts import (
    CertificateChanged,
    KnownHosts,
    KnownHostsError,
    client_ssl_context,
    peer_fingerprint,
)
from .lobby_calls import LobbyCalls
from .sniff import FIRST_BYTES, what_answered

__all__ = ["ConnectError", "ConnectionLost", "Link", "LinkOptions", "ServerError"]

log = logging.getLogger("sushigo.client")

CAPABILITIES = ("chat", "spectate", "resume", "placement", "tournament_redirect", "quick_move")
"""What the library announces in HELLO (docs/PROTOCOL.md, section 2.1)."""

T = TypeVar("T")


class LinkOptions(TypedDict, total=False):
    """The keyword arguments of `Link` (and `Client`, which passes them on)."""

    name: Required[str]
    tls: bool
    known_hosts: KnownHosts | None
    key: Ed25519PrivateKey | None
    timeout: float
    software: str


class Link(LobbyCalls):
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
        self.foreign = ""
        """What answered instead of a sushigo server on the last connection, in words (its first
        bytes were no sushigo frame: `client.sniff`); "" when nothing of the kind did."""
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
        self._leaving = False
        """Following an unasked REDIRECT with a ticket: the session we had is left behind (see
        `_forget_drops`), once the node it names has taken the ticket."""
        self._behind: list[Message] = []
        """The unread messages of the connection left while following (`_forget_drops`): put
        back if the node refuses the ticket and we come back (`_refused`)."""
        self._ticket_ref = 0
        """The ref of the LOGIN_TICKET of the redirect being followed (0: none)."""
        self.stayed: Redirect | None = None
        """The last REDIRECT not followed (its node unreachable, or it refused the ticket and
        we came back): the caller may ask again for what it was about."""
        self.queued: tuple[int, str] | None = None
        """We wait at a quick-match table for its game to begin (players, kind): while we do,
        the library keeps us in the queue (`requeue`) when we lose the seat on the way (a move
        to another node's quick match that could not be made, a resume into the lobby)."""
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
            if client.foreign:
                raise ConnectError(
                    f"{client._where()} is not a sushigo server ({client.foreign})"
                ) from None
            if (
                client.welcome is None
                and client.protocol_error is None
                and client.refusal is None
                and not client.tls
            ):
                # Closed on us without a word: a server with TLS does that to a plain HELLO.
                raise ConnectError(
                    f"{client._where()} closed the connection without answering: a sushigo"
                    " server with TLS needs --tls (else it is no sushigo server)"
                ) from None
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
            # asyncio.timeout, not wait_for: Python 3.11's wait_for drops a cancellation (Ctrl-C's)
            # that comes as the connection opens, and the command would wait on.
            async with asyncio.timeout(self.timeout):
                reader, writer = await asyncio.open_connection(
                    self.host,
                    self.port,
                    ssl=context,
                    server_hostname=self.host if context else None,
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
            capabilities=CAPABILITIES,
            software=self.software[:64],
        )
        try:
            reply = await self._request(hello)
        except NoAnswer as exc:  # no answer at all: perhaps no sushigo server either
            raise NoAnswer(
                f"{exc}: is it a sushigo server{'' if self.tls else ' (or one with --tls)'}?"
            ) from None
        assert isinstance(reply, Welcome)
        self.welcome = reply
        self.restarting = None  # back
        self.server_key = reply.server_key

    def _forget_drops(self) -> None:
        """Take the drops of earlier connections out of the events not yet read (their messages
        stay, in order). Whoever opened this connection (a resume, a fresh login) has handled
        the drop; a caller that read the stale one later would take the session back again on a
        third connection, and whatever it had sent on this one in between (a game's seed, say)
        would be lost with it.

        Following an unasked REDIRECT with a ticket, the messages of the connection left are
        set aside (`_behind`), and once the node it names takes the ticket they are dropped and
        we are at no table: that session is no longer ours. (A tournament's home that took a
        placed game back may have seated it meanwhile; the table it was sent to, or sends it
        home from, is not this node's.) If it refuses the ticket, they are put back."""
        events = self._events
        kept = [events.get_nowait() for _ in range(events.qsize())]
        for item in kept:
            if isinstance(item, ConnectionLost):
                continue
            if self._leaving:
                self._behind.append(item)
            else:
                events.put_nowait(item)

    def _left(self) -> None:
        """The session we had is left behind (`_forget_drops`): no table, no game."""
        self.table = self.seat = self.kind = None

    def _where(self) -> str:
        return self._at((self.host, self.port))

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
        where we were); `ServerError` if it refuses the ticket (or `ConnectError` if it
        closes on us or does not answer): we come back to the node we came from and take our
        session back there (`_back`) first, so the client goes on where it was. (A node
        refuses a ticket of a version it does not know, one whose table began meanwhile,
        or whose tournament it does not run yet while it takes it over.) `ConnectionLost`
        if we cannot come back: the caller takes the session back as after any drop."""
        try:
            host, port = parse_address(redirect.address)
        except AddressError as exc:
            raise ConnectError(f"a redirect to a bad address: {exc}") from None
        where = self.host, self.port
        before = self.proto
        self.host, self.port = host, port
        try:
            await self._open()
            ticket = LoginTicket(ref=self.proto.next_ref(), ticket=redirect.ticket)
            self._ticket_ref = ticket.ref
            reply = await self._request(ticket)
        except (ServerError, ConnectionLost, ConnectError) as exc:
            if self.proto is before:  # not reached: the connection we had is as it was
                self.host, self.port = where
                raise
            await self._refused(redirect, where, before, exc)
            if isinstance(exc, ServerError):
                raise
            raise ConnectError(f"{redirect.address} did not take the ticket: {exc}") from None
        except BaseException:
            self.host, self.port = where
            raise
        finally:
            self._ticket_ref = 0
        log.info("redirected to %s for table %s", redirect.address, redirect.table_id)
        self._logged_in(reply)

    async def _refused(
        self,
        redirect: Redirect,
        where: tuple[str, int],
        before: ClientConnection,
        why: Exception,
    ) -> None:
        """The node a REDIRECT named did not take its ticket: back to the node at `where`,
        whose connection (`before`) we left, and our session there taken back (`_back`), the
        messages of that connection we had not read put back first."""
        self._ticket_ref = 0
        self.stayed = redirect
        log.warning(
            "the redirect to %s was refused (%s): back to %s",
            redirect.address,
            why,
            self._at(where),
        )
        self.host, self.port = where
        self._put_back()
        try:
            await self._back(before)
        except (ConnectError, ConnectionLost, ServerError, OSError) as exc:
            # Not back: as after a drop of the connection we left (its state kept, so a resume
            # asks for what came after what we read of it).
            writer, reader = self._writer, self._reader_task
            self.proto, self.connected = before, False
            self._lost.set()
            if writer is not None:
                writer.close()
            if reader is not None and not reader.done():
                reader.cancel()
            raise ConnectionLost(f"could not come back to {self._at(where)}: {exc}") from None

    def _put_back(self) -> None:
        """Put the messages set aside while following back in front of the events."""
        self._leaving = False
        events = self._events
        items = [*self._behind, *(events.get_nowait() for _ in range(events.qsize()))]
        self._behind = []
        for item in items:
            events.put_nowait(item)

    async def _back(self, before: ClientConnection) -> None:
        """Come back to the node we are at again (`host`, `port`) after a redirect's node
        refused its ticket: here a fresh login (`client.connection.Client` takes the session
        of `before` back by its token instead)."""
        await self._open()
        await self._login()

    @staticmethod
    def _at(where: tuple[str, int]) -> str:
        host, port = where
        return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"

    async def close(self) -> None:
        """Close the connection (the session ends on the server after its resume window)."""
        self.connected = False
        if self._writer is not None:
            self._writer.close()
            with contextlib.suppress(Exception):
                await self._writer.wait_closed()
        if self._reader_task is not None:
            self._reader_task.cancel()
            # Waited for, its end not raised: a Ctrl-C that comes meanwhile still stops us.
            await asyncio.wait([self._reader_task])

    # -- requests -------------------------------------------------------------------------------

    def send(self, message: ClientMessage) -> None:
        """Send a message now (no reply awaited)."""
        if self._writer is None or not self.connected:
            raise ConnectionLost("not connected")
        if self.proto.phase is Phase.CLOSED:
            # The server said a fatal ERROR (its restart, a kick) and is about to close: the
            # connection is lost for us already, though its end has not been read yet.
            raise ConnectionLost("the server closed the connection")
        self._writer.write(self.proto.send(message))

    async def _request(self, message: ClientMessage, *, patient: bool = False) -> Message:
        """Send and await the reply with the same ref; an ERROR with the ref raises
        `ServerError`. (Since protocol 2.1 every request's answer carries its ref.) `NoAnswer`
        after `timeout` seconds; or, `patient`, one line logged each `timeout` and the same
        answer awaited on, until it comes or the connection drops (`ConnectionLost`): for a
        request that must not be made twice (a server answers every request, in order, but may
        hold its answers back while its database is slow: a cluster's node sends nothing that
        is not stored yet)."""
        future: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self._replies[message.ref] = future
        dropped = self._lost  # this connection's: a later one has its own
        try:
            self.send(message)
            while True:
                lost: asyncio.Future[Any] = asyncio.ensure_future(dropped.wait())
                waiting: set[asyncio.Future[Any]] = {future, lost}
                done, _ = await asyncio.wait(
                    waiting, timeout=self.timeout, return_when=asyncio.FIRST_COMPLETED
                )
                lost.cancel()
                if future in done:
                    return future.result()
                if lost in done:
                    raise ConnectionLost("the connection dropped")
                silent = NoAnswer(
                    f"no answer to {message.TYPE} from {self._where()} within {self.timeout:.0f} s"
                )
                if not patient:
                    raise silent
                log.warning("%s: still waiting for it (asked once, not again)", silent)
        finally:
            self._replies.pop(message.ref, None)
            if future.done() and not future.cancelled():
                # Answered as we stopped waiting (cancelled, or the connection dropped in the
                # same moment): what it says is not for anyone now, and asyncio would print it
                # as "never retrieved".
                future.exception()

    async def request(
        self, make: Callable[[int], ClientMessage], *, patient: bool = False
    ) -> Message:
        """Send the message `make(ref)` and await its reply (`ServerError` for ERROR; see
        `_request` for `patient`)."""
        return await self._request(make(self.proto.next_ref()), patient=patient)

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
        # `asyncio.timeout`, not `wait_for`: on Python 3.11, `wait_for` loses a cancellation
        # (Ctrl-C cancels the main task) that comes as the next event arrives, and the program
        # would wait on rather than stop.
        async with asyncio.timeout(timeout):
            item = await self._events.get()
        if isinstance(item, ConnectionLost):
            raise item
        if isinstance(item, Redirect) and not item.ref and item.ticket:
            # Sent on unasked, with a ticket: a tournament's game on another node, or home
            # again after it. Followed here, so every caller of the library goes.
            self.moved = None
            self._leaving = True
            try:
                await self.follow(item)
            except ServerError:
                # Refused there (logged): we came back, to the session we had. A tournament's
                # node plays the game at home, or without us (a bot in our seat).
                self.stayed = item
            except ConnectError as exc:
                # That node is unreachable (it died), or did not take the ticket (logged: we
                # came back): we stay, logged in where we are. A tournament's node whose game
                # nobody made there plays it at home.
                if self.stayed is not item:
                    log.warning("could not follow a redirect to %s: %s", item.address, exc)
                self.stayed = item
            finally:
                self._leaving = False
            if self.stayed is item and self.queued is not None:
                await self._move_failed()
        self._view(item)
        return item

    async def _move_failed(self) -> None:
        """A quick match's move we could not make: the node we are on gave our seat up as it
        sent us. Our session there is taken back on a new connection, if we are still on the
        one that was at the table (the node never reached: our protocol state still has us
        seated), and we queue again (the cluster's matcher merges us in again)."""
        self._left()
        if self.proto.phase is not Phase.LOBBY:
            try:
                await self._back(self.proto)
            except (ConnectError, ServerError, OSError) as exc:
                raise ConnectionLost(f"could not come back to {self._where()}: {exc}") from None
        await self.requeue()

    async def requeue(self) -> None:
        """Back in the queue, if we waited in a quick match and are at no table now."""
        if self.queued is not None and self.table is None:
            await self.quick_match(*self.queued)

    async def wait_for(self, kind: type[T], timeout: float | None = None) -> T:
        """Skip events until one of type `kind`."""
        while True:
            event = await self.next_event(timeout)
            if isinstance(event, kind):
                return event

    # -- receiving ------------------------------------------------------------------------------

    async def _read(self, reader: asyncio.StreamReader) -> None:
        proto = self.proto
        self.foreign = ""
        first = b""
        """The connection's first bytes, to tell what answered if it was no sushigo server."""
        try:
            while True:
                data = await reader.read(65536)
                if len(first) < FIRST_BYTES:
                    first += data[: FIRST_BYTES - len(first)]
                proto.receive_data(data)
                while (event := proto.next_event()) is not None:
                    if isinstance(event, ConnectionClosed):
                        return
                    self._on_message(event)
                if not data:
                    return
        except ProtocolError as exc:
            self.protocol_error = exc
            if proto.phase in (Phase.HANDSHAKE, Phase.HELLO_SENT):
                # Before any WELCOME: something else answered (connect says what, in one line).
                self.foreign = what_answered(first)
            else:
                # A server that breaks the protocol cannot be trusted: drop it and say why.
                log.warning("protocol error from the server: %s", exc)
        except (ConnectionError, OSError):
            pass
        finally:
            if proto is self.proto:
                self.connected = False
                self._lost.set()
                self._events.put_nowait(ConnectionLost("the connection to the server was lost"))

    def _on_message(self, msg: Message) -> None:
        ref = getattr(msg, "ref", None)
        if ref and ref == self._ticket_ref and isinstance(msg, LoggedIn) and self._leaving:
            # The redirect's node took the ticket: the session we followed from is left behind
            # now, before anything this node sends next is looked at.
            self._behind = []
            self._left()
        if isinstance(msg, ServerPing):
            with contextlib.suppress(ConnectionLost, ProtocolError):
                self.send(Pong(ref=self.proto.next_ref(), nonce=msg.nonce))
            return
        if isinstance(msg, Error) and ref and ref in self._replies:
            self._replies[ref].set_exception(ServerError(msg))
            return
        if isinstance(msg, GameStarting) or (isinstance(msg, TableLeft) and not ref):
            self.queued = None  # the game begins, or the server took the table away
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
        if isinstance(msg, TableJoined):  # a move to another node's quick match seats us so
            self.seat = msg.seat
        elif isinstance(msg, TableLeft) and msg.table_id == getattr(self.table, "table_id", None):
            self.table = self.seat = None

    def _duty(self, msg: Message) -> None:
        """What the connection does as `msg` arrives, before any reply or event is handed on
        (`Client` does the seat's part of the game here)."""
