"""The common case of a browser's WebSocket frames (server.net.web_frames), against wsproto: for any
run of client frames of every kind, cut anywhere, the messages read at its start are wsproto's,
and what is left begins at a frame boundary, for wsproto to read."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from wsproto.connection import Connection, ConnectionType
from wsproto.events import BytesMessage, Message, Ping, TextMessage

from sushigo.server.net.web_frames import whole_messages

_frame = st.one_of(
    st.binary(max_size=300).map(lambda b: ("bytes", b)),
    st.binary(min_size=126, max_size=70_000).map(lambda b: ("bytes", b)),
    st.text(max_size=40).map(lambda t: ("text", t)),
    st.binary(max_size=20).map(lambda b: ("ping", b)),
    st.binary(max_size=300).map(lambda b: ("fragment", b)),
)


def _encode(frames: list[tuple[str, object]]) -> tuple[bytes, list[int]]:
    """A client's frames, and where each ends."""
    client = Connection(ConnectionType.CLIENT)
    out, ends = b"", []
    for kind, value in frames:
        if kind == "bytes":
            out += client.send(BytesMessage(data=value))  # type: ignore[arg-type]
        elif kind == "text":
            out += client.send(TextMessage(data=value))  # type: ignore[arg-type]
        elif kind == "ping":
            out += client.send(Ping(payload=value))  # type: ignore[arg-type]
        else:
            out += client.send(BytesMessage(data=value, message_finished=False))  # type: ignore[arg-type]
            ends.append(len(out))
            out += client.send(BytesMessage(data=b"end"))
        ends.append(len(out))
    return out, ends


def _wsproto(data: bytes) -> list[bytes]:
    """Every whole binary message wsproto reads in `data`."""
    server = Connection(ConnectionType.SERVER)
    server.receive_data(data)
    got, parts = [], b""
    for event in server.events():
        if isinstance(event, Message) and isinstance(event.data, bytes | bytearray):
            parts += event.data
            if event.message_finished:
                got.append(parts)
                parts = b""
    return got


@settings(max_examples=300, deadline=None)
@given(st.lists(_frame, max_size=8), st.data())
def test_the_fast_reader_agrees_with_wsproto(
    frames: list[tuple[str, object]], data: st.DataObject
) -> None:
    wire, ends = _encode(frames)
    cut = data.draw(st.integers(0, len(wire)))
    messages, used = whole_messages(wire[:cut])
    assert used == 0 or used in ends, "it stops at a frame's end"
    # What it read is what wsproto reads of the same bytes; wsproto reads the rest from there.
    assert messages == _wsproto(wire[:used])
    assert messages + _wsproto(wire[used:]) == _wsproto(wire)
    # It reads every frame of the common kind before the first of another kind.
    for (kind, value), end in zip(frames, ends, strict=False):
        if end > cut or kind != "bytes" or len(value) > 65535:  # type: ignore[arg-type]
            break
        assert used >= end
