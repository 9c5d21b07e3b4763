"""The admin requests (protocol 2.3, section 2.8): the operators see and steer the server.

An admin is a session logged in with a key listed by ``sushigo-server --admin-key``; every admin
request from anyone else is refused with NOT_ALLOWED before anything is looked at. The hub routes
the requests here by class, as it does the lobby's; the lobby keeps its own checks (a banned
identity at login, a muted player's chat, a draining server's new tables), reading the bans and
mutes from `server.sessions.moderation`, which this module keeps up to date.

What an admin sees of a table is a spectator's view and the sessions: the observation is the
table's public one, the very value a spectator's TURN_START carries. Every action that changes
something goes to the audit log in the database (a held write, committed before the reply is
sent), and to the server's log.

Closing a table with a game in progress aborts the game: its record so far (the steps played,
not the one under way, whose picks stay unrevealed) is signed, with the server seed, and stored
apart from finished games (`Storage.abort_game`), with each seat's score then; nobody is rated.
"""

from __future__ import annotations

import logging
import unicodedata
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from sushigo.engine.api import places_by
from sushigo.protocol import (
    ADMIN_REQUESTS,
    AdminAnnounce,
    AdminAudit,
    AdminBan,
    AdminClose,
    AdminDone,
    AdminDrain,
    AdminKick,
    AdminMute,
    AdminNodes,
    AdminSanctions,
    AdminSessions,
    AdminShow,
    AdminUnban,
    AdminUnmute,
    Announcement,
    AuditEntry,
    AuditList,
    ChatMessage,
    ErrorCode,
    FairRecord,
    Message,
    NodeInfo,
    NodeList,
    RemoteProtocolError,
    Sanction,
    SanctionKind,
    SanctionList,
    SessionInfo,
    SessionList,
    SignedRecord,
    TableView,
    Version,
)
from sushigo.protocol.identity import player_id_for_key
from sushigo.server.config import HubConfig
from sushigo.server.errors import TableError
from sushigo.server.lobby.lobby import Lobby
from sushigo.server.lobby.pages import fill
from sushigo.server.sessions.moderation import (
    BAN,
    MUTE,
    Moderation,
    ban_target,
    mute_target,
    sanction_message,
)
from sushigo.server.sessions.requests import Reader
from sushigo.server.sessions.session import Conn, Session
from sushigo.server.storage.contract import AuditRecord, PlayerResult, Storage, StoredSanction
from sushigo.server.tables.index import Tables
from sushigo.server.tables.table import Table

log = logging.getLogger("sushigo.server")

ANNOUNCE_VERSION = Version(2, 3)
"""The first version that knows ANNOUNCEMENT; older clients get a CHAT_MESSAGE instead."""
SERVER_SPEAKER = "server"
"""The player id and name an announcement has as a chat message (no player's: ids are k:, g:)."""


class AdminHost(Reader, Protocol):
    """What the admins need of the server (the hub)."""

    sessions: dict[bytes, Session]
    tables: Tables
    conns: dict[int, Conn]
    storage: Storage
    config: HubConfig
    moderation: Moderation
    draining: bool
    wall_ms: Callable[[], int]

    def end_session(self, session: Session, exc: RemoteProtocolError, now: float) -> None:
        """End a session now: its connection told why and closed, its seat to a bot."""

    def sign(self, record: FairRecord, steps: Any = None) -> SignedRecord:
        """Sign a record with the server's key."""


Handler = Callable[[Conn, Session, Any, float], None]


class Admin:
    """The admin requests, and who may send them."""

    def __init__(self, hub: AdminHost, lobby: Lobby, keys: Iterable[bytes] = ()) -> None:
        self.hub = hub
        self.lobby = lobby
        self.admins = frozenset(player_id_for_key(key) for key in keys)
        """The player ids of the admin keys."""
        self.started_ms = hub.wall_ms()
        own: dict[type[Message], Handler] = {
            AdminSessions: self._sessions,
            AdminNodes: self._nodes,
            AdminShow: self._show,
            AdminKick: self._kick,
            AdminBan: self._ban,
            AdminUnban: self._unban,
            AdminMute: self._mute,
            AdminUnmute: self._unmute,
            AdminSanctions: self._sanctions,
            AdminClose: self._close,
            AdminAnnounce: self._announce,
            AdminDrain: self._drain,
            AdminAudit: self._audit_log,
        }
        assert set(own) == set(ADMIN_REQUESTS)
        self.handlers: dict[type[Message], Handler] = {
            kind: self._only_admins(handler) for kind, handler in own.items()
        }
        """The handler of each admin request, each refusing anyone but an admin."""

    def _only_admins(self, handler: Handler) -> Handler:
        def guarded(conn: Conn, session: Session, msg: Any, now: float) -> None:
            if session.player_id not in self.admins:
                log.info(
                    "%s (%s) is no admin: %s refused", session.player_id, session.name, msg.TYPE
                )
                raise TableError(
                    ErrorCode.NOT_ALLOWED,
                    f"{msg.TYPE} is for this server's admins (a key the server lists with"
                    " --admin-key)",
                )
            handler(conn, session, msg, now)

        return guarded

    # -- seeing ------------------------------------------------------------------------------------

    def info(self, session: Session) -> SessionInfo:
        """A session as an admin sees it."""
        table = session.table
        return SessionInfo(
            session_id=f"s{session.serial}",
            player_id=session.player_id,
            name=session.name,
            guest=session.guest,
            address=session.address[:64],
            connected=session.attached,
            table_id=table.table_id if table is not None else None,
            seat=session.seat,
            admin=session.player_id in self.admins,
            muted=self.hub.moderation.mute(session.player_id) is not None,
        )

    def _sessions(self, conn: Conn, session: Session, msg: AdminSessions, now: float) -> None:
        every = sorted(self.hub.sessions.values(), key=lambda s: s.serial)
        # At most `limit`, and no more than fit in 64 KiB (`total` says how many there are).
        page = fill((self.info(s) for s in every[msg.offset :]), msg.limit, SessionInfo)
        session.send(
            SessionList(ref=msg.ref, sessions=tuple(page), total=len(every), offset=msg.offset)
        )

    def _nodes(self, conn: Conn, session: Session, msg: AdminNodes, now: float) -> None:
        hub = self.hub
        here = NodeInfo(
            name=hub.config.server_name[:64],
            here=True,
            draining=hub.draining,
            connections=len(hub.conns),
            sessions=len(hub.sessions),
            tables=len(hub.tables),
            playing=sum(table.playing for table in hub.tables.values()),
            started_ms=self.started_ms,
        )
        session.send(NodeList(ref=msg.ref, nodes=(here,)))

    def _show(self, conn: Conn, session: Session, msg: AdminShow, now: float) -> None:
        table = self._table(msg.table_id)
        # The public observation only: the one a spectator's TURN_START carries. Never a seat's.
        observation = table.observation(None)
        in_step = table.playing and table.game is not None and bool(table.acting)
        position = table.position if in_step else None
        people = [p for p in table.people() if isinstance(p, Session)]
        session.send(
            TableView(
                ref=msg.ref,
                table=table.info(),
                phase=table.phase.value,
                round=position[0] if position else None,
                turn=position[1] if position else None,
                steps=len(table.steps) if table.playing else 0,
                acting=tuple(table.acting) if in_step else (),
                deadline_ms=min(table.time_left_ms(now), 86_400_000),
                observation=None
                if observation is None
                else table.wire.packed("observation", observation),
                sessions=tuple(self.info(p) for p in people[:256]),
            )
        )

    def _sanctions(self, conn: Conn, session: Session, msg: AdminSanctions, now: float) -> None:
        live, expired = self.hub.moderation.in_force()
        for gone in expired:
            self.hub.storage.delete_sanction(gone.kind, gone.target)
        # Reasons of 500 characters made 500 sanctions over a megabyte: 64 KiB at most.
        page = fill((_sanction(s) for s in live[msg.offset :]), msg.limit, Sanction)
        session.send(
            SanctionList(ref=msg.ref, sanctions=tuple(page), total=len(live), offset=msg.offset)
        )

    def _audit_log(self, conn: Conn, session: Session, msg: AdminAudit, now: float) -> None:
        storage, offset, limit = self.hub.storage, msg.offset, msg.limit

        def then(result: Any, now: float) -> None:
            entries = tuple(fill((_entry(e) for e in result[:limit]), limit, AuditEntry))
            more = len(result) > len(entries)  # past `limit`, or past 64 KiB
            session.send(AuditList(ref=msg.ref, entries=entries, offset=offset, more=more))

        self.hub.read(
            lambda: storage.audit_log(limit + 1, offset),
            then,
            session=session,
            ref=msg.ref,
            what="the audit log",
        )

    # -- acting ------------------------------------------------------------------------------------

    def _kick(self, conn: Conn, session: Session, msg: AdminKick, now: float) -> None:
        target = msg.target.strip()
        if target[:1] == "s" and target[1:].isdigit():
            matched = [s for s in self.hub.sessions.values() if f"s{s.serial}" == target]
        else:
            matched = [s for s in self.hub.sessions.values() if s.player_id == target]
        if not matched:
            raise TableError(ErrorCode.NO_SUCH_TABLE, f"no session or player {target!r} here")
        said = f": {msg.reason}" if msg.reason else ""
        self._audit(session, "kick", target, f"{msg.reason} ({len(matched)} sessions)")
        self._done(session, msg.ref, f"kicked {len(matched)} session(s) of {target}", len(matched))
        why = RemoteProtocolError(ErrorCode.KICKED, f"an admin ended your session{said}")
        for kicked in matched:
            self.hub.end_session(kicked, why, now)

    def _ban(self, conn: Conn, session: Session, msg: AdminBan, now: float) -> None:
        target = ban_target(msg.target)
        if target in self.admins:
            raise TableError(
                ErrorCode.NOT_ALLOWED, f"{target} is an admin: take its --admin-key away first"
            )
        sanction = self._sanction(session, BAN, target, msg.reason, msg.seconds)
        # The sessions it covers end now; an admin's never does (it could not undo the ban).
        covered = [
            s
            for s in self.hub.sessions.values()
            if s.player_id not in self.admins
            and self.hub.moderation.covers(sanction, s.player_id, s.address)
        ]
        self._audit(session, "ban", target, _with_time(msg.reason, msg.seconds))
        self._done(
            session, msg.ref, f"banned {target}; {len(covered)} session(s) ended", len(covered)
        )
        why = RemoteProtocolError(ErrorCode.BANNED, sanction_message(sanction, self.hub.wall_ms()))
        for banned in covered:
            self.hub.end_session(banned, why, now)

    def _mute(self, conn: Conn, session: Session, msg: AdminMute, now: float) -> None:
        target = mute_target(msg.target)
        self._sanction(session, MUTE, target, msg.reason, msg.seconds)
        self._audit(session, "mute", target, _with_time(msg.reason, msg.seconds))
        muted = sum(s.player_id == target for s in self.hub.sessions.values())
        self._done(session, msg.ref, f"muted {target}", muted)

    def _sanction(
        self, session: Session, kind: str, target: str, reason: str, seconds: int | None
    ) -> StoredSanction:
        """Make a ban or mute: in memory at once, stored with the next commit."""
        now_ms = self.hub.wall_ms()
        expires = now_ms + seconds * 1000 if seconds is not None else None
        sanction = StoredSanction(kind, target, reason, session.player_id, now_ms, expires)
        self.hub.moderation.add(sanction)
        self.hub.storage.save_sanction(sanction)
        return sanction

    def _unban(self, conn: Conn, session: Session, msg: AdminUnban, now: float) -> None:
        self._lift(session, msg.ref, BAN, ban_target(msg.target))

    def _unmute(self, conn: Conn, session: Session, msg: AdminUnmute, now: float) -> None:
        self._lift(session, msg.ref, MUTE, mute_target(msg.target))

    def _lift(self, session: Session, ref: int, kind: str, target: str) -> None:
        if self.hub.moderation.remove(kind, target) is None:
            raise TableError(ErrorCode.NO_SUCH_TABLE, f"no {kind} on {target}")
        self.hub.storage.delete_sanction(kind, target)
        self._audit(session, f"un{kind}", target, "")
        self._done(session, ref, f"lifted the {kind} on {target}", 1)

    def _close(self, conn: Conn, session: Session, msg: AdminClose, now: float) -> None:
        table = self._table(msg.table_id)
        if table.tournament is not None:
            raise TableError(
                ErrorCode.NOT_ALLOWED,
                f"table {table.table_id} plays a game of tournament {table.tournament!r}: its"
                " games are the tournament's to finish",
            )
        why = "an admin closed it" + (f": {msg.reason}" if msg.reason else "")
        aborted = self._abort(table, why) if table.playing else None
        people = len(table.people())
        self.lobby.close_table(table, why)
        kept = f"; its game aborted, kept as {aborted}" if aborted else ""
        self._audit(session, "close", table.table_id, msg.reason + kept)
        self._done(session, msg.ref, f"closed table {table.table_id}{kept}", people)

    def _abort(self, table: Table, why: str) -> str | None:
        """Store a game in progress as aborted (see the module docstring); its id, or None when
        it had not started yet (its seeds were not all in: there is nothing to keep)."""
        game = table.game
        if game is None:
            return None
        scores = game.scores()
        signed = self.hub.sign(table.record())
        game_id = signed.signature[:16].hex()
        places = places_by([(score,) for score in scores[: len(table.seats)]])
        results = [
            PlayerResult(
                player_id=s.player_id if s.player_id and s.player_id.startswith("k:") else None,
                name=s.name or f"seat {s.index}",
                seat=s.index,
                score=scores[s.index],
                place=places[s.index],
            )
            for s in table.seats
        ]
        self.hub.storage.abort_game(
            table.table_id,
            game_id,
            table.adapter.kind,
            signed.record,
            signed.signature,
            results,
            aborted_ms=self.hub.wall_ms(),
            reason=why,
        )
        log.info("game %s at table %s aborted: %s", game_id, table.table_id, why)
        return game_id

    def _announce(self, conn: Conn, session: Session, msg: AdminAnnounce, now: float) -> None:
        text = "".join(c for c in msg.text if unicodedata.category(c)[0] != "C" or c == " ")
        text = text.strip()
        if not text:
            raise TableError(ErrorCode.OUT_OF_RANGE, "an empty announcement")
        new = Announcement(text=text, by=session.name)
        old = ChatMessage(player_id=SERVER_SPEAKER, name=SERVER_SPEAKER, text=text)
        reached = 0
        for person in list(self.hub.sessions.values()):
            if person.attached:
                version = person.conn.version
                person.send(new if version is not None and version >= ANNOUNCE_VERSION else old)
                reached += 1
        self._audit(session, "announce", "", text)
        people = "person" if reached == 1 else "people"
        self._done(session, msg.ref, f"announced to {reached} {people}", reached)

    def _drain(self, conn: Conn, session: Session, msg: AdminDrain, now: float) -> None:
        name = self.hub.config.server_name
        if msg.node not in (None, "", name):
            raise TableError(ErrorCode.NO_SUCH_TABLE, f"no node {msg.node!r} (this is {name!r})")
        self.hub.draining = msg.drain
        playing = sum(table.playing for table in self.hub.tables.values())
        self._audit(session, "drain" if msg.drain else "undrain", name, "")
        if msg.drain:
            said = f"{name} is draining: no new table or game; {playing} game(s) in play finish"
        else:
            said = f"{name} takes new tables again"
        self._done(session, msg.ref, said, playing)

    # -- helpers -----------------------------------------------------------------------------------

    def _table(self, table_id: str) -> Table:
        table = self.hub.tables.get(table_id)
        if table is None:
            raise TableError(ErrorCode.NO_SUCH_TABLE, f"no table {table_id!r}")
        return table

    def _audit(self, session: Session, action: str, target: str, detail: str) -> None:
        """An action to the audit log (stored with the next commit, before the reply goes out)
        and to the server's log."""
        entry = AuditRecord(self.hub.wall_ms(), session.player_id, action, target, detail[:500])
        self.hub.storage.add_audit(entry)
        log.info("admin %s (%s): %s %s %s", session.player_id, session.name, action, target, detail)

    @staticmethod
    def _done(session: Session, ref: int, message: str, count: int) -> None:
        session.send(AdminDone(ref=ref, message=message[:500], count=count))


def _with_time(reason: str, seconds: int | None) -> str:
    return reason + (f" (for {seconds} s)" if seconds is not None else "")


def _sanction(s: StoredSanction) -> Sanction:
    return Sanction(
        kind=SanctionKind(s.kind),
        target=s.target[:64],
        reason=s.reason[:500],
        by=s.admin[:64],
        created_ms=s.created_ms,
        expires_ms=s.expires_ms,
    )


def _entry(e: AuditRecord) -> AuditEntry:
    return AuditEntry(
        at_ms=e.at_ms,
        admin=e.admin[:64] or "?",
        action=e.action[:32] or "?",
        target=e.target[:64],
        detail=e.detail[:500],
    )
