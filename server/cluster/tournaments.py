"""What a cluster's node shares of its tournaments, a part of `server.cluster.node.Cluster`: each
tournament as its home node (the one it was made on, which runs it) last said it, in the
database's `listed_tournaments` (`publish_tournaments_soon`), read by the other nodes for
LIST_TOURNAMENTS (`tournaments`) and to send a tournament's players to its home node
(`tournament_home`); a name is the cluster's once (`claim_tournament`). A tournament's game
placed on another node: its tickets recorded (`placed`), its table claimed by one node only
(`claim_game`), and its result learnt back from its stored record (`game_result_when`: told by
a NOTIFY from the node that stores it), or the game taken back when nobody made its table."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from datetime import timedelta
from typing import Final

from sushigo.server.routing.redirect import Owner
from sushigo.server.storage.contract import StorageError

from .base import TICKET_SECONDS, Connected, Outage, Spaced

log = logging.getLogger("sushigo.server")

TOURNAMENTS_MAX: Final = 100
"""Other nodes' tournaments one LIST_TOURNAMENTS reads at most (the answer holds 100)."""
POLL: Final = 0.25
"""Seconds between two looks whether a placed game's entrants are back (in memory)."""
SLOW_POLL: Final = 5.0
"""Seconds between two looks for a placed game's record when no NOTIFY came (one missed: the
listening connection was down a moment)."""
RECORDS: Final = "sushigo_records"
"""NOTIFY'd (with a table's id) by the node that stored the record of a tournament's game placed
on it, in the commit that stores it: the tournament's home node reads the result at once."""
HOME_PAUSE: Final = 1.0
"""Seconds between two looks for a tournament's node while none runs it (restarting)."""
SPACING: Final = 0.25
"""Seconds at least between two publications of a node's tournaments."""

Published = list[tuple[str, bytes]]
"""A node's tournaments: (name, TOURNAMENT_INFO packed)."""


class TournamentShare(Connected):
    """The part of a node that shares its tournaments with the other nodes."""

    _tournament_publications: Spaced[Callable[[], Published]] | None = None
    """`publish_tournaments_soon`'s publisher (made at the first)."""
    _recorded: dict[str, asyncio.Event] | None = None
    """Placed games whose result this node waits for: set when their record is NOTIFY'd."""

    async def claim_tournament(self, name: str, info: bytes) -> bool:
        """Take `name` for a new tournament of this node: False if a live node holds a
        tournament of that name (a dead node's gives it up). One conditional upsert decides,
        so of two nodes making one name at once, one gets it."""
        async with self._using("claiming a tournament's name") as conn:
            taken = await conn.fetchval(
                "INSERT INTO listed_tournaments (name, node, info) VALUES ($1, $2, $3) "
                "ON CONFLICT (name) DO UPDATE SET node = EXCLUDED.node, info = EXCLUDED.info, "
                "created = now() WHERE listed_tournaments.node = EXCLUDED.node OR NOT EXISTS "
                "(SELECT 1 FROM cluster_nodes n WHERE n.name = listed_tournaments.node "
                "AND n.lease_expires > now()) RETURNING 1",
                name,
                self.node,
                info,
            )
        return taken is not None

    def publish_tournaments_soon(self, published: Callable[[], Published]) -> None:
        """Say this node's tournaments (`published()`, as they are then) soon: one publication
        at a time, at most one every `SPACING` however many ask (each finished game asks); a
        failed one is logged, and the next change publishes them again."""
        if self._tournament_publications is None:
            self._tournament_publications = Spaced(
                self._spawn, self._publish_tournaments, SPACING, "publishing tournaments"
            )
        self._tournament_publications.want(published)

    async def _publish_tournaments(self, published: Callable[[], Published]) -> None:
        async with self._using("publishing tournaments") as conn, conn.transaction():
            rows = published()
            names = [name for name, _ in rows]
            await conn.execute(
                "DELETE FROM listed_tournaments WHERE node = $1 AND NOT (name = ANY($2::text[]))",
                self.node,
                names,
            )
            # Its own rows (again: a publication under way as a name was claimed may have taken
            # its row out), never one another live node claimed.
            await conn.execute(
                "INSERT INTO listed_tournaments (name, node, info) "
                "SELECT n, $1, i FROM unnest($2::text[], $3::bytea[]) AS u(n, i) "
                "ON CONFLICT (name) DO UPDATE SET info = EXCLUDED.info "
                "WHERE listed_tournaments.node = EXCLUDED.node",
                self.node,
                names,
                [info for _, info in rows],
            )

    async def tournaments(self) -> list[bytes]:
        """The other live nodes' tournaments as they last said them (packed TOURNAMENT_INFOs),
        the newest first, `TOURNAMENTS_MAX` at most."""
        async with self._using("reading the tournaments") as conn:
            rows = await conn.fetch(
                "SELECT l.info FROM listed_tournaments l JOIN cluster_nodes n "
                "ON n.name = l.node AND n.lease_expires > now() WHERE l.node <> $1 "
                "ORDER BY l.created DESC LIMIT $2",
                self.node,
                TOURNAMENTS_MAX,
            )
        return [bytes(row[0]) for row in rows]

    async def tournament_home(self, name: str) -> Owner | None:
        """Where the tournament `name` lives (`Owner.table_id` is its name); None: nowhere."""
        async with self._using("finding a tournament") as conn:
            # Its stored row names its node too: a node restarted under its name (its listing
            # given up as it stopped) runs it again before it publishes its tournaments.
            row = await conn.fetchrow(
                "SELECT coalesce(l.node, t.node), n.address, n.lease_expires > now() "
                "FROM (SELECT $1::text AS name) q LEFT JOIN listed_tournaments l USING (name) "
                "LEFT JOIN tournaments t USING (name) "
                "LEFT JOIN cluster_nodes n ON n.name = coalesce(l.node, t.node) "
                "WHERE l.node IS NOT NULL OR t.node IS NOT NULL",
                name,
            )
        if row is None:
            return None
        return Owner(name, row[0], row[1], bool(row[2]))

    async def game_result(self, table_id: str) -> list[tuple[int, int]] | None:
        """The result of the game played at `table_id`, whichever node played it: each seat's
        (score, place), in seat order, from its stored record; None while there is none (a
        tournament's table plays one game, so its id names the game)."""
        async with self._using("reading a game's result") as conn:
            rows = await conn.fetch(
                "SELECT s.score, s.place FROM records r JOIN results s USING (game_id) "
                "WHERE r.table_id = $1 ORDER BY s.seat",
                table_id,
            )
        return [(row[0], row[1]) for row in rows] or None

    async def placed(self, table_id: str, issued: list[tuple[bytes, str]]) -> float:
        """Record the tickets (id, player id) of a game placed on another node at `table_id`,
        in one statement, each good for `TICKET_SECONDS`; when, by the database's clock
        (seconds since the epoch), home may take the game back if no node made its table by
        then (`claim_game`): a lease on. `StorageError` if they could not be recorded."""
        async with self._using("recording a tournament game's tickets") as conn:
            deadline = await conn.fetchval(
                "WITH issued AS (INSERT INTO tickets (ticket_id, table_id, player_id, expires) "
                "SELECT u.id, $1, u.player, now() + $4::interval "
                "FROM unnest($2::bytea[], $3::text[]) AS u(id, player)) "
                "SELECT extract(epoch FROM now() + $5::interval)::float8",
                table_id,
                [ticket_id for ticket_id, _ in issued],
                [player_id for _, player_id in issued],
                timedelta(seconds=TICKET_SECONDS),
                self._interval,
            )
        return float(deadline)

    async def claim_game(self, table_id: str) -> bool:
        """Make a placed tournament game's table this node's: True if it is (now, or already);
        False if another node holds it or its game was played (its record is stored).

        Both ends of a placement ask it: the node the game was placed on when an entrant
        arrives (before seating it), and the tournament's home node when nobody made the table
        in time (to play it at home). One conditional row decides, the table's lease: of the
        two asking at once, one inserts it and the other finds it, so a game is never played
        on both. The asker holds the table (empty) while it asks, so its own renewal neither
        gives the new lease up nor keeps one it lost. Asked again (every `POLL`) while the
        database cannot answer: whether the row went in is known only from an answer."""
        outage = Outage(f"claiming the table of tournament game {table_id}")
        while True:
            try:
                claimed = await self._claim_game(table_id)
            except StorageError as exc:
                outage.failed(exc)
                await asyncio.sleep(POLL)
                continue
            outage.worked()
            return claimed

    async def _claim_game(self, table_id: str) -> bool:
        async with self._using("claiming a tournament game's table") as conn:
            node = await conn.fetchval(
                "INSERT INTO table_leases (table_id, node, lease_expires) "
                "SELECT $1, $2, now() + $3::interval WHERE NOT EXISTS "
                "(SELECT 1 FROM records WHERE table_id = $1) "
                "ON CONFLICT (table_id) DO NOTHING RETURNING node",
                table_id,
                self.node,
                self._interval,
            )
            if node is None:  # a statement of its own: it sees the lease another just made
                node = await conn.fetchval(
                    "SELECT node FROM table_leases WHERE table_id = $1 AND NOT EXISTS "
                    "(SELECT 1 FROM records WHERE table_id = $1)",
                    table_id,
                )
        return bool(node == self.node)

    async def _due(self, table_id: str, deadline: float) -> float | None:
        """How long until home may take the placed game back (0: now): no lease names its table
        (never made, or its node died before its game began: a game begun is saved, and its
        lease is taken over) and no record; None while a node holds it, or it was played."""
        async with self._using("looking for a tournament game's table") as conn:
            row = await conn.fetchrow(
                "SELECT greatest(extract(epoch FROM to_timestamp($2) - now()), 0)::float8, "
                "EXISTS (SELECT 1 FROM table_leases WHERE table_id = $1) "
                "OR EXISTS (SELECT 1 FROM records WHERE table_id = $1)",
                table_id,
                deadline,
            )
        return None if row[1] else float(row[0])

    def recorded_soon(self, table_id: str) -> None:
        """The record of a game placed here by another node's tournament is being stored: tell
        its home node (NOTIFY `RECORDS`) in the commit that stores it."""
        if self.storage is not None:
            self.storage.notify_after(table_id, RECORDS, table_id)

    def _heard_record(self, _conn: object, _pid: int, _channel: str, payload: str) -> None:
        event = (self._recorded or {}).get(payload)
        if event is not None:
            event.set()

    async def game_result_when(
        self, table_id: str, deadline: float, back: Callable[[], bool]
    ) -> list[tuple[int, int]] | None:
        """`game_result` once there is one (looked for when its node NOTIFYs `RECORDS`, and
        every `SLOW_POLL` in case one is missed), and once `back()` (its entrants are home
        again) or a lease later (as long as a dead node's tables wait). None: nobody made the
        table by `deadline` (`_due`), home is to take the game back."""
        if self._recorded is None:
            self._recorded = {}
        heard = self._recorded[table_id] = asyncio.Event()
        outage = Outage(f"looking for the result of tournament game {table_id}")
        try:
            result = None
            while result is None:
                wait = SLOW_POLL
                heard.clear()
                try:
                    result = await self.game_result(table_id)
                    if result is None:
                        due = await self._due(table_id, deadline)
                        if due == 0:
                            return None
                        if due is not None:  # looked for again at its deadline
                            wait = min(wait, due + POLL)
                except StorageError as exc:  # the database away a moment: look again
                    outage.failed(exc)
                    wait = POLL
                else:
                    outage.worked()
                if result is None:
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(wait):
                            await heard.wait()
        finally:
            del self._recorded[table_id]
        loop = asyncio.get_running_loop()
        until = loop.time() + self.lease
        while not back() and loop.time() < until:
            await asyncio.sleep(POLL)
        return result

    async def home_pause(self) -> None:
        """Return when an entrant on its way home may look for its tournament's node again
        (`HOME_PAUSE` from now; for the core, which reads no clock)."""
        await asyncio.sleep(HOME_PAUSE)

    async def arrivals(self) -> None:
        """Return when a placed game's table stops waiting for its entrants: a lease from now
        (for the core, which reads no clock)."""
        await asyncio.sleep(self.lease)
