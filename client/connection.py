"""The asyncio connection to a sushigo server, shared by the terminal client and the bots.

`Client.connect` opens the socket (TLS pinned on first use), says HELLO, logs in; then:

- lobby calls (`create_table`, `join_table`, `quick_match`, ...) send a request and await its
  reply by ``ref``, raising `ServerError` for an ERROR;
- `events()` yields every server message in order, as typed values;
- the game's bookkeeping is done for the caller, for any game: a fresh SEED when a game starts;
  `play(action)` commits in a secret step (and reveals once every commitment is in) or acts in an
  open one; `awaiting` says when an action of ours is wanted; PONG to pings;
- everything shown is checked as it comes and at GAME_OVER (`client.checks`): openings against
  commitments, the signed record, and every observation shown against the replay of the record.
  A failure is recorded loudly in `fairness.failures`, never ignored;
- `resume()` takes the session back on a new connection after a drop (replayed messages or a
  snapshot), one attempt at a time, and goes on with what the seat still owes; `auto_reconnect`
  does it by itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import ssl
from collections import deque
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any, TypeVar

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from sushigo.protocol import (
    PROTOCOL_NAME,
    SUPPORTED_VERSIONS,
    Act,
    Acted,
    AddBot,
    Chat,
    ClientConnection,
    ClientMessage,
    Commit,
    Commitments,
    ConnectionClosed,
    CreateTable,
    CreateTournament,
    Error,
    ErrorCode,
    GameEnded,
    GameStarted,
    GameStarting,
    Hello,
    JoinTable,
    LeaveTable,
    ListTables,
    ListTournaments,
    LoggedIn,
    LoginGuest,
    Message,
    Phase,
    Pong,
    ProtocolError,
    QuickMatch,
    RegisterTournament,
    Resume,
    Resumed,
    Reveal,
    Seed,
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
    TurnResult,
    TurnStart,
    WatchTournament,
    Welcome,
    login_key_message,
    make_commitment,
    new_nonce,
    new_seed,
)

from .checks import Fairness, GameChecks
from .known_hosts import (
    CertificateChanged,
    KnownHosts,
    KnownHostsError,
    client_ssl_context,
    peer_fingerprint,
)

log = logging.getLogger("sushigo.client")

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


class ConnectionLost(Exception):
    """The connection dropped (the session may be resumed)."""


class Client:
    """One connection (and session) to a server. Use `Client.connect`."""

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
        self.observation: Any = None
        """Our latest observation (TURN_START, ACTED or a resume snapshot) as the caller has read
        it: the game's own value (`engine.api.SeatView`)."""
        self.fairness = Fairness()
        """The checks of the game the caller is reading (see `client.checks`)."""
        self.connected = False
        self.protocol_error: ProtocolError | None = None
        """Why the last connection was dropped, when the server broke the protocol."""
        self.refusals = 0
        """Our open-step actions the server refused (ERROR) since our last accepted one."""
        self._checks: GameChecks | None = None
        """The game as it arrives (ahead of the caller's view)."""
        self._state: Any = None
        """Our observation as it stands on arrival: what `play` chooses are checked against."""
        self._pick: tuple[int, int, Any, bytes] | None = None
        """(round, turn, action, nonce) of our pick in the current secret step."""
        self._revealed: tuple[int, int] | None = None
        self._pending: tuple[int, Any] | None = None
        """(ref, action) of our open-step action the server has not answered yet."""
        self._starts: deque[Fairness] = deque()
        """Each arrived game's checks, until the caller reads that game's start."""
        self._writer: asyncio.StreamWriter | None = None
        self._reader_task: asyncio.Task[None] | None = None
        self._replies: dict[int, asyncio.Future[Message]] = {}
        self._awaiting: list[tuple[type[Message], asyncio.Future[Message]]] = []
        self._events: asyncio.Queue[Message | ConnectionLost] = asyncio.Queue()
        self._lost = asyncio.Event()
        self._resuming = asyncio.Lock()
        """Held by the one resume attempt under way (see `resume`)."""

    # -- connecting ---------------------------------------------------------------------------

    @classmethod
    async def connect(cls, host: str, port: int, **kwargs: Any) -> Client:
        """Connect, say HELLO and log in (as a guest, or with `key`)."""
        client = cls(host, port, **kwargs)
        try:
            await client._open()
            await client._login()
        except ConnectionLost:
            await client.close()
            raise ConnectError(
                f"{client._where()} closed the connection during the handshake"
                + (f": {client.protocol_error}" if client.protocol_error else "")
            ) from None
        except BaseException:
            await client.close()
            raise
        return client

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
        self.proto = ClientConnection()
        self._writer = writer
        self._lost = asyncio.Event()
        self.connected = True
        self._reader_task = asyncio.create_task(self._read(reader))
        hello = Hello(
            ref=self.proto.next_ref(),
            protocol=PROTOCOL_NAME,
            version=SUPPORTED_VERSIONS[-1],
            capabilities=("chat", "spectate", "resume"),
            software=self.software[:64],
        )
        reply = await self._request(hello)
        assert isinstance(reply, Welcome)
        self.welcome = reply
        self.server_key = reply.server_key

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
        reply = await self._request(message)
        assert isinstance(reply, LoggedIn)
        self.player_id, self.name, self.token = reply.player_id, reply.name, reply.resume_token

    async def resume(self) -> Resumed:
        """Take the session back on a new connection (after `ConnectionLost`).

        One attempt at a time: a caller that asks while another attempt is under way waits for
        it and gets its answer (or tries again if it failed). Then whatever the seat still owes
        in the current step is sent again: the commitment or reveal of the pick it kept (a
        restarted server asks for the step again), and nothing else."""
        async with self._resuming:
            if self.connected and self._last_resumed is not None:
                return self._last_resumed
            last_seq = self.proto.last_seq
            game, seat = self.proto.game, self.proto.seat
            await self._open()
            # The new connection is at the same table: its game's values read the same way.
            self.proto.game, self.proto.seat = game, seat
            reply = await self._request(
                Resume(ref=self.proto.next_ref(), token=self.token, last_seq=last_seq)
            )
            if not isinstance(reply, Resumed):
                raise ConnectionLost(f"unexpected answer to RESUME: {reply.TYPE}")
            self.token = reply.resume_token
            snap = reply.snapshot
            if snap is not None:
                self.table = snap.table
                self.seat = snap.seat
                if snap.observation is not None:
                    self.observation = snap.observation
            self._continue()
            self._last_resumed = reply
            return reply

    _last_resumed: Resumed | None = None
    """The answer of the last successful resume, while its connection lasts."""

    def _resumed(self, msg: Resumed) -> None:
        """RESUMED arrived (before any message replayed or sent after it is read). An open-step
        action of ours still unanswered was lost with the connection or is answered among the
        replayed messages: either way we may act again on the game as it now stands. A snapshot
        starts the checks afresh from where it stands (what happened in between was not shown)."""
        self._pending = None
        snap = msg.snapshot
        if snap is None:
            return
        table = snap.table
        if table is None:
            self._checks = None
            return
        checks = self._checks
        if snap.server_seed_hash is not None and (
            checks is None or checks.table_id != table.table_id
        ):
            # A game this client never saw start (a new process resuming with a saved token).
            checks = self._checks = GameChecks(
                table.table_id,
                snap.seat,
                table.settings.kind,
                snap.server_seed_hash,
                client_seeds=tuple(snap.client_seeds),
            )
            self.fairness = checks.fairness
        if checks is not None:
            checks.acting = snap.seats
            if snap.observation is not None:
                checks.shown.append((snap.steps, snap.observation))
            if snap.commitments and msg.round and msg.turn:
                checks.commitments[msg.round, msg.turn] = tuple(snap.commitments)
        if snap.observation is not None:
            self._state = snap.observation

    def _continue(self) -> None:
        """After a resume, send again what the seat owes in the current step, if it kept it.

        Judged by the protocol state now, not by the phase RESUMED named: the replayed messages
        that follow it have already moved the state on (and may have had us reveal)."""
        pick = self._pick
        if pick is None or self.proto.position != (pick[0], pick[1]):
            return
        if self.proto.phase is Phase.COMMITTING:
            self._revealed = None
            self._send_commit()
        elif self.proto.phase is Phase.REVEALING:
            self._send_reveal()

    # -- the current step ----------------------------------------------------------------------

    @property
    def awaiting(self) -> bool:
        """A step waits for an action of ours: a secret step we have not picked in, or our open
        turn with nothing of ours unanswered (after a resume too: the caller should choose from
        `legal_actions()` when this is true)."""
        phase = self.proto.phase
        position = self.proto.position
        if phase is Phase.COMMITTING:
            return position is not None and (
                self._pick is None or (self._pick[0], self._pick[1]) != position
            )
        return phase is Phase.MOVING and self._pending is None and self._state is not None

    @property
    def state(self) -> Any:
        """Our observation as the game stands now (it may be ahead of `observation`, the caller's
        view, which moves as events are read): choose from this one."""
        return self._state

    def legal_actions(self) -> Sequence[Any]:
        """The actions our seat may take now (empty when none is wanted)."""
        state = self._state
        return () if state is None else state.legal_actions()

    def play(self, action: Any, seen: Any = None) -> None:
        """Our action in the current step: `pick` in a secret step, `act` in an open one."""
        if self.proto.phase is Phase.MOVING:
            self.act(action, seen)
        else:
            self.pick(action)

    def pick(self, action: Any) -> None:
        """Choose our action in a secret step: commits now, reveals when every commitment is in."""
        state = self._state
        position = self.proto.position
        if state is None or self.proto.phase is not Phase.COMMITTING or position is None:
            raise ServerError(
                Error(code=ErrorCode.OUT_OF_PHASE, message="no step is waiting for a pick")
            )
        if action not in state.legal_actions():
            raise ServerError(
                Error(code=ErrorCode.ILLEGAL_ACTION, message=f"{action!r} is not legal now")
            )
        round_, turn = position
        self._pick = (round_, turn, action, new_nonce())
        self._revealed = None
        if self._checks is not None:
            self._checks.my_pick = (round_, turn, action)
        self._send_commit()

    def act(self, action: Any, seen: Any = None) -> None:
        """Send one action of our open turn (Sushi Roll: re-rolls and swaps, then the take).

        Refused here, with nothing sent (`ServerError` with the code the server would give), when
        it is not our turn, while our previous action awaits its answer, when the game is no
        longer `seen` (the choice was made on a state that has changed since), or when the action
        is not legal. The answer is an ACTED (or an ERROR) event."""
        state = self._state
        position = self.proto.position
        if state is None or self.proto.phase is not Phase.MOVING or position is None:
            raise ServerError(Error(code=ErrorCode.OUT_OF_PHASE, message="it is not your move"))
        if self._pending is not None:
            raise ServerError(
                Error(code=ErrorCode.ALREADY_DONE, message="your last action is not answered yet")
            )
        if seen is not None and seen != state:
            raise ServerError(
                Error(code=ErrorCode.WRONG_TURN, message="the game has changed: choose again")
            )
        if action not in state.legal_actions():
            raise ServerError(
                Error(code=ErrorCode.ILLEGAL_ACTION, message=f"{action!r} is not legal now")
            )
        round_, turn = position
        ref = self.proto.next_ref()
        self.send(Act(ref=ref, round=round_, turn=turn, action=action))
        self._pending = (ref, action)
        if self._checks is not None:
            self._checks.sent.append(action)

    @property
    def pending(self) -> Any:
        """Our open-step action the server has not answered yet (None: none in flight)."""
        return self._pending[1] if self._pending is not None else None

    def _send_commit(self) -> None:
        assert self._pick is not None and self.proto.game is not None and self.seat is not None
        round_, turn, action, nonce = self._pick
        table_id = self._checks.table_id if self._checks is not None else ""
        if self.table is not None:
            table_id = self.table.table_id
        commitment = make_commitment(
            table_id,
            round_,
            turn,
            self.proto.seat if self.proto.seat is not None else self.seat,
            self.proto.game.commit_bytes(action),
            nonce,
        )
        self.send(Commit(ref=self.proto.next_ref(), round=round_, turn=turn, commitment=commitment))

    def _send_reveal(self) -> None:
        assert self._pick is not None
        round_, turn, action, nonce = self._pick
        if self._revealed == (round_, turn):
            return
        self._revealed = (round_, turn)
        self.send(
            Reveal(ref=self.proto.next_ref(), round=round_, turn=turn, action=action, nonce=nonce)
        )

    # -- requests -------------------------------------------------------------------------------

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

    async def _request(
        self, message: ClientMessage, answer: type[Message] | None = None
    ) -> Message:
        """Send and await the reply with the same ref, or (for replies without a ref) the next
        message of type `answer`; an ERROR with the ref raises `ServerError`."""
        future: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self._replies[message.ref] = future
        if answer is not None:
            self._awaiting.append((answer, future))
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
            self._awaiting = [(k, f) for k, f in self._awaiting if f is not future]

    async def request(self, make: Callable[[int], ClientMessage]) -> Message:
        """Send the message `make(ref)` and await its reply (`ServerError` for ERROR)."""
        return await self._request(make(self.proto.next_ref()))

    async def list_tables(self, kind: str | None = None) -> tuple[TableInfo, ...]:
        """The server's tables."""
        reply = await self.request(lambda ref: ListTables(ref=ref, kind=kind))
        return _expect(reply, TableList).tables

    async def create_table(self, settings: TableSettings) -> TableJoined:
        """Open a table and sit at seat 0 as its host."""
        return self._joined(
            _expect(
                await self.request(lambda ref: CreateTable(ref=ref, settings=settings)), TableJoined
            )
        )

    async def join_table(self, table_id: str, seat: int | None = None) -> TableJoined:
        """Take a seat at an open table."""
        return self._joined(
            _expect(
                await self.request(lambda ref: JoinTable(ref=ref, table_id=table_id, seat=seat)),
                TableJoined,
            )
        )

    async def quick_match(self, players: int, kind: str) -> TableJoined:
        """Be seated at a table that starts by itself when full."""
        reply = await self.request(lambda ref: QuickMatch(ref=ref, kind=kind, players=players))
        return self._joined(_expect(reply, TableJoined))

    def _joined(self, reply: TableJoined) -> TableJoined:
        self.table, self.seat = reply.table, reply.seat
        return reply

    async def spectate(self, table_id: str) -> Spectating:
        """Watch a table."""
        reply = _expect(
            await self.request(lambda ref: Spectate(ref=ref, table_id=table_id)), Spectating
        )
        self.table, self.seat = reply.table, None
        return reply

    async def leave(self) -> None:
        """Leave the table."""
        _expect(await self.request(lambda ref: LeaveTable(ref=ref)), TableLeft)
        self.table = self.seat = None

    async def add_bot(self, strategy: str = "default", seat: int | None = None) -> TableInfo:
        """Host: seat a server bot."""
        message = AddBot(ref=self.proto.next_ref(), strategy=strategy, seat=seat)
        return _expect(await self._request(message, TableUpdate), TableUpdate).table

    def start_game(self) -> None:
        """Host: start the game (GAME_STARTING follows as an event)."""
        self.send(StartGame(ref=self.proto.next_ref()))

    def chat(self, text: str) -> None:
        """Say something at the table (or in the lobby)."""
        self.send(Chat(ref=self.proto.next_ref(), text=text))

    # -- tournaments --------------------------------------------------------------------------

    async def list_tournaments(self) -> tuple[TournamentInfo, ...]:
        """The server's tournaments (without standings)."""
        reply = await self.request(lambda ref: ListTournaments(ref=ref))
        return _expect(reply, TournamentList).tournaments

    async def create_tournament(self, settings: TournamentSettings) -> TournamentInfo:
        """Create a tournament; we are its host (not an entrant)."""
        reply = await self.request(lambda ref: CreateTournament(ref=ref, settings=settings))
        return _expect(reply, TournamentUpdate).tournament

    async def register_tournament(self, name: str) -> TournamentInfo:
        """Enter a tournament; the server seats us at its games from now on."""
        reply = await self.request(lambda ref: RegisterTournament(ref=ref, name=name))
        return _expect(reply, TournamentUpdate).tournament

    async def watch_tournament(self, name: str) -> TournamentInfo:
        """Receive a tournament's updates (as TournamentUpdate events)."""
        reply = await self.request(lambda ref: WatchTournament(ref=ref, name=name))
        return _expect(reply, TournamentUpdate).tournament

    async def start_tournament(self, name: str) -> TournamentInfo:
        """Host: close registration and start scheduling games."""
        reply = await self.request(lambda ref: StartTournament(ref=ref, name=name))
        return _expect(reply, TournamentUpdate).tournament

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
        self._duty(msg)
        if ref and ref in self._replies and not self._replies[ref].done():
            self._replies[ref].set_result(msg)
        for kind, future in self._awaiting:
            if isinstance(msg, kind) and not future.done():
                future.set_result(msg)
                break
        self._events.put_nowait(msg)

    def _view(self, msg: Message) -> None:
        """Move the caller's view as it takes `msg` (see `next_event`)."""
        if isinstance(msg, TableUpdate | TableJoined | Spectating):
            self.table = msg.table
            self.kind = msg.table.settings.kind
        elif isinstance(msg, GameStarting):
            self.seat = msg.seat
            self.kind = msg.kind
            if self._starts:
                self.fairness = self._starts.popleft()
        elif isinstance(msg, TurnStart | Acted):
            self.observation = msg.observation

    def _duty(self, msg: Message) -> None:
        """As `msg` arrives: the seat's part of the protocol (seed, reveal) and every check.

        Done on arrival, not when the caller gets round to reading, so the game never waits on a
        slow reader; each game's checks go to that game's own `Fairness`."""
        checks = self._checks
        if isinstance(msg, TurnStart):
            self._state = msg.observation
            if checks is not None:
                checks.step(msg)
        elif isinstance(msg, Acted):
            self._state = msg.observation
            if msg.seat == self.proto.seat:
                self._pending = None  # whatever was applied answers ours (an auto one overtakes it)
                self.refusals = 0
            if checks is not None:
                checks.acted(msg)
        elif isinstance(msg, Commitments):
            if checks is not None:
                checks.committed(msg)
            pick = self._pick
            if pick is not None and (pick[0], pick[1]) == (msg.round, msg.turn):
                with contextlib.suppress(ConnectionLost, ProtocolError):
                    self._send_reveal()
        elif isinstance(msg, TurnResult):
            if checks is not None:
                checks.result(msg)
        elif isinstance(msg, GameStarting):
            new = self._checks = GameChecks(msg.table_id, msg.seat, msg.kind, msg.server_seed_hash)
            self._starts.append(new.fairness)
            self._state, self._pending, self._pick = None, None, None
            if msg.seat is not None:
                new.my_seed = new_seed()
                with contextlib.suppress(ConnectionLost, ProtocolError):
                    self.send(Seed(ref=self.proto.next_ref(), seed=new.my_seed))
        elif isinstance(msg, GameStarted):
            if checks is not None:
                checks.started(msg)
        elif isinstance(msg, GameEnded):
            self._pending = None
            if checks is not None:
                checks.finished(msg, self.server_key or None)
        elif isinstance(msg, TableJoined | Spectating):
            self._watch(msg)
        elif isinstance(msg, Resumed):
            self._resumed(msg)
        elif isinstance(msg, Error):
            pending = self._pending
            if pending is not None and msg.ref == pending[0]:
                # Refused: it changed nothing, and the seat may send another.
                self._pending = None
                self.refusals += 1
                if checks is not None:
                    with contextlib.suppress(ValueError):
                        checks.sent.remove(pending[1])

    def _watch(self, msg: TableJoined | Spectating) -> None:
        """We are at a new table: the last game's checks are over. Watching a game under way,
        we check what is left of it from here on (its start was never shown to us)."""
        self._checks = None
        table = msg.table
        if isinstance(msg, Spectating) and table.status is TableStatus.PLAYING:
            checks = self._checks = GameChecks(table.table_id, None, table.settings.kind, b"")
            self.fairness = checks.fairness


def _expect(message: Message, kind: type[T]) -> T:
    if not isinstance(message, kind):
        raise ServerError(
            Error(code=ErrorCode.INTERNAL_ERROR, message=f"unexpected reply {message.TYPE}")
        )
    return message


async def auto_reconnect(client: Client, attempts: int = 30, delay: float = 1.0) -> Resumed:
    """Resume after a drop, retrying with a growing delay; `ConnectError` after `attempts`."""
    last: Exception | None = None
    for attempt in range(attempts):
        try:
            return await client.resume()
        except (ConnectError, ConnectionLost, OSError) as exc:
            last = exc
            await asyncio.sleep(min(delay * (1.5**attempt), 10.0))
    raise ConnectError(f"could not reconnect to {client._where()}: {last}")
