"""The common case of a browser's WebSocket frames, read without wsproto (`server.net.web`).

A browser sends each message as one frame: final, binary, masked, a few hundred bytes, which
mostly arrives whole. wsproto reads any frame, but spends some twenty microseconds on each in
Python; `whole_messages` reads just that common case, a few times faster, and stops at the first
frame that is anything else (a fragment, a control frame, a text message, a frame cut short, a
length past 64 KiB), whose bytes the adapter hands to wsproto, as it does every later byte of
that connection (wsproto keeps the state of a frame it has begun; one connection's reader never
goes back). Sans-IO: bytes in, messages out.
"""

from __future__ import annotations

__all__ = ["whole_messages"]

_BINARY_FINAL = 0x82
"""FIN set, no RSV bit, opcode 2 (binary)."""
_MASKED = 0x80


def whole_messages(data: bytes) -> tuple[list[bytes], int]:
    """The whole binary messages, each one masked final frame, at the start of `data`, unmasked;
    and how many bytes of `data` they took (the rest begins with a frame of another kind, or
    is a frame cut short)."""
    messages: list[bytes] = []
    at, end = 0, len(data)
    while end - at >= 6:
        if data[at] != _BINARY_FINAL:
            break
        second = data[at + 1]
        if not second & _MASKED:
            break
        size = second & 0x7F
        key_at = at + 2
        if size == 126:
            if end - at < 8:
                break
            size = int.from_bytes(data[at + 2 : at + 4], "big")
            key_at = at + 4
        elif size == 127:
            break  # past 64 KiB: far past a client's frame limit, wsproto reads it
        body_at = key_at + 4
        stop = body_at + size
        if stop > end:
            break
        messages.append(_unmask(data[body_at:stop], data[key_at:body_at]))
        at = stop
    return messages, at


def _unmask(payload: bytes, key: bytes) -> bytes:
    """RFC 6455 section 5.3: each byte XORed with the key's byte at its index mod 4 (one XOR of
    two big integers, which is quicker in Python than any loop over the bytes)."""
    size = len(payload)
    if not size:
        return b""
    mask = (key * (size // 4 + 1))[:size]
    value = int.from_bytes(payload, "big") ^ int.from_bytes(mask, "big")
    return value.to_bytes(size, "big")
