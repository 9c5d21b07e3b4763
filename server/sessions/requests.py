"""What answering a session's request may ask of the server beside the request itself: a database
read off the event loop, and a costly request's charge on its connection's rate limit. The lobby,
the history and the admins' requests each ask it of the hub through these Protocols."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from .session import Conn, Session


class Reader(Protocol):
    """Reads the database for a request without the event loop waiting (`server.hub.core.Hub.read`)."""

    def read(
        self,
        job: Callable[[], Any],
        then: Callable[[Any, float], None],
        *,
        session: Session,
        ref: int,
        what: str,
    ) -> None:
        """Run the database read `job` off the event loop, then ``then(result, now)`` on it with
        its value (or the session is told `what` cannot be read now)."""


class Charger(Protocol):
    """Charges a costly request on its connection's rate limit (`server.hub.core.Hub.charge`)."""

    def charge(self, conn: Conn, tokens: float, now: float, ref: int | None) -> bool:
        """Spend `tokens` more of the connection's rate limit; False (RATE_LIMITED said, a
        strike counted) when it has not that many."""
