"""The admin requests (protocol 2.3, section 2.8): the operators see and steer the server.

An admin is a session logged in with a key listed by ``sushigo-server --admin-key``; every admin
request from anyone else is refused with NOT_ALLOWED before anything is looked at. The hub routes
the requests here by class, as it does the lobby's; the lobby keeps its own checks (a banned
identity at login, a muted player's chat, a draining server's new tables), reading the bans and
mutes from `server.sessions.moderation`, which this module keeps up to date. What admins see is
`server.operations.views`; what they change is here.

Every action that changes something goes to the audit log in the database (a held write,
committed before the reply is sent), and to the server's log.

On a cluster an action reaches every node, whichever node the admin is connected to: this node
carries it out on itself, then asks the other live nodes (`Directory.operate`: a NOTIFY sent
with the commit of the action's own writes), each of which carries it out (`carry_out`) and
answers; the reply counts what every node did, and names a node that did not answer within
`OPERATION_SECONDS`. A kick by player id ends that player's sessions on every node (a session id, from
`sessions`, is this node's); a ban or mute is in force on every node as soon as it is stored,
and its sessions end there; an unban lifts it everywhere; an announcement reaches everyone
connected anywhere; a table is closed by the node that holds it; a node is drained by name.

Closing a table with a game in progress aborts the game: its record so far (the steps played,
not the one under way, whose picks stay unrevealed) is signed, with the server seed, and stored
apart from finished games (`Storage.abort_game`), with each seat's score then; nobody is rated.
"""

from __future__ import annotations

import dataclasses
import logging
import unicodedata
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, Protocol

from sushigo import protocol
from sushigo.engine.api import places_by
from sushigo.protocol.identity import player_id_for_key
from sushigo.protocol.versions import ANNOUNCE_VERSION
from sushigo.server.errors import TableError
from sushigo.server.lobby.lobby import Lobby
from sushigo.server.routing.redirect import Answer, Owner
from sushigo.server.sessions.moderation import (
    BAN,
    MUTE,
    ban_target,
    mute_target,
    sanction_message,
)
from sushigo.server.sessions.session import Conn, Session
from sushigo.server.storage.contract import AuditRecord, PlayerResult, StoredSanction
from sushigo.server.tables.table import Table

from .views import ViewHost, Views

log = logging.getLogger("sushigo.server")

SERVER_SPEAKER = "server"
"""The player id and name an announcement has as a chat message (no player's: ids are k:, g:)."""
REREAD_GRACE = 60.0
"""Seconds for which a sanction this node made or heard of stays in force here though the
database, read again (`sanctions_read`), does not hold it yet: its commit may still be under
way (the database was away)."""


class AdminHost(ViewHost, Protocol):
    """What the admins need of the server (the hub)."""

    wall_ms: Callable[[], int]

    def end_session(self, session: Session, exc: protocol.RemoteProtocolError, now: float) -> None:
        """End a session now: its connection told why and closed, its seat to a bot."""

    def sign(self, record: protocol.FairRecord, steps: Any = None) -> protocol.SignedRecord:
        """Sign a record with the server's key."""


Handler = Callable[[Conn, Session, Any, float], None]


class Admin:
    """The admin requests, and who may send them."""

    def __init__(self, hub: AdminHost, lobby: Lobby, keys: Iterable[bytes] = ()) -> None:
        self.hub = hub
        self.lobby = lobby
        self.admins = frozenset(player_id_for_key(key) for key in keys)
        """The player ids of the admin keys."""
        self.views = Views(hub, self.admins, hub.wall_ms())
        self._learned: dict[tuple[str, str], float] = {}
        """When (the hub's clock) each sanction was made here or heard of (`REREAD_GRACE`)."""
        own: dict[type[protocol.Message], Handler] = {
            protocol.AdminSessions: self.views.sessions,
            protocol.AdminNodes: self.views.nodes,
            protocol.AdminShow: self.views.show,
            protocol.AdminKick: self._kick,
            protocol.AdminBan: self._ban,
            protocol.AdminUnban: self._unban,
            protocol.AdminMute: self._mute,
            protocol.AdminUnmute: self._unmute,
            protocol.AdminSanctions: self.views.sanctions,
            protocol.AdminClose: self._close,
            protocol.AdminAnnounce: self._announce,
            protocol.AdminDrain: self._drain,
            protocol.AdminAudit: self.views.audit,
        }
        assert set(own) == set(protocol.ADMIN_REQUESTS)
        self.handlers: dict[type[protocol.Message], Handler] = {
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
                    protocol.ErrorCode.NOT_ALLOWED,
                    f"{msg.TYPE} is for this server's admins (a key the server lists with"
                    " --admin-key)",
                )
            handler(conn, session, msg, now)

        return guarded

    def info(self, session: Session) -> Any:
        """A session as an admin sees it (`Views.info`)."""
        return self.views.info(session)

    @property
    def node(self) -> str:
        """This server's name: a cluster's node's, or ``--name``."""
        cluster = self.hub.cluster
        return cluster.node if cluster is not None else self.hub.config.server_name

    # -- acting, on this node and the others ------------------------------------------------------

    def _kick(self, conn: Conn, session: Session, msg: protocol.AdminKick, now: float) -> None:
        target = msg.target.strip()
        local = target[:1] == "s" and target[1:].isdigit()  # a session id: this node's
        here = self._kick_here(target, msg.reason, now)
        if local and not here:
            where = " on this node" if self.hub.cluster is not None else ""
            raise TableError(protocol.ErrorCode.NO_SUCH_TABLE, f"no session {target!r}{where}")

        def done(answers: list[Answer]) -> None:
            total = here + _reached(answers)
            if not total:
                raise TableError(
                    protocol.ErrorCode.NO_SUCH_TABLE,
                    f"no session or player {target!r} on {_nodes(answers)}{_late(answers)}",
                )
            self._audit(session, "kick", target, f"{msg.reason} ({total} sessions)")
            said = f"kicked {total} session(s) of {target}{_late(answers)}"
            self._done(session, msg.ref, said, total)

        args = {"target": target, "reason": msg.reason}
        self._everywhere(conn, msg.ref, "kick", args, done, alone=local)

    def _ban(self, conn: Conn, session: Session, msg: protocol.AdminBan, now: float) -> None:
        target = ban_target(msg.target)
        if target in self.admins:
            raise TableError(
                protocol.ErrorCode.NOT_ALLOWED,
                f"{target} is an admin: take its --admin-key away first",
            )
        sanction = self._sanction(session, BAN, target, msg.reason, msg.seconds, now)
        here = self._ban_here(sanction, now)
        self._audit(session, "ban", target, _with_time(msg.reason, msg.seconds))

        def done(answers: list[Answer]) -> None:
            total = here + _reached(answers)
            said = f"banned {target}; {total} session(s) ended{_late(answers)}"
            self._done(session, msg.ref, said, total)

        self._everywhere(conn, msg.ref, BAN, dataclasses.asdict(sanction), done)

    def _mute(self, conn: Conn, session: Session, msg: protocol.AdminMute, now: float) -> None:
        target = mute_target(msg.target)
        sanction = self._sanction(session, MUTE, target, msg.reason, msg.seconds, now)
        here = sum(s.player_id == target for s in self.hub.sessions.values())
        self._audit(session, "mute", target, _with_time(msg.reason, msg.seconds))

        def done(answers: list[Answer]) -> None:
            said = f"muted {target}{_late(answers)}"
            self._done(session, msg.ref, said, here + _reached(answers))

        self._everywhere(conn, msg.ref, MUTE, dataclasses.asdict(sanction), done)

    def _sanction(
        self, session: Session, kind: str, target: str, reason: str, seconds: int | None, now: float
    ) -> StoredSanction:
        """Make a ban or mute: in memory at once, stored with the next commit."""
        now_ms = self.hub.wall_ms()
        expires = now_ms + seconds * 1000 if seconds is not None else None
        sanction = StoredSanction(kind, target, reason, session.player_id, now_ms, expires)
        self._learn(sanction, now)
        self.hub.storage.save_sanction(sanction)
        return sanction

    def _unban(self, conn: Conn, session: Session, msg: protocol.AdminUnban, now: float) -> None:
        self._lift(conn, session, msg.ref, BAN, ban_target(msg.target))

    def _unmute(self, conn: Conn, session: Session, msg: protocol.AdminUnmute, now: float) -> None:
        self._lift(conn, session, msg.ref, MUTE, mute_target(msg.target))

    def _lift(self, conn: Conn, session: Session, ref: int, kind: str, target: str) -> None:
        if self.hub.moderation.remove(kind, target) is None:
            raise TableError(protocol.ErrorCode.NO_SUCH_TABLE, f"no {kind} on {target}")
        self._learned.pop((kind, target), None)
        self.hub.storage.delete_sanction(kind, target)
        self._audit(session, f"un{kind}", target, "")

        def done(answers: list[Answer]) -> None:
            self._done(session, ref, f"lifted the {kind} on {target}{_late(answers)}", 1)

        self._everywhere(conn, ref, f"un{kind}", {"kind": kind, "target": target}, done)

    def _close(self, conn: Conn, session: Session, msg: protocol.AdminClose, now: float) -> None:
        cluster = self.hub.cluster
        if msg.table_id in self.hub.tables or cluster is None:
            people, kept = self._close_here(msg.table_id, msg.reason)
            self._audit(session, "close", msg.table_id, msg.reason + kept)
            self._done(session, msg.ref, f"closed table {msg.table_id}{kept}", people)
            return
        args = {"table_id": msg.table_id, "reason": msg.reason}

        async def job() -> tuple[Owner | None, list[Answer]]:
            owner = await cluster.table_owner(msg.table_id)
            if owner is None or not owner.alive or owner.node in (None, cluster.node):
                return owner, []
            return owner, await cluster.operate("close", args, owner.node)()

        def then(found: tuple[Owner | None, list[Answer]], now: float) -> None:
            owner, answers = found
            if not answers:
                why = " (its node is not answering)" if owner is not None else ""
                raise TableError(
                    protocol.ErrorCode.NO_SUCH_TABLE, f"no table {msg.table_id!r}{why}"
                )
            answer = answers[0]
            if answer.error is not None:
                raise TableError(
                    protocol.ErrorCode(answer.code or protocol.ErrorCode.NO_SUCH_TABLE),
                    answer.error,
                )
            self._audit(session, "close", msg.table_id, f"{msg.reason} (on {answer.node})")
            self._done(session, msg.ref, f"{answer.message} on {answer.node}", answer.reached)

        self.hub.ask(job, then, conn=conn, ref=msg.ref, what="the table's node")

    def _announce(
        self, conn: Conn, session: Session, msg: protocol.AdminAnnounce, now: float
    ) -> None:
        text = "".join(c for c in msg.text if unicodedata.category(c)[0] != "C" or c == " ")
        text = text.strip()
        if not text:
            raise TableError(protocol.ErrorCode.OUT_OF_RANGE, "an empty announcement")
        here = self._announce_here(text, session.name)
        self._audit(session, "announce", "", text)

        def done(answers: list[Answer]) -> None:
            reached = here + _reached(answers)
            people = "person" if reached == 1 else "people"
            self._done(
                session, msg.ref, f"announced to {reached} {people}{_late(answers)}", reached
            )

        self._everywhere(conn, msg.ref, "announce", {"text": text, "by": session.name}, done)

    def _drain(self, conn: Conn, session: Session, msg: protocol.AdminDrain, now: float) -> None:
        node, cluster = self.node, self.hub.cluster
        target = msg.node or node
        what = "drain" if msg.drain else "undrain"
        if target == node:
            playing = self._drain_here(msg.drain)
            self._audit(session, what, node, "")
            self._done(session, msg.ref, _drained(node, msg.drain, playing), playing)
            return
        if cluster is None or target not in cluster.live_nodes():
            live = ", ".join(cluster.live_nodes()) if cluster is not None else node
            raise TableError(
                protocol.ErrorCode.NO_SUCH_TABLE, f"no live node {target!r} (live: {live})"
            )

        def done(answers: list[Answer]) -> None:
            answer = answers[0]
            if answer.error is not None:
                raise TableError(
                    protocol.ErrorCode(answer.code or protocol.ErrorCode.NO_SUCH_TABLE),
                    answer.error,
                )
            self._audit(session, what, target, "")
            self._done(session, msg.ref, answer.message, answer.reached)

        self._everywhere(conn, msg.ref, "drain", {"drain": msg.drain}, done, to=target)

    def _everywhere(
        self,
        conn: Conn,
        ref: int,
        kind: str,
        args: dict[str, Any],
        done: Callable[[list[Answer]], None],
        *,
        to: str | None = None,
        alone: bool = False,
    ) -> None:
        """Carried out here already: ask the other live nodes (`to`: that one) to carry it out
        too, and `done` with their answers (at once, none, on a lone server or `alone`)."""
        cluster = self.hub.cluster
        if cluster is None or alone:
            done([])
            return
        job: Callable[[], Awaitable[list[Answer]]] = cluster.operate(kind, args, to)
        self.hub.ask(job, lambda answers, now: done(answers), conn=conn, ref=ref, what="the nodes")

    # -- what one node does, asked by an admin here or by another node -----------------------------

    def carry_out(self, kind: str, args: dict[str, Any], now: float) -> Answer:
        """Carry out an operation another node's admin asked for (`Directory.operate`); what
        this node did, or why it could not."""
        try:
            reached, message = self._carry_out(kind, args, now)
        except TableError as exc:
            return Answer(self.node, 0, "", exc.message[:500], int(exc.code))
        except (KeyError, TypeError, ValueError) as exc:
            log.warning("an operation %r from another node that cannot be read: %r", kind, exc)
            return Answer(self.node, 0, "", f"cannot read the {kind} operation")
        log.info("admin operation from another node: %s %s", kind, args.get("target", ""))
        return Answer(self.node, reached, message)

    def _carry_out(self, kind: str, args: dict[str, Any], now: float) -> tuple[int, str]:
        if kind == "kick":
            return self._kick_here(str(args["target"]), str(args["reason"]), now), "kicked"
        if kind in (BAN, MUTE):
            sanction = StoredSanction(**args)
            if sanction.kind != kind:
                raise ValueError(kind)
            self._learn(sanction, now)
            if kind == BAN:
                return self._ban_here(sanction, now), "banned"
            return sum(s.player_id == sanction.target for s in self.hub.sessions.values()), "muted"
        if kind in ("unban", "unmute"):
            self._learned.pop((str(args["kind"]), str(args["target"])), None)
            lifted = self.hub.moderation.remove(str(args["kind"]), str(args["target"]))
            return int(lifted is not None), "lifted"
        if kind == "close":
            people, kept = self._close_here(str(args["table_id"]), str(args["reason"]))
            return people, f"closed table {args['table_id']}{kept}"
        if kind == "announce":
            return self._announce_here(str(args["text"])[:500], str(args["by"])[:24]), "announced"
        if kind == "drain":
            drain = bool(args["drain"])
            playing = self._drain_here(drain)
            return playing, _drained(self.node, drain, playing)
        raise ValueError(kind)

    def _kick_here(self, target: str, reason: str, now: float) -> int:
        """End the sessions of player (or session id) `target` here; how many."""
        if target[:1] == "s" and target[1:].isdigit():
            matched = [s for s in self.hub.sessions.values() if f"s{s.serial}" == target]
        else:
            matched = [s for s in self.hub.sessions.values() if s.player_id == target]
        said = f": {reason}" if reason else ""
        why = protocol.RemoteProtocolError(
            protocol.ErrorCode.KICKED, f"an admin ended your session{said}"
        )
        for kicked in matched:
            self.hub.end_session(kicked, why, now)
        return len(matched)

    def _ban_here(self, sanction: StoredSanction, now: float) -> int:
        """A ban in force here, the sessions it covers ended (an admin's never is: it could not
        undo the ban); how many."""
        moderation = self.hub.moderation
        moderation.add(sanction)
        covered = [
            s
            for s in self.hub.sessions.values()
            if s.player_id not in self.admins
            and moderation.covers(sanction, s.player_id, s.address)
        ]
        why = protocol.RemoteProtocolError(
            protocol.ErrorCode.BANNED, sanction_message(sanction, self.hub.wall_ms())
        )
        for banned in covered:
            self.hub.end_session(banned, why, now)
        return len(covered)

    def _learn(self, sanction: StoredSanction, now: float) -> None:
        if sanction.kind == MUTE:
            self.hub.moderation.add(sanction)
        self._learned[sanction.kind, sanction.target] = now

    def sanctions_read(self, stored: list[StoredSanction], now: float) -> None:
        """The bans and mutes as the database holds them, read again after this node could not
        hear the others for a while: those it missed are put in force (a ban's sessions ended),
        and those lifted meanwhile are lifted, but not one made or heard of in the last
        `REREAD_GRACE` seconds (its commit may not have landed when this was read)."""
        moderation = self.hub.moderation
        live, _ = moderation.in_force()
        held = {(s.kind, s.target): s for s in stored}
        for sanction in stored:
            if sanction not in live:
                self._learn(sanction, now)
                if sanction.kind == BAN:
                    self._ban_here(sanction, now)
        for sanction in live:
            key = (sanction.kind, sanction.target)
            if key not in held and now - self._learned.get(key, -REREAD_GRACE) >= REREAD_GRACE:
                moderation.remove(*key)
                self._learned.pop(key, None)

    def _close_here(self, table_id: str, reason: str) -> tuple[int, str]:
        """Close a table of this node's; (its people, what became of its game)."""
        table = self.hub.tables.get(table_id)
        if table is None:
            raise TableError(protocol.ErrorCode.NO_SUCH_TABLE, f"no table {table_id!r}")
        if table.tournament is not None:
            raise TableError(
                protocol.ErrorCode.NOT_ALLOWED,
                f"table {table.table_id} plays a game of tournament {table.tournament!r}: its"
                " games are the tournament's to finish",
            )
        why = "an admin closed it" + (f": {reason}" if reason else "")
        aborted = self._abort(table, why) if table.playing else None
        people = len(table.seating.people())
        self.lobby.close_table(table, why)
        return people, f"; its game aborted, kept as {aborted}" if aborted else ""

    def _abort(self, table: Table, why: str) -> str | None:
        """Store a game in progress as aborted (see the module docstring); its id, or None when
        it had not started yet (its seeds were not all in: there is nothing to keep)."""
        game = table.game
        if game is None:
            return None
        scores = game.scores()
        signed = self.hub.sign(table.record())
        game_id = signed.signature[:16].hex()
        places = places_by([(score,) for score in scores[: len(table.seating.seats)]])
        results = [
            PlayerResult(
                player_id=s.player_id if s.player_id and s.player_id.startswith("k:") else None,
                name=s.name or f"seat {s.index}",
                seat=s.index,
                score=scores[s.index],
                place=places[s.index],
            )
            for s in table.seating.seats
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

    def _announce_here(self, text: str, by: str) -> int:
        """Say `text` to everyone connected here; how many people."""
        new = protocol.Announcement(text=text, by=by or None)
        old = protocol.ChatMessage(player_id=SERVER_SPEAKER, name=SERVER_SPEAKER, text=text)
        reached = 0
        for person in list(self.hub.sessions.values()):
            if person.attached:
                version = person.conn.version
                person.send(new if version is not None and version >= ANNOUNCE_VERSION else old)
                reached += 1
        return reached

    def _drain_here(self, drain: bool) -> int:
        """Drain this node (or take new tables again); its games in play."""
        self.hub.draining = drain
        self.lobby.changed = True  # its quick-match tables are published again (none, draining)
        cluster = self.hub.cluster
        if cluster is not None:  # the other nodes send no new table here from now on
            self.hub.ask(
                lambda: cluster.say_draining(drain), _ignore, conn=None, ref=None, what="drain"
            )
        return sum(table.playing for table in self.hub.tables.values())

    # -- helpers -----------------------------------------------------------------------------------

    def _audit(self, session: Session, action: str, target: str, detail: str) -> None:
        """An action to the audit log (stored with the next commit, before the reply goes out)
        and to the server's log."""
        entry = AuditRecord(self.hub.wall_ms(), session.player_id, action, target, detail[:500])
        self.hub.storage.add_audit(entry)
        log.info("admin %s (%s): %s %s %s", session.player_id, session.name, action, target, detail)

    @staticmethod
    def _done(session: Session, ref: int, message: str, count: int) -> None:
        session.send(protocol.AdminDone(ref=ref, message=message[:500], count=count))


def _reached(answers: list[Answer]) -> int:
    return sum(a.reached for a in answers if a.error is None)


def _nodes(answers: list[Answer]) -> str:
    """Where an operation found nothing: every node, or only those that answered."""
    return "the nodes that answered" if any(a.error for a in answers) else "any node"


def _late(answers: list[Answer]) -> str:
    """What the admin is told of the nodes that did not answer (or could not do it)."""
    failed = [f"{a.node}: {a.error}" for a in answers if a.error is not None]
    return f" ({'; '.join(failed)})" if failed else ""


def _drained(node: str, drain: bool, playing: int) -> str:
    if drain:
        return f"{node} is draining: no new table or game; {playing} game(s) in play finish"
    return f"{node} takes new tables again"


def _ignore(_: object, __: float) -> None:
    """An answer nobody waits for."""


def _with_time(reason: str, seconds: int | None) -> str:
    return reason + (f" (for {seconds} s)" if seconds is not None else "")
