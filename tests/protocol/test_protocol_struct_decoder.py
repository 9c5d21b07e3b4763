"""The compiled struct decoder (`protocol._codec.struct_codec`) builds exactly what the class's
constructor would: defaults and factories for absent fields, a hand-written ``__init__`` or
``__post_init__`` still run, and errors name the same field with the same code."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any

import pytest

from sushigo.protocol import ErrorCode
from sushigo.protocol._codec import FieldError, Range, Size, struct_codec

Small = Annotated[int, Range(0, 9)]


@dataclass(frozen=True, slots=True, kw_only=True)
class Plain:
    a: Small
    b: Annotated[str, Size(1, 4)] = "x"
    c: tuple[Small, ...] = field(default_factory=tuple)
    d: Small | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Checked:
    a: Small
    b: Small = 0

    def __post_init__(self) -> None:
        if self.b > self.a:
            raise ValueError("b may not exceed a")


@dataclass(frozen=True, kw_only=True, init=False)
class HandWritten:
    a: int

    def __init__(self, *, a: int) -> None:
        object.__setattr__(self, "a", a * 2)


def decode(cls: type[Any], value: Any, hints: dict[str, Any] | None = None) -> Any:
    return struct_codec(cls, hints)[1](value)


def test_absent_fields_take_their_defaults() -> None:
    assert decode(Plain, {"a": 3}) == Plain(a=3)
    assert decode(Plain, {"a": 3, "b": "yz", "c": [1, 2], "d": 4, "zz": 1}) == Plain(
        a=3, b="yz", c=(1, 2), d=4
    )
    assert decode(Plain, {"a": 3, "d": None}).d is None


@pytest.mark.parametrize(
    ("value", "code", "where"),
    [
        ({}, ErrorCode.MISSING_FIELD, "a"),
        ({"a": "3"}, ErrorCode.WRONG_TYPE, "a"),
        ({"a": 10}, ErrorCode.OUT_OF_RANGE, "a"),
        ({"a": 1, "b": ""}, ErrorCode.OUT_OF_RANGE, "b"),
        ({"a": 1, "c": [1, "x"]}, ErrorCode.WRONG_TYPE, "c[1]"),
        ({"b": "zz", "a": "bad"}, ErrorCode.WRONG_TYPE, "a"),  # fields are checked in order
        ([], ErrorCode.WRONG_TYPE, "message"),
    ],
)
def test_errors_name_the_field(value: Any, code: ErrorCode, where: str) -> None:
    with pytest.raises(FieldError) as caught:
        decode(Plain, value)
    assert (caught.value.code, caught.value.where()) == (code, where)


def test_post_init_and_hand_written_init_still_run() -> None:
    assert decode(Checked, {"a": 5, "b": 2}) == Checked(a=5, b=2)
    with pytest.raises(FieldError) as caught:
        decode(Checked, {"a": 1, "b": 2})
    assert caught.value.code is ErrorCode.OUT_OF_RANGE
    assert decode(HandWritten, {"a": 4}, {"a": Small}).a == 8
