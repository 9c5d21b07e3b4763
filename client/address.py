"""Parsing ``host:port`` as people type it, IPv6 in brackets included (``[::1]:7777``)."""

from __future__ import annotations

import re


class AddressError(ValueError):
    """Not a usable host:port; the message says what is wrong."""


_V6 = re.compile(r"\[([0-9A-Fa-f:.%\w]+)\]:(\d+)")
_NAME = re.compile(r"([^\s:\[\]]+):(\d+)")


def parse_address(text: str) -> tuple[str, int]:
    """``"localhost:7777"`` -> ("localhost", 7777); ``"[::1]:7777"`` -> ("::1", 7777)."""
    match = _V6.fullmatch(text) or _NAME.fullmatch(text)
    if match is None:
        if text.count(":") > 1 and not text.startswith("["):
            raise AddressError(f"bad address {text!r}: write IPv6 addresses as [::1]:7777")
        raise AddressError(f"bad address {text!r}: expected HOST:PORT, e.g. localhost:7777")
    host, port = match.group(1), int(match.group(2))
    if not 1 <= port <= 65535:
        raise AddressError(f"bad address {text!r}: the port must be 1-65535")
    return host, port
