"""The PostgreSQL backend's tournaments (a part of `pg_storage.PgStorage`, which gives it its
connection, its thread and its write-behind): one row per tournament, its state a blob
(`server.tournaments.store`), written when it changes and read at start.

On a cluster each row names the node that runs the tournament (a lone server's: the empty
name). A node writes only the rows it holds (or a new one): the upsert changes a row only where
it names this node, so a node that was away past its lease, whose tournaments another node took
over (`server.tournament_adopt`), writes nothing over them.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Final

from .records import PgPart

_SAVE: Final = (
    "INSERT INTO tournaments (name, node, state) VALUES ($1, $2, $3) "
    "ON CONFLICT (name) DO UPDATE SET state = EXCLUDED.state "
    "WHERE tournaments.node = EXCLUDED.node"
)
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
        self._write((_SAVE, (name, self._node, state)), f"store tournament {name!r}", key, (key,))

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
