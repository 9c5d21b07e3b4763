"""What a peer that is no sushigo server answered, in words: the first bytes it sent before any
WELCOME, for the one-line error of a command pointed at the wrong port.

A sushigo server's first frame starts with a 4-byte length no larger than its frame limit
(docs/PROTOCOL.md section 1); a web server's ``HTTP/1.1 400`` read as one is 1.2 GB, an SSH
banner's ``SSH-`` 1.4 GB. Rather than such a number, the person is told what answered.
"""

from __future__ import annotations

__all__ = ["FIRST_BYTES", "what_answered"]

FIRST_BYTES = 64
"""How much of a peer's first bytes is kept to tell what it is."""

_TLS_RECORDS = frozenset({0x14, 0x15, 0x16, 0x17})
"""The content types a TLS record begins with (change cipher spec, alert, handshake, data)."""


def what_answered(first: bytes) -> str:
    """What sent `first` (a peer's first bytes), as "it answered like ...", for the error that
    names the address: "HOST:PORT is not a sushigo server (it answered like ...)"."""
    if first.startswith((b"HTTP/", b"<!DOCTYPE", b"<html", b"<HTML")):
        return f"it answered like a web server: {_line(first)}"
    if first.startswith(b"SSH-"):
        return f"it answered like an SSH server: {_line(first)}"
    if len(first) >= 3 and first[0] in _TLS_RECORDS and first[1] == 0x03:
        return "it answered with TLS: is it a sushigo server with --tls? then give --tls too"
    line = _line(first)
    if line:
        return f"it answered with text: {line}"
    shown = first[:8].hex(" ")
    return (
        f"it answered with bytes that are no sushigo frame: {shown}{' …' if len(first) > 8 else ''}"
    )


def _line(data: bytes) -> str:
    """The first line of `data` as text, quoted and cut short ("" when it is not text)."""
    head = data.split(b"\n", 1)[0].rstrip(b"\r")
    try:
        text = head.decode("ascii")
    except UnicodeDecodeError:
        return ""
    if not text or not text.isprintable():
        return ""
    return repr(text[:48] + ("…" if len(text) > 48 else ""))
