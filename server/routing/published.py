"""What a node publishes for the others in the database (its tables, its tournaments), and reads
back of theirs: a protocol message, packed. A row another node wrote that this one cannot read
(a node of another version, a damaged row) is logged and left out, never an error for the person
who asked."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import TypeVar

import msgpack

from sushigo.protocol._codec import FieldError, codec

__all__ = ["pack", "unpack"]

log = logging.getLogger("sushigo.server")

T = TypeVar("T")


def pack(info: object) -> bytes:
    """`info` (a TABLE_INFO, a TOURNAMENT_INFO) as it is published."""
    packed: bytes = msgpack.packb(codec(type(info))[0](info))
    return packed


def unpack(rows: Iterable[bytes], kind: type[T], what: str) -> list[T]:
    """The `kind` values other nodes published, in order; a row that cannot be read is logged
    (`what`: what it holds, "a table another node listed") and left out."""
    decode = codec(kind)[1]
    found: list[T] = []
    for raw in rows:
        try:
            found.append(decode(msgpack.unpackb(raw)))
        except (FieldError, ValueError, TypeError, msgpack.UnpackException):
            log.warning("%s cannot be read", what)
    return found
