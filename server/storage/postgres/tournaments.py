"""The PostgreSQL backend's tournaments (a part of `pg_storage.PgStorage`, which gives it its
connection, its thread and its write-behind): one row per tournament, its state a blob
(`server.tournaments.store`), written when it changes and read at start.

On a cluster each row names the node that runs the tournament (a lone server's: the empty
name). A node writes only the rows it holds (or a new one): the upsert changes a row only where
it names this node, so a node that was away past its lease, whose tournaments another node took
over (`server.tournament_adopt`), writes nothing over them. The tournaments a commit left out so
are said (`PgStorage.take_tournament_commits`): what their requests were told waits for that.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any, Final

from .plan import Batched
from .records import PgPart

_SAVE: Final = (
    "INSERT INTO tournaments (name, node, state) "
    "SELECT * FROM unnest($1::text[], $2::text[], $3::bytea[]) "
    "ON CONFLICT (name) DO UPDATE SET state = EXCLUDED.state "
    "WHERE tournaments.node = EXCLUDED.node RETURNING name"
)


async def _save_tournaments(storage: Any, conn: Any, rows: list[tuple[Any, ...]]) -> None:
    """Store tournaments' states ``(name, node, state)`` in one statement; the names of those
    whose row names another node (nothing written) are added to the storage's
    `left_out_tournaments`."""
    latest = {name: (node, state) for name, node, state in rows}  # a later state replaces one
    written = await conn.fetch(
        _SAVE, list(latest), [n for n, _ in latest.values()], [s for _, s in latest.values()]
    )
    storage.left_out_tournaments |= set(latest) - {row[0] for row in written}


SAVES: Final = Batched(_save_tournaments)
"""The held write of a tournament's state (`save_tournament`)."""
_DELETE: Final = "DELETE FROM tournaments WHERE name = $1 AND node = $2"


class PgTournaments(PgPart):
    """What `PgStorage` stores of the tournaments."""

    fence: tuple[str, timedelta] | None

    @property
    def _node(self) -> str:
        return "" if self.fence is None else self.fence[0]

    def save_tournament(self, name: str, state: bytes) -> None:
        """Store a tournament's state, if this node holds it (or it is new)."""
        key = ("tournament", name)
        self._write((SAVES, (name, self._node, state)), f"store tournament {name!r}", key, (key,))

    def delete_tournament(self, name: str) -> None:
        """Forget a tournament this node holds."""
        key = ("tournament", name)
        self._write((_DELETE, (name, self._node)), f"forget tournament {name!r}", key, (key,))

    def load_tournaments(self) -> list[tuple[str, bytes]]:
        """The tournaments this node holds (a lone server: those of no node), in the order
        made."""
        rows = self._fetch(
            "load tournaments",
            "SELECT name, state FROM tournaments WHERE node = ? ORDER BY made",
            self._node,
        )
        return [(str(row[0]), bytes(row[1])) for row in rows]
