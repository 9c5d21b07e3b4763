"""Logging in: a guest, or a player who proves their key, becomes a session (LOGGED_IN).

Split from the lobby (`server.lobby.lobby`), which is about tables: this is about who is asking. A
cluster's node also logs in the identity a redirect ticket carries (`server.routing.redirect`)
through `logged_in`, the one place a session is made.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable
from typing import Protocol

from sushigo.protocol import ErrorCode, LoggedIn, LoginGuest, LoginKey, verify_login
from sushigo.protocol.identity import player_id_for_key
from sushigo.server.errors import TableError
from sushigo.server.lookalike import skeleton
from sushigo.server.sessions.limits import Limits
from sushigo.server.sessions.moderation import Moderation, sanction_message
from sushigo.server.sessions.names import Names, clean_name
from sushigo.server.sessions.requests import Reader, ServerState
from sushigo.server.sessions.session import Conn, Session, new_token
from sushigo.server.storage.contract import StorageError
from sushigo.server.tournaments.desk import TournamentDesk

__all__ = ["LoginHost", "logged_in", "login"]

log = logging.getLogger("sushigo.server")


class LoginHost(ServerState, Reader, Protocol):
    """What logging in needs of the server (the hub)."""

    server_key: bytes
    wall_ms: Callable[[], int]
    limits: Limits
    names: Names
    moderation: Moderation
    nodes: tuple[str, ...]
    """A cluster's live nodes' addresses, this one's first (empty: a lone server)."""
    desk: TournamentDesk


def login(hub: LoginHost, conn: Conn, msg: LoginGuest | LoginKey) -> None:
    """LOGIN_GUEST or LOGIN_KEY: check the name (and the key's signature, and its bans), then
    whether a registered player's name looks like it (read off the event loop), then
    `logged_in`."""
    name = clean_name(msg.name)  # INVALID_NAME, saying why
    key_login = isinstance(msg, LoginKey)
    if isinstance(msg, LoginKey):
        if not verify_login(msg, hub.server_key, conn.challenge):
            raise TableError(
                ErrorCode.BAD_SIGNATURE, "the signature does not match this server's challenge"
            )
        public_key = msg.public_key
        player_id = player_id_for_key(public_key)
        banned = hub.moderation.player_ban(player_id)
        if banned is not None:  # BANNED is fatal: the hub closes the connection after it
            raise TableError(ErrorCode.BANNED, sanction_message(banned, hub.wall_ms()))
        hub.limits.may_log_in(player_id)
    else:
        public_key = b""
        player_id = "g:" + secrets.token_hex(8)
    hub.names.check(name, player_id)  # a connected player's look-alike: at once
    storage, key = hub.storage, skeleton(name)

    def holders() -> list[str] | None:
        try:
            return storage.name_holders(key)
        except StorageError as exc:
            # The database is away (said once, by the storage): the connected are checked still.
            log.info("the registered names cannot be read: %s", exc)
            return None

    def then(held_by: list[str] | None, now: float) -> None:
        conn.logging_in = False
        if conn.closed or conn.session is not None:
            return
        if held_by and any(holder != player_id for holder in held_by):
            raise TableError(
                ErrorCode.NAME_TAKEN,
                f"the name {name!r} is (or looks like) a registered player's; choose another",
            )
        # Again: another session may have come in under a look-alike meanwhile.
        hub.names.check(name, player_id)
        if key_login:
            hub.limits.may_log_in(player_id)
            hub.storage.upsert_identity(public_key, name, hub.wall_ms())
        logged_in(hub, conn, msg.ref, player_id, name, not key_login)
        log.info(
            "login %s as %s (%s) from %s",
            player_id,
            name,
            "key" if key_login else "guest",
            conn.peer,
        )

    conn.logging_in = True
    hub.read_for(conn, holders, then, ref=msg.ref, what="the registered names")


def logged_in(
    hub: LoginHost, conn: Conn, ref: int, player_id: str, name: str, guest: bool
) -> Session:
    """A new session for a checked identity on `conn`, answered by LOGGED_IN."""
    token, digest = new_token()
    session = Session(player_id, name, guest, digest, conn.proto, conn.transport)
    session.address = conn.address
    session.routes = conn.routes
    hub.sessions[digest] = session
    hub.names.update(session)
    hub.limits.connected(session)
    conn.session = session
    session.send(
        LoggedIn(
            ref=ref,
            player_id=player_id,
            name=name,
            guest=guest,
            resume_token=token,
            nodes=hub.nodes,
        )
    )
    hub.desk.arrived(session)  # an entrant whose session was lost (a restart): theirs again
    return session
