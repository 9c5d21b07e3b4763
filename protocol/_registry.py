"""Message base classes, their declaration (`message`), the registry of message types, and
message <-> plain data.

On the wire a message is one msgpack map: ``type`` (the message's name), then ``seq`` for every
server message (a per-connection sequence number from 1), then the message's own fields. Client
messages carry ``ref``, a client-chosen request id that replies and errors repeat.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import (
    Annotated,
    Any,
    ClassVar,
    dataclass_transform,
    get_args,
    get_origin,
    get_type_hints,
)

import msgpack

from ._codec import (
    PACKED_SMALL,
    FieldError,
    GameCodecs,
    GameField,
    Range,
    Size,
    kind_of,
    packed_int,
    struct_codec,
)
from .errors import ErrorCode, LocalProtocolError, RemoteProtocolError

U32_MAX = 2**32 - 1
SEQ_MAX = 2**63 - 1

Ref = Annotated[int, Range(0, U32_MAX)]
"""A request's reference id (client-chosen; 0 when the client does not care)."""
U32 = Annotated[int, Range(0, U32_MAX)]
MAX_SEATS = 8
"""The most seats a table of any game has."""
Seat = Annotated[int, Range(0, MAX_SEATS - 1)]
"""A seat index (a further check against the table's player count happens where known)."""
Seats = Size(1, MAX_SEATS)
"""The length of a list with one item per seat (or per seat of a step)."""
Round = Annotated[int, Range(1, 255)]
"""A game's round (Sushi Go! and Sushi Roll: 1-3)."""
Turn = Annotated[int, Range(1, 65535)]
"""A step's turn within its round (Sushi Go!: 1 to the hand size; Sushi Roll: the cycle)."""
Bytes32 = Annotated[bytes, Size(32, 32)]
Name = Annotated[str, Size(1, 24)]
"""A player name: 1-24 characters (the server may refuse more with INVALID_NAME)."""
LoginName = Annotated[str, Size(1, 24, ErrorCode.INVALID_NAME)]
"""The name a login asks for: empty or too long is INVALID_NAME, as any name the server refuses
(PROTOCOL.md section 5), not the general OUT_OF_RANGE."""
TableId = Annotated[str, Size(1, 32)]
GameKindName = Annotated[str, Size(1, 32)]
"""A game's kind (``"sushi-go"``, ``"sushi-roll"``, or a plug-in's): a server refuses one it does
not host with UNSUPPORTED_GAME_KIND."""
PlayerId = Annotated[str, Size(1, 64)]
"""A player's id: ``k:...`` for a key's (lasting), ``g:...`` for a guest's (its session's)."""
Token = Annotated[bytes, Size(16, 64)]
"""A session's resume token (secret, single-use)."""
Address = Annotated[str, Size(3, 128)]
"""Where a cluster's node takes clients: ``HOST:PORT`` (``[v6]:PORT``)."""
Addresses = Annotated[tuple[Address, ...], Size(0, 64)]
"""A cluster's live nodes."""
Text = Annotated[str, Size(0, 500)]
DeadlineMs = Annotated[int, Range(0, 86_400_000)]
"""Milliseconds from when the message is sent (0: no deadline)."""
GameOptionsValue = Annotated[Any, GameField("options")]
"""The table's game's options (its wire's codec)."""
GameAction = Annotated[Any, GameField("action")]
"""An action of the table's game."""
GameObservation = Annotated[Any, GameField("observation")]
"""An observation of the table's game."""
GameEvent = Annotated[Any, GameField("event")]
"""An event of the table's game."""


class Role(StrEnum):
    """The two ends of a connection."""

    CLIENT = "client"
    """The end that connects and sends HELLO: a terminal client or a bot."""
    SERVER = "server"
    """The game server."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ClientMessage:
    """Base of every message a client sends."""

    TYPE: ClassVar[str] = ""
    SENDER: ClassVar[Role] = Role.CLIENT

    ref: Ref = 0
    """Client-chosen reference id (u32); replies and errors about this request repeat it."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerMessage:
    """Base of every message the server sends (each carries a ``seq`` on the wire)."""

    TYPE: ClassVar[str] = ""
    SENDER: ClassVar[Role] = Role.SERVER


@dataclass(frozen=True, slots=True, kw_only=True)
class Reply(ServerMessage):
    """Base of a server message that answers a request, and so repeats its ``ref`` (its first
    field on the wire)."""

    ref: Ref | None = None
    """The ref of the request answered; nil for a message no request of this client prompted."""


MessageT = ClientMessage | ServerMessage

MessageClass = type[ClientMessage] | type[ServerMessage]
# Keyed by sender too: "ping" and "pong" exist in both directions.
_TYPES: dict[tuple[Role, str], MessageClass] = {}
_CODECS: dict[tuple[type[Any], str | None], Any] = {}
_GAMED: dict[type[Any], bool] = {}
"""Per message class: does it hold game values (so its codec depends on the game)?"""


def register(*classes: MessageClass) -> None:
    """Add message classes to the registry under their sender and ``TYPE``."""
    for cls in classes:
        key = (cls.SENDER, cls.TYPE)
        if not cls.TYPE or key in _TYPES:
            raise ValueError(f"bad or duplicate message type {cls.TYPE!r}")
        _TYPES[key] = cls


@dataclass_transform(frozen_default=True, kw_only_default=True)
def message(name: str) -> Callable[[MessageClass], MessageClass]:
    """Declare a message class sent on the wire as type `name`: the class becomes a frozen,
    slotted, keyword-only dataclass (as its bases are), its ``TYPE`` is `name`, and it is
    registered (`register`) under its sender and that type, in the order of declaration."""

    def declare(cls: MessageClass) -> MessageClass:
        cls.TYPE = name
        made = dataclass(frozen=True, slots=True, kw_only=True)(cls)
        register(made)
        return made

    return declare


def message_types(sender: Role | None = None) -> list[MessageClass]:
    """Every registered message class (of one sender, if given), in registration order."""
    return [cls for (who, _), cls in _TYPES.items() if sender is None or who is sender]


def holds_game_values(tp: Any) -> bool:
    """True for a type whose schema has a `GameField` anywhere in it."""
    if get_origin(tp) is Annotated:
        base, *meta = get_args(tp)
        return any(isinstance(m, GameField) for m in meta) or holds_game_values(base)
    if get_origin(tp) is not None:
        return any(holds_game_values(arg) for arg in get_args(tp))
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        known = _GAMED.get(tp)
        if known is None:
            hints = get_type_hints(tp, include_extras=True)
            known = _GAMED[tp] = any(
                holds_game_values(hints[f.name]) for f in dataclasses.fields(tp)
            )
        return known
    return False


def _codec_for(cls: type[Any], game: GameCodecs | None = None) -> Any:
    """The class's codec, compiled for `game` when it holds game values."""
    kind = game.kind if game is not None and holds_game_values(cls) else None
    pair = _CODECS.get((cls, kind))
    if pair is None:
        pair = _CODECS[cls, kind] = struct_codec(cls, game=game if kind is not None else None)
    return pair


def to_data(
    message: MessageT, seq: int | None = None, game: GameCodecs | None = None
) -> dict[str, Any]:
    """The plain msgpack data of `message`; `seq` is required for (and only for) server messages;
    `game` encodes its game values."""
    body = _codec_for(type(message), game)[0](message)
    head: dict[str, Any] = {"type": message.TYPE}
    if seq is not None:
        head["seq"] = seq
    head.update(body)
    return head


_PACK = msgpack.Packer(use_bin_type=True, autoreset=True).pack
"""One packer for the process: `pack` runs entirely in C under the GIL (no Python hook is ever
called while packing protocol data), and a reused packer saves a buffer per call."""
_PACKERS: dict[type[Any], Callable[[Any, Any], tuple[int, bytes]]] = {}
"""Per message class, optionally: a faster way to its (field count, packed fields)."""
_last_body: tuple[Any, bytes] = (None, b"")
"""The last message whose fields were packed, and its packed fields."""
_LEADS: dict[type[Any], tuple[bytes, bytes]] = {}
"""Per message class, what comes before its fields: without a ``seq`` (a client message) and
with one (up to the ``seq`` key): the map's header and the ``type`` entry. Every message of a
class has the same fields, so the same header."""


def register_packer(cls: type[Any], packer: Callable[[Any, Any], tuple[int, bytes]]) -> None:
    """Pack `cls`'s fields with ``packer(message, game)`` (its field count and their packed keys
    and values, the very bytes msgpack gives for the encoded map without its header) instead of
    encoding the map and packing it. For the hottest messages, which can reuse parts packed for
    another seat."""
    _PACKERS[cls] = packer


def _map_header(n: int) -> bytes:
    """msgpack's header of a map of `n` entries, in the shortest form (as msgpack writes it)."""
    return bytes((0x80 | n,)) if n < 16 else b"\xde" + n.to_bytes(2, "big")


def _fields(message: MessageT, game: GameCodecs | None) -> bytes:
    """The message's packed fields: its map without the header and the ``type`` and ``seq``
    entries (which come first). Packed once per message object and kept for the next call,
    because the server sends one message to every seat of a table in a row, each with its own
    ``seq``; messages are frozen, so a message object always packs the same."""
    global _last_body  # noqa: PLW0603  (a one-entry cache)
    cached = _last_body
    if cached[0] is message:
        return cached[1]
    cls = type(message)
    packer = _PACKERS.get(cls)
    if packer is not None:
        count, fields = packer(message, game)
    else:
        body = _codec_for(cls, game)[0](message)
        count = len(body)
        packed: bytes = _PACK(body)
        fields = packed[1 if count < 16 else 3 :]
    if cls not in _LEADS:
        if {f.name for f in dataclasses.fields(cls)} & {"type", "seq"}:  # pragma: no cover
            raise TypeError(f"{cls.__name__} has a field named type or seq")
        head = _PACK("type") + _PACK(cls.TYPE)
        _LEADS[cls] = (_map_header(count + 1) + head, _map_header(count + 2) + head + b"\xa3seq")
    _last_body = (message, fields)
    return fields


def to_bytes(message: MessageT, seq: int | None = None, game: GameCodecs | None = None) -> bytes:
    """``msgpack.packb(to_data(message, seq))``, byte for byte, built faster.

    The map is ``type``, ``seq`` (server messages), then the fields; msgpack packs a map as its
    header and then each key and value in order, so the packed fields do not depend on the
    ``seq`` (see `_fields`).
    """
    fields = _fields(message, game)
    plain, with_seq = _LEADS[type(message)]
    if seq is None:
        return plain + fields
    return b"".join((with_seq, _PACK(seq), fields))


def to_frame(message: MessageT, seq: int, max_body: int, game: GameCodecs | None = None) -> bytes:
    """A server message's whole frame: the length header and ``to_bytes(message, seq)``, built in
    one piece. `LocalProtocolError` FRAME_TOO_LARGE for a body over `max_body` bytes."""
    cached = _last_body
    fields = cached[1] if cached[0] is message else _fields(message, game)
    lead = _LEADS[type(message)][1]
    packed_seq = _SMALL[seq] if 0 <= seq < 256 else packed_int(seq)
    size = len(lead) + len(packed_seq) + len(fields)
    if size > max_body:
        raise LocalProtocolError(
            ErrorCode.FRAME_TOO_LARGE,
            f"a {size}-byte frame body exceeds the {max_body}-byte limit",
        )
    return b"".join((size.to_bytes(4, "big"), lead, packed_seq, fields))


def from_data(
    value: Any, sender: Role, game: GameCodecs | None = None
) -> tuple[MessageT, int | None]:
    """Validate plain data from the wire into a typed message sent by `sender`, and its ``seq``;
    its game values (if any) are `game`'s (none: OUT_OF_PHASE, no game is played here).

    Raises `RemoteProtocolError` (not fatal: the frame was sound) with the code naming the first
    problem and, when it could be read, the request's ``ref``.
    """
    if type(value) is not dict:
        raise RemoteProtocolError(
            ErrorCode.NOT_A_MESSAGE, f"a message must be a map, got {kind_of(value)}", fatal=False
        )
    name = value.get("type")
    kind = None if game is None else game.kind
    decode = (
        _DECODERS.get((sender, name, kind)) if type(name) is str and sender is _CLIENT else None
    )
    if decode is not None:  # a client message of a type met before: the hot path
        try:
            return decode(value), None
        except FieldError as exc:
            ref = value.get("ref")
            if type(ref) is not int or not 0 <= ref <= U32_MAX:
                ref = None
            raise RemoteProtocolError(
                exc.code, f"{name}.{exc.where()}: {exc.message}", ref=ref, fatal=False
            ) from None
    ref = value.get("ref") if sender is _CLIENT else None
    if type(ref) is not int or not 0 <= ref <= U32_MAX:
        ref = None
    if type(name) is not str:
        raise RemoteProtocolError(
            ErrorCode.NOT_A_MESSAGE, "a message needs a string 'type'", ref=ref, fatal=False
        )
    cls = _TYPES.get((sender, name))
    if cls is None:
        other = Role.SERVER if sender is Role.CLIENT else Role.CLIENT
        if (other, name) in _TYPES:
            raise RemoteProtocolError(
                ErrorCode.WRONG_DIRECTION,
                f"{name!r} is sent by the {other}, not the {sender}",
                ref=ref,
                fatal=False,
            )
        raise RemoteProtocolError(
            ErrorCode.UNKNOWN_MESSAGE_TYPE, f"unknown message type {name!r}", ref=ref, fatal=False
        )
    seq = None
    if sender is Role.SERVER:
        seq = value.get("seq")
        if type(seq) is not int or not 1 <= seq <= SEQ_MAX:
            raise RemoteProtocolError(
                ErrorCode.MISSING_FIELD if seq is None else ErrorCode.WRONG_TYPE,
                f"{name}.seq: a server message needs an integer seq >= 1",
                fatal=False,
            )
    decode = _codec_for(cls, game)[1]
    _DECODERS[sender, name, kind] = decode
    if sender is _CLIENT:
        client_decoders(kind)[name] = decode
    try:
        msg = decode(value)
    except FieldError as exc:
        raise RemoteProtocolError(
            exc.code, f"{name}.{exc.where()}: {exc.message}", ref=ref, fatal=False
        ) from None
    return msg, seq


_DECODERS: dict[tuple[Role, Any, str | None], Callable[[Any], Any]] = {}
"""The decoder of each message type met so far, by (sender, type name, game kind)."""
_CLIENT_DECODERS: dict[str | None, dict[str, Callable[[Any], Any]]] = {}


def client_decoders(kind: str | None) -> dict[str, Callable[[Any], Any]]:
    """The decoders of client messages met so far at a table of `kind` (None: no game), by type
    name alone: the server's hot path is one lookup in the dict of its connection's game."""
    found = _CLIENT_DECODERS.get(kind)
    if found is None:
        found = _CLIENT_DECODERS[kind] = {}
    return found


_SMALL = PACKED_SMALL
_CLIENT = Role.CLIENT
"""As a module constant: on the hot path, an enum's class attribute costs ten times a global's
lookup (Python 3.11)."""
