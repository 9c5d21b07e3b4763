"""Sans-IO connections for both ends: bytes in, typed messages out; messages in, bytes out.

Shaped like h11 (STYLE.md item 1): the adapter calls `receive_data(bytes)` with what the socket
gave (``b""`` at end of stream), drains `next_event()` until it returns None, and writes whatever
`send(message)` returns. No IO, no clock: deadlines and heartbeats are the adapter's, with the
values docs/PROTOCOL.md recommends.

Both ends move the same phase through the one transition table in `protocol._state`, so a client
cannot send what the server would refuse, and the server refuses what a client must not send.

Errors: `next_event` raises `RemoteProtocolError`. If it is `fatal` (framing, handshake, and on the
client side anything at all, since a server that breaks the protocol cannot be trusted), the
connection is now failed: the server may still `send` one ERROR (`error_for(exc)`) and must then
close the socket. If it is not fatal, answer with `error_for(exc)` and go on reading. `send`
raises `LocalProtocolError` for a message the protocol does not allow now, and sends nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from ._codec import FieldError
from ._messages_game import (
    Act,
    Acted,
    Commit,
    Commitments,
    GameStarting,
    Resumed,
    Reveal,
    TurnResult,
    TurnStart,
)
from ._messages_lobby import Spectating, TableJoined, TableLeft
from ._messages_session import Error, Hello, Welcome
from ._registry import Role, client_decoders, from_data, to_bytes, to_frame
from ._state import (
    AFTER_WELCOME,
    FROM_MESSAGE,
    LOGGED_IN,
    MOVED,
    STEP,
    TRANSITIONS,
    Phase,
    describe_refusal,
)
from .errors import (
    FATAL_CODES,
    ErrorCode,
    LocalProtocolError,
    ProtocolError,
    RemoteProtocolError,
)
from .frames import NEED_DATA, FrameDecoder, frame_of, limits_for
from .games import Wire, wire
from .messages import Message
from .versions import (
    CAPABILITIES,
    PROTOCOL_NAME,
    SUPPORTED_VERSIONS,
    Version,
    choose_version,
    common_capabilities,
)

_MAX_ERROR_TEXT = 500


_POSITIONED = 1
"""Carries (round, turn), which must be the connection's position."""
_PLAIN = 4
"""Nothing but the transition table to look at (and TURN_START's position)."""
_FLAGS: dict[type[Message], int] = {}
"""Per message class, what `Connection._advance` must look at (worked out once per class)."""
_SETS_TURN = 8
"""TURN_START: the move sets the connection's (round, turn)."""
_SETS_TABLE = TableJoined | Spectating | TableLeft | GameStarting | Resumed
"""The messages that put the connection at a table (its game and seat) or take it away."""
_SETTLED: dict[tuple[Role, Phase, type[Message]], tuple[Phase, int]] = {}
"""(sender, phase, message class) -> (next phase, what to check first) for every move the table
decides alone (the hot path of a game: no lookup of the message's fields but its position).
Learnt from `Connection._advance` as moves are made."""
_CLOSED = Phase.CLOSED
_WAITING, _WATCHING, _COMMITTING, _MOVING = (
    Phase.WAITING,
    Phase.WATCHING,
    Phase.COMMITTING,
    Phase.MOVING,
)
_SERVER = Role.SERVER
_CLIENT = Role.CLIENT
"""Enum members as module constants: on the hot path, a class attribute of an enum costs ten
times a global's lookup (Python 3.11)."""


_REPEATS = {Phase.SEEDED: "seed", Phase.COMMITTED: "commit", Phase.REVEALED: "reveal"}
"""The phase a seat is in right after each of its one-per-step messages: the same message again
there is ALREADY_DONE (anywhere else out of place, OUT_OF_PHASE)."""
_ALREADY = {
    "seed": "this seat's seed is in already: wait for game_started",
    "commit": "this seat has committed in this step already: wait for commitments",
    "reveal": "this seat has revealed in this step already: wait for turn_result",
}
"""ALREADY_DONE's message for each repeated message: what was done, and what comes next (an
OUT_OF_PHASE names the phase and what it allows instead)."""


def _flags(cls: type[Message]) -> int:
    flags = _FLAGS.get(cls)
    if flags is None:
        flags = 0
        if issubclass(cls, Commit | Reveal | Commitments | TurnResult | Act | Acted):
            flags |= _POSITIONED
        if not issubclass(cls, _SETS_TABLE | Acted | Welcome | Error | TurnStart):
            flags |= _PLAIN
        _FLAGS[cls] = flags
    return flags


@dataclass(frozen=True, slots=True)
class ConnectionClosed:
    """The peer closed its side cleanly, between two frames. Nothing more will arrive."""


Event = Message | ConnectionClosed


class Connection:
    """One end of a connection. Use `ServerConnection` or `ClientConnection`."""

    our_role: ClassVar[Role]
    their_role: ClassVar[Role]

    def __init__(self) -> None:
        self.phase = Phase.HANDSHAKE
        """Where the connection is (the same on both ends once messages have arrived)."""
        self.version: Version | None = None
        """The negotiated version, once WELCOME has been sent or received."""
        self.capabilities: tuple[str, ...] = ()
        """The capabilities both sides have, once WELCOME has been sent or received."""
        self.position: tuple[int, int] | None = None
        """(round, turn) of the last TURN_START: COMMIT, REVEAL, ACT and their answers must
        match."""
        self.game: Wire | None = None
        """The wire of the game of the connection's table: its game values are read and written
        with it (None away from a table, or at a table of a game this side does not know)."""
        self.seat: int | None = None
        """The connection's seat at its table (None: none, or watching)."""
        self._decoders = client_decoders(None)
        self.last_seq = 0
        """The seq of the last server message sent (server) or received (client)."""
        self.failed: ProtocolError | None = None
        """The fatal error that ended the connection, if any."""
        self._decoder = FrameDecoder(limits_for(self.their_role))
        self.unread = self._decoder.buffer
        """Bytes received and not yet returned as events: while it is empty, `next_event` has
        nothing to give (but `ConnectionClosed` after ``receive_data(b"")``)."""
        self._limits = limits_for(self.our_role)
        self._max_body = self._limits.max_body

    # -- receiving -------------------------------------------------------------------------

    def receive_data(self, data: bytes) -> None:
        """Feed bytes from the peer; ``b""`` means it closed its side."""
        if self.failed is not None:
            raise self.failed
        try:
            self._decoder.receive_data(data)
        except RemoteProtocolError as exc:
            raise self._fail(exc) from None

    def next_event(self) -> Event | None:
        """The next message from the peer, `ConnectionClosed`, or None when more data is needed."""
        if self.failed is not None:
            raise self.failed
        if self.phase is _CLOSED:
            return None
        try:
            value = self._decoder.next_value()
        except RemoteProtocolError as exc:
            raise self._fail(exc) from None
        if value is NEED_DATA:
            if self._decoder.eof and self._decoder.at_eof:
                self.phase = Phase.CLOSED
                return ConnectionClosed()
            return None
        return self._event_of(value)

    def _event_of(self, value: Any) -> Message:
        """The message a frame's value holds, after checking it may arrive now."""
        their_role = self.their_role
        try:
            if their_role is _SERVER and type(value) is dict and value.get("type") == "resumed":
                self._game_of_resumed(value)
            try:
                message, seq = from_data(value, their_role, self.game)
            except RemoteProtocolError as exc:
                raise self._phase_first(value, exc) from None
            if seq is not None:
                if seq != self.last_seq + 1:
                    raise RemoteProtocolError(
                        ErrorCode.SEQUENCE_ERROR, f"seq {seq} after {self.last_seq}"
                    )
                self.last_seq = seq
            self._advance(their_role, message)
        except RemoteProtocolError as exc:
            if exc.fatal or self.our_role is _CLIENT or self.phase not in AFTER_WELCOME:
                raise self._fail(exc) from None
            raise
        return message

    def _phase_first(self, value: Any, exc: RemoteProtocolError) -> RemoteProtocolError:
        """A message that would be refused for its phase is refused so, whatever else is wrong
        with its fields (a game's action sent where no step of that kind is played cannot even
        be read: the phase says why)."""
        name = value.get("type") if type(value) is dict else None
        if self.phase is Phase.HANDSHAKE and self.their_role is _CLIENT and name != "hello":
            # Nothing but HELLO first, whatever it is: not a message, an unknown type, or one
            # that is not allowed yet all get the one answer (docs/PROTOCOL.md section 2.1).
            return RemoteProtocolError(
                ErrorCode.HANDSHAKE_REQUIRED,
                "the first message must be 'hello'",
                ref=exc.ref,
                fatal=True,
            )
        if (
            exc.code is ErrorCode.OUT_OF_PHASE
            or type(name) is not str
            or exc.code in (ErrorCode.UNKNOWN_MESSAGE_TYPE, ErrorCode.WRONG_DIRECTION)
            or (self.their_role, self.phase, name) in TRANSITIONS
        ):
            return exc
        if self.their_role is _CLIENT and _REPEATS.get(self.phase) == name:
            return RemoteProtocolError(
                ErrorCode.ALREADY_DONE, _ALREADY[name], ref=exc.ref, fatal=exc.fatal
            )
        return RemoteProtocolError(
            ErrorCode.OUT_OF_PHASE,
            describe_refusal(self.their_role, self.phase, name),
            ref=exc.ref,
            fatal=exc.fatal,
        )

    def _fail(self, exc: ProtocolError) -> ProtocolError:
        exc.fatal = True
        self.failed = exc
        return exc

    # -- sending ---------------------------------------------------------------------------

    def send(self, message: Message) -> bytes:
        """The frame for `message`, after checking it may be sent now; moves the phase."""
        if message.SENDER is not self.our_role:
            raise LocalProtocolError(
                ErrorCode.WRONG_DIRECTION, f"the {self.our_role} cannot send {message.TYPE!r}"
            )
        if self.failed is not None:
            # After a fatal error the server may still say why, once.
            if not isinstance(message, Error) or self.phase is Phase.CLOSED:
                raise LocalProtocolError(ErrorCode.OUT_OF_PHASE, "the connection has failed")
            frame = frame_of(to_bytes(message, self.last_seq + 1, self.game), self._limits)
            self.last_seq += 1
            self.phase = Phase.CLOSED
            return frame
        if self.our_role is _SERVER:
            seq = self.last_seq + 1
            frame = to_frame(message, seq, self._max_body, self.game)
            self._advance(_SERVER, message)
            self.last_seq = seq
            return frame
        frame = frame_of(to_bytes(message, None, self.game), self._limits)
        self._advance(self.our_role, message)
        return frame

    # -- the state machine -----------------------------------------------------------------

    def _refuse(self, role: Role, code: ErrorCode, text: str, ref: int | None) -> ProtocolError:
        if role is self.our_role:
            return LocalProtocolError(code, text, ref=ref)
        return RemoteProtocolError(code, text, ref=ref)

    def _advance(self, role: Role, message: Message) -> None:
        """Check `message` (sent by `role`) against the table and the turn, then move."""
        settled = _SETTLED.get((role, self.phase, type(message)))
        if settled is not None:
            target, check = settled
            if check:
                here = (message.round, message.turn)  # type: ignore[union-attr]
                if here != self.position:
                    self._advance_slowly(role, message)  # refuses it, naming the turns
                    return
            self.phase = target
            return
        self._advance_slowly(role, message)

    def _advance_slowly(self, role: Role, message: Message) -> None:
        """`_advance` for a move met for the first time, a refusal, or one whose next phase
        depends on the message (RESUMED, TURN_START, ACTED, WELCOME, a fatal ERROR) or that
        seats the connection (TABLE_JOINED, ...)."""
        phase = self.phase
        if type(message) is TurnStart and (phase is _WAITING or phase is _WATCHING):
            # Every step of every game begins so, once per seat: the short way.
            self.position = (message.round, message.turn)
            if phase is _WAITING:
                seat = self.seat
                if seat is None or seat not in message.seats:
                    return
                if message.secret:
                    self.phase = _COMMITTING
                    return
                if len(message.seats) == 1:
                    self.phase = _MOVING
                    return
            else:
                return
        target = TRANSITIONS.get((role, phase, message.TYPE))
        if target is None:
            code = ErrorCode.OUT_OF_PHASE
            why = describe_refusal(role, self.phase, message.TYPE)
            if self.phase is Phase.HANDSHAKE and role is Role.CLIENT:
                code = ErrorCode.HANDSHAKE_REQUIRED
            elif role is Role.CLIENT and _REPEATS.get(phase) == message.TYPE:
                code, why = ErrorCode.ALREADY_DONE, _ALREADY[message.TYPE]
            raise self._refuse(role, code, why, getattr(message, "ref", None))
        flags = _FLAGS.get(type(message)) or _flags(type(message))
        if flags & _POSITIONED:
            here = (message.round, message.turn)  # type: ignore[union-attr]
            if here != self.position:
                raise self._refuse(
                    role,
                    ErrorCode.WRONG_TURN,
                    f"{message.TYPE!r} for round {here[0]} turn {here[1]}, but the current turn"
                    f" is {self.position}",
                    getattr(message, "ref", None),
                )
        if flags & _PLAIN and type(target) is Phase:  # the common case: the table says it all
            _SETTLED[role, phase, type(message)] = (target, flags & _POSITIONED)
            self.phase = target
            return
        ref = getattr(message, "ref", None)
        if target == FROM_MESSAGE:
            assert isinstance(message, Resumed)
            if message.phase not in LOGGED_IN:
                raise self._refuse(
                    role, ErrorCode.OUT_OF_RANGE, f"cannot resume into {message.phase!r}", ref
                )
            target = message.phase
            self.position = (
                None
                if message.round is None or message.turn is None
                else (message.round, message.turn)
            )
        elif isinstance(message, TurnStart):
            self.position = (message.round, message.turn)
            if target == STEP:
                acting = self.seat is not None and self.seat in message.seats
                if not acting:
                    target = Phase.WAITING
                elif message.secret:
                    target = Phase.COMMITTING
                elif len(message.seats) == 1:
                    target = Phase.MOVING
                else:
                    raise self._refuse(
                        role, ErrorCode.OUT_OF_RANGE, "an open step has one seat that acts", None
                    )
        elif target == MOVED:
            assert isinstance(message, Acted)
            mine = message.seat == self.seat
            target = Phase.MOVING if mine and message.more else Phase.WAITING
        elif isinstance(message, Welcome):
            self.version, self.capabilities = message.version, message.capabilities
        elif isinstance(message, Error) and message.code in FATAL_CODES:
            # A fatal ERROR ends the connection in any phase (the peer closes right after it).
            target = Phase.CLOSED
        if isinstance(message, _SETS_TABLE):
            self._seat_at(message)
        assert target not in (FROM_MESSAGE, STEP, MOVED)
        self.phase = Phase(target)

    def _seat_at(self, message: Message) -> None:
        """The connection's table (its game and seat) after a message that changes it."""
        if isinstance(message, TableLeft):
            self._set_game(None, None)
        elif isinstance(message, TableJoined):
            self._set_game(message.table.settings.kind, message.seat)
        elif isinstance(message, Spectating):
            self._set_game(message.table.settings.kind, None)
        elif isinstance(message, GameStarting):
            if self.game is not None and message.kind != self.game.kind:
                raise self._refuse(
                    self.their_role if message.SENDER is not self.our_role else self.our_role,
                    ErrorCode.OUT_OF_RANGE,
                    f"a {message.kind!r} game at a {self.game.kind!r} table",
                    None,
                )
            self.seat = message.seat
        elif isinstance(message, Resumed):
            self._set_game(message.kind, message.seat)

    def _game_of_resumed(self, value: dict[str, Any]) -> None:
        """RESUMED's snapshot holds the receiver's observation, a value of its table's game, which
        a client on a new connection may not know yet: it is read from the message's ``kind``
        before the message is decoded (a malformed one fails in decoding)."""
        kind = value.get("kind")
        if type(kind) is str and (self.game is None or self.game.kind != kind):
            self.game = wire(kind)

    def _set_game(self, kind: str | None, seat: int | None) -> None:
        self.game = None if kind is None else wire(kind)
        self.seat = seat
        self._decoders = client_decoders(None if self.game is None else self.game.kind)


class ServerConnection(Connection):
    """The server's end of one client connection.

    Its `next_event` and `send` take a short way for what a game is made of: a client message of
    a type met before, well formed, and a move the state machine has settled (`_SETTLED`), and a
    server message in a settled move. They do exactly what `Connection`'s do, in fewer steps (one
    call for the frame and the message, no layers between); anything else (a bad field, a move
    met for the first time or refused, a failed connection) goes the long way, which finds the
    specific error."""

    our_role = Role.SERVER
    their_role = Role.CLIENT

    def next_event(self) -> Event | None:
        """As `Connection.next_event`."""
        if self.failed is not None or self.phase is _CLOSED:
            return Connection.next_event(self)
        decoder = self._decoder
        try:
            value = decoder.next_value()
        except RemoteProtocolError as exc:
            raise self._fail(exc) from None
        if value is NEED_DATA:
            if decoder.eof and decoder.at_eof:
                self.phase = Phase.CLOSED
                return ConnectionClosed()
            return None
        return self._message_of(value)

    def receive_frame(self, data: bytes) -> Message | None:
        """``receive_data(data)`` then `next_event`, in one step, when `data` is exactly one whole
        frame and nothing is buffered (a server's usual input: a client sends one message and
        waits for the answer). None, having done nothing, for any other `data`: then call
        `receive_data` and drain `next_event`. Raises what `next_event` would."""
        if self.failed is not None or self.phase is _CLOSED:
            return None
        try:
            value = self._decoder.whole_frame(data)
        except RemoteProtocolError as exc:
            raise self._fail(exc) from None
        if value is NEED_DATA:
            return None
        return self._message_of(value)

    def _message_of(self, value: Any) -> Message:
        """`_event_of`, with a short way for a well-formed client message in a settled move."""
        if type(value) is dict:
            name = value.get("type")
            decode = self._decoders.get(name) if type(name) is str else None
            if decode is not None:
                try:
                    message = decode(value)
                except FieldError:
                    pass  # the long way names the field (and the ref, when it can)
                else:
                    settled = _SETTLED.get((_CLIENT, self.phase, type(message)))
                    if settled is not None:
                        target, check = settled
                        if not check or (message.round, message.turn) == self.position:
                            self.phase = target
                            return message  # type: ignore[no-any-return]
        return self._event_of(value)

    def send(self, message: Message) -> bytes:
        """As `Connection.send`."""
        settled = _SETTLED.get((_SERVER, self.phase, type(message)))
        if settled is None or self.failed is not None:
            return Connection.send(self, message)
        target, check = settled
        position = self.position
        if check and (message.round, message.turn) != position:  # type: ignore[union-attr]
            return Connection.send(self, message)  # refuses it, naming the turns
        seq = self.last_seq + 1
        frame = to_frame(message, seq, self._max_body, self.game)
        self.phase = target
        self.position = position
        self.last_seq = seq
        return frame


class ClientConnection(Connection):
    """A client's (or bot's) end of its connection to the server."""

    our_role = Role.CLIENT
    their_role = Role.SERVER

    def __init__(self) -> None:
        super().__init__()
        self._next_ref = 0
        self._hello: Version | None = None

    def next_ref(self) -> int:
        """A fresh request reference id (1, 2, 3, ...)."""
        self._next_ref += 1
        return self._next_ref

    def _advance(self, role: Role, message: Message) -> None:
        if (
            isinstance(message, Welcome)
            and self._hello is not None
            and message.version.major != self._hello.major
        ):
            raise RemoteProtocolError(
                ErrorCode.UNSUPPORTED_VERSION,
                f"the server chose {message.version}, we offered {self._hello}",
            )
        if isinstance(message, Hello):
            self._hello = message.version
        super()._advance(role, message)


def error_for(exc: ProtocolError) -> Error:
    """The ERROR message that reports `exc` to the peer."""
    text = exc.message
    if len(text) > _MAX_ERROR_TEXT:
        text = text[: _MAX_ERROR_TEXT - 3] + "..."
    return Error(ref=exc.ref, code=int(exc.code), message=text)


def handshake_reply(
    hello: Hello,
    *,
    server_key: bytes,
    challenge: bytes,
    server_name: str = "",
    heartbeat_ms: int = 15_000,
    supported: tuple[Version, ...] = SUPPORTED_VERSIONS,
    capabilities: tuple[str, ...] = CAPABILITIES,
) -> Welcome | Error:
    """The server's answer to HELLO: WELCOME with the chosen version, or a fatal ERROR."""
    if hello.protocol != PROTOCOL_NAME:
        return Error(
            ref=hello.ref,
            code=ErrorCode.WRONG_PROTOCOL,
            message=f"this server speaks {PROTOCOL_NAME!r}, not {hello.protocol!r}"[:500],
        )
    version = choose_version(hello.version, supported)
    if version is None:
        return Error(
            ref=hello.ref,
            code=ErrorCode.UNSUPPORTED_VERSION,
            message=f"version {hello.version} is not supported",
            supported_versions=supported,
        )
    return Welcome(
        ref=hello.ref,
        version=version,
        capabilities=common_capabilities(hello.capabilities, capabilities),
        server_name=server_name,
        server_key=server_key,
        challenge=challenge,
        heartbeat_ms=heartbeat_ms,
    )
