"""Admin messages (since 2.3): the server's operators see and steer it over the same protocol.

An admin is a player who logged in with a key the server lists as an admin's (the reference
server: ``sushigo-server --admin-key``). Every request here from anyone else is refused with
NOT_ALLOWED, and changes nothing. The requests are allowed in every phase after login, like the
table list, and never move the phase.

What an admin sees of a table is what a spectator sees, and the seats and sessions: never a hand,
an undealt card or an unrevealed pick (TABLE_VIEW's observation is the public one). Every action
that changes something (a kick, a ban or mute and their lifting, closing a table, an
announcement, draining) is written to the server's audit log, which ADMIN_AUDIT reads back.

ANNOUNCEMENT is the one message here that goes to everyone: a client that speaks 2.3 gets it as
such; an older one gets the same text as a lobby CHAT_MESSAGE from ``server``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated

from ._codec import Range, Size
from ._messages_lobby import TableInfo
from ._registry import (
    MAX_SEATS,
    U32,
    ClientMessage,
    DeadlineMs,
    Name,
    PlayerId,
    Reply,
    Role,
    Round,
    Seat,
    ServerMessage,
    TableId,
    Text,
    Turn,
    message,
    message_types,
)

Target = Annotated[str, Size(1, 64)]
"""What an admin request acts on: a session (``s17``, from SESSION_LIST), a player id
(``k:...``, ``g:...``), an IP address or a CIDR range (``203.0.113.0/24``, ``2001:db8::/32``)."""
Ms = Annotated[int, Range(0, 2**53)]
"""Unix milliseconds, the server's clock."""
NodeName = Annotated[str, Size(0, 64)]
"""A server's name in a cluster (the reference server: its ``--name``)."""
MAX_ADMIN_PAGE = 500
"""The most rows one SESSION_LIST, SANCTION_LIST or AUDIT_LIST holds."""
MAX_VIEWERS = 256
"""The most sessions a TABLE_VIEW lists (seats first, then spectators)."""


class SanctionKind(StrEnum):
    """What a sanction keeps a player from."""

    BAN = "ban"
    """Connecting (an address or range) or logging in (an identity) at all."""
    MUTE = "mute"
    """Chatting: the player's CHAT is refused (MUTED)."""


# -- structures -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionInfo:
    """One player's session on the server, as an admin sees it."""

    session_id: Annotated[str, Size(1, 32)]
    """The server's id for the session, for ADMIN_KICK (stable while the session lasts)."""
    player_id: PlayerId
    """Who: ``k:...`` for a key, ``g:...`` for a guest (for this session only)."""
    name: Name
    """The name it logged in with."""
    guest: bool = False
    """A guest (no lasting identity: ban its address, not its id)."""
    address: Annotated[str, Size(0, 64)] = ""
    """The IP address it connected from (the last one, after a resume)."""
    connected: bool = True
    """False while the player is away (the session waits for a resume)."""
    table_id: TableId | None = None
    """The table it sits at or watches."""
    seat: Seat | None = None
    """Its seat there (nil: none, or watching)."""
    admin: bool = False
    """It logged in with an admin key."""
    muted: bool = False
    """Its chat is refused (a mute on its player id)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class NodeInfo:
    """One server of the cluster (a lone server is a cluster of one)."""

    name: NodeName
    """Its name (the reference server: ``--name``)."""
    here: bool = False
    """The admin is connected to this one."""
    draining: bool = False
    """It takes no new table or game; its games in play finish (ADMIN_DRAIN)."""
    connections: U32 = 0
    """Connections open now."""
    sessions: U32 = 0
    """Sessions, connected or waiting for a resume."""
    tables: U32 = 0
    """Tables open."""
    playing: U32 = 0
    """Tables with a game in progress."""
    started_ms: Ms = 0
    """When it started."""
    address: NodeName = ""
    """Where clients reach it (a cluster's node's advertised HOST:PORT; empty: a lone server)."""
    alive: bool = True
    """False: its lease has ended (it stopped, died, or cannot reach the cluster's database);
    its counts are those it last said."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Sanction:
    """A ban or a mute in force."""

    kind: SanctionKind
    """Ban or mute."""
    target: Target
    """A player id, or (bans only) an address or CIDR range, as the server stores it."""
    reason: Text = ""
    """Why, as the admin gave it (the player is told)."""
    by: Annotated[str, Size(0, 64)] = ""
    """The admin's player id."""
    created_ms: Ms = 0
    """When it was made."""
    expires_ms: Ms | None = None
    """When it ends by itself (nil: never)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class AuditEntry:
    """One admin action, as the audit log keeps it."""

    at_ms: Ms
    """When."""
    admin: Annotated[str, Size(1, 64)]
    """Who: the admin's player id."""
    action: Annotated[str, Size(1, 32)]
    """What: ``kick``, ``ban``, ``unban``, ``mute``, ``unmute``, ``close``, ``announce``,
    ``drain``, ``undrain``."""
    target: Annotated[str, Size(0, 64)] = ""
    """On what (a session, a player id, a range, a table, a node; empty for an announcement)."""
    detail: Text = ""
    """The reason, the text announced, or what came of it."""


# -- requests ---------------------------------------------------------------------------------

Seconds = Annotated[int, Range(1, 10 * 365 * 86400)]
"""A sanction's duration in seconds (up to ten years)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class _PageRequest(ClientMessage):
    """Base of the admin requests for a list, a page at a time."""

    offset: U32 = 0
    """How many to skip."""
    limit: Annotated[int, Range(1, MAX_ADMIN_PAGE)] = 100
    """The most to list."""


@dataclass(frozen=True, slots=True, kw_only=True)
class _SanctionRequest(ClientMessage):
    """Base of the requests that ban or mute: a target, why, and for how long."""

    target: Target
    """Whom (each request says what it takes)."""
    reason: Text = ""
    """Told to the player, now and each time the sanction refuses something."""
    seconds: Seconds | None = None
    """How long (nil: until lifted)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class _LiftRequest(ClientMessage):
    """Base of the requests that lift a ban or a mute; answered by ADMIN_DONE (NO_SUCH_TABLE when
    there is none)."""

    target: Target
    """As it was sanctioned."""


@message("admin_sessions")
class AdminSessions(_PageRequest):
    """List the sessions, oldest first; answered by SESSION_LIST."""


@message("admin_nodes")
class AdminNodes(ClientMessage):
    """List the cluster's servers; answered by NODE_LIST."""


@message("admin_show")
class AdminShow(ClientMessage):
    """Show one table as a spectator sees it, with its seats' and watchers' sessions; answered
    by TABLE_VIEW (NO_SUCH_TABLE for none)."""

    table_id: TableId
    """The table."""


@message("admin_kick")
class AdminKick(ClientMessage):
    """End a session now (or every session of a player): its connection gets KICKED and is
    closed, and its seat, during a game, goes to a bot. Answered by ADMIN_DONE (NO_SUCH_TABLE
    when nothing matches)."""

    target: Target
    """A session id, or a player id (all its sessions)."""
    reason: Text = ""
    """Told to the player."""


@message("admin_ban")
class AdminBan(_SanctionRequest):
    """Ban an identity (a key's player id, ``k:...``) or an address range (an IP address or a
    CIDR range, IPv4 or IPv6), and end the sessions it covers (each gets BANNED); stored, so it
    outlasts a restart. Answered by ADMIN_DONE (OUT_OF_RANGE for a target that is neither, or a
    guest's id: ban its address instead)."""


@message("admin_unban")
class AdminUnban(_LiftRequest):
    """Lift a ban (a range is matched as the server stores it: ``10.0.0.0/8``)."""


@message("admin_mute")
class AdminMute(_SanctionRequest):
    """Mute a player by its id (a guest's holds for its session): its CHAT is refused with MUTED,
    saying the reason; stored. Answered by ADMIN_DONE."""


@message("admin_unmute")
class AdminUnmute(_LiftRequest):
    """Lift a mute on a player id."""


@message("admin_sanctions")
class AdminSanctions(_PageRequest):
    """List the bans and mutes in force, newest first; answered by SANCTION_LIST."""


@message("admin_close")
class AdminClose(ClientMessage):
    """Close a table: its people are sent back to the lobby (TABLE_LEFT saying why). A game in
    progress ends there: its record so far is kept, marked aborted, and nobody is rated.
    Answered by ADMIN_DONE (NO_SUCH_TABLE; NOT_ALLOWED for a tournament's table)."""

    table_id: TableId
    """The table."""
    reason: Text = ""
    """Told to its people."""


@message("admin_announce")
class AdminAnnounce(ClientMessage):
    """Say something to everyone connected (ANNOUNCEMENT); answered by ADMIN_DONE."""

    text: Annotated[str, Size(1, 500)]
    """What to say."""


@message("admin_drain")
class AdminDrain(ClientMessage):
    """Drain a server: it takes no new table or game (those requests get NOT_ALLOWED), its games
    in play finish, and it reports itself not ready; or stop draining. Answered by ADMIN_DONE
    (NO_SUCH_TABLE for an unknown node)."""

    node: NodeName | None = None
    """Which server (nil: the one connected to)."""
    drain: bool = True
    """False: take new tables again."""


@message("admin_audit")
class AdminAudit(_PageRequest):
    """Read the audit log, newest first; answered by AUDIT_LIST (INTERNAL_ERROR when the
    database cannot be read now)."""

    limit: Annotated[int, Range(1, MAX_ADMIN_PAGE)] = 50
    """The most entries (fewer by default than the other lists)."""


# -- server messages --------------------------------------------------------------------------


@message("admin_done")
class AdminDone(Reply):
    """An admin action was carried out (and written to the audit log)."""

    message: Text = ""
    """What was done, for a person."""
    count: U32 = 0
    """How many sessions, tables or people it reached."""


@message("session_list")
class SessionList(Reply):
    """The answer to ADMIN_SESSIONS."""

    sessions: Annotated[tuple[SessionInfo, ...], Size(0, MAX_ADMIN_PAGE)]
    """The page."""
    total: U32 = 0
    """Every session."""
    offset: U32 = 0
    """The request's."""


@message("node_list")
class NodeList(Reply):
    """The answer to ADMIN_NODES."""

    nodes: Annotated[tuple[NodeInfo, ...], Size(1, 64)]
    """Every server, the one connected to first."""


@message("table_view")
class TableView(Reply):
    """The answer to ADMIN_SHOW: what a spectator sees, with the sessions."""

    table: TableInfo
    """The table as the lobby shows it."""
    phase: Annotated[str, Size(1, 16)]
    """Where its game is: ``open``, ``seeding``, ``committing``, ``revealing``, ``moving``,
    ``over``."""
    round: Round | None = None
    """The step under way's round (nil: none)."""
    turn: Turn | None = None
    """...and turn."""
    steps: U32 = 0
    """Steps of the game played so far."""
    acting: Annotated[tuple[Seat, ...], Size(0, MAX_SEATS)] = ()
    """The seats that act in the step under way."""
    deadline_ms: DeadlineMs = 0
    """Time left on the table's timer."""
    observation: Annotated[bytes, Size(1, 262_144)] | None = None
    """The public observation (a spectator's: no hand, no pick), as msgpack bytes of the game's
    own encoding (section 3.2, `Observation`); nil when no game is in progress."""
    sessions: Annotated[tuple[SessionInfo, ...], Size(0, MAX_VIEWERS)] = ()
    """The seated players' sessions, then the spectators'."""


@message("sanction_list")
class SanctionList(Reply):
    """The answer to ADMIN_SANCTIONS."""

    sanctions: Annotated[tuple[Sanction, ...], Size(0, MAX_ADMIN_PAGE)]
    """The page, newest first."""
    total: U32 = 0
    """Every ban and mute in force."""
    offset: U32 = 0
    """The request's."""


@message("audit_list")
class AuditList(Reply):
    """The answer to ADMIN_AUDIT."""

    entries: Annotated[tuple[AuditEntry, ...], Size(0, MAX_ADMIN_PAGE)]
    """The page, newest first."""
    offset: U32 = 0
    """The request's."""
    more: bool = False
    """Older entries follow."""


@message("announcement")
class Announcement(ServerMessage):
    """A message from the server's operators to everyone connected."""

    text: Annotated[str, Size(1, 500)]
    """What they say."""
    by: Name | None = None
    """The admin's name (nil: the server)."""


ADMIN_REQUESTS: tuple[type[ClientMessage], ...] = tuple(
    cls
    for cls in message_types(Role.CLIENT)
    if issubclass(cls, ClientMessage) and cls.__module__ == __name__
)
"""Every admin request, which is every client message declared here: only an admin may send one
(NOT_ALLOWED for anyone else). Taken from the declarations, so that no admin request can be left
out of it and be open to everyone."""
