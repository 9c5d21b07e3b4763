"""Handshake, identity, heartbeat and error messages."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from ._codec import Range, Size
from ._registry import (
    U32,
    Address,
    Addresses,
    Bytes32,
    ClientMessage,
    LoginName,
    Name,
    PlayerId,
    Reply,
    Role,
    ServerMessage,
    TableId,
    Text,
    Token,
    message,
)
from .errors import ErrorCode
from .versions import Version

Capability = Annotated[str, Size(1, 32)]
Capabilities = Annotated[tuple[Capability, ...], Size(0, 32)]
Bytes64 = Annotated[bytes, Size(64, 64)]
Ticket = Annotated[bytes, Size(1, 512)]


# -- handshake ---------------------------------------------------------------------------------


@message("hello")
class Hello(ClientMessage):
    """The client's first message: who it speaks and what it can do."""

    protocol: Annotated[str, Size(1, 32)]
    """Always ``"sushigo"``; anything else is refused with WRONG_PROTOCOL."""
    version: Version
    """The highest version the client speaks."""
    capabilities: Capabilities = ()
    """Optional features the client implements (``chat``, ``spectate``, ``resume``, ...)."""
    software: Annotated[str, Size(0, 64)] = ""
    """Free text naming the client program, for logs."""


@message("welcome")
class Welcome(Reply):
    """The server accepts the HELLO: the chosen version and what identity login needs."""

    version: Version
    """The version both sides now speak (the client's major)."""
    capabilities: Capabilities = ()
    """The capabilities both sides have."""
    server_name: Annotated[str, Size(0, 64)] = ""
    """Free text naming the server."""
    server_key: Bytes32
    """The server's Ed25519 public key (raw 32 bytes): it signs game records, and LOGIN_KEY's
    signature binds it."""
    challenge: Bytes32
    """32 random bytes, fresh for this connection, for LOGIN_KEY to sign."""
    heartbeat_ms: Annotated[int, Range(1000, 600_000)] = 15_000
    """How often the server pings an idle connection; the dead-peer timeout is 3 of these."""


# -- identity ----------------------------------------------------------------------------------


@message("login_guest")
class LoginGuest(ClientMessage):
    """Play as a guest under a display name, with no lasting identity."""

    name: LoginName
    """Display name, 1-24 characters (else INVALID_NAME)."""


@message("login_key")
class LoginKey(ClientMessage):
    """Log in as the owner of an Ed25519 key, by signing the WELCOME challenge.

    The signed bytes bind the server's key and the challenge (see `protocol.identity`), so a
    signature made for one server or connection is useless on another.
    """

    name: LoginName
    """Display name, 1-24 characters (else INVALID_NAME)."""
    public_key: Bytes32
    """The player's Ed25519 public key (raw 32 bytes): their lasting identity."""
    signature: Bytes64
    """Ed25519 signature of `protocol.identity.auth_payload(server_key, challenge, public_key)`."""


@message("logged_in")
class LoggedIn(Reply):
    """Login (or RESUME of a session in the lobby) succeeded."""

    player_id: PlayerId
    """The player's stable id (for a key: derived from it; for a guest: this session's)."""
    name: Name
    """The display name in use."""
    guest: bool
    """True for a guest login."""
    resume_token: Token
    """Secret for RESUME after a lost connection. Never shown to anyone else."""
    nodes: Addresses = ()
    """A cluster's live nodes, this one first (2.4): where to go on when this one is gone. Empty
    from a lone server."""


# -- heartbeat ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class _Heartbeat(ClientMessage):
    """Base of the client's PING and PONG: a nonce that the PONG answering a PING echoes."""

    nonce: U32 = 0
    """Any number the pinging side chose (a PONG: its PING's)."""


@message("ping")
class Ping(_Heartbeat):
    """Are you there? The server answers PONG with the same nonce."""


@message("pong")
class Pong(_Heartbeat):
    """The client's answer to a server PING."""


@message("ping")
class ServerPing(ServerMessage):
    """Are you there? The client answers PONG with the same nonce (wire type ``ping``)."""

    nonce: U32 = 0
    """Echoed in the PONG."""


@message("pong")
class ServerPong(Reply):
    """The server's answer to a client PING (wire type ``pong``)."""

    nonce: U32 = 0
    """The PING's nonce."""


# -- errors ------------------------------------------------------------------------------------


@message("error")
class Error(Reply):
    """A request failed, or the connection is being closed (fatal codes). Its ``ref`` is the
    offending request's, when it could be read; nil otherwise."""

    code: Annotated[int, Range(0, 65535)]
    """An `ErrorCode` value (a plain int on the wire, so a newer server's codes still decode)."""
    message: Text = ""
    """Human-readable explanation naming what was wrong."""
    supported_versions: Annotated[tuple[Version, ...], Size(0, 16)] = ()
    """With UNSUPPORTED_VERSION: every version the server speaks."""

    @property
    def error_code(self) -> ErrorCode | None:
        """`code` as an `ErrorCode`, or None for a code this version does not know."""
        try:
            return ErrorCode(self.code)
        except ValueError:
            return None


@message("restarting")
class Restarting(ServerMessage):
    """The server is stopping (2.4): it has saved every table and closes the connection right
    after this (with ERROR SHUTTING_DOWN). The client waits `retry_ms`, then connects again and
    resumes its session, trying until the server is back."""

    message: Text = ""
    """Why, for a person ("the server is restarting")."""
    retry_ms: Annotated[int, Range(0, 600_000)] = 1000
    """How long to wait before the first attempt to connect again (it is not back sooner)."""


# -- clusters ----------------------------------------------------------------------------------


@message("login_ticket")
class LoginTicket(ClientMessage):
    """Log in on the node a REDIRECT named, with its ticket (2.4): the same identity as on the
    node that sent it, for the table the ticket names. Answered by LOGGED_IN; then the client asks
    again for what it was redirected for (JOIN_TABLE, SPECTATE)."""

    ticket: Ticket
    """The REDIRECT's ticket, as it came."""


@message("redirect")
class Redirect(Reply):
    """What was asked for is on another node of the cluster (2.4): go there. Answers RESUME (no
    ticket: the token itself is taken there), JOIN_TABLE and SPECTATE (with a ticket)."""

    address: Address
    """The node to connect to: ``HOST:PORT`` (``[v6]:PORT``)."""
    table_id: TableId
    """The table that lives there."""
    ticket: Annotated[bytes, Size(0, 512)] = b""
    """For LOGIN_TICKET there: signed by the cluster, bound to the table and to this identity,
    good once and for a short time. Empty in answer to RESUME."""


__all__ = [
    "Error",
    "Hello",
    "LoggedIn",
    "LoginGuest",
    "LoginKey",
    "LoginTicket",
    "Ping",
    "Pong",
    "Redirect",
    "Restarting",
    "Role",
    "ServerPing",
    "ServerPong",
    "Welcome",
]
