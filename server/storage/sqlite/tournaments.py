"""The SQLite backend's tournaments (a part of `sqlite_storage.SqliteStorage`, which gives it its
connection and its write-behind): one row per tournament, its state a blob
(`server.tournaments.store`), written when it changes (made, entered, started, a game's result)
and read once, at start."""

from __future__ import annotations

from typing import Final

from .records import SqlitePart

_SAVE: Final = (
    "INSERT INTO tournaments (name, state) VALUES (?, ?) "
    "ON CONFLICT (name) DO UPDATE SET state = excluded.state"
)
"""An upsert, not INSERT OR REPLACE: the row keeps its rowid, so the order made is kept."""


class SqliteTournaments(SqlitePart):
    """What `SqliteStorage` stores of the tournaments."""

    def save_tournament(self, name: str, state: bytes) -> None:
        """Store a tournament's state (with write-behind: held, a newer one replacing it)."""
        if self.write_behind:
            self._hold(("tournament", name), (_SAVE, (name, state)))
            return
        with self._transaction(f"store tournament {name!r}") as conn:
            conn.execute(_SAVE, (name, state))

    def delete_tournament(self, name: str) -> None:
        """Forget a tournament."""
        statement = "DELETE FROM tournaments WHERE name = ?"
        if self.write_behind:
            self._hold(("tournament", name), (statement, (name,)))
            return
        with self._transaction(f"forget tournament {name!r}") as conn:
            conn.execute(statement, (name,))

    def load_tournaments(self) -> list[tuple[str, bytes]]:
        """Every stored tournament, in the order made."""
        rows = self._fetch("load tournaments", "SELECT name, state FROM tournaments ORDER BY rowid")
        return [(str(name), bytes(state)) for name, state in rows]
