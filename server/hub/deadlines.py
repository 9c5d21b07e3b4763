"""A connection's deadlines: logged in before the handshake deadline, a frame's bytes all in
within `frame_seconds` of its first, and a ping after `heartbeat_seconds` of quiet (dropped after
`dead_after_seconds`). The hub keeps the timers (`Hub.on_timer` calls these when one is due)."""

from __future__ import annotations

import logging
import secrets
from typing import Protocol

from sushigo.protocol import (
    ErrorCode,
    Message,
    Phase,
    ProtocolError,
    RemoteProtocolError,
    ServerPing,
)
from sushigo.server.config import HubConfig
from sushigo.server.sessions.session import Conn

log = logging.getLogger("sushigo.server")


class Host(Protocol):
    """What the deadlines need of the server (the hub)."""

    config: HubConfig

    def at(self, when: float, kind: str, target: object) -> None:
        """Call back at `when` (`kind` "frame" or "heartbeat", with the connection's id)."""

    def send(self, conn: Conn, message: Message) -> None:
        """Send on a connection."""

    def close(self, conn: Conn, exc: ProtocolError) -> None:
        """Say why once, then close the connection."""


def frame_clock(hub: Host, conn: Conn, whole: bool, now: float) -> None:
    """A frame begun and not finished (`whole`: another one was, just now): its last byte is due
    `frame_seconds` after its first. A client trickling a frame in would otherwise hold its
    connection for ever, a byte now and then keeping the dead-peer timeout away."""
    if conn.closed:
        return
    if not conn.proto.unread:
        conn.frame_since = None
    elif whole or conn.frame_since is None:
        conn.frame_since = now
        if not conn.frame_timer:
            conn.frame_timer = True
            hub.at(now + hub.config.frame_seconds, "frame", conn.id)


def handshake_due(hub: Host, conn: Conn, now: float) -> None:
    """The handshake deadline: a connection not logged in by now is closed."""
    if not conn.closed and conn.session is None:
        hub.close(
            conn, RemoteProtocolError(ErrorCode.TIMEOUT, "no login before the handshake deadline")
        )


def frame_due(hub: Host, conn: Conn, now: float) -> None:
    """A frame's deadline (`frame_clock`): still unfinished, the connection is closed."""
    conn.frame_timer = False
    since = conn.frame_since
    if conn.closed or since is None:
        return
    seconds = hub.config.frame_seconds
    due = since + seconds
    if now < due:  # a later frame began since the timer was set
        conn.frame_timer = True
        hub.at(due, "frame", conn.id)
        return
    log.info("dropping %s: a frame took over %.0f s to arrive", conn.peer, now - since)
    hub.close(
        conn,
        RemoteProtocolError(
            ErrorCode.TIMEOUT, f"a frame's bytes must arrive within {seconds:g} s of its first"
        ),
    )


def heartbeat_due(hub: Host, conn: Conn, now: float) -> None:
    """Ping a quiet connection; drop one silent for `dead_after_seconds`."""
    if conn.closed:
        return
    cfg = hub.config
    quiet = now - conn.last_received
    if quiet >= cfg.dead_after_seconds:
        log.info("dropping %s: nothing received for %.0f s", conn.peer, quiet)
        hub.close(conn, RemoteProtocolError(ErrorCode.TIMEOUT, "no reply to heartbeats"))
        return
    if quiet >= cfg.heartbeat_seconds and conn.proto.phase is not Phase.HANDSHAKE:
        hub.send(conn, ServerPing(nonce=secrets.randbits(32)))
    hub.at(now + cfg.heartbeat_seconds, "heartbeat", conn.id)
