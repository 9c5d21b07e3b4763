"""The typed codec: frozen dataclasses <-> plain msgpack data, validated field by field.

Each message's schema is its dataclass: the field names are the wire keys and the type hints say
what a value must be. Ranges and lengths ride on the hints with `Annotated` (`Range`, `Size`), so
one declaration gives the Python type, the validation and (through docs/PROTOCOL.md) the spec.
Encoders and decoders are compiled once per type into closures; failures raise `FieldError`, which
collects the path of the offending field on its way out (nothing is built on the success path).

Encoding trusts its input (typed values made by our own code: STYLE.md item 7); decoding trusts
nothing.
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum, IntEnum
from typing import Annotated, Any, Protocol, TypeVar, Union, get_args, get_origin, get_type_hints

import msgpack

from sushigo.engine.games.sushi_go.observation import positional

from .errors import ErrorCode

Encoder = Callable[[Any], Any]
Decoder = Callable[[Any], Any]
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Range:
    """An integer field's inclusive bounds."""

    lo: int
    hi: int


@dataclass(frozen=True, slots=True)
class GameField:
    """Marks a field that holds a value of the table's game (``Annotated[Any,
    GameField("action")]``): its codec is the game's (`protocol.games.Wire.codec`), chosen when
    the schema is compiled for a game (`codec(tp, game)`)."""

    part: str
    """``options``, ``action``, ``observation`` or ``event``."""


class GameCodecs(Protocol):
    """What compiling a schema needs of a game's wire (`protocol.games.Wire`)."""

    @property
    def kind(self) -> str:
        """The game's kind."""

    def codec(self, part: str) -> tuple[Encoder, Decoder]:
        """The codec of one part."""


@dataclass(frozen=True, slots=True)
class Size:
    """Inclusive bounds on a length: characters of a str, bytes of a bin, items of an array."""

    lo: int
    hi: int
    refusal: ErrorCode = ErrorCode.OUT_OF_RANGE
    """The error for a str or bin of a length out of bounds (a login's name: INVALID_NAME)."""


class FieldError(Exception):
    """A value that does not fit its schema. `path` names the field, outermost first."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.path: list[str] = []

    def where(self) -> str:
        """The dotted path of the bad field (``observation.tableaus[2].cards``)."""
        out = ""
        for part in self.path:
            out += part if part.startswith("[") or not out else "." + part
        return out or "message"


def kind_of(value: object) -> str:
    """The msgpack name of a decoded value's type, for error messages."""
    return _KINDS.get(type(value), type(value).__name__)


_KINDS = {
    type(None): "nil",
    bool: "bool",
    int: "int",
    float: "float",
    str: "str",
    bytes: "bin",
    list: "array",
    tuple: "array",
    dict: "map",
}

_CUSTOM: dict[Any, tuple[Encoder, Decoder]] = {}
_COMPILED: dict[tuple[Any, str | None], tuple[Encoder, Decoder]] = {}


_pack = msgpack.Packer(use_bin_type=True, autoreset=True).pack
PACKED_SMALL: tuple[bytes, ...] = tuple(_pack(n) for n in range(256))
"""``msgpack.packb(n)`` of the ints 0-255, by the int: the hand-packed messages look their small
ints up here (``PACKED_SMALL[n] if 0 <= n < 256 else ...``; never with a bool, which msgpack
packs as true/false) instead of calling the packer, which costs several times a lookup."""
PACKED_BOOL = (_pack(False), _pack(True))
"""``msgpack.packb(flag)`` of a bool, by the bool."""


def packed_int(n: int) -> bytes:
    """``msgpack.packb(n)`` of an int (not a bool), byte for byte: up to 65535 without the packer."""
    if 0 <= n < 256:
        return PACKED_SMALL[n]
    if 0 <= n < 65536:
        return b"\xcd" + n.to_bytes(2, "big")
    packed: bytes = _pack(n)
    return packed


def packed_bin(value: bytes | None) -> bytes:
    """``msgpack.packb(value)`` of a bin up to 255 bytes (a nonce, a commitment) or nil."""
    if value is None:
        return b"\xc0"
    if len(value) < 256:
        return b"\xc4" + PACKED_LENGTH[len(value)] + value
    packed: bytes = _pack(value)  # pragma: no cover - no hand-packed field is that long
    return packed


PACKED_LENGTH = tuple(bytes((n,)) for n in range(256))


def array_header(n: int) -> bytes:
    """msgpack's header of an array of `n` items, in the shortest form (as msgpack writes it)."""
    return _ARRAYS[n] if n < 16 else b"\xdc" + n.to_bytes(2, "big")


_ARRAYS = tuple(bytes((0x90 | n,)) for n in range(16))
"""The one-byte headers of arrays of 0-15 items."""


_NESTED = frozenset({dict, list, tuple})


def _sorted(value: Any) -> Any:
    # Sorting str keys by code point is sorting them by their UTF-8 bytes (UTF-8 keeps code point
    # order), so plain sorted() gives the canonical order without encoding every key. Leaves
    # (most of a record: bytes, ints, strs) are kept as they are without a call each.
    kind = type(value)
    if kind is dict:
        return {k: _sorted(v) if type(v := value[k]) in _NESTED else v for k in sorted(value)}
    if kind is list or kind is tuple:
        return [_sorted(v) if type(v) in _NESTED else v for v in value]
    return value


def canonical_bytes(value: Any) -> bytes:
    """The canonical msgpack encoding of plain data (maps with str keys only): every map's keys
    sorted, every header in its shortest form (docs/PROTOCOL.md section 6.4)."""
    out: bytes = msgpack.packb(_sorted(value), use_bin_type=True)
    return out


def register(tp: Any, encoder: Encoder, decoder: Decoder) -> None:
    """Use a hand-written codec for `tp` wherever a schema names it."""
    _CUSTOM[tp] = (encoder, decoder)


def codec(tp: Any, game: GameCodecs | None = None) -> tuple[Encoder, Decoder]:
    """The (encoder, decoder) pair for a type hint, compiled once (per game, for a type that
    holds game values: see `GameField`). Without a game, a game value cannot be encoded, and
    decoding one raises OUT_OF_PHASE: no game is being played where it arrived."""
    key = (tp, None if game is None else game.kind)
    try:
        return _COMPILED[key]
    except KeyError:
        pass
    pair = _compile(tp, game)
    _COMPILED[key] = pair
    return pair


def _no_game_encoder(value: Any) -> Any:
    raise TypeError(f"a game value ({type(value).__name__}) needs the game's wire to encode")


def _no_game_decoder(value: Any) -> Any:
    raise FieldError(ErrorCode.OUT_OF_PHASE, "no game is being played here")


def _identity(value: Any) -> Any:
    return value


DEFAULT_ARRAY = Size(0, 64)
"""The length of an array whose type has no `Size`."""
DEFAULT_STR = Size(0, 256)
"""The length of a str or bin whose type has no `Size`."""


def unwrap(tp: Any) -> tuple[Any, tuple[Any, ...]]:
    """A type hint without its ``Annotated`` wrapper, and the wrapper's metadata (none: ())."""
    if get_origin(tp) is Annotated:
        base, *meta = get_args(tp)
        return base, tuple(meta)
    return tp, ()


def meta_of(meta: tuple[Any, ...], kind: type[Any]) -> Any:
    """The first item of `meta` (from `unwrap`) that is a `kind`, or None."""
    return next((m for m in meta if isinstance(m, kind)), None)


def _compile(tp: Any, game: GameCodecs | None) -> tuple[Encoder, Decoder]:
    tp, meta = unwrap(tp)
    part = meta_of(meta, GameField)
    if part is not None:
        return (_no_game_encoder, _no_game_decoder) if game is None else game.codec(part.part)
    if tp in _CUSTOM:
        return _CUSTOM[tp]
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        inner = [a for a in get_args(tp) if a is not type(None)]
        if len(inner) != 1:
            raise TypeError(f"only X | None unions are supported, not {tp}")
        return _optional(*codec(inner[0], game))
    if origin is tuple:
        item, ellipsis = get_args(tp)
        if ellipsis is not Ellipsis:
            raise TypeError(f"only tuple[X, ...] is supported, not {tp}")
        size = meta_of(meta, Size) or DEFAULT_ARRAY
        return _array(*codec(item, game), size)
    if tp is bool:
        return _identity, _bool
    if tp is int:
        rng = meta_of(meta, Range)
        if rng is None:
            raise TypeError("an int field needs a Range")
        return _identity, _int(rng.lo, rng.hi)
    if tp is str:
        return _identity, _sized(str, "a str", "length {}", meta_of(meta, Size) or DEFAULT_STR)
    if tp is bytes:
        return _identity, _sized(bytes, "a bin", "{} bytes", meta_of(meta, Size) or DEFAULT_STR)
    if isinstance(tp, type) and issubclass(tp, Enum):
        return _enum(tp)
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        return struct_codec(tp, game=game)
    raise TypeError(f"no codec for {tp!r}")


def _optional(enc: Encoder, dec: Decoder) -> tuple[Encoder, Decoder]:
    def encode(value: Any) -> Any:
        return None if value is None else enc(value)

    def decode(value: Any) -> Any:
        return None if value is None else dec(value)

    # nil and a plain value both go to msgpack as they are: no encoding pass at all.
    return (_identity if enc is _identity else encode), decode


def _bool(value: Any) -> bool:
    if type(value) is not bool:
        raise FieldError(ErrorCode.WRONG_TYPE, f"expected a bool, got {kind_of(value)}")
    return value


_INLINE: dict[Decoder, str] = {_bool: "type({v}) is bool"}
"""Decoders whose test of a good value a generated struct decoder writes inline (see
`_struct_decoder`): a condition on ``{v}`` that holds exactly when the decoder returns the value
unchanged. A value that fails it goes to the decoder, which raises the precise error."""


def _int(lo: int, hi: int) -> Decoder:
    def decode(value: Any) -> int:
        if type(value) is not int:
            raise FieldError(ErrorCode.WRONG_TYPE, f"expected an int, got {kind_of(value)}")
        if not lo <= value <= hi:
            raise FieldError(ErrorCode.OUT_OF_RANGE, f"{value} is not within {lo}..{hi}")
        return value

    _INLINE[decode] = f"type({{v}}) is int and {lo!r} <= {{v}} <= {hi!r}"
    return decode


def _sized(tp: type[str | bytes], what: str, length: str, size: Size) -> Decoder:
    """A decoder of a str or a bin (`tp`, "a str" or "a bin" on the wire: `what`) whose length is
    within `size`; a refusal tells the `length` (a format of it: ``"length {}"``)."""
    lo, hi, refusal = size.lo, size.hi, size.refusal

    def decode(value: Any) -> Any:
        if type(value) is not tp:
            raise FieldError(ErrorCode.WRONG_TYPE, f"expected {what}, got {kind_of(value)}")
        if not lo <= len(value) <= hi:
            told = length.format(len(value))
            raise FieldError(refusal, f"{told} is not within {lo}..{hi}")
        return value

    _INLINE[decode] = f"type({{v}}) is {tp.__name__} and {lo!r} <= len({{v}}) <= {hi!r}"
    return decode


def _array(enc: Encoder, dec: Decoder, size: Size) -> tuple[Encoder, Decoder]:
    lo, hi = size.lo, size.hi

    def encode(value: Any) -> Any:
        return list(map(enc, value))

    def decode(value: Any) -> tuple[Any, ...]:
        if type(value) is not list and type(value) is not tuple:
            raise FieldError(ErrorCode.WRONG_TYPE, f"expected an array, got {kind_of(value)}")
        if not lo <= len(value) <= hi:
            raise FieldError(ErrorCode.OUT_OF_RANGE, f"{len(value)} items is not within {lo}..{hi}")
        return tuple(decode_items(dec, value))

    # msgpack packs a tuple as an array, so arrays of plain values need no encoding pass.
    return (_identity if enc is _identity else encode), decode


def decode_items(dec: Decoder, values: list[Any] | tuple[Any, ...]) -> list[Any]:
    """Every item of an array decoded by `dec`; a refusal names the item's index in its path."""
    out = []
    for i, v in enumerate(values):
        try:
            out.append(dec(v))
        except FieldError as exc:
            exc.path.insert(0, f"[{i}]")
            raise
    return out


def _enum(tp: type[Enum]) -> tuple[Encoder, Decoder]:
    by_value = {m.value: m for m in tp}
    want = int if issubclass(tp, IntEnum) else str
    known = ", ".join(str(v) for v in by_value)

    def encode(value: Any) -> Any:
        return value.value

    def decode(value: Any) -> Any:
        if type(value) is not want:
            raise FieldError(
                ErrorCode.WRONG_TYPE, f"expected {want.__name__}, got {kind_of(value)}"
            )
        try:
            return by_value[value]
        except KeyError:
            raise FieldError(
                ErrorCode.OUT_OF_RANGE, f"unknown {tp.__name__} {value!r} (known: {known})"
            ) from None

    return encode, decode


def _struct_encoder(cls: type[Any], plain: list[tuple[str, Encoder]]) -> Encoder:
    """``obj -> {name: enc(obj.name), ...}``, compiled into one function for the class.

    Encoding is the server's hot path (every TURN_START carries an observation of a dozen nested
    structs), so instead of a loop over (name, encoder) pairs with `getattr`, the map is built by a
    generated dict display: plain fields are read directly, the others go through their encoder.
    The keys come out in field order, exactly as the loop would give them.
    """
    if not all(name.isidentifier() for name, _ in plain):  # pragma: no cover - dataclass fields
        return lambda obj: {name: enc(getattr(obj, name)) for name, enc in plain}
    namespace: dict[str, Any] = {}
    items = []
    for i, (name, enc) in enumerate(plain):
        if enc is _identity:
            items.append(f"{name!r}: obj.{name}")
        else:
            namespace[f"enc{i}"] = enc
            items.append(f"{name!r}: enc{i}(obj.{name})")
    source = f"def encode(obj):\n    return {{{', '.join(items)}}}\n"
    exec(compile(source, f"<encoder of {cls.__qualname__}>", "exec"), namespace)
    encode: Encoder = namespace["encode"]
    return encode


def _slot_setters(cls: type[Any], names: list[str]) -> dict[str, Any] | None:
    """Each field's slot setter, when `cls` is a dataclass built by its generated ``__init__``
    alone (slots, no ``__post_init__``) and `names` are all its fields; None otherwise."""
    if not dataclasses.is_dataclass(cls) or hasattr(cls, "__post_init__"):
        return None
    code = getattr(cls.__init__, "__code__", None)
    if code is None or code.co_filename != "<string>":  # a hand-written __init__ must run
        return None
    if [f.name for f in dataclasses.fields(cls)] != names:
        return None
    setters = {}
    for name in names:
        slot = next((k.__dict__[name] for k in cls.__mro__ if name in k.__dict__), None)
        if type(slot) is not types.MemberDescriptorType:
            return None
        setters[name] = slot.__set__
    return setters


def maker(cls: type[T]) -> Callable[..., T]:
    """A positional constructor of a frozen, slotted dataclass: ``maker(cls)(a, b, c)`` is
    ``cls(a, b, c)`` (every field given, in field order), filled through the slots by
    `engine.games.sushi_go.observation.positional`, as the generated decoders fill theirs. A frozen
    ``__init__`` sets each field through `object.__setattr__`, which costs three times as much: this
    is for the few messages a server makes every turn. Any class `_slot_setters` does not accept (a
    hand-written ``__init__``, a ``__post_init__``) gets itself back, called the ordinary way."""
    names = [f.name for f in dataclasses.fields(cls)]  # type: ignore[arg-type]
    if _slot_setters(cls, names) is None or not all(name.isidentifier() for name in names):
        return cls  # pragma: no cover - every class given one is a plain slotted dataclass
    return positional(cls)


def _struct_decoder(
    cls: type[Any], fields: list[tuple[str, Decoder, bool]], check: Callable[[Any], None] | None
) -> Decoder | None:
    """The decoder of `struct_codec`, compiled into one function for the class.

    Decoding is the server's other hot path (every COMMIT and REVEAL), so the per-field loop and
    keyword dict go: fields are decoded in order by generated code that raises exactly what the
    loop would. A plain dataclass (see `_slot_setters`) is filled through its slots, as its frozen
    ``__init__`` would do, defaults included; any other class is called with keyword arguments.
    """
    names = [name for name, _, _ in fields]
    setters = _slot_setters(cls, names)
    namespace: dict[str, Any] = {
        "cls": cls,
        "check": check,
        "FieldError": FieldError,
        "kind_of": kind_of,
        "WRONG_TYPE": ErrorCode.WRONG_TYPE,
        "OUT_OF_RANGE": ErrorCode.OUT_OF_RANGE,
        "MISSING_FIELD": ErrorCode.MISSING_FIELD,
        "new": object.__new__,
        "ABSENT": _ABSENT,
    }
    defaults = {}
    if setters is not None:
        for f in dataclasses.fields(cls):
            if f.default is not dataclasses.MISSING:
                defaults[f.name] = ("value", f.default)
            elif f.default_factory is not dataclasses.MISSING:
                defaults[f.name] = ("factory", f.default_factory)
    lines = [
        "def decode(value):",
        "    if type(value) is not dict:",
        '        raise FieldError(WRONG_TYPE, f"expected a map, got {kind_of(value)}")',
    ]
    for i, (name, dec, needed) in enumerate(fields):
        namespace[f"dec{i}"] = dec
        lines += [f"    v{i} = value.get({name!r}, ABSENT)", f"    if v{i} is not ABSENT:"]
        test = _INLINE.get(dec)
        indent = "        "
        if test is not None:  # a good value passes the inline test; only a bad one is decoded
            lines.append(f"        if not ({test.format(v=f'v{i}')}):")
            indent = "            "
        lines += [
            f"{indent}try:",
            f"{indent}    v{i} = dec{i}(v{i})",
            f"{indent}except FieldError as exc:",
            f"{indent}    exc.path.insert(0, {name!r})",
            f"{indent}    raise",
        ]
        if needed:
            lines += [
                "    else:",
                '        err = FieldError(MISSING_FIELD, "required field is missing")',
                f"        err.path.append({name!r})",
                "        raise err",
            ]
        elif setters is not None:
            how, default = defaults[name]
            namespace[f"default{i}"] = default
            lines += [
                "    else:",
                f"        v{i} = default{i}" + ("()" if how == "factory" else ""),
            ]
    if setters is not None:
        lines.append("    obj = new(cls)")
        for i, name in enumerate(names):
            namespace[f"set{i}"] = setters[name]
            lines.append(f"    set{i}(obj, v{i})")
    else:
        lines.append("    kwargs = {}")
        for i, name in enumerate(names):
            lines.append(f"    if v{i} is not ABSENT:")
            lines.append(f"        kwargs[{name!r}] = v{i}")
        lines += [
            "    try:",
            "        obj = cls(**kwargs)",
            "    except (ValueError, TypeError) as exc:",
            "        raise FieldError(OUT_OF_RANGE, str(exc)) from None",
        ]
    if check is not None:
        lines.append("    check(obj)")
    lines.append("    return obj")
    exec(compile("\n".join(lines) + "\n", f"<decoder of {cls.__qualname__}>", "exec"), namespace)
    decode: Decoder = namespace["decode"]
    return decode


class _Absent:
    __slots__ = ()


_ABSENT = _Absent()
"""A field missing from the map (None is a value: nil)."""


def struct_codec(
    cls: type[Any],
    hints: dict[str, Any] | None = None,
    check: Callable[[Any], None] | None = None,
    game: GameCodecs | None = None,
) -> tuple[Encoder, Decoder]:
    """A codec for a dataclass (or any class built from keyword arguments) as a msgpack map.

    `hints` overrides the class's own type hints (for engine classes, whose hints carry no ranges);
    `check(obj)` validates the built object as a whole and raises `FieldError`. A dataclass field
    with a default may be absent on the wire (so a minor version can add one); with explicit `hints`
    every field is required. Unknown keys are ignored (forward compatibility). `game` is the wire
    whose codecs the class's `GameField` fields use.
    """
    if hints is None:
        own = get_type_hints(cls, include_extras=True)
        hints = {f.name: own[f.name] for f in dataclasses.fields(cls)}
        required = {
            f.name
            for f in dataclasses.fields(cls)
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        }
    else:
        # Engine classes described by explicit hints: every field is sent, so every one is required.
        required = set(hints)
    fields = [(name, *codec(tp, game), name in required) for name, tp in hints.items()]
    encode = _struct_encoder(cls, [(name, enc) for name, enc, _, _ in fields])
    if all(name.isidentifier() for name in hints):
        fast = _struct_decoder(cls, [(name, dec, needed) for name, _, dec, needed in fields], check)
        if fast is not None:
            return encode, fast

    def decode(value: Any) -> Any:
        if type(value) is not dict:
            raise FieldError(ErrorCode.WRONG_TYPE, f"expected a map, got {kind_of(value)}")
        kwargs = {}
        for name, _, dec, needed in fields:
            if name in value:
                try:
                    kwargs[name] = dec(value[name])
                except FieldError as exc:
                    exc.path.insert(0, name)
                    raise
            elif needed:
                err = FieldError(ErrorCode.MISSING_FIELD, "required field is missing")
                err.path.append(name)
                raise err
        try:
            obj = cls(**kwargs)
        except (ValueError, TypeError) as exc:
            # Engine constructors (GameOptions) reject inconsistent combinations themselves.
            raise FieldError(ErrorCode.OUT_OF_RANGE, str(exc)) from None
        if check is not None:
            check(obj)
        return obj

    return encode, decode
