"""The admins' operations across the nodes, a part of `server.cluster.node.Cluster`: an admin on
any node kicks, bans, closes, announces and drains on every node (`server.operations.admin`).

The node the admin is connected to carries the operation out on itself, and asks the others with
``NOTIFY sushigo_operations`` (a JSON payload: the operation, its arguments, the node it is for or
every node). The NOTIFY is a held write of the node's storage, committed with the operation's own
writes (the sanction, the audit entry), so a node hears of a ban only once it is stored: a node
that reads the bans again (`sanctions`, after its listening connection was down) never misses
one it heard of. Each node that hears it carries it out (`on_operation`) and answers on the same
channel, and the asking node waits for every answer for `OPERATION_SECONDS` at most: what the
admin is told counts them all (and names the nodes that did not answer in time).

The live nodes' state and load (`node_list`) are their rows in ``cluster_nodes``, which each
writes at every renewal: what `sushigo-admin nodes` lists, a renewal old at most.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import Any, Final

from sushigo.server.routing.redirect import Answer, NodeRow
from sushigo.server.storage.contract import StoredSanction

from .base import CHANNEL, Connected
from .wallclock import WallClock

log = logging.getLogger("sushigo.server")

OPERATIONS: Final = "sushigo_operations"
"""NOTIFY'd with an admin's operation for the other nodes, and with their answers."""
OPERATION_SECONDS: Final = 5.0
"""How long the node an admin asked waits for the other nodes' answers (the wait ends as soon
as every node answered: a node on a busy machine answers in one to two seconds, a paused or
dying one never)."""
ECHOED: Final = frozenset({"ban", "unban", "mute", "unmute"})
"""The operations a node carries out again when it hears its own (they are idempotent): once
stored, a ban read back before its commit landed is in force again."""


class OperationShare(Connected):
    """The part of a node that carries admins' operations to the other nodes."""

    def __init__(self, url: str, *, node: str, lease: float, clock: WallClock | None) -> None:
        super().__init__(url, node=node, lease=lease, clock=clock)
        self.on_operation: Callable[[str, dict[str, Any]], Answer] | None = None
        """Carries out an operation another node asked for (its kind and arguments)."""
        self._asked: dict[str, tuple[set[str], list[Answer], asyncio.Event]] = {}
        """The operations this node asked, by id: the nodes not yet answered, the answers."""

    def operate(
        self, kind: str, args: dict[str, Any], to: str | None = None
    ) -> Callable[[], Awaitable[list[Answer]]]:
        """Ask the other live nodes (`to`: that node only) to carry out an operation, in the
        commit of the writes held now; a job that waits for their answers (`OPERATION_SECONDS`
        at most) and returns them, one for each node asked (a node that did not answer in time
        has an `Answer` saying so)."""
        asked = {n.name for n in self.nodes if n.name != self.node} if to is None else {to}
        op_id = secrets.token_hex(8)
        pending: set[str] = set(asked)
        answers: list[Answer] = []
        event = asyncio.Event()
        if not asked:
            event.set()
        self._asked[op_id] = (pending, answers, event)
        payload = {"id": op_id, "from": self.node, "to": to, "kind": kind, "args": args}
        if self.storage is not None:
            self.storage.notify(OPERATIONS, json.dumps(payload))
            self.storage.flush()  # now, not at the next input: an admin's node may be idle

        async def wait() -> list[Answer]:
            try:
                async with asyncio.timeout(OPERATION_SECONDS):
                    await event.wait()
            except TimeoutError:
                pass
            finally:
                self._asked.pop(op_id, None)
            late = [Answer(node, 0, "", "did not answer in time") for node in sorted(pending)]
            return [*answers, *late]

        return wait

    def _operation_heard(
        self, _conn: object, _pid: object, _channel: object, payload: object
    ) -> None:
        """An operation (or an answer) on the channel (the listener's callback)."""
        try:
            said = json.loads(str(payload))
            op_id, origin = str(said["id"]), str(said["from"])
        except (ValueError, KeyError, TypeError):
            log.warning("an operation from another node that cannot be read")
            return
        if "answer" in said:
            self._answered(op_id, origin, said)
            return
        kind, to, args = said.get("kind"), said.get("to"), said.get("args")
        if not isinstance(kind, str) or not isinstance(args, dict):
            log.warning("an operation from %s that cannot be read", origin)
            return
        mine = origin == self.node
        if (to is not None and to != self.node) or (mine and kind not in ECHOED):
            return
        if self.on_operation is None:
            return
        answer = self.on_operation(kind, args)
        if not mine:
            self._spawn(self._answer(op_id, origin, answer))

    def _answered(self, op_id: str, origin: str, said: dict[str, Any]) -> None:
        asked = self._asked.get(op_id)
        if asked is None or said.get("to") != self.node:
            return
        pending, answers, event = asked
        if origin not in pending:
            return
        pending.discard(origin)
        error = said.get("error")
        answers.append(
            Answer(
                origin,
                int(said.get("count") or 0),
                str(said.get("message") or ""),
                None if error is None else str(error),
                int(said.get("code") or 0),
            )
        )
        if not pending:
            event.set()

    async def _answer(self, op_id: str, origin: str, answer: Answer) -> None:
        said = {
            "id": op_id,
            "from": self.node,
            "to": origin,
            "answer": True,
            "count": answer.reached,
            "message": answer.message,
            "error": answer.error,
            "code": answer.code,
        }
        async with self._using("answering an operation") as conn:
            await conn.execute("SELECT pg_notify($1, $2)", OPERATIONS, json.dumps(said))

    async def say_draining(self, draining: bool) -> None:
        """Write at once that this node drains (or takes tables again), and wake the other
        nodes to read it (as when a node joins): from then on none sends it a new table."""
        async with self._using("saying the node drains") as conn:
            await conn.execute(
                "UPDATE cluster_nodes SET draining = $2 WHERE name = $1", self.node, draining
            )
            await conn.execute(f"NOTIFY {CHANNEL}")

    async def node_list(self) -> list[NodeRow]:
        """Every node the database knows of, live or not, as its last renewal wrote it."""
        async with self._using("reading the nodes") as conn:
            rows = await conn.fetch(
                "SELECT name, address, lease_expires > now(), draining, connections, sessions, "
                "tables, playing, (EXTRACT(EPOCH FROM started) * 1000)::bigint "
                "FROM cluster_nodes ORDER BY name"
            )
        return [NodeRow(*row) for row in rows]

    async def sanctions(self) -> list[StoredSanction]:
        """Every stored ban and mute (read again once the listening connection is back: what
        was said while it was down is caught up so)."""
        async with self._using("reading the bans and mutes") as conn:
            rows = await conn.fetch(
                "SELECT kind, target, reason, admin, created_ms, expires_ms FROM sanctions "
                "ORDER BY created_ms, kind, target"
            )
        return [StoredSanction(*row) for row in rows]
