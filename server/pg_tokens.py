"""The PostgreSQL backend's resume tokens kept in memory, so that a resume never waits for the
database (a part of `pg_storage.PgStorage`: read once at open, kept up to date by every write,
and read again for the tables a node of a cluster takes over)."""

from __future__ import annotations

from .storage import TokenEntry

__all__ = ["KeptTokens"]


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
