"""What an admin sees (protocol 2.3, section 2.8): sessions, nodes, a table, the sanctions in
force and the audit log. Reading changes nothing and is not audited; `server.operations.admin`
routes these requests here, after its check that the asker is an admin.

What an admin sees of a table is a spectator's view and the sessions: the observation is the
table's public one, the very value a spectator's TURN_START carries. On a cluster, `nodes`
lists every node the database knows of (`Directory.node_list`): this one as it is now, the
others as their last renewal wrote them, live or not.
"""

from __future__ import annotations

from typing import Any, Protocol

from sushigo.protocol import (
    AdminAudit,
    AdminNodes,
    AdminSanctions,
    AdminSessions,
    AdminShow,
    AuditEntry,
    AuditList,
    ErrorCode,
    NodeInfo,
    NodeList,
    Sanction,
    SanctionKind,
    SanctionList,
    SessionInfo,
    SessionList,
    TableView,
)
from sushigo.server.config import HubConfig
from sushigo.server.errors import TableError
from sushigo.server.lobby.pages import fill
from sushigo.server.routing.redirect import Directory, NodeRow
from sushigo.server.sessions.moderation import Moderation
from sushigo.server.sessions.requests import Asker, Reader, ServerState
from sushigo.server.sessions.session import Conn, Session
from sushigo.server.storage.contract import AuditRecord, StoredSanction

MAX_NODES = 64
"""The nodes a NODE_LIST holds at most (the protocol's bound)."""


class ViewHost(ServerState, Reader, Asker, Protocol):
    """What the views need of the server (the hub)."""

    config: HubConfig
    moderation: Moderation
    draining: bool
    cluster: Directory | None


class Views:
    """The admins' reading requests."""

    def __init__(self, hub: ViewHost, admins: frozenset[str], started_ms: int) -> None:
        self.hub = hub
        self.admins = admins
        self.started_ms = started_ms

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

    def sessions(self, conn: Conn, session: Session, msg: AdminSessions, now: float) -> None:
        every = sorted(self.hub.sessions.values(), key=lambda s: s.serial)
        # At most `limit`, and no more than fit in 64 KiB (`total` says how many there are).
        page = fill((self.info(s) for s in every[msg.offset :]), msg.limit, SessionInfo)
        session.send(
            SessionList(ref=msg.ref, sessions=tuple(page), total=len(every), offset=msg.offset)
        )

    def here(self) -> NodeInfo:
        """This server, as it is now."""
        hub = self.hub
        cluster = hub.cluster
        return NodeInfo(
            name=(cluster.node if cluster is not None else hub.config.server_name)[:64],
            here=True,
            draining=hub.draining,
            connections=len(hub.conns),
            sessions=len(hub.sessions),
            tables=len(hub.tables),
            playing=sum(table.playing for table in hub.tables.values()),
            started_ms=self.started_ms,
            address=(hub.cluster.address if hub.cluster is not None else "")[:64],
        )

    def nodes(self, conn: Conn, session: Session, msg: AdminNodes, now: float) -> None:
        cluster = self.hub.cluster
        if cluster is None:
            session.send(NodeList(ref=msg.ref, nodes=(self.here(),)))
            return

        def then(rows: list[NodeRow], now: float) -> None:
            others = tuple(_node(row) for row in rows if row.name != cluster.node)
            nodes = (self.here(), *others)[:MAX_NODES]
            session.send(NodeList(ref=msg.ref, nodes=nodes))

        self.hub.ask(cluster.node_list, then, conn=conn, ref=msg.ref, what="the cluster's nodes")

    def show(self, conn: Conn, session: Session, msg: AdminShow, now: float) -> None:
        table = self.hub.tables.get(msg.table_id)
        if table is None:
            where = " on this node" if self.hub.cluster is not None else ""  # it may be on another
            raise TableError(ErrorCode.NO_SUCH_TABLE, f"no table {msg.table_id!r}{where}")
        # The public observation only: the one a spectator's TURN_START carries. Never a seat's.
        observation = table.observation(None)
        in_step = table.playing and table.game is not None and bool(table.acting)
        position = table.position if in_step else None
        people = [p for p in table.seating.people() if isinstance(p, Session)]
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

    def sanctions(self, conn: Conn, session: Session, msg: AdminSanctions, now: float) -> None:
        live, expired = self.hub.moderation.in_force()
        for gone in expired:
            self.hub.storage.delete_sanction(gone.kind, gone.target)
        # Reasons of 500 characters made 500 sanctions over a megabyte: 64 KiB at most.
        page = fill((_sanction(s) for s in live[msg.offset :]), msg.limit, Sanction)
        session.send(
            SanctionList(ref=msg.ref, sanctions=tuple(page), total=len(live), offset=msg.offset)
        )

    def audit(self, conn: Conn, session: Session, msg: AdminAudit, now: float) -> None:
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


def _node(row: NodeRow) -> NodeInfo:
    return NodeInfo(
        name=row.name[:64],
        draining=row.draining,
        connections=max(0, row.connections),
        sessions=max(0, row.sessions),
        tables=max(0, row.tables),
        playing=max(0, row.playing),
        started_ms=max(0, row.started_ms),
        address=row.address[:64],
        alive=row.alive,
    )


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
