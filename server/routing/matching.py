"""Quick match as one queue for the whole cluster (sans-IO, like `server.routing.redirect`).

A node seats a player who asks for a quick match at once, at its own table of that game and
size that waits for players (or a new one): the lone node's path, with no question to
PostgreSQL. Each node publishes the tables that wait (`quick_tables`: game, size, free seats).
One node at a time (`Cluster.match`, under an advisory lock, every `MATCH_SECONDS`) reads those
that have waited `quick_patience` and merges the ones of the same game and size (`plan`): the
players of the emptiest go to the fullest, so players spread over the nodes sit at as few
tables as they fill, whichever nodes they asked. A node told to move some of its players
(`move_out`) sends each an unasked REDIRECT with a ticket (`tickets.Quick`) and frees the seat;
the client follows, and the node it names seats it at once (`Lobby.arrive_quick`, a
TABLE_JOINED with no ref): at that table, or, if it filled or closed meanwhile, at another of
that game and size there (a new one if none waits). A player who cannot follow (the node died meanwhile, or
refused the ticket) asks for a quick match again where it is (`client.link`).

Only a client that announced the capability ``quick_move`` is moved (an older library would
follow and then sit in the other node's lobby); its seat is still counted, so others come to
it. A draining node's tables give their players away and take none: a game with no table on a
node that takes players gets a new one on the least-loaded node (`spare`).
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from itertools import groupby
from typing import Final, Protocol

from sushigo.protocol import Redirect, TableStatus
from sushigo.protocol.versions import REDIRECT_VERSION
from sushigo.server.sessions.session import Session
from sushigo.server.tables.table import Table

from . import tickets
from .redirect import RedirectHost

__all__ = ["MATCH_SECONDS", "QUICK_MOVE", "Move", "Waiting", "move_out", "plan"]

log = logging.getLogger("sushigo.server")

QUICK_MOVE: Final = "quick_move"
"""The capability of a client that follows an unasked REDIRECT to another node's quick match
(and, when it cannot, asks for a quick match again where it is)."""
MATCH_SECONDS: Final = 0.5
"""How often each node of a cluster tries to be the one that merges the waiting tables: a
player spread from the others waits `quick_patience` and at most this much more."""


@dataclass(frozen=True, slots=True)
class Waiting:
    """A quick-match table that waits for players, as its node published it."""

    table_id: str
    node: str
    address: str
    """Its node's advertised address."""
    kind: str
    players: int
    free: int
    """Its free seats (the others are taken)."""


@dataclass(frozen=True, slots=True)
class Move:
    """Players to move from one quick-match table to another (`plan`)."""

    source: str
    """The table they leave."""
    node: str
    """Its node, which moves them."""
    count: int
    table_id: str
    """The table they go to."""
    to_node: str
    address: str
    """That node's address."""
    kind: str
    players: int
    new: bool = False
    """The table is to be made there (no table of its game and size waits where players are
    taken)."""


Spare = Callable[[], tuple[str, str] | None]
"""The node (name, address) a new quick-match table may open on (None: none takes players)."""


def plan(
    waiting: Iterable[Waiting],
    draining: Collection[str] = (),
    spare: Spare | None = None,
    new_id: Callable[[], str] = lambda: secrets.token_hex(6),
) -> list[Move]:
    """The moves that merge the waiting tables of each game and size: the fullest tables take
    the players of the emptiest, each table giving only to fuller ones (so no two moves undo
    each other, and a table that is left alone stays); a table on a `draining` node gives all
    its players away (to a new table on the `spare` node if none takes them)."""
    moves: list[Move] = []
    tables = sorted(waiting, key=lambda w: (w.kind, w.players))
    for _, group in groupby(tables, key=lambda w: (w.kind, w.players)):
        moves.extend(_merge(list(group), draining, spare, new_id))
    return moves


def _merge(
    group: list[Waiting], draining: Collection[str], spare: Spare | None, new_id: Callable[[], str]
) -> list[Move]:
    seated = {w.table_id: w.players - w.free for w in group}
    free = {w.table_id: w.free for w in group}
    # Fullest first; of two as full, the one with the smaller id (every node plans alike).
    takers = sorted(
        (w for w in group if w.node not in draining),
        key=lambda w: (-seated[w.table_id], w.table_id),
    )
    rank = {w.table_id: i for i, w in enumerate(takers)}
    givers = [w for w in group if w.node in draining] + takers[::-1]
    moves: list[Move] = []
    for giver in givers:
        leaving = giver.node in draining
        while seated[giver.table_id] > 0:
            taker = next(
                (
                    t
                    for t in takers
                    if free[t.table_id] > 0
                    and t.table_id != giver.table_id
                    and (leaving or rank[t.table_id] < rank[giver.table_id])
                ),
                None,
            )
            if taker is None and leaving and spare is not None:
                target = spare()
                if target is not None:
                    taker = Waiting(new_id(), *target, giver.kind, giver.players, giver.players)
                    free[taker.table_id] = taker.free
                    rank[taker.table_id] = -1  # made for these: nobody gives to it but them
                    takers.insert(0, taker)
            if taker is None:
                break
            count = min(seated[giver.table_id], free[taker.table_id])
            seated[giver.table_id] -= count
            free[taker.table_id] -= count
            new = taker.table_id not in seated
            moves.append(
                Move(
                    giver.table_id,
                    giver.node,
                    count,
                    taker.table_id,
                    taker.node,
                    taker.address,
                    giver.kind,
                    giver.players,
                    new,
                )
            )
    return moves


class MatchHost(RedirectHost, Protocol):
    """What moving players needs of the server (the hub)."""

    def table_changed(self, table: Table) -> None:
        """Tell the table's people what it looks like now."""


def _movable(session: Session) -> bool:
    """Connected with a client that follows a quick match's REDIRECT."""
    proto = session.conn
    return (
        session.attached
        and proto.version is not None
        and proto.version >= REDIRECT_VERSION
        and QUICK_MOVE in proto.capabilities
    )


def move_out(hub: MatchHost, moves: list[Move]) -> None:
    """Move players of this node's waiting tables as `moves` say (the matcher's plan): each is
    issued a ticket (recorded in the database), then its seat is freed and it is sent an
    unasked REDIRECT there. A table whose game began meanwhile keeps its players; fewer than
    planned move if fewer can (an older client, a server bot)."""
    cluster = hub.cluster
    if cluster is None:
        return
    for move in moves:
        table = hub.tables.get(move.source)
        if table is None or not table.quick or table.status is not TableStatus.OPEN:
            continue
        # The last seated first: the longest wait stays.
        people = [
            seat.session
            for seat in reversed(table.seating.seats)
            if isinstance(seat.session, Session) and _movable(seat.session)
        ][: move.count]
        if people:
            _send(hub, table, move, people)


def _send(hub: MatchHost, table: Table, move: Move, people: list[Session]) -> None:
    cluster = hub.cluster
    assert cluster is not None
    quick = tickets.Quick(move.kind, move.players)
    place = move.to_node if move.new else ""
    issued = [
        (
            s,
            *tickets.issue(
                hub.key, move.table_id, s.player_id, s.name, s.guest, place, quick=quick
            ),
        )
        for s in people
    ]

    async def job() -> None:
        for session, ticket, _ in issued:
            await cluster.issue(ticket.ticket_id, move.table_id, session.player_id)

    def then(_: None, now: float) -> None:
        if hub.tables.get(table.table_id) is not table or table.status is not TableStatus.OPEN:
            return  # it filled (its game began) or closed meanwhile: nobody moves
        moved = 0
        for session, _ticket, data in issued:
            if session.table is not table or session.seat is None or not session.attached:
                continue
            hub.lobby.unseat(session, table)
            session.send(Redirect(address=move.address, table_id=move.table_id, ticket=data))
            moved += 1
        log.info(
            "quick match: %d of table %s sent to table %s at %s",
            moved,
            table.table_id,
            move.table_id,
            move.to_node,
        )

    hub.ask(job, then, conn=None, ref=None, what="a quick match's tickets")
