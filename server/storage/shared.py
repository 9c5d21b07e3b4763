"""What both backends do alike, written once: the reads whose SQL is the same on SQLite and on
PostgreSQL, made into the contract's values, and the check of a rating before it is stored.

The SQL is written with ``?`` placeholders; each backend runs it its own way (`SharedReads._fetch`
and `_fetchrow`: PostgreSQL's numbers the placeholders first, `postgres.records.numbered`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from sushigo.server.storage.contract import (
    AbortedGame,
    AuditRecord,
    Identity,
    LeaderboardEntry,
    PlayerResult,
    RecordSummary,
    StoredRecord,
    StoredSanction,
)


def check_ratings(ratings: Mapping[str, tuple[float, float]]) -> None:
    """ValueError unless every rating is finite with a positive sigma."""
    for player_id, (mu, sigma) in ratings.items():
        if not (math.isfinite(mu) and math.isfinite(sigma) and sigma > 0):
            raise ValueError(f"bad rating for {player_id}: mu={mu}, sigma={sigma}")


class SharedReads:
    """The `Storage` reads that differ between the backends only in how a query runs: each
    backend's part (`SqlitePart`, `PgPart`) supplies `_fetch` and `_fetchrow`."""

    def _fetch(self, what: str, sql: str, *args: Any) -> list[Any]:
        """The rows `sql` selects with `args` for its ``?`` (`what`: what is read, for an
        error's message)."""
        raise NotImplementedError

    def _fetchrow(self, what: str, sql: str, *args: Any) -> Any:
        """The first row `sql` selects, or None."""
        raise NotImplementedError

    def _page(self, what: str, sql: str, limit: int, offset: int, *args: Any) -> list[Any]:
        """One page of the rows `sql` selects (in its order) with `args`: `limit` rows at most,
        after the first `offset` (neither negative, else ValueError)."""
        if limit < 0 or offset < 0:
            raise ValueError(f"limit and offset must be >= 0, not {limit}, {offset}")
        return self._fetch(what, f"{sql} LIMIT ? OFFSET ?", *args, limit, offset)

    def get_record(self, game_id: str) -> StoredRecord | None:
        """A finished game with its record and signature, or None."""
        what = f"read game {game_id!r}"
        row = self._fetchrow(
            what,
            "SELECT game_id, table_id, kind, finished_ms, record, signature, server_key "
            "FROM records WHERE game_id = ?",
            game_id,
        )
        if row is None:
            return None
        players = self._results(what, [game_id])[game_id]
        g, t, k, f, r, s, key = row
        key = None if key is None else bytes(key)
        return StoredRecord(g, t, k, f, players, bytes(r), bytes(s), server_key=key)

    def list_records(
        self, limit: int = 50, offset: int = 0, player_id: str | None = None
    ) -> list[RecordSummary]:
        """Finished games, newest first; only those `player_id` played in when given."""
        if player_id is None:
            rows = self._page(
                "list games",
                "SELECT game_id, table_id, kind, finished_ms FROM records "
                "ORDER BY finished_ms DESC, game_id",
                limit,
                offset,
            )
        else:
            rows = self._page(
                "list games",
                "SELECT r.game_id, r.table_id, r.kind, r.finished_ms FROM records r "
                "WHERE r.game_id IN (SELECT game_id FROM results WHERE player_id = ?) "
                "ORDER BY r.finished_ms DESC, r.game_id",
                limit,
                offset,
                player_id,
            )
        results = self._results("list games", [row[0] for row in rows])
        return [RecordSummary(g, t, k, f, results[g]) for g, t, k, f in rows]

    def aborted_games(self, limit: int = 50, offset: int = 0) -> list[AbortedGame]:
        """Aborted games with their records, newest first."""
        rows = self._page(
            "list aborted games",
            "SELECT game_id, table_id, kind, aborted_ms, record, signature, reason "
            "FROM aborted_games ORDER BY aborted_ms DESC, game_id",
            limit,
            offset,
        )
        results = self._results("list aborted games", [row[0] for row in rows], "aborted_results")
        return [
            AbortedGame(g, t, k, at, results[g], bytes(r), bytes(s), reason)
            for g, t, k, at, r, s, reason in rows
        ]

    def _results(
        self, what: str, game_ids: Sequence[str], table: str = "results"
    ) -> dict[str, tuple[PlayerResult, ...]]:
        """Each game's results, in seat order (of finished games; or of aborted ones from
        ``aborted_results``). A game's results are stored with it, in one transaction, and
        never deleted: read after the games, they are there."""
        found: dict[str, list[PlayerResult]] = {game_id: [] for game_id in game_ids}
        if game_ids:
            marks = ", ".join("?" * len(game_ids))
            for row in self._fetch(
                what,
                f"SELECT game_id, player_id, name, seat, score, place FROM {table} "
                f"WHERE game_id IN ({marks}) ORDER BY game_id, seat",
                *game_ids,
            ):
                found[row[0]].append(PlayerResult(*row[1:]))
        return {game_id: tuple(results) for game_id, results in found.items()}

    def keyless_records(self, after: str, limit: int) -> list[tuple[str, bytes, bytes]]:
        """Games stored without their key, by id after `after` (`Storage.keyless_records`)."""
        rows = self._fetch(
            "read records without a key",
            "SELECT game_id, record, signature FROM records WHERE server_key IS NULL "
            "AND game_id > ? ORDER BY game_id LIMIT ?",
            after,
            limit,
        )
        return [(g, bytes(r), bytes(s)) for g, r, s in rows]

    def name_holders(self, key: str) -> list[str]:
        """The player ids of the identities whose name's look-alike key is `key` (two at most)."""
        rows = self._fetch(
            "read the names", "SELECT player_id FROM identities WHERE name_key = ? LIMIT 2", key
        )
        return [str(row[0]) for row in rows]

    def get_identity(self, player_id: str) -> Identity | None:
        """A stored identity, or None."""
        row = self._fetchrow(
            f"read identity {player_id}",
            "SELECT public_key, name, first_seen_ms, last_seen_ms FROM identities "
            "WHERE player_id = ?",
            player_id,
        )
        if row is None:
            return None
        return Identity(player_id, bytes(row[0]), row[1], row[2], row[3])

    def leaderboard(self, limit: int = 20, *, kind: str) -> list[LeaderboardEntry]:
        """Players rated at game `kind`, best first by ``mu - 3 * sigma`` (openskill's ordinal);
        `games` counts their finished games of that kind."""
        rows = self._fetch(
            "read the leaderboard",
            "SELECT r.player_id, i.name, r.mu, r.sigma, "
            "(SELECT count(*) FROM results s JOIN records g USING (game_id) "
            "WHERE s.player_id = r.player_id AND g.kind = r.kind) "
            "FROM ratings r JOIN identities i USING (player_id) WHERE r.kind = ? "
            "ORDER BY r.mu - 3 * r.sigma DESC, r.player_id LIMIT ?",
            kind,
            limit,
        )
        return [LeaderboardEntry(p, n, mu, sigma, int(games)) for p, n, mu, sigma, games in rows]

    def standing(self, player_id: str, kind: str) -> tuple[int, int, LeaderboardEntry | None]:
        """Where `player_id` stands on `kind`'s ladder (see `Storage.standing`)."""
        what = f"read the standing of {player_id}"
        total = self._fetchrow(what, "SELECT count(*) FROM ratings WHERE kind = ?", kind)[0]
        # Ahead of the player: a better ordinal, or the same with a smaller id (the order of
        # `leaderboard`). The ordinal is computed by the database on both sides, the same way.
        row = self._fetchrow(
            what,
            "SELECT r.mu, r.sigma, i.name, "
            "(SELECT count(*) FROM ratings o WHERE o.kind = r.kind AND "
            "(o.mu - 3 * o.sigma > r.mu - 3 * r.sigma OR "
            "(o.mu - 3 * o.sigma = r.mu - 3 * r.sigma AND o.player_id < r.player_id))), "
            "(SELECT count(*) FROM results s JOIN records g USING (game_id) "
            "WHERE s.player_id = r.player_id AND g.kind = r.kind) "
            "FROM ratings r JOIN identities i USING (player_id) "
            "WHERE r.kind = ? AND r.player_id = ?",
            kind,
            player_id,
        )
        if row is None:
            return int(total), 0, None
        mu, sigma, name, ahead, games = row
        return int(total), int(ahead) + 1, LeaderboardEntry(player_id, name, mu, sigma, int(games))

    def load_sanctions(self) -> list[StoredSanction]:
        """Every stored ban and mute, oldest first."""
        rows = self._fetch(
            "read the bans and mutes",
            "SELECT kind, target, reason, admin, created_ms, expires_ms FROM sanctions "
            "ORDER BY created_ms, kind, target",
        )
        return [StoredSanction(*row) for row in rows]

    def audit_log(self, limit: int = 50, offset: int = 0) -> list[AuditRecord]:
        """The audit log, newest first."""
        rows = self._page(
            "read the audit log",
            "SELECT at_ms, admin, action, target, detail FROM audit_log "
            "ORDER BY at_ms DESC, id DESC",
            limit,
            offset,
        )
        return [AuditRecord(*row) for row in rows]
