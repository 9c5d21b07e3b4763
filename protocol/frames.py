"""Frames: a 4-byte big-endian body length, then exactly one msgpack value.

The limit of a direction is checked as soon as the 4 length bytes are in, before any of the body is
read or allocated. Bodies are decoded with strict options (text must be UTF-8, map keys must be
strings, tight caps on every string, bin, array and map, ext types refused), one `unpackb` per
frame: no decoder state is carried from one frame to the next, and after any error the decoder
refuses all further input, because the byte stream can no longer be trusted.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final

import msgpack

from ._registry import Role
from .errors import ErrorCode, LocalProtocolError, RemoteProtocolError

HEADER_SIZE = 4
CLIENT_FRAME_LIMIT = 16 * 1024
"""Largest body a client may send (bytes)."""
SERVER_FRAME_LIMIT = 1024 * 1024
"""Largest body the server may send (bytes)."""


@dataclass(frozen=True, slots=True)
class Limits:
    """Caps for the frames one side sends: body size and msgpack container/string sizes."""

    max_body: int
    """Largest frame body, in bytes."""
    max_str_len: int
    """Longest str, in bytes of UTF-8."""
    max_bin_len: int
    """Longest bin, in bytes."""
    max_array_len: int
    """Most items in one array."""
    max_map_len: int
    """Most entries in one map."""


CLIENT_LIMITS = Limits(CLIENT_FRAME_LIMIT, 2048, 1024, 256, 64)
"""What a client may send: small requests only (the longest string is a chat line)."""
SERVER_LIMITS = Limits(SERVER_FRAME_LIMIT, 4096, 256 * 1024, 8192, 256)
"""What the server may send: observations, table lists and signed records."""


class _NeedData:
    __slots__ = ()

    def __repr__(self) -> str:
        return "NEED_DATA"


NEED_DATA: Final[Any] = _NeedData()
"""Returned by `FrameDecoder.next_value` until a whole frame is in (a frame may hold nil)."""


def limits_for(sender: Role) -> Limits:
    """The limits of frames sent by `sender`."""
    return CLIENT_LIMITS if sender is Role.CLIENT else SERVER_LIMITS


def _no_ext(code: int, data: bytes) -> Any:
    raise ValueError(f"msgpack ext type {code} is not allowed")


def encode_frame(value: Any, limits: Limits) -> bytes:
    """One frame holding `value` (plain msgpack data); `LocalProtocolError` if over the limit."""
    body: bytes = msgpack.packb(value, use_bin_type=True)
    return frame_of(body, limits)


def frame_of(body: bytes, limits: Limits) -> bytes:
    """The frame of an already packed body; `LocalProtocolError` if over the limit."""
    size = len(body)
    if size > limits.max_body:
        raise LocalProtocolError(
            ErrorCode.FRAME_TOO_LARGE,
            f"a {size}-byte frame body exceeds the {limits.max_body}-byte limit",
        )
    return size.to_bytes(HEADER_SIZE, "big") + body


def _options(limits: Limits) -> dict[str, Any]:
    """msgpack's strict decoding options for bodies within `limits`."""
    return {
        "raw": False,
        "strict_map_key": True,
        "use_list": True,
        "ext_hook": _no_ext,
        "max_str_len": limits.max_str_len,
        "max_bin_len": limits.max_bin_len,
        "max_array_len": limits.max_array_len,
        "max_map_len": limits.max_map_len,
        "max_ext_len": 0,
    }


def _malformed(exc: Exception) -> RemoteProtocolError:
    # msgpack signals bad input with several exception types (ExtraData, FormatError,
    # StackError, ValueError, UnicodeDecodeError, TypeError for unhashable keys, ...); all of
    # them mean the same thing here.
    return RemoteProtocolError(
        ErrorCode.MALFORMED_FRAME, f"invalid msgpack body: {type(exc).__name__}: {exc}"
    )


def decode_body(body: bytes, limits: Limits) -> Any:
    """The single msgpack value of a frame body; `RemoteProtocolError` (fatal) otherwise."""
    try:
        return msgpack.unpackb(body, **_options(limits))
    except Exception as exc:
        raise _malformed(exc) from None


def _unpacker(limits: Limits) -> msgpack.Unpacker:
    """An unpacker for bodies within `limits`: its buffer starts small and grows to the largest
    body seen."""
    return msgpack.Unpacker(
        read_size=256, max_buffer_size=max(limits.max_body, 256), **_options(limits)
    )


class _Shared(threading.local):
    """Each thread's unpackers, by the id of their limits (with the limits, to check it).

    Every body is decoded by one of these, fed the whole body and emptied at once: the options
    are parsed once, not per frame, and one is shared by every connection of the thread (an
    unpacker holds a 40 KiB parsing stack: one per connection would cost the server more than
    the connection itself)."""

    def __init__(self) -> None:
        self.unpackers: dict[int, tuple[Limits, msgpack.Unpacker]] = {}


_shared = _Shared()


class FrameDecoder:
    """Turns a byte stream, fed in chunks of any size, into msgpack values.

    `receive_data(b"")` marks the end of the stream. `next_value()` returns the next value, or
    `NEED_DATA` when more bytes are needed. Every error is a fatal `RemoteProtocolError`, after
    which every call raises it again. Once drained, it holds less than one frame (header and
    body within the limit): a declared length over the limit is refused before its body arrives.
    """

    __slots__ = ("_error", "_need", "buffer", "eof", "limits")

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        """The limits of the peer's frames."""
        self.buffer = bytearray()
        """Bytes received and not yet returned as values (always this one bytearray, so a
        caller may keep it: empty means `next_value` has nothing to give until more comes)."""
        self._need = -1  # the current body's length once its header is read
        self.eof = False
        """The peer closed its side (frames may still be buffered: see `at_eof`)."""
        self._error: RemoteProtocolError | None = None

    @property
    def buffered(self) -> int:
        """Bytes received and not yet returned as values."""
        return len(self.buffer)

    @property
    def at_eof(self) -> bool:
        """The stream has ended and every complete frame has been returned."""
        return self.eof and not self.buffer

    def receive_data(self, data: bytes) -> None:
        """Add received bytes; `b""` means the peer closed its side."""
        if self._error is not None:
            raise self._error
        if not data:
            self.eof = True
            return
        if self.eof:
            raise LocalProtocolError(ErrorCode.TRUNCATED_FRAME, "data received after the end")
        buf = self.buffer
        buf += data
        # Read the header now so an oversized length is refused at once, however the caller
        # paces next_value().
        if self._need < 0 and len(buf) >= HEADER_SIZE:
            self._read_header()

    def _fail(self, error: RemoteProtocolError) -> RemoteProtocolError:
        self._error = error
        self.buffer.clear()
        return error

    def _read_header(self) -> None:
        if self._need < 0 and len(self.buffer) >= HEADER_SIZE:
            need = int.from_bytes(self.buffer[:HEADER_SIZE], "big")
            if need > self.limits.max_body:
                raise self._fail(
                    RemoteProtocolError(
                        ErrorCode.FRAME_TOO_LARGE,
                        f"frame of {need} bytes declared; the limit is {self.limits.max_body}",
                    )
                )
            self._need = need

    def next_value(self) -> Any:
        """The next complete frame's value, or `NEED_DATA` until more data arrives."""
        if self._error is not None:
            raise self._error
        buf = self.buffer
        need = self._need
        if need < 0:
            if not buf:  # between frames, the common case
                return NEED_DATA
            self._read_header()
            need = self._need
        end = HEADER_SIZE + need
        if need < 0 or len(buf) < end:
            if self.eof and buf:
                raise self._fail(
                    RemoteProtocolError(
                        ErrorCode.TRUNCATED_FRAME,
                        f"stream ended inside a frame ({len(buf)} bytes pending)",
                    )
                )
            return NEED_DATA
        body = buf[HEADER_SIZE:end]
        del buf[:end]
        self._need = -1
        value = self._unpack(body, need)
        if len(buf) >= HEADER_SIZE:
            self._read_header()
        return value

    def whole_frame(self, data: bytes) -> Any:
        """The value of `data` when it is exactly one whole frame and nothing is buffered: what
        ``receive_data(data)`` then `next_value` would give, without buffering it. `NEED_DATA`,
        having done nothing, for any other `data` (feed it to `receive_data` then)."""
        if self._error is not None or self.eof or self.buffer:
            return NEED_DATA
        need = len(data) - HEADER_SIZE
        if (
            need < 0
            or need > self.limits.max_body
            or int.from_bytes(data[:HEADER_SIZE], "big") != need
        ):
            return NEED_DATA
        return self._unpack(data[HEADER_SIZE:], need)

    def _unpack(self, body: bytes | bytearray, need: int) -> Any:
        """The one value of a frame's body of `need` bytes, through this thread's shared unpacker
        for these limits; a malformed body fails the stream."""
        limits = self.limits
        unpackers = _shared.unpackers
        kept = unpackers.get(id(limits))
        if kept is None or kept[0] is not limits:
            kept = unpackers[id(limits)] = (limits, _unpacker(limits))
        unpacker = kept[1]
        unpacker.feed(body)
        start = unpacker.tell()
        try:
            value = unpacker.unpack()
            if unpacker.tell() - start != need:
                raise msgpack.ExtraData(value, b"")  # more than one value in the body
        except Exception as exc:
            del unpackers[id(limits)]  # what is left of the body must not reach the next one
            raise self._fail(_malformed(exc)) from None
        return value

    def __iter__(self) -> Iterator[Any]:
        """Every complete value buffered now."""
        while (value := self.next_value()) is not NEED_DATA:
            yield value
