"""Parsing ``host:port`` as people type it, IPv6 in brackets included (``[::1]:7777``)."""

from __future__ import annotations


class AddressError(ValueError):
    """Not a usable host:port; the message says what is wrong."""


def parse_address(text: str) -> tuple[str, int]:
    """``"localhost:7777"`` -> ("localhost", 7777); ``"[::1]:7777"`` -> ("::1", 7777)."""
    text = text.strip()
    if text.startswith("["):
        host, sep, rest = text[1:].partition("]")
        if not sep or not rest.startswith(":"):
            raise AddressError(f"{text!r}: an IPv6 address is written [address]:port")
        port_text = rest[1:]
    else:
        host, sep, port_text = text.rpartition(":")
        if not sep:
            raise AddressError(f"{text!r}: expected host:port, e.g. localhost:7777")
        if ":" in host:
            raise AddressError(f"{text!r}: write an IPv6 address in brackets, e.g. [::1]:7777")
    if not host:
        raise AddressError(f"{text!r}: the host is missing")
    if not port_text.isdigit() or not 1 <= int(port_text) <= 65535:
        raise AddressError(f"{text!r}: the port must be a number from 1 to 65535")
    return host, int(port_text)
