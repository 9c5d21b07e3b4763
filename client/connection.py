"""The asyncio connection to a sushigo server, shared by the terminal client and the bots.

`Client.connect` opens the socket (TLS pinned on first use), says HELLO, logs in; then:

- lobby calls (`create_table`, `join_table`, `quick_match`, ...) send a request and await its
  reply by ``ref``, raising `ServerError` for an ERROR;
- `events()` yields every server message in order, as typed values;
- the game's bookkeeping is done for the caller: a fresh SEED when a game starts, the COMMIT for
  `pick(action)`, the REVEAL once every commitment is in, PONG to pings;
- every opening in every TURN_RESULT is checked against the commitment shown before, and at
  GAME_OVER the signed record is checked and the whole game re-derived (`fairness`). A failure is
  recorded loudly in `fairness.failures`, never ignored;
- Sushi Roll tables (sequential turns, no commit-reveal): `roll(action)` sends one action of our
  turn, `awaiting_roll` says when one is wanted; every ROLL_UPDATE is checked to be a legal action
  of the seat to move (and ours to be one we sent), and at ROLL_GAME_OVER the signed roll record is
  verified, replayed from the seeds, and every action, die and score shown during the game is
  compared with the replay;
- `resume()` takes the session back on a new connection after a drop (replayed messages or a
  snapshot), and `auto_reconnect` does it by itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hmac
import logging
import ssl
from collections import deque
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from sushigo.engine import Action, EngineError, Observation
from sushigo.engine.roll import RollAction, RollGame, RollObservation
from sushigo.engine.roll import RoundScored as RollRoundScored
from sushigo.engine.roll import legal_actions as roll_legal_actions
from sushigo.protocol import (
    PROTOCOL_NAME,
    SUPPORTED_VERSIONS,
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
    FairRecord,
    GameEnded,
    GameKind,
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
    RollFairRecord,
    RollGameOver,
    RollPlay,
    RollRoundScores,
    RollStep,
    RollTurn,
    RollUpdate,
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
    server_seed_hash,
    verify_commitment,
    verify_record,
    verify_roll_record,
    verify_signed_record,
    verify_signed_roll_record,
)

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


@dataclass(slots=True)
class Fairness:
    """What this client has verified of the current game. Failures are never silent."""

    openings_verified: int = 0
    """Openings checked against their commitments this game (the card game)."""
    auto_picks: int = 0
    """Seats the server picked for (shown, not failures); in Sushi Roll, actions it chose."""
    failures: list[str] = field(default_factory=list)
    """Every check that failed, in words."""
    final: str = "pending"
    """"pending" until GAME_OVER, then "verified" or "FAILED"."""
    kind: GameKind = GameKind.SUSHI_GO
    """The game these checks are of."""
    actions_seen: int = 0
    """Sushi Roll: actions shown (ROLL_UPDATE), each checked legal for the seat to move when it
    came; their dice can only be checked once the server seed is revealed."""
    actions_verified: int = 0
    """Sushi Roll: actions (with every die they showed) found equal to the replay of the record
    from the seeds, at ROLL_GAME_OVER."""

    @property
    def ok(self) -> bool:
        """No check has failed."""
        return not self.failures


@dataclass(slots=True)
class _RollRun:
    """An unbroken run of Sushi Roll actions as this client saw them (a resume from a snapshot,
    or joining a game under way, starts a new run: what happened in between was not shown)."""

    from_start: bool
    """The run began with the game (its first action is the record's first)."""
    steps: list[RollStep] = field(default_factory=list)
    states: list[tuple[int, RollObservation]] = field(default_factory=list)
    """Each table state shown, as (actions of this run applied before it, the spectators' view)."""


@dataclass(slots=True)
class _Game:
    """The running game as this client saw it, for the checks."""

    table_id: str
    seat: int | None
    server_seed_hash: bytes
    """As GAME_STARTING published it; empty when we came to watch a game under way."""
    client_seeds: tuple[bytes, ...] = ()
    my_seed: bytes | None = None
    commitments: dict[tuple[int, int], tuple[bytes | None, ...]] = field(default_factory=dict)
    fairness: Fairness = field(default_factory=Fairness)
    """This game's checks (the caller sees them as `Client.fairness` once it reads its start)."""
    kind: GameKind = GameKind.SUSHI_GO
    roll_runs: list[_RollRun] = field(default_factory=list)
    """Sushi Roll: what was shown, run by run, to compare with the record's replay at the end."""
    roll_last: RollObservation | None = None
    """Sushi Roll: the table as last shown (the spectators' view), to check the next action."""
    roll_rounds: dict[int, RollRoundScores] = field(default_factory=dict)
    """Sushi Roll: the round scores shown."""

    def roll_run(self) -> _RollRun:
        """The current run (a new one, not from the start, if none is open)."""
        if not self.roll_runs:
            self.roll_runs.append(_RollRun(from_start=False))
        return self.roll_runs[-1]


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
        self.observation: Observation | None = None
        """The latest observation (TURN_START or a resume snapshot)."""
        self.game_kind: GameKind | None = None
        """The kind of the game last started (GAME_STARTING), as the caller has read it."""
        self.roll_observation: RollObservation | None = None
        """Sushi Roll: the table after the last ROLL_TURN or ROLL_UPDATE the caller read, seen
        from our seat (nil seat for a spectator)."""
        self.fairness = Fairness()
        self.connected = False
        self.protocol_error: ProtocolError | None = None
        """Why the last connection was dropped, when the server broke the protocol."""
        self._game: _Game | None = None
        self._pick: tuple[int, int, Action, bytes] | None = None
        """(round, turn, action, nonce) of this turn's pick."""
        self._revealed: tuple[int, int] | None = None
        self._roll_state: RollObservation | None = None
        """Sushi Roll: the table as it stands on arrival (ahead of the caller's view)."""
        self._roll_pending: tuple[int, RollAction] | None = None
        """Sushi Roll: (ref, action) of our action the server has not answered yet."""
        self._roll_sent: list[RollAction] = []
        """Sushi Roll: our actions of this turn not yet seen applied."""
        self.roll_refusals = 0
        """Sushi Roll: our actions the server refused (ERROR) since our last accepted one."""
        self._starts: deque[Fairness] = deque()
        """Each arrived game's checks, until the caller reads that game's start."""
        self._writer: asyncio.StreamWriter | None = None
        self._reader_task: asyncio.Task[None] | None = None
        self._pending: dict[int, asyncio.Future[Message]] = {}
        self._awaiting: list[tuple[type[Message], asyncio.Future[Message]]] = []
        self._events: asyncio.Queue[Message | ConnectionLost] = asyncio.Queue()
        self._lost = asyncio.Event()

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
        """Take the session back on a new connection (after `ConnectionLost`)."""
        last_seq = self.proto.last_seq
        await self._open()
        reply = await self._request(
            Resume(ref=self.proto.next_ref(), token=self.token, last_seq=last_seq)
        )
        assert isinstance(reply, Resumed)
        self.token = reply.resume_token
        snap = reply.snapshot
        if snap is not None:
            self.table = snap.table or self.table
            self.seat = snap.seat
            if snap.observation is not None:
                self.observation = snap.observation
            if (
                snap.table is not None
                and snap.server_seed_hash is not None
                and (self._game is None or self._game.table_id != snap.table.table_id)
            ):
                # A game this client never saw start (a new process resuming with a saved
                # token): check what is left of it from the snapshot on.
                self._game = _Game(
                    snap.table.table_id,
                    snap.seat,
                    snap.server_seed_hash,
                    client_seeds=tuple(snap.client_seeds),
                )
                self.fairness = self._game.fairness
            if snap.commitments and self._game is not None and reply.round and reply.turn:
                self._game.commitments[reply.round, reply.turn] = tuple(snap.commitments)
        self._continue_pick()
        return reply

    def _resumed(self, msg: Resumed) -> None:
        """RESUMED arrived (before any message replayed or sent after it is read).

        Sushi Roll: an action of ours still unanswered was lost with the connection or is
        answered among the replayed messages; either way we may act again on the table as it
        now stands. A snapshot of a Sushi Roll game is followed by the current ROLL_TURN (the
        snapshot's observation is the card game's): what happened in between was not shown, so
        the checks start a new run of actions, which must still be found in the record."""
        self._roll_pending = None
        snap = msg.snapshot
        table = snap.table if snap is not None else None
        if snap is None or table is None or table.settings.kind != GameKind.SUSHI_ROLL:
            return
        self.game_kind = GameKind.SUSHI_ROLL
        game = self._game
        if game is None or game.table_id != table.table_id:
            if snap.server_seed_hash is None:
                return
            # A game this client never saw start (a new process resuming with a saved token).
            game = self._game = _Game(
                table.table_id,
                snap.seat,
                snap.server_seed_hash,
                client_seeds=tuple(snap.client_seeds),
                kind=GameKind.SUSHI_ROLL,
            )
            game.fairness.kind = GameKind.SUSHI_ROLL
            self.fairness = game.fairness
        game.roll_runs.append(_RollRun(from_start=False))
        game.roll_last = None

    def _continue_pick(self) -> None:
        """After a resume, finish this turn's commit or reveal if it was cut off.

        Judged by the protocol state now, not by the phase RESUMED named: the replayed messages
        that follow it have already moved the state on (and may have had us reveal)."""
        pick = self._pick
        if pick is None or self.proto.position != (pick[0], pick[1]):
            return
        if self.proto.phase is Phase.COMMITTING:
            self._send_commit()
        elif self.proto.phase is Phase.REVEALING:
            self._send_reveal()

    @property
    def awaiting_pick(self) -> bool:
        """A turn is waiting for our pick: we are committing and have not chosen for this turn
        (after a resume, the caller should choose if this is true)."""
        position = self.proto.position
        return (
            self.proto.phase is Phase.COMMITTING
            and position is not None
            and (self._pick is None or (self._pick[0], self._pick[1]) != position)
        )

    @property
    def awaiting_roll(self) -> bool:
        """Sushi Roll: it is our move and no action of ours awaits the server's answer (the
        caller should choose one from `roll_state`)."""
        obs = self._roll_state
        return (
            self.proto.phase is Phase.ROLL_MOVING
            and self.proto.position is not None
            and self._roll_pending is None
            and obs is not None
            and obs.seat is not None
            and obs.to_move == obs.seat
        )

    @property
    def roll_pending(self) -> RollAction | None:
        """Sushi Roll: our action the server has not answered yet (None: none in flight)."""
        return self._roll_pending[1] if self._roll_pending is not None else None

    @property
    def roll_state(self) -> RollObservation | None:
        """Sushi Roll: the table as it stands now, from our seat: what `roll` checks against.

        It may be ahead of `roll_observation` (the caller's view, which moves as events are read):
        choose from this one."""
        return self._roll_state

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
        self._pending[message.ref] = future
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
            self._pending.pop(message.ref, None)
            self._awaiting = [(k, f) for k, f in self._awaiting if f is not future]

    async def request(self, make: Callable[[int], ClientMessage]) -> Message:
        """Send the message `make(ref)` and await its reply (`ServerError` for ERROR)."""
        return await self._request(make(self.proto.next_ref()))

    async def list_tables(self, kind: GameKind | None = None) -> tuple[TableInfo, ...]:
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

    async def quick_match(
        self, players: int = 4, kind: GameKind = GameKind.SUSHI_GO
    ) -> TableJoined:
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

    # -- playing ------------------------------------------------------------------------------

    def pick(self, action: Action) -> None:
        """Choose this turn's action: commits now, reveals when every commitment is in."""
        obs = self.observation
        if obs is None or self.proto.phase is not Phase.COMMITTING or self.proto.position is None:
            raise ServerError(
                Error(code=ErrorCode.OUT_OF_PHASE, message="no turn is waiting for a pick")
            )
        if action not in obs.legal_actions():
            raise ServerError(
                Error(
                    code=ErrorCode.ILLEGAL_ACTION, message=f"{action.describe()} is not legal now"
                )
            )
        round_, turn = self.proto.position
        self._pick = (round_, turn, action, new_nonce())
        self._send_commit()

    def roll(self, action: RollAction, seen: RollObservation | None = None) -> None:
        """Sushi Roll: send one action of our turn (re-rolls and swaps, then the take).

        Refused here, with nothing sent (`ServerError` with the code the server would give), when
        it is not our move, while our previous action awaits its answer, when the table is no
        longer `seen` (the choice was made on a table that has changed since), or when the action
        is not legal. The answer is a ROLL_UPDATE (or an ERROR) event."""
        obs = self._roll_state
        position = self.proto.position
        if obs is None or self.proto.phase is not Phase.ROLL_MOVING or position is None:
            raise ServerError(Error(code=ErrorCode.OUT_OF_PHASE, message="it is not your move"))
        if self._roll_pending is not None:
            raise ServerError(
                Error(
                    code=ErrorCode.ALREADY_DONE,
                    message="your last action has not been answered yet",
                )
            )
        if seen is not None and dataclasses.replace(seen, seat=obs.seat) != obs:
            raise ServerError(
                Error(code=ErrorCode.WRONG_TURN, message="the table has changed: choose again")
            )
        if action not in obs.legal_actions():
            raise ServerError(
                Error(
                    code=ErrorCode.ILLEGAL_ACTION, message=f"{action.describe()} is not legal now"
                )
            )
        round_, cycle = position
        ref = self.proto.next_ref()
        self.send(RollPlay(ref=ref, round=round_, cycle=cycle, action=action))
        self._roll_pending = (ref, action)
        self._roll_sent.append(action)

    def _send_commit(self) -> None:
        game = self._game
        assert self._pick is not None and game is not None and game.seat is not None
        round_, turn, action, nonce = self._pick
        commitment = make_commitment(game.table_id, round_, turn, game.seat, action, nonce)
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
        if isinstance(msg, Error) and ref and ref in self._pending:
            self._pending[ref].set_exception(ServerError(msg))
            return
        self._duty(msg)
        if ref and ref in self._pending and not self._pending[ref].done():
            self._pending[ref].set_result(msg)
        for kind, future in self._awaiting:
            if isinstance(msg, kind) and not future.done():
                future.set_result(msg)
                break
        self._events.put_nowait(msg)

    def _view(self, msg: Message) -> None:
        """Move the caller's view as it takes `msg` (see `next_event`)."""
        if isinstance(msg, TableUpdate | TableJoined | Spectating):
            self.table = msg.table
        elif isinstance(msg, GameStarting):
            self.seat = msg.seat
            self.game_kind = msg.kind
            self.roll_observation = None
            if self._starts:
                self.fairness = self._starts.popleft()
        elif isinstance(msg, TurnStart):
            self.observation = msg.observation
        elif isinstance(msg, RollTurn):
            self.roll_observation = msg.observation
        elif isinstance(msg, RollUpdate):
            self.roll_observation = dataclasses.replace(msg.observation, seat=self.seat)

    def _duty(self, msg: Message) -> None:
        """As `msg` arrives: the seat's part of the protocol (seed, reveal) and every check.

        Done on arrival, not when the caller gets round to reading, so the game never waits on a
        slow reader; each game's checks go to that game's own `Fairness`.
        """
        if isinstance(msg, TableJoined | Spectating):
            self._watch(msg)
        elif isinstance(msg, GameStarting):
            new = self._game = _Game(msg.table_id, msg.seat, msg.server_seed_hash, kind=msg.kind)
            new.fairness.kind = msg.kind
            self._starts.append(new.fairness)
            self._roll_state, self._roll_pending, self._roll_sent = None, None, []
            if msg.seat is not None:
                new.my_seed = new_seed()
                with contextlib.suppress(ConnectionLost, ProtocolError):
                    self.send(Seed(ref=self.proto.next_ref(), seed=new.my_seed))
        elif isinstance(msg, GameStarted):
            game = self._game
            if game is not None:
                game.client_seeds = msg.client_seeds
                if game.kind == GameKind.SUSHI_ROLL:
                    game.roll_runs.append(_RollRun(from_start=True))
                if msg.server_seed_hash != game.server_seed_hash:
                    self._fail("the server changed its seed commitment after the game started")
                if (
                    game.seat is not None
                    and game.my_seed is not None
                    and msg.client_seeds[game.seat] != game.my_seed
                ):
                    self._fail(
                        "our seed is not the one the server used (it may have drawn one after a timeout)"
                    )
        elif isinstance(msg, Commitments):
            if self._game is not None:
                self._game.commitments[msg.round, msg.turn] = msg.commitments
            pick = self._pick
            if pick is not None and (pick[0], pick[1]) == (msg.round, msg.turn):
                with contextlib.suppress(ConnectionLost, ProtocolError):
                    self._send_reveal()
        elif isinstance(msg, TurnResult):
            self._verify_turn(msg)
        elif isinstance(msg, GameEnded):
            self._verify_game(msg)
        elif isinstance(msg, RollTurn):
            self._roll_turn(msg)
        elif isinstance(msg, RollUpdate):
            self._roll_update(msg)
        elif isinstance(msg, RollRoundScores):
            if self._game is not None:
                self._game.roll_rounds[msg.round] = msg
        elif isinstance(msg, RollGameOver):
            self._roll_pending = None
            self._verify_roll_game(msg)
        elif isinstance(msg, Resumed):
            self._resumed(msg)
        elif isinstance(msg, Error):
            pending = self._roll_pending
            if pending is not None and msg.ref == pending[0]:
                # Refused: it changed nothing, and the seat may send another.
                self._roll_pending = None
                self.roll_refusals += 1
                with contextlib.suppress(ValueError):
                    self._roll_sent.remove(pending[1])

    def _watch(self, msg: TableJoined | Spectating) -> None:
        """We are at a new table: the last game's checks are over. Watching a game under way,
        we check what is left of it from here on (its start was never shown to us)."""
        self._game = None
        table = msg.table
        if isinstance(msg, Spectating) and table.status is TableStatus.PLAYING:
            game = self._game = _Game(table.table_id, None, b"", kind=table.settings.kind)
            game.fairness.kind = table.settings.kind
            self.fairness = game.fairness

    def _checks(self) -> Fairness:
        """Where the checks of the game now arriving go."""
        return self._game.fairness if self._game is not None else self.fairness

    def _fail(self, text: str) -> None:
        log.error("FAIRNESS CHECK FAILED: %s", text)
        self._checks().failures.append(text)

    def _verify_turn(self, msg: TurnResult) -> None:
        game = self._game
        if game is None:
            return
        shown = game.commitments.get((msg.round, msg.turn))
        if shown is None:
            return  # joined mid-turn: nothing to check against
        for seat, (commitment, opening) in enumerate(zip(shown, msg.openings, strict=False)):
            if opening.auto:
                self._checks().auto_picks += 1
                continue
            if commitment is None or opening.nonce is None:
                self._fail(
                    f"round {msg.round} turn {msg.turn}: seat {seat}'s pick has no commitment"
                )
            elif not verify_commitment(
                commitment, game.table_id, msg.round, msg.turn, seat, opening.action, opening.nonce
            ):
                self._fail(
                    f"round {msg.round} turn {msg.turn}: seat {seat}'s pick does not open its commitment"
                )
            else:
                self._checks().openings_verified += 1
        pick = self._pick
        if (
            pick is not None
            and game.seat is not None
            and (pick[0], pick[1]) == (msg.round, msg.turn)
        ):
            mine = msg.openings[game.seat]
            if not mine.auto and mine.action != pick[2]:
                self._fail(
                    f"round {msg.round} turn {msg.turn}: the server played another card for us"
                )

    def _check_seed_chain(
        self, game: _Game, server_seed: bytes, record: FairRecord | RollFairRecord
    ) -> None:
        """The revealed server seed opens its commitment, and the record is this game's, with
        the seeds announced in GAME_STARTED."""
        if game.server_seed_hash and not hmac.compare_digest(
            server_seed_hash(server_seed), game.server_seed_hash
        ):
            self._fail("the revealed server seed does not match its commitment")
        if record.server_seed != server_seed or record.table_id != game.table_id:
            self._fail("the record is not this game's")
        if game.client_seeds and record.client_seeds != game.client_seeds:
            self._fail("the record's seeds differ from the ones announced")

    def _verify_game(self, msg: GameEnded) -> None:
        game = self._game
        try:
            record = verify_signed_record(msg.record, self.server_key or None)
        except ProtocolError as exc:
            self._fail(f"the game record's signature does not check out: {exc}")
            self._checks().final = "FAILED"
            return
        if game is not None:
            self._check_seed_chain(game, msg.server_seed, record)
            for t in record.turns:
                seen = game.commitments.get((t.round, t.turn))
                if seen is not None and tuple(seen) != tuple(t.commitments):
                    self._fail(
                        f"round {t.round} turn {t.turn}: the record's commitments differ from those shown"
                    )
        report = verify_record(record)
        for problem in report.problems:
            self._fail(problem)
        checks = self._checks()
        checks.final = "verified" if checks.ok else "FAILED"

    # -- Sushi Roll -------------------------------------------------------------------------------

    def _roll_game(self) -> _Game | None:
        """The game Sushi Roll messages are checked against (None: one we never saw start)."""
        game = self._game
        if game is None:
            return None
        if game.kind != GameKind.SUSHI_ROLL:
            text = "the server sent Sushi Roll turns in a game announced as Sushi Go!"
            if text not in game.fairness.failures:
                self._fail(text)
            return None
        return game

    def _roll_turn(self, msg: RollTurn) -> None:
        if msg.moving:
            self._roll_sent = []
            self._roll_pending = None
        self._roll_state = msg.observation
        game = self._roll_game()
        if game is None:
            return
        view = dataclasses.replace(msg.observation, seat=None)
        run = game.roll_run()
        run.states.append((len(run.steps), view))
        game.roll_last = view

    def _roll_update(self, msg: RollUpdate) -> None:
        if self._roll_state is not None:
            seat = self._roll_state.seat
        else:
            seat = self._game.seat if self._game is not None else None
        mine = msg.seat == seat
        self._roll_state = dataclasses.replace(msg.observation, seat=seat)
        game = self._roll_game()
        checks = self._checks()
        checks.actions_seen += 1
        if msg.auto:
            checks.auto_picks += 1
        where = f"round {msg.round} cycle {msg.cycle}"
        if mine:
            # Whatever was applied answers our action in flight (an auto take overtakes it).
            self._roll_pending = None
            self.roll_refusals = 0
            if not msg.auto:
                if msg.action in self._roll_sent:
                    self._roll_sent.remove(msg.action)
                else:
                    self._fail(
                        f"{where}: the server played {msg.action.describe()} for us,"
                        " which we did not send"
                    )
        if game is None:
            return
        before = game.roll_last
        if before is not None:
            if before.to_move != msg.seat:
                self._fail(f"{where}: seat {msg.seat} acted, but it was not its move")
            else:
                me = before.players[msg.seat]
                legal = roll_legal_actions(
                    msg.seat,
                    [p.belt for p in before.players],
                    me.usable_menu,
                    me.usable_chopsticks,
                )
                if msg.action not in legal:
                    self._fail(f"{where}: seat {msg.seat}'s {msg.action.describe()} was not legal")
        run = game.roll_run()
        run.steps.append(RollStep(seat=msg.seat, action=msg.action, auto=msg.auto))
        run.states.append((len(run.steps), msg.observation))
        game.roll_last = msg.observation

    def _verify_roll_game(self, msg: RollGameOver) -> None:
        game = self._game
        try:
            record = verify_signed_roll_record(msg.record, self.server_key or None)
        except ProtocolError as exc:
            self._fail(f"the game record's signature does not check out: {exc}")
            self._checks().final = "FAILED"
            return
        if game is not None:
            self._check_seed_chain(game, msg.server_seed, record)
        report = verify_roll_record(record)
        for problem in report.problems:
            self._fail(problem)
        if report.ok:
            for problem in _compare_roll_game(record, msg, game):
                self._fail(problem)
            if game is not None and self._checks().ok:
                self._checks().actions_verified = sum(len(r.steps) for r in game.roll_runs)
        checks = self._checks()
        checks.final = "verified" if checks.ok else "FAILED"


def _compare_roll_game(record: RollFairRecord, msg: RollGameOver, game: _Game | None) -> list[str]:
    """Replay a verified roll record and compare it with everything the game showed: the final
    scores and places, each round's scores, and every action with the table after it."""
    replay = RollGame(record.options, record.game_seed())
    states = [replay.observation(None)]
    rounds: dict[int, RollRoundScored] = {}
    try:
        for step in record.steps:
            for event in replay.apply(step.seat, step.action):
                if isinstance(event, RollRoundScored):
                    rounds[event.round] = event
            states.append(replay.observation(None))
    except EngineError as exc:  # verify_roll_record replayed it already; never expected
        return [f"the record does not replay: {exc}"]
    problems: list[str] = []
    if (msg.totals, msg.pudding_points, msg.token_bonus) != (
        replay.scores(),
        replay.pudding_points(),
        replay.token_bonus(),
    ):
        problems.append(
            f"the final scores shown {list(msg.totals)} are not the replay's {list(replay.scores())}"
        )
    if (msg.places, msg.winners) != (replay.places(), replay.winners()):
        problems.append("the places and winners shown are not the replay's")
    if game is None:
        return problems
    for number, shown in sorted(game.roll_rounds.items()):
        scored = rounds.get(number)
        if scored is None or shown.event() != scored:
            problems.append(f"round {number}: the scores shown are not the replay's")
    problems.extend(_match_runs(game.roll_runs, record.steps, states))
    return problems


def _match_runs(
    runs: Sequence[_RollRun], steps: Sequence[RollStep], states: Sequence[RollObservation]
) -> list[str]:
    """Find each run of shown actions in the record, in order: the first at the record's start if
    it began with the game, the last ending at the record's end; every table shown on the way
    must be the replay's (so every die rolled matches the seeds)."""
    at = 0
    for i, run in enumerate(runs):
        n = len(run.steps)
        starts = [0] if run.from_start else range(at, len(steps) - n + 1)
        found = next((p for p in starts if p >= at and _fits(run, p, steps, states)), None)
        if found is None:
            return [_mismatch(run, steps, states)]
        at = found + n
        if i == len(runs) - 1 and at != len(steps):
            return [f"the record holds {len(steps) - at} actions after the last one shown"]
    return []


def _fits(
    run: _RollRun, p: int, steps: Sequence[RollStep], states: Sequence[RollObservation]
) -> bool:
    n = len(run.steps)
    if p + n > len(steps) or tuple(steps[p : p + n]) != tuple(run.steps):
        return False
    return all(p + k < len(states) and states[p + k] == view for k, view in run.states)


def _mismatch(run: _RollRun, steps: Sequence[RollStep], states: Sequence[RollObservation]) -> str:
    """The first difference between a run that began with the game and the replay, in words."""
    if run.from_start:
        for k, view in run.states:
            if k >= len(states) or states[k] != view:
                return (
                    f"round {view.round} cycle {view.cycle}: the dice shown are not the ones"
                    " the seeds give"
                )
            if k < len(run.steps) and (k >= len(steps) or steps[k] != run.steps[k]):
                return f"action {k + 1}: the record's is not the one shown"
        return "the actions shown are not the record's"
    return "the actions and dice shown after joining are not found in the record"


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
