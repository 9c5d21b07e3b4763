"""The PostgreSQL backend's resume tokens kept in memory, so that a resume never waits for the
database (a part of `pg_storage.PgStorage`: read once at open, kept up to date by every write,
and read again for the tables a node of a cluster takes over)."""

from __future__ import annotations

from typing import Any

from sushigo.server.storage.contract import TokenEntry, assemble_tables

__all__ = ["KeptTokens", "read_tables"]


class KeptTokens:
    """Every stored token by its hash, and each seat's token."""

    def __init__(self) -> None:
        self._tokens: dict[bytes, TokenEntry] = {}
        """Every stored token by its hash."""
        self._seats: dict[str, dict[int, bytes]] = {}
        """The token of each seat, by table and seat (a table's are found without looking at
        every token: a crowd of games ending at once retires as many tables)."""

    def _remember(self, token_hash: bytes, entry: TokenEntry) -> None:
        seats = self._seats.setdefault(entry.table_id, {})
        old = seats.get(entry.seat)
        if old is not None:
            self._tokens.pop(old, None)
        self._unremember(token_hash)
        self._tokens[token_hash] = entry
        seats[entry.seat] = token_hash

    def _unremember(self, token_hash: bytes) -> TokenEntry | None:
        entry = self._tokens.pop(token_hash, None)
        if entry is not None:
            seats = self._seats.get(entry.table_id, {})
            seats.pop(entry.seat, None)
            if not seats:
                self._seats.pop(entry.table_id, None)
        return entry

    def _forget_table(self, table_id: str) -> None:
        for token_hash in self._seats.pop(table_id, {}).values():
            self._tokens.pop(token_hash, None)

    def find_token(self, token_hash: bytes) -> TokenEntry | None:
        """Where the token leads, or None (from memory: the server never waits for this)."""
        return self._tokens.get(token_hash)

    def tables_read(self, rows: tuple[list[Any], list[Any], list[Any]]) -> list[tuple[str, bytes]]:
        """The tables `read_tables` read (on any connection: a node taking tables over reads on
        its own, so its commits never wait behind the read), their tokens kept in memory."""
        heads, turns, tokens = rows
        for token_hash, table_id, seat, expires_ms in tokens:
            self._remember(bytes(token_hash), TokenEntry(table_id, seat, expires_ms))
        return assemble_tables(
            [(t, bytes(s)) for t, s in heads], [(t, n, bytes(v)) for t, n, v in turns]
        )


async def read_tables(conn: Any, ids: list[str]) -> tuple[list[Any], list[Any], list[Any]]:
    """The heads, turns and tokens of the tables in progress among `ids` (`tables_read`)."""
    heads = await conn.fetch(
        "SELECT table_id, state FROM tables_in_progress "
        "WHERE table_id = ANY($1::text[]) ORDER BY table_id",
        ids,
    )
    turns = await conn.fetch(
        "SELECT table_id, n, value FROM table_turns "
        "WHERE table_id = ANY($1::text[]) ORDER BY table_id, n",
        ids,
    )
    tokens = await conn.fetch(
        "SELECT token_hash, table_id, seat, expires_ms FROM tokens WHERE table_id = ANY($1::text[])",
        ids,
    )
    return heads, turns, tokens
