"""Protocol name, versions and the negotiation rule.

A version is (major, minor). Same major means compatible: a minor version only adds optional fields
(which older peers ignore), message types and capabilities an older peer is never sent unless it
announced them. A new major may change anything. The server chooses the client's major with the
lower of the two minor versions, or refuses with UNSUPPORTED_VERSION listing what it supports.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Annotated

from ._codec import Range

PROTOCOL_NAME = "sushigo"
"""The ``protocol`` of HELLO."""

_Part = Annotated[int, Range(0, 65535)]


@dataclass(frozen=True, slots=True, order=True)
class Version:
    """A protocol version. On the wire: ``{"major": int, "minor": int}``, each 0-65535."""

    major: _Part
    """Incompatible changes bump it."""
    minor: _Part
    """Compatible additions bump it."""

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"


CURRENT_VERSION = Version(2, 5)
"""The version this code speaks best."""

# The first version of each addition a peer checks before using it (docs/PROTOCOL.md section 7):
# an older peer is answered, or asked, as before it.
RECORDS_VERSION = Version(2, 2)
"""MY_GAMES and GET_RECORD."""
ADMIN_VERSION = Version(2, 3)
"""The admin requests."""
ANNOUNCE_VERSION = Version(2, 3)
"""ANNOUNCEMENT; an older client gets a CHAT_MESSAGE instead."""
REDIRECT_VERSION = Version(2, 4)
"""REDIRECT: an older client is answered as by a lone server."""
RESTART_VERSION = Version(2, 4)
"""RESTARTING (the server's `shutdown`)."""
PLACES_VERSION = Version(2, 5)
"""GET_LEADERBOARD naming the player whose place it asks for."""
SUPPORTED_VERSIONS: tuple[Version, ...] = (CURRENT_VERSION,)
"""Every (major, highest minor) this code can speak; all lower minors of a major are implied."""

CAPABILITIES: tuple[str, ...] = (
    "chat",
    "spectate",
    "resume",
    "bots",
    "quick_match",
    "placement",
    "tournament_redirect",
    "quick_move",
)
"""Optional features this code implements; WELCOME returns those both sides have. ``placement``
(a cluster): the client follows a REDIRECT that answers CREATE_TABLE or QUICK_MATCH (the new
table opens on another node) by asking that node again; ``tournament_redirect`` (a cluster):
likewise for a REDIRECT that answers REGISTER_TOURNAMENT, WATCH_TOURNAMENT or START_TOURNAMENT
(another node runs the tournament); ``quick_move`` (a cluster): the client, waiting at a
quick-match table, follows an unasked REDIRECT to another node's quick match (which seats it),
and asks for a quick match again where it is when it cannot."""


def choose_version(
    offered: Version, supported: Iterable[Version] = SUPPORTED_VERSIONS
) -> Version | None:
    """The version to speak with a client offering `offered`, or None if no major matches."""
    best = max((v for v in supported if v.major == offered.major), default=None)
    if best is None:
        return None
    return Version(offered.major, min(offered.minor, best.minor))


def common_capabilities(
    offered: Iterable[str], ours: Iterable[str] = CAPABILITIES
) -> tuple[str, ...]:
    """The capabilities both sides announced, in our order."""
    theirs = set(offered)
    return tuple(c for c in ours if c in theirs)
