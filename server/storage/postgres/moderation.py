"""The PostgreSQL backend's moderation: bans and mutes, the admins' audit log, and aborted games
(a part of `pg_storage.PgStorage`, which gives it its connection, its thread and its
write-behind). The same contract as `sqlite_moderation`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Final, TypeVar

from sushigo.server.storage.contract import (
    AuditRecord,
    Ending,
    GameStore,
    StoredSanction,
)

from .records import PgPart, Skipped

T = TypeVar("T")

_SAVE_SANCTION: Final = (
    "INSERT INTO sanctions (kind, target, reason, admin, created_ms, expires_ms) "
    "VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (kind, target) DO UPDATE SET "
    "reason = excluded.reason, admin = excluded.admin, created_ms = excluded.created_ms, "
    "expires_ms = excluded.expires_ms"
)
_ADD_AUDIT: Final = (
    "INSERT INTO audit_log (at_ms, admin, action, target, detail) VALUES ($1, $2, $3, $4, $5)"
)
_ABORT: Final = (
    # One statement, as a finished game's (pg_records._FINISH): nothing changes when the game is
    # stored already.
    "WITH stored AS ("
    "INSERT INTO aborted_games (game_id, table_id, kind, aborted_ms, record, signature, reason) "
    "VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (game_id) DO NOTHING RETURNING game_id), "
    "seats AS (INSERT INTO aborted_results (game_id, seat, player_id, name, score, place) "
    "SELECT $1, s.seat, s.player_id, s.name, s.score, s.place FROM unnest("
    "$8::integer[], $9::text[], $10::text[], $11::integer[], $12::integer[]"
    ") AS s (seat, player_id, name, score, place) WHERE EXISTS (SELECT 1 FROM stored)), "
    "heads AS (DELETE FROM tables_in_progress "
    "WHERE table_id = $2 AND EXISTS (SELECT 1 FROM stored)), "
    "turns AS (DELETE FROM table_turns WHERE table_id = $2 AND EXISTS (SELECT 1 FROM stored)), "
    "tokens AS (DELETE FROM tokens WHERE table_id = $2 AND EXISTS (SELECT 1 FROM stored)) "
    "SELECT count(*) FROM stored"
)


class PgModeration(PgPart, GameStore):
    """What `PgStorage` stores for its admins."""

    def _unsure(self, what: str, write: Callable[[Any], Awaitable[None]]) -> Any:
        raise NotImplementedError

    # --- bans and mutes --------------------------------------------------------------------------

    def save_sanction(self, sanction: StoredSanction) -> None:
        """Store a ban or mute, replacing the one of the same kind and target."""
        s = sanction
        params = (s.kind, s.target, s.reason, s.admin, s.created_ms, s.expires_ms)
        self._write((_SAVE_SANCTION, params), f"store the {s.kind} of {s.target}")

    def delete_sanction(self, kind: str, target: str) -> None:
        """Forget a ban or mute (no error if there is none)."""
        self._write(
            ("DELETE FROM sanctions WHERE kind = $1 AND target = $2", (kind, target)),
            f"lift the {kind} of {target}",
        )

    # --- the audit log ---------------------------------------------------------------------------

    def add_audit(self, entry: AuditRecord) -> None:
        """Append an admin action to the audit log."""
        e = entry
        self._write((_ADD_AUDIT, (e.at_ms, e.admin, e.action, e.target, e.detail)), "audit")

    # --- aborted games ---------------------------------------------------------------------------

    def _store_aborted(self, game: Ending, aborted_ms: int, reason: str) -> None:
        """`abort_game`, as one statement (`_ABORT`)."""
        table_id, game_id, kind, record, signature, players = game
        rows = [(p.seat, p.player_id, p.name, p.score, p.place) for p in players]
        columns: list[Sequence[Any]] = list(zip(*rows, strict=True)) if rows else [[]] * 5
        args = (game_id, table_id, kind, aborted_ms, record, signature, reason, *columns)

        async def store(conn: Any) -> None:
            if not await conn.fetchval(_ABORT, *args):
                raise Skipped(f"game {game_id} is already stored")

        what = f"store aborted game {game_id!r}"
        self._retire(table_id)
        self._write((self._unsure(what, store), None), what)
