"""The SQLite backend's moderation: bans and mutes, the admins' audit log, and aborted games (a
part of `sqlite_storage.SqliteStorage`, which gives it its connection and its write-behind).

The server calls the writes while it serves (an admin acts): with write-behind they are held and
committed with the writes of play, in order. It reads the sanctions once, at start, and the audit
log and aborted games only for an admin or a tool, off its event loop.
"""

from __future__ import annotations

from typing import Any, Final

from sushigo.server.storage.contract import (
    AuditRecord,
    Ending,
    GameStore,
    StoredSanction,
)

from .records import ABORTED, GameTables, SqlitePart

_SAVE_SANCTION: Final = (
    "INSERT OR REPLACE INTO sanctions (kind, target, reason, admin, created_ms, expires_ms) "
    "VALUES (?, ?, ?, ?, ?, ?)"
)
_DELETE_SANCTION: Final = "DELETE FROM sanctions WHERE kind = ? AND target = ?"
_ADD_AUDIT: Final = (
    "INSERT INTO audit_log (at_ms, admin, action, target, detail) VALUES (?, ?, ?, ?, ?)"
)


class SqliteModeration(SqlitePart, GameStore):
    """What `SqliteStorage` stores for its admins."""

    def _store_game(self, game: Ending, tables: GameTables, when: int, extra: object) -> None:
        raise NotImplementedError

    def _write(self, statement: str, params: tuple[Any, ...], what: str) -> None:
        """One statement: held with write-behind, else committed now."""
        if self.write_behind:
            self._hold(next(self._keys), (statement, params))
            return
        with self._transaction(what) as conn:
            conn.execute(statement, params)

    # --- bans and mutes --------------------------------------------------------------------------

    def save_sanction(self, sanction: StoredSanction) -> None:
        """Store a ban or mute, replacing the one of the same kind and target."""
        s = sanction
        params = (s.kind, s.target, s.reason, s.admin, s.created_ms, s.expires_ms)
        self._write(_SAVE_SANCTION, params, f"store the {s.kind} of {s.target}")

    def delete_sanction(self, kind: str, target: str) -> None:
        """Forget a ban or mute (no error if there is none)."""
        self._write(_DELETE_SANCTION, (kind, target), f"lift the {kind} of {target}")

    # --- the audit log ---------------------------------------------------------------------------

    def add_audit(self, entry: AuditRecord) -> None:
        """Append an admin action to the audit log."""
        e = entry
        self._write(_ADD_AUDIT, (e.at_ms, e.admin, e.action, e.target, e.detail), "audit")

    # --- aborted games ---------------------------------------------------------------------------

    def _store_aborted(self, game: Ending, aborted_ms: int, reason: str) -> None:
        """`abort_game`: stored apart from the finished games, its table retired, in one
        transaction (held with write-behind)."""
        self._store_game(game, ABORTED, aborted_ms, reason)
