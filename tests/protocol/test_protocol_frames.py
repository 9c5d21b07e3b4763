"""Frames: chunking, limits checked before the body, strict msgpack, only protocol errors."""

from __future__ import annotations

import itertools
import threading
from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sushigo.protocol import (
    CLIENT_LIMITS,
    SERVER_LIMITS,
    ErrorCode,
    FrameDecoder,
    LocalProtocolError,
    ProtocolError,
    RemoteProtocolError,
    encode_frame,
)
from sushigo.protocol.frames import HEADER_SIZE, NEED_DATA, Limits

SMALL = Limits(64, 32, 32, 8, 8)
STRICT = Limits(4096, 32, 32, 8, 8)


def frame(body: bytes) -> bytes:
    return len(body).to_bytes(4, "big") + body


def drain(decoder: FrameDecoder) -> list[object]:
    return list(decoder)


def test_values_arrive_across_any_split() -> None:
    values = [{"type": "a", "n": i, "b": bytes([i])} for i in range(5)] + [None, [1, "x"]]
    stream = b"".join(encode_frame(v, CLIENT_LIMITS) for v in values)
    for step in (1, 2, 3, 7, len(stream)):
        decoder = FrameDecoder(CLIENT_LIMITS)
        got = []
        for i in range(0, len(stream), step):
            decoder.receive_data(stream[i : i + step])
            got.extend(drain(decoder))
        assert got == values
        assert decoder.buffered == 0


def test_huge_declared_length_is_refused_from_the_header_alone() -> None:
    decoder = FrameDecoder(CLIENT_LIMITS)
    with pytest.raises(RemoteProtocolError) as info:
        decoder.receive_data((2**32 - 1).to_bytes(4, "big"))
    assert info.value.code is ErrorCode.FRAME_TOO_LARGE
    assert info.value.fatal
    assert decoder.buffered == 0
    with pytest.raises(RemoteProtocolError):  # and it stays failed
        decoder.receive_data(b"\x80")


def test_limit_is_exact_per_direction() -> None:
    ok = (CLIENT_LIMITS.max_body).to_bytes(4, "big")
    FrameDecoder(CLIENT_LIMITS).receive_data(ok)
    with pytest.raises(RemoteProtocolError):
        FrameDecoder(CLIENT_LIMITS).receive_data((CLIENT_LIMITS.max_body + 1).to_bytes(4, "big"))
    FrameDecoder(SERVER_LIMITS).receive_data((SERVER_LIMITS.max_body).to_bytes(4, "big"))


def test_sender_refuses_oversized_frames() -> None:
    with pytest.raises(LocalProtocolError) as info:
        encode_frame({"text": "x" * CLIENT_LIMITS.max_body}, CLIENT_LIMITS)
    assert info.value.code is ErrorCode.FRAME_TOO_LARGE


@pytest.mark.parametrize(
    "body",
    [
        b"",  # no value at all
        b"\xc1",  # never used
        msgpack.packb(1) + msgpack.packb(2),  # trailing data
        msgpack.packb(msgpack.ExtType(5, b"x")),  # ext type
        b"\xd6\xff\x00\x00\x00\x00",  # timestamp ext
        msgpack.packb({1: 2}),  # non-string key
        b"\xa2\xff\xfe",  # invalid UTF-8
        msgpack.packb("x" * 40),  # over max_str_len
        msgpack.packb(b"x" * 40, use_bin_type=True),  # over max_bin_len
        msgpack.packb(list(range(9))),  # over max_array_len
        msgpack.packb({str(i): i for i in range(9)}),  # over max_map_len
        b"\x91" * 2000 + b"\xc0",  # nested deeper than msgpack's stack
        b"\xdc\xff\xff",  # array header claiming 65535 items
    ],
)
def test_strict_msgpack(body: bytes) -> None:
    decoder = FrameDecoder(STRICT)
    decoder.receive_data(frame(body))
    with pytest.raises(RemoteProtocolError) as info:
        decoder.next_value()
    assert info.value.code is ErrorCode.MALFORMED_FRAME
    with pytest.raises(RemoteProtocolError):
        decoder.next_value()


def test_end_of_stream() -> None:
    decoder = FrameDecoder(CLIENT_LIMITS)
    decoder.receive_data(encode_frame({"a": 1}, CLIENT_LIMITS))
    decoder.receive_data(b"")
    assert decoder.next_value() == {"a": 1}
    assert decoder.next_value() is NEED_DATA
    assert decoder.at_eof

    decoder = FrameDecoder(CLIENT_LIMITS)
    decoder.receive_data(encode_frame({"a": 1}, CLIENT_LIMITS)[:-1])
    decoder.receive_data(b"")
    with pytest.raises(RemoteProtocolError) as info:
        decoder.next_value()
    assert info.value.code is ErrorCode.TRUNCATED_FRAME


@settings(max_examples=150, deadline=None)
@given(data=st.binary(max_size=400), cuts=st.lists(st.integers(0, 400), max_size=8))
def test_arbitrary_bytes_raise_only_protocol_errors(data: bytes, cuts: list[int]) -> None:
    bounds = sorted({0, len(data), *(c for c in cuts if c <= len(data))})
    decoder = FrameDecoder(SMALL)
    values = 0
    try:
        for a, b in itertools.pairwise(bounds):
            decoder.receive_data(data[a:b])
            for _ in decoder:
                values += 1
                assert values <= len(data) // HEADER_SIZE  # never loops without consuming
            assert decoder.buffered < HEADER_SIZE + SMALL.max_body
        decoder.receive_data(b"")
        drain(decoder)
    except ProtocolError as exc:
        assert exc.fatal
        assert isinstance(exc.code, ErrorCode)


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(
        st.recursive(
            st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.text(max_size=8),
            lambda inner: (
                st.lists(inner, max_size=3)
                | st.dictionaries(st.text(max_size=3), inner, max_size=3)
            ),
            max_leaves=6,
        ),
        max_size=5,
    ),
    step=st.integers(1, 50),
)
def test_valid_streams_decode_in_any_chunking(values: list[object], step: int) -> None:
    stream = b"".join(encode_frame(v, SERVER_LIMITS) for v in values)
    decoder = FrameDecoder(SERVER_LIMITS)
    got: list[object] = []
    for i in range(0, len(stream), step):
        decoder.receive_data(stream[i : i + step])
        got.extend(drain(decoder))
    assert got == values


@pytest.mark.parametrize(
    "bad",
    [
        b"\x92\x01",  # an array of two holding one: the unpacker is left waiting for more
        msgpack.packb(1) + msgpack.packb(2),  # a second value left behind
        b"\xc1",
    ],
)
def test_a_bad_body_leaves_nothing_behind_for_the_next_connection(bad: bytes) -> None:
    """Connections of a thread share one unpacker: after a bad body, the next connection's
    frames decode as themselves."""
    hostile, honest = FrameDecoder(CLIENT_LIMITS), FrameDecoder(CLIENT_LIMITS)
    hostile.receive_data(frame(bad))
    honest.receive_data(encode_frame({"a": 1}, CLIENT_LIMITS) + encode_frame([2], CLIENT_LIMITS))
    with pytest.raises(RemoteProtocolError):
        hostile.next_value()
    assert honest.next_value() == {"a": 1}
    assert honest.next_value() == [2]
    assert honest.next_value() is NEED_DATA


def test_decoders_in_several_threads_do_not_mix_their_frames() -> None:
    def run(tag: int, out: list[Any]) -> None:
        decoder = FrameDecoder(CLIENT_LIMITS)
        for i in range(3000):
            decoder.receive_data(encode_frame({"t": tag, "i": i}, CLIENT_LIMITS))
            out.append(decoder.next_value())

    results: list[list[Any]] = [[], [], []]
    threads = [threading.Thread(target=run, args=(n, results[n])) for n in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    for n, got in enumerate(results):
        assert got == [{"t": n, "i": i} for i in range(3000)]
