"""Each game's values on the wire (`Wire`), found by the game's kind.

The protocol's messages are the same for every game; the game's own values in them (its options,
actions, observations and events) are encoded by the game's `Wire`. A message field that holds one
is marked `GameField` in its type, and the connection decodes it with the wire of the game its
table plays (`Connection.game`), so a client cannot make the server read one game's values as
another's.

This is the protocol's door to the games (`engine.door.Door`): each built-in game's folder here
(`protocol.games.sushi_go`, `protocol.games.sushi_roll`) and a plug-in's module named in the entry
point group ``sushigo.protocol`` expose ``WIRE`` (its `Wire`) and may expose ``LEGACY_RECORDS``
(readers of its records in formats of earlier protocol versions, by format name). A game's wire is
imported when its kind is first asked for: a process that never meets Sushi Roll never imports its
wire, nor its engine.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Protocol, runtime_checkable

import msgpack

from sushigo.engine.door import Door
from sushigo.protocol._codec import (
    Decoder,
    Encoder,
    FieldError,
    Range,
    Size,
    canonical_bytes,
    kind_of,
    struct_codec,
)
from sushigo.protocol.errors import ErrorCode, RemoteProtocolError

__all__ = [
    "DOOR",
    "ENTRY_POINTS",
    "PARTS",
    "CodecWire",
    "Decoder",
    "Encoder",
    "FieldError",
    "Range",
    "Score",
    "Size",
    "Wire",
    "decode",
    "encode",
    "kind_of",
    "legacy_record_reader",
    "register_wire",
    "round_scored",
    "struct_codec",
    "tagged_codec",
    "wire",
]
"""What a game's wire is written with: the codec builders (`struct_codec` from type hints with
`Range` and `Size`, `tagged_codec` for a union), `FieldError` for a decoder's refusals, and the
pieces the built-in games share (`Score`, `round_scored`)."""

ENTRY_POINTS = "sushigo.protocol"
"""The entry point group of plug-in games' wires (a module or object with ``WIRE``; the entry
point's name is the game's kind)."""

DOOR = Door(
    ENTRY_POINTS,
    {
        "sushi-go": "sushigo.protocol.games.sushi_go",
        "sushi-roll": "sushigo.protocol.games.sushi_roll",
    },
)
"""The built-in games' wires, by kind."""

PARTS = ("options", "action", "observation", "event")
"""The kinds of game value a message may hold."""

Score = Annotated[int, Range(-10_000, 10_000)]
"""A score on the wire: a round's points, a total, end-of-game points."""


def round_scored(points: Any, tableaus: Size, puddings: Any) -> tuple[str, dict[str, Any]]:
    """The tag and the fields' hints of `engine.rounds.RoundScored`, the round's scoring of every
    game played in rounds: a tableau's `points` (the game's own RoundPoints), how many `tableaus`
    a game has, and the type of a tableau's pudding count."""
    return (
        "round_scored",
        {
            "round": Annotated[int, Range(1, 3)],
            "points": Annotated[tuple[points, ...], tableaus],
            "totals": Annotated[tuple[Score, ...], tableaus],
            "puddings": Annotated[tuple[puddings, ...], tableaus],
        },
    )


@runtime_checkable
class Wire(Protocol):
    """How one game's values travel: a codec per part, and the bytes a commitment binds."""

    @property
    def kind(self) -> str:
        """The game's kind (`engine.api.Rules.kind`)."""

    def codec(self, part: str) -> tuple[Encoder, Decoder]:
        """(encoder, decoder) of one of `PARTS`: the encoder makes plain msgpack data of a value;
        the decoder checks plain data from the wire and builds the value, raising `FieldError`
        naming what is wrong (never anything else)."""

    def packed(self, part: str, value: Any) -> bytes:
        """``msgpack.packb(encoder(value))``, byte for byte: a game may make its hot values
        (an observation per seat every turn, an action per opening) faster than that."""

    def canonical(self, part: str, value: Any) -> bytes:
        """The canonical msgpack bytes of the encoded value (`protocol.records`: sorted keys,
        shortest forms), as a signed record holds it."""

    def commit_bytes(self, action: Any) -> bytes:
        """The action's part of a commitment's preimage (docs/PROTOCOL.md section 6): a fixed,
        unambiguous encoding of the action."""


_pack = msgpack.Packer(use_bin_type=True, autoreset=True).pack


class CodecWire:
    """A `Wire` from a codec per part: `packed` packs what the encoder makes, and an action's
    commitment bytes are its canonical msgpack bytes, length-prefixed (`lp16`). A game with
    faster ways overrides them."""

    def __init__(self, kind: str, codecs: dict[str, tuple[Encoder, Decoder]]) -> None:
        missing = set(PARTS) - set(codecs)
        if missing:
            raise ValueError(f"the {kind} wire has no codec for {', '.join(sorted(missing))}")
        self.kind = kind
        self._codecs = codecs

    def codec(self, part: str) -> tuple[Encoder, Decoder]:
        """The codec of `part`."""
        return self._codecs[part]

    def packed(self, part: str, value: Any) -> bytes:
        """The value encoded and packed."""
        data: bytes = _pack(self._codecs[part][0](value))
        return data

    def canonical(self, part: str, value: Any) -> bytes:
        """``canonical_bytes`` of the encoded value."""
        return canonical_bytes(self._codecs[part][0](value))

    def commit_bytes(self, action: Any) -> bytes:
        """``lp16(canonical msgpack bytes of the encoded action)``."""
        data = canonical_bytes(self._codecs["action"][0](action))
        return len(data).to_bytes(2, "big") + data


_known: dict[str, Wire] = {}


class _Part:
    """A game's protocol part made by hand (`register_wire`)."""

    def __init__(self, wire: Wire, legacy: dict[str, Callable[[dict[str, Any]], Any]]) -> None:
        self.WIRE = wire
        self.LEGACY_RECORDS = legacy


def register_wire(
    wire: Wire, legacy_records: dict[str, Callable[[dict[str, Any]], Any]] | None = None
) -> None:
    """Make `wire` the codec of its game by hand (a program that embeds a game of its own, and
    tests). `legacy_records`: as a game's ``LEGACY_RECORDS``."""
    _known[wire.kind] = wire
    DOOR.add(wire.kind, _Part(wire, legacy_records or {}))


def legacy_record_reader(fmt: object) -> Callable[[dict[str, Any]], Any] | None:
    """The reader of a record format of an earlier protocol version, if a built-in game, or a game
    whose wire is loaded, knows it (an old record is rare: this imports every built-in wire)."""
    if type(fmt) is not str:
        return None
    for kind in (*DOOR.built_in, *_known):
        part = DOOR.part(kind)
        reader = getattr(part, "LEGACY_RECORDS", {}).get(fmt)
        if reader is not None:
            return reader  # type: ignore[no-any-return]
    return None


def wire(kind: str) -> Wire | None:
    """The wire of the game `kind` (imported the first time); None when no game of that kind has
    one installed. `EngineError` when a plug-in's fails to load."""
    found = _known.get(kind)
    if found is None and type(kind) is str:
        part = DOOR.part(kind)
        loaded = getattr(part, "WIRE", None)
        if isinstance(loaded, Wire) and loaded.kind == kind:
            found = _known[kind] = loaded
    return found


def decode(game: Wire, part: str, value: Any) -> Any:
    """`value` (plain data from the wire) read as the game's `part`; `RemoteProtocolError` (not
    fatal) naming the field that is wrong."""
    try:
        return game.codec(part)[1](value)
    except FieldError as exc:
        raise RemoteProtocolError(
            exc.code, f"{part}.{exc.where()}: {exc.message}", fatal=False
        ) from None


def encode(game: Wire, part: str, value: Any) -> Any:
    """The game's `part` value as plain msgpack data."""
    return game.codec(part)[0](value)


def tagged_codec(
    key: str, codecs: dict[type[Any], tuple[str, Encoder, Decoder]], what: str
) -> tuple[Encoder, Decoder]:
    """A codec for a union of classes, each encoded as a map with its tag under `key`
    (``{"event": "round_scored", ...}``): `codecs` gives each class its tag and its own codec."""
    by_tag = {tag: dec for tag, _, dec in codecs.values()}

    def encode(value: Any) -> dict[str, Any]:
        tag, enc, _ = codecs[type(value)]
        out: dict[str, Any] = {key: tag}
        out.update(enc(value))
        return out

    def decode(value: Any) -> Any:
        if type(value) is not dict:
            raise FieldError(ErrorCode.WRONG_TYPE, f"expected a map, got {kind_of(value)}")
        tag = value.get(key)
        dec = by_tag.get(tag) if type(tag) is str else None
        if dec is None:
            err = FieldError(
                ErrorCode.MISSING_FIELD if tag is None else ErrorCode.OUT_OF_RANGE,
                "required field is missing" if tag is None else f"unknown {what} {tag!r}",
            )
            err.path.append(key)
            raise err
        return dec(value)

    return encode, decode
