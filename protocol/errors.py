"""Protocol errors: one wire code table, and two kinds of exception (we broke it, the peer broke it).

Every error that can cross the wire has a code from `ErrorCode`. An exception carries its code, a
human message, the offending request's reference id when there is one, and whether the connection
must now be closed (`fatal`): after a framing or msgpack error the byte stream can no longer be
trusted, so it is always fatal; a well-framed message that fails validation is answered with an
ERROR and the connection goes on (once the handshake is done).
"""

from __future__ import annotations

from enum import IntEnum


class ErrorCode(IntEnum):
    """Wire error codes. The numbers are part of the protocol: never reuse or renumber one."""

    # 1-9: framing (always fatal: the stream is out of sync or untrusted)
    MALFORMED_FRAME = 1
    """The body is not exactly one valid msgpack value within the limits (ext types, trailing bytes,
    over-long strings/arrays/maps, invalid UTF-8, non-string map keys)."""
    FRAME_TOO_LARGE = 2
    """The declared body length exceeds the direction's limit (16 KiB to the server, 1 MiB to the
    client); refused before any of the body is read."""
    TRUNCATED_FRAME = 3
    """The peer closed the connection in the middle of a frame."""

    # 10-19: message validation
    NOT_A_MESSAGE = 10
    """The value is not a map with a string ``type``."""
    UNKNOWN_MESSAGE_TYPE = 11
    """No message has that ``type`` in the negotiated version."""
    WRONG_DIRECTION = 12
    """A message the other side sends (a server event sent by a client, or the reverse)."""
    MISSING_FIELD = 13
    """A required field is absent."""
    WRONG_TYPE = 14
    """A field holds a value of the wrong type (an int where a string belongs, a float, ...)."""
    OUT_OF_RANGE = 15
    """A field's value has the right type but is not allowed: a number out of range, a string or
    list of the wrong length, an unknown card or enum name, inconsistent values."""

    # 20-29: handshake
    HANDSHAKE_REQUIRED = 20
    """Anything but HELLO as the client's first message, whatever its type, known or not
    (fatal)."""
    WRONG_PROTOCOL = 21
    """HELLO names a protocol other than ``sushigo`` (fatal)."""
    UNSUPPORTED_VERSION = 22
    """No supported version shares the client's major version; the ERROR lists the server's
    versions (fatal)."""

    # 30-39: sequencing
    OUT_OF_PHASE = 30
    """A message not allowed in the connection's current phase (before the handshake: fatal)."""
    SEQUENCE_ERROR = 31
    """A server event whose sequence number is not the previous one plus one (client side)."""

    # 40-49: identity
    INVALID_NAME = 40
    """A player name that is empty, too long, has control characters, or is reserved."""
    NAME_TAKEN = 41
    """The name is in use by another player."""
    BAD_SIGNATURE = 42
    """LOGIN_KEY's signature does not verify over the challenge binding."""
    UNKNOWN_SESSION = 43
    """RESUME with a token the server does not know (expired, or never issued)."""

    # 50-59: lobby
    NO_SUCH_TABLE = 50
    """The table id names no table."""
    TABLE_FULL = 51
    """No free seat (or the asked-for seat is taken)."""
    NOT_ALLOWED = 52
    """The player may not do that here (only the table's host may start it or add bots, ...)."""
    BAD_SETTINGS = 53
    """Table settings that do not make a game (the dummy variant with 3 players, ...)."""
    GAME_IN_PROGRESS = 54
    """The table's game has already started."""
    NOT_ENOUGH_PLAYERS = 55
    """START with fewer occupied seats than the table's player count."""
    UNKNOWN_BOT = 56
    """ADD_BOT names a strategy the server does not have."""
    UNSUPPORTED_GAME_KIND = 57
    """A game kind the server cannot host."""

    # 60-69: game
    WRONG_TURN = 60
    """A COMMIT, REVEAL or ACT (from the server: a COMMITMENTS, TURN_RESULT or ACTED) naming another
    round or turn than the current step's (a late message)."""
    ALREADY_DONE = 61
    """The seat has already committed (or revealed, or contributed its seed) this turn: a second
    COMMIT, REVEAL or SEED while the seat waits for the others."""
    COMMITMENT_MISMATCH = 62
    """REVEAL does not open the seat's commitment."""
    ILLEGAL_ACTION = 63
    """The rules do not allow the action now: a revealed one that opens its commitment (the seat
    is then auto-picked for the step), or an ACT (nothing changes; the seat may send another)."""
    FAIRNESS_VIOLATION = 64
    """Something that defeats the fairness scheme. From the server: a COMMIT or SEED copied from
    another seat's (the seat is auto-picked, or its seed drawn). On the client side: an opening,
    seed or record that does not check out (shown to the person, never ignored)."""

    # 70-79: limits
    RATE_LIMITED = 70
    """Too many messages or bytes in a short time; repeated offences close the connection."""
    TIMEOUT = 71
    """A deadline passed: the handshake deadline, a frame's deadline (its bytes must all arrive
    within a set time of its first), or no traffic within the dead-peer timeout."""
    LIMIT_REACHED = 72
    """What the request would make the server hold is over one of its limits: tables open per
    player or per address, connections per address, sessions per player (since 2.1; not fatal
    after WELCOME, and a refused connection is closed)."""

    # 90-99: server
    INTERNAL_ERROR = 90
    """The server failed; the request had no effect."""
    SHUTTING_DOWN = 91
    """The server is going away; reconnect later and RESUME."""


FATAL_CODES: frozenset[ErrorCode] = frozenset(
    {
        ErrorCode.MALFORMED_FRAME,
        ErrorCode.FRAME_TOO_LARGE,
        ErrorCode.TRUNCATED_FRAME,
        ErrorCode.HANDSHAKE_REQUIRED,
        ErrorCode.WRONG_PROTOCOL,
        ErrorCode.UNSUPPORTED_VERSION,
        ErrorCode.SEQUENCE_ERROR,
        ErrorCode.TIMEOUT,
        ErrorCode.SHUTTING_DOWN,
    }
)
"""Codes after which the connection is always closed, whatever the phase."""


class ProtocolError(Exception):
    """Base of every protocol error. Not raised directly: see the two kinds below."""

    def __init__(
        self, code: ErrorCode, message: str, *, ref: int | None = None, fatal: bool | None = None
    ) -> None:
        super().__init__(f"{code.name}: {message}")
        self.code = code
        """The wire error code."""
        self.message = message
        """A human-readable explanation naming what was wrong."""
        self.ref = ref
        """The reference id of the offending request, when it could be read."""
        self.fatal = code in FATAL_CODES if fatal is None else fatal
        """True when the connection must be closed after reporting this error."""


class LocalProtocolError(ProtocolError):
    """We tried to do something the protocol forbids (send out of phase, an oversized frame, ...).

    A bug in our own code or a misuse of the API: nothing was sent.
    """


class RemoteProtocolError(ProtocolError):
    """The peer sent something the protocol forbids. Report it with an ERROR (`code`, `message`,
    `ref`), then close the connection if `fatal`."""
