"""Rock-paper-scissors' values on the wire (`protocol.games.Wire`): its part in the protocol,
``WIRE``."""

from __future__ import annotations

from typing import Annotated, Any

from sushigo.protocol import ErrorCode
from sushigo.protocol.games import CodecWire, FieldError, Range, Size, kind_of, struct_codec

from .engine import ROUNDS, THROWS, RoundWon, RpsObservation, RpsOptions, Throw


def _decode_throw(value: Any) -> Throw:
    if type(value) is not str:
        raise FieldError(ErrorCode.WRONG_TYPE, f"expected a throw, got {kind_of(value)}")
    if value not in THROWS:
        raise FieldError(ErrorCode.OUT_OF_RANGE, f"not a throw: {value!r}")
    return Throw(value)


_throw = (str, _decode_throw)
_hints_round = {"round": Annotated[int, Range(1, ROUNDS)]}
WIRE = CodecWire(
    "rps",
    {
        "options": struct_codec(RpsOptions, {"players": Annotated[int, Range(2, 2)]}),
        "action": _throw,
        "observation": struct_codec(
            RpsObservation,
            {
                "seat": Annotated[int, Range(0, 1)] | None,
                "round": Annotated[int, Range(1, ROUNDS + 1)],
                "scores": Annotated[tuple[Annotated[int, Range(0, ROUNDS)], ...], Size(2, 2)],
                "last": Annotated[tuple[str, ...], Size(0, 2)],
                "is_over": bool,
            },
        ),
        "event": struct_codec(
            RoundWon,
            {
                **_hints_round,
                "throws": Annotated[tuple[str, ...], Size(2, 2)],
                "winner": Annotated[int, Range(0, 1)] | None,
            },
        ),
    },
)
