"""The protocol's schema as plain data, for clients written in other languages (the web client's
core reads it as ``client/web/core/schema.json``, which ``scripts/web_schema`` writes).

Everything a client needs to check what it receives and what it sends, taken from the code that
defines it, so the two cannot drift apart (a test compares the file with `describe()`): every
message of both directions with each field's type, range and default (the message dataclasses'
type hints and `Range`/`Size` annotations, as `protocol._codec` compiles them); the structures
they hold; the transition table of the phases (`protocol._state`); the error codes and which
are fatal; the frame limits; the version and capabilities. A game's own values (its options,
actions, observations and events) are marked with the part they are (``{"t": "game", "part":
"observation"}``): each game's wire describes them, and a client implements the games it plays.

A type is one of::

    {"t": "int", "lo": a, "hi": b}          {"t": "bool"}
    {"t": "str", "lo": a, "hi": b}          (length in characters: code points)
    {"t": "bin", "lo": a, "hi": b}          (length in bytes)
    {"t": "array", "of": T, "lo": a, "hi": b}
    {"t": "opt", "of": T}                   (T or nil)
    {"t": "enum", "values": [str, ...]}
    {"t": "struct", "name": N}              (N in "structs")
    {"t": "game", "part": P}                (P: options, action, observation or event)

and a field is ``{"name", "type", "required"}`` plus ``"default"`` when it has one (a byte
string's default as ``{"bin": hex}``).
"""

from __future__ import annotations

import dataclasses
import json
import types
from enum import Enum
from typing import Any, Union, get_args, get_origin, get_type_hints

from ._codec import DEFAULT_ARRAY, DEFAULT_STR, GameField, Range, Size, meta_of, unwrap
from ._registry import Role, message_types
from ._state import LOGGED_IN, TRANSITIONS, Phase
from .errors import FATAL_CODES, ErrorCode
from .frames import CLIENT_LIMITS, SERVER_LIMITS, Limits
from .versions import CAPABILITIES, CURRENT_VERSION, PROTOCOL_NAME

__all__ = ["SCHEMA_MODULE", "describe", "js_module"]

SCHEMA_MODULE = "client/web/core/schema.js"
"""Where the web client's core keeps the schema (from the project's root)."""


def describe() -> dict[str, Any]:
    """The whole schema (see the module docstring), as JSON-ready plain data."""
    structs: dict[str, list[dict[str, Any]]] = {}
    messages: dict[str, dict[str, list[dict[str, Any]]]] = {"client": {}, "server": {}}
    for role in (Role.CLIENT, Role.SERVER):
        for cls in message_types(role):
            messages[role.value][cls.TYPE] = _fields(cls, structs)
    return {
        "protocol": PROTOCOL_NAME,
        "version": {"major": CURRENT_VERSION.major, "minor": CURRENT_VERSION.minor},
        "capabilities": list(CAPABILITIES),
        "limits": {"client": _limits(CLIENT_LIMITS), "server": _limits(SERVER_LIMITS)},
        "errors": {code.name: int(code) for code in ErrorCode},
        "fatal": sorted(int(code) for code in FATAL_CODES),
        "phases": [phase.value for phase in Phase],
        "logged_in": sorted(phase.value for phase in LOGGED_IN),
        "transitions": sorted(
            [role.value, phase.value, name, str(target)]
            for (role, phase, name), target in TRANSITIONS.items()
        ),
        "messages": messages,
        "structs": dict(sorted(structs.items())),
    }


def js_module() -> str:
    """The web client's ``schema.js``: `describe()` as an ES module's default export (JSON is a
    JavaScript expression; a module, unlike a JSON file, loads in every browser and in Node
    without a fetch)."""
    data = json.dumps(describe(), separators=(",", ":"), ensure_ascii=True)
    return (
        "// The protocol's schema: written by scripts/web_schema from the Python code that\n"
        "// defines it (protocol/schema.py); do not edit.\n"
        f"export default {data};\n"
    )


def _limits(limits: Limits) -> dict[str, int]:
    return dataclasses.asdict(limits)


def _fields(cls: type[Any], structs: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """A dataclass's fields as the wire has them (`protocol._codec.struct_codec`)."""
    hints = get_type_hints(cls, include_extras=True)
    out = []
    for f in dataclasses.fields(cls):
        entry: dict[str, Any] = {"name": f.name, "type": _type(hints[f.name], structs)}
        if f.default is not dataclasses.MISSING:
            entry["required"] = False
            entry["default"] = _plain(f.default)
        elif f.default_factory is not dataclasses.MISSING:
            entry["required"] = False
            entry["default"] = _plain(f.default_factory())
        else:
            entry["required"] = True
        out.append(entry)
    return out


def _plain(value: Any) -> Any:
    """A default value as JSON data."""
    if isinstance(value, bytes):
        return {"bin": value.hex()}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, bool | int | str):
        return value
    raise TypeError(f"no plain form for the default {value!r}")  # pragma: no cover


def _type(tp: Any, structs: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """One type hint as its descriptor (the cases of `protocol._codec._compile`)."""
    tp, meta = unwrap(tp)
    part = meta_of(meta, GameField)
    if part is not None:
        return {"t": "game", "part": part.part}
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        (inner,) = [a for a in get_args(tp) if a is not type(None)]
        return {"t": "opt", "of": _type(inner, structs)}
    if origin is tuple:
        item, _ = get_args(tp)
        size = meta_of(meta, Size) or DEFAULT_ARRAY
        return {"t": "array", "of": _type(item, structs), "lo": size.lo, "hi": size.hi}
    if tp is bool:
        return {"t": "bool"}
    if tp is int:
        rng = meta_of(meta, Range)
        return {"t": "int", "lo": rng.lo, "hi": rng.hi}
    if tp is str or tp is bytes:
        size = meta_of(meta, Size) or DEFAULT_STR
        return {"t": "str" if tp is str else "bin", "lo": size.lo, "hi": size.hi}
    if isinstance(tp, type) and issubclass(tp, Enum):
        return {"t": "enum", "values": [m.value for m in tp]}
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        name = tp.__name__
        if name not in structs:
            structs[name] = []  # (a placeholder: a struct may hold itself)
            structs[name] = _fields(tp, structs)
        return {"t": "struct", "name": name}
    raise TypeError(f"no descriptor for {tp!r}")  # pragma: no cover
