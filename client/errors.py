"""The client library's errors: `client.link.Link` raises them, and `client.connection` passes
them on with `Client`."""

from __future__ import annotations

from sushigo.protocol import Error, ErrorCode

__all__ = ["ConnectError", "ConnectionLost", "NoAnswer", "ResumeUnanswered", "ServerError"]


class ConnectError(Exception):
    """The server could not be reached or refused us; the message says why, for a person."""


class NoAnswer(ConnectError):
    """The server took the connection but did not answer a request in time (it is paused,
    frozen or overloaded): asked again later, it may."""


class ResumeUnanswered(NoAnswer):
    """A node welcomed us but did not answer RESUME in time: it is up, and answers once the new
    token is stored (its database slow or paused). The connection is closed at once, so that
    the node takes back the token we hold (docs/PROTOCOL.md), and the node is asked
    again rather than the next one."""


class ServerError(Exception):
    """The server answered a request with ERROR."""

    def __init__(self, error: Error) -> None:
        code = error.error_code
        super().__init__(f"{code.name if code else error.code}: {error.message}")
        self.error = error
        self.code = code

    @classmethod
    def of(cls, code: ErrorCode, message: str) -> ServerError:
        """The ERROR the server would answer, made here: what the library refuses itself, with
        nothing sent."""
        return cls(Error(code=code, message=message))


class ConnectionLost(Exception):
    """The connection dropped (the session may be resumed)."""
