"""What lasts, behind one contract: the `Storage` protocol and the values it stores.

Two backends keep it: `sqlite_storage.SqliteStorage` (one file, the embedded default: ``--db
PATH``) and `pg_storage.PgStorage` (a PostgreSQL server: ``--db postgresql://...``).
`database.open_storage` picks one from what ``--db`` says. Both hold the same things with the same guarantees (tables in
play, their turns, finished and aborted records, identities, ratings per game kind, resume tokens,
bans and mutes, the admins' audit log), migrate
their schema by numbered versions, refuse a database from a newer version, and with write-behind
hold the writes of play until `Storage.flush` commits them in one transaction, in order. The
contract, what is durable when, and how the server keeps "saved before sent" on both, are in
docs/ARCHITECTURE.md ("Storage"); tests/server/test_storage_contract.py runs the same tests
against both.

Nothing here reads the clock: times are passed in as integer milliseconds.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from types import TracebackType
from typing import NamedTuple, Protocol, Self

__all__ = [
    "AbortedGame",
    "AuditRecord",
    "Ending",
    "Fault",
    "GameStore",
    "Identity",
    "LeaderboardEntry",
    "PlayerResult",
    "RateFn",
    "RecordSummary",
    "Storage",
    "StorageError",
    "StoredRecord",
    "StoredSanction",
    "TokenEntry",
    "WriteCounts",
    "assemble_tables",
]

log = logging.getLogger("sushigo.server")

RateFn = Callable[[Sequence[tuple[float, float] | None]], Sequence[tuple[float, float]]]
"""New ``(mu, sigma)`` per player from their current ratings (None: never rated), in order."""


class Fault(StrEnum):
    """Why the storage cannot save (`Storage.fault`), as the server tells it: once in its log
    (with the database's own words), on /readyz, to a player refused a new game, and in the
    metrics (the member's name in lower case)."""

    UNREACHABLE = "the database is unreachable"
    """It does not answer (PostgreSQL stopped or restarting, the network between)."""
    DISK_FULL = "the database's disk is full"
    """Its file system has no room left (SQLite's file and log, PostgreSQL's data directory)."""
    READ_ONLY = "the database is read-only"
    """It refuses to be written: the file, its folder or its file system is read-only (a file
    system the kernel made read-only after errors, say), or PostgreSQL is in read-only mode."""
    BROKEN = "the database cannot be written"
    """Any other failure (an I/O error, a bug): the log says which."""


class Closing:
    """A backend as a context manager: closed when its `with` ends (both backends are)."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class WriteCounts:
    """What both backends say of their held writes (write-behind: see `Storage`), from the counts
    each keeps as it holds and commits them."""

    _held: Mapping[object, object]
    _mark: int
    _durable: int
    _fault: Fault | None

    @property
    def held(self) -> int:
        """How many writes wait for `flush` (not counting a commit under way)."""
        return len(self._held)

    @property
    def mark(self) -> int:
        """Writes made since opening (held ones too; one made without write-behind counts once
        done)."""
        return self._mark

    @property
    def durable(self) -> int:
        """How many of the first `mark` writes are committed."""
        return self._durable

    @property
    def failing(self) -> bool:
        """The last commit of held writes failed: they are still held, and tried again."""
        return self._fault is not None

    @property
    def fault(self) -> Fault | None:
        """Why the last commit of held writes failed (None: it did not)."""
        return self._fault


class StorageError(Exception):
    """The database cannot be opened or used. ``str()`` is one line: the path and the reason."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        """The database as given: a path (``":memory:"`` for an in-memory database), or a
        PostgreSQL URL without its password."""
        self.reason = reason
        """What went wrong, for a person."""


@dataclass(frozen=True, slots=True)
class PlayerResult:
    """One seat's outcome in a finished game."""

    player_id: str | None
    """The identified player's id (``"k:..."``), or None for a guest or a server bot."""
    name: str
    """The name shown at the table."""
    seat: int
    """The seat, from 0."""
    score: int
    """Final score."""
    place: int
    """Final place, 1 for the winner; tied seats share a place."""


@dataclass(frozen=True, slots=True)
class RecordSummary:
    """A finished game without its record bytes (what a listing shows)."""

    game_id: str
    """The game's id."""
    table_id: str
    """The table it was played at."""
    kind: str
    """The game kind: ``"sushi-go"`` or ``"sushi-roll"``."""
    finished_ms: int
    """When it ended, Unix milliseconds (the server's clock, passed in)."""
    players: tuple[PlayerResult, ...]
    """One result per seat, in seat order."""


@dataclass(frozen=True, slots=True)
class StoredRecord(RecordSummary):
    """A finished game with its signed record."""

    record: bytes
    """The encoded game record, exactly as signed."""
    signature: bytes
    """The server's Ed25519 signature over `record`."""
    server_key: bytes | None = field(default=None, kw_only=True)
    """The public key that signed it, stored with it (None: a record stored before keys were,
    that no server with its key has filled in yet: `Storage.fill_record_keys`)."""


@dataclass(frozen=True, slots=True)
class AbortedGame(StoredRecord):
    """A game an admin ended before its end (`Storage.abort_game`): its signed record holds the
    steps played (a verifier finds them in order, and that the game is not over); `finished_ms`
    is when it was aborted, and each result is the score and place when it was."""

    reason: str
    """Why, as the admin said it."""


@dataclass(frozen=True, slots=True)
class StoredSanction:
    """A ban or a mute, as stored."""

    kind: str
    """``"ban"`` or ``"mute"``."""
    target: str
    """A player id, or (a ban) an IP address range in its normal form (``10.0.0.0/8``)."""
    reason: str
    """Why, as the admin gave it."""
    admin: str
    """The admin's player id."""
    created_ms: int
    """When it was made, Unix milliseconds."""
    expires_ms: int | None
    """When it ends by itself (None: never)."""


@dataclass(frozen=True, slots=True)
class AuditRecord:
    """One admin action in the audit log."""

    at_ms: int
    """When, Unix milliseconds."""
    admin: str
    """Who: the admin's player id."""
    action: str
    """What (``kick``, ``ban``, ``close``, ...)."""
    target: str
    """On what (a session, a player id, a range, a table, a node; may be empty)."""
    detail: str
    """The reason, the text announced, or what came of it."""


@dataclass(frozen=True, slots=True)
class Identity:
    """A player known by an Ed25519 public key (guests are never stored)."""

    player_id: str
    """``"k:"`` and 32 hex digits, from `protocol.identity.player_id_for_key`."""
    public_key: bytes
    """The raw 32-byte Ed25519 public key."""
    name: str
    """The name last used with this key."""
    first_seen_ms: int
    """When the key first logged in, Unix milliseconds."""
    last_seen_ms: int
    """When it last logged in, Unix milliseconds."""


@dataclass(frozen=True, slots=True)
class LeaderboardEntry:
    """One rated player, as the leaderboard lists them."""

    player_id: str
    """The player's id."""
    name: str
    """The player's last-used name."""
    mu: float
    """openskill mean skill."""
    sigma: float
    """openskill uncertainty."""
    games: int
    """Finished games stored for this player."""

    @property
    def ordinal(self) -> float:
        """The conservative rating ``mu - 3 * sigma`` the leaderboard is sorted by."""
        return self.mu - 3.0 * self.sigma


class TokenEntry(NamedTuple):
    """Where a reconnect token leads: ``(table_id, seat, expires_ms)``, also by name."""

    table_id: str
    """The table the token resumes."""
    seat: int
    """The seat at that table."""
    expires_ms: int
    """After this instant (Unix milliseconds) the token must be refused; the caller checks."""


class Ending(NamedTuple):
    """A game that ended, as both backends store it (finished or aborted): what `GameStore`
    hands the backend."""

    table_id: str
    """The table it was played at (retired as the game is stored)."""
    game_id: str
    """The game's id (stored once: a second one changes nothing)."""
    kind: str
    """The game kind."""
    record: bytes
    """The encoded game record, exactly as signed."""
    signature: bytes
    """The server's Ed25519 signature over `record`."""
    players: Sequence[PlayerResult]
    """One result per seat, no seat twice."""


class GameStore(Protocol):
    """How a game that ends is stored, alike on both backends (each subclasses it, and `Storage`
    includes it): `finish_game` and `abort_game` check the seats and hand the game, as an
    `Ending`, to the backend's `_store_finished` or `_store_aborted`."""

    def finish_game(
        self,
        table_id: str,
        game_id: str,
        kind: str,
        record: bytes,
        signature: bytes,
        players: Sequence[PlayerResult],
        *,
        finished_ms: int,
        server_key: bytes | None = None,
    ) -> None:
        """Store a finished game (with `server_key`, the public key that signed it) and retire
        its table (state, turns, tokens) in one transaction: after a crash either the game is
        stored and the table gone, or the table is still there to resume, never both, never
        neither. A game id already stored changes nothing: `StorageError`, or with write-behind
        a logged error and the rest of the batch is written. Two results for one seat:
        ValueError, and nothing is stored."""
        _check_seats(game_id, players)
        game = Ending(table_id, game_id, kind, record, signature, players)
        self._store_finished(game, finished_ms, server_key)

    def abort_game(
        self,
        table_id: str,
        game_id: str,
        kind: str,
        record: bytes,
        signature: bytes,
        players: Sequence[PlayerResult],
        *,
        aborted_ms: int,
        reason: str,
    ) -> None:
        """Store a game an admin ended (its record so far, the scores and places when it
        ended, the reason) apart from the finished ones, and retire its table (state, turns,
        tokens), in one transaction. Listings of finished games, ratings and leaderboards never
        see it. A game id already stored changes nothing: `StorageError`, or with write-behind a
        logged error. Two results for one seat: ValueError, and nothing is stored."""
        _check_seats(game_id, players)
        game = Ending(table_id, game_id, kind, record, signature, players)
        self._store_aborted(game, aborted_ms, reason)

    def _store_finished(self, game: Ending, finished_ms: int, server_key: bytes | None) -> None:
        """The backend's `finish_game`, its seats checked."""

    def _store_aborted(self, game: Ending, aborted_ms: int, reason: str) -> None:
        """The backend's `abort_game`, its seats checked."""


def _check_seats(game_id: str, players: Sequence[PlayerResult]) -> None:
    """No seat has two results in a game to store (else ValueError)."""
    seats = [p.seat for p in players]
    if len(set(seats)) != len(seats):
        raise ValueError(f"duplicate seats in the results of game {game_id!r}: {seats}")


class Storage(GameStore, Protocol):
    """The server's database, on either backend. Open once per process; close at exit.

    The writes of play (`save_table`, `append_turns`, `delete_table`, `finish_game`,
    `abort_game`, `rate_game`, the token calls, `upsert_identity`, and the admins'
    `save_sanction`, `delete_sanction`, `add_audit`) never wait for the database when
    `write_behind` is on: they are held, in order, until `flush`. The server calls nothing else
    on its event loop while it serves (the reads a request asks for run in a worker thread:
    `server.hub.core.Hub.read`); every other call is for start-up, tools and tests, and may wait.
    """

    path: str
    """What to call the database in messages: its path, or its URL without the password."""
    write_behind: bool
    """Hot writes wait for `flush`."""
    on_ready: Callable[[], None] | None
    """Called, possibly from another thread, when `durable` moved on, when `failing` changed,
    or when a `flush` that declined may be tried again."""

    @property
    def held(self) -> int:
        """How many writes wait for `flush` (not counting one being committed)."""

    @property
    def mark(self) -> int:
        """How many writes were made since the database was opened (held or not)."""

    @property
    def durable(self) -> int:
        """How many of the first writes are committed: every write numbered up to this (in
        `mark`'s count) is in the database."""

    @property
    def failing(self) -> bool:
        """The last commit failed (the database is unreachable, its disk full...): writes are
        held and retried, on the storage's own thread, until one succeeds. The server then plays
        on, and starts no new table."""

    @property
    def fault(self) -> Fault | None:
        """Why the last commit failed, while `failing` (None otherwise)."""

    def flush(self, *, wait: bool = False) -> bool:
        """Commit the held writes, in one transaction. True when every write made so far is
        durable; False while that is still under way (`on_ready` says when it moved), or when
        the storage declined for now. With `wait`, return only when done: a `StorageError` then
        says the commit failed (the writes stay held)."""

    def close(self) -> None:
        """Write what is held (waiting for it), then close. Idempotent."""

    def __enter__(self) -> Storage:
        """The storage itself (closed on leaving the block)."""

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """`close`."""

    @property
    def schema_version(self) -> int:
        """The database's schema version."""

    # tables in progress

    def save_table(self, table_id: str, state: bytes, turns: Sequence[bytes] = ()) -> None:
        """Store a table's whole resumable state: its head `state`, then `turns` (numbered from
        0), replacing whatever was stored for it."""

    def append_turns(
        self, table_id: str, first: int, turns: Sequence[bytes], state: bytes | None = None
    ) -> None:
        """Append turns numbered `first`, `first + 1`, ... to a table saved by `save_table` (a
        number saved again replaces its turn), and replace its head by `state` when given."""

    def delete_table(self, table_id: str) -> None:
        """Forget a table in progress, its turns and its reconnect tokens."""

    def load_tables(self) -> list[tuple[str, bytes]]:
        """Every table in progress as ``(table_id, head + its turns in order)``, by table id.
        Turns past a missing number are left out (and logged)."""

    # tournaments (`server.tournaments.store`: one blob each, written when it changes)

    def save_tournament(self, name: str, state: bytes) -> None:
        """Store a tournament's state, replacing the one stored under its name (held with
        write-behind; a newer one held replaces the held one). On a cluster's node, only a
        tournament this node holds (or a new one) is written: another node's is left as it is."""

    def delete_tournament(self, name: str) -> None:
        """Forget a tournament (no error if there is none)."""

    def load_tournaments(self) -> list[tuple[str, bytes]]:
        """Every stored tournament (a cluster's node: those it holds) as ``(name, state)``, in
        the order they were first stored."""

    # finished games (`finish_game` and `abort_game` are `GameStore`'s)

    def keyless_records(self, after: str, limit: int) -> list[tuple[str, bytes, bytes]]:
        """Finished games stored without the key that signed them (before keys were stored),
        their ids after `after` in order, `limit` at most: (game id, record, signature)."""

    def fill_record_keys(self, server_key: bytes, game_ids: Sequence[str]) -> None:
        """Store `server_key` as the key that signed these games (their signatures verify with
        it: the caller checked), where none is stored yet."""

    def get_record(self, game_id: str) -> StoredRecord | None:
        """A finished game with its record and signature, or None."""

    def list_records(
        self, limit: int = 50, offset: int = 0, player_id: str | None = None
    ) -> list[RecordSummary]:
        """Finished games, newest first; only those `player_id` played in when given."""

    def aborted_games(self, limit: int = 50, offset: int = 0) -> list[AbortedGame]:
        """Aborted games with their records, newest first."""

    # identities and ratings

    def upsert_identity(self, public_key: bytes, name: str, now_ms: int) -> str:
        """Record a key login (a new key, or a known key's new name); its player id. The name's
        look-alike key (`server.lookalike.skeleton`) is stored with it."""

    def get_identity(self, player_id: str) -> Identity | None:
        """A stored identity, or None."""

    def name_holders(self, key: str) -> list[str]:
        """The player ids of the stored identities whose name's look-alike key is `key` (two at
        most: a login asks whether anyone but itself holds it)."""

    def get_rating(self, player_id: str, kind: str) -> tuple[float, float] | None:
        """The player's ``(mu, sigma)`` at game `kind`, or None if never rated at it."""

    def set_ratings(self, ratings: Mapping[str, tuple[float, float]], kind: str) -> None:
        """Store ratings at game `kind` in one transaction; every player must have an
        identity (else `StorageError`, and nothing changes)."""

    def rate_game(
        self, kind: str, player_ids: Sequence[str], rate: RateFn, table_id: str | None = None
    ) -> None:
        """Read the players' ratings at `kind`, hand them to `rate` and store what it returns,
        in one transaction (held with write-behind: the server never waits for the read).
        `table_id`: the table the game was played at (a cluster's node rates it only while it
        holds that table's lease)."""

    def leaderboard(self, limit: int = 20, *, kind: str) -> list[LeaderboardEntry]:
        """Players rated at `kind`, best first by ``mu - 3 * sigma``; `games` counts each one's
        finished games of that kind. Every game kind has a ladder of its own."""

    def standing(self, player_id: str, kind: str) -> tuple[int, int, LeaderboardEntry | None]:
        """Where `player_id` stands on `kind`'s ladder: (players on it, the player's rank from 1
        in `leaderboard`'s order, the player's entry), or (players on it, 0, None) when the
        player is not rated at `kind`."""

    # reconnect tokens

    def save_token(self, token_hash: bytes, table_id: str, seat: int, expires_ms: int) -> None:
        """Store a token's hash for a seat, revoking the seat's earlier token."""

    def find_token(self, token_hash: bytes) -> TokenEntry | None:
        """Where the token with this hash leads, or None (expiry is the caller's to check)."""

    def rotate_token(self, old_hash: bytes, new_hash: bytes, expires_ms: int) -> TokenEntry | None:
        """Replace a token by a new one for the same seat, atomically; None (and no change)
        when the old one is unknown."""

    def delete_token(self, token_hash: bytes) -> None:
        """Forget one token (no error if unknown)."""

    def delete_tokens_for(self, table_id: str) -> None:
        """Forget every token of a table."""

    def delete_expired_tokens(self, now_ms: int) -> int:
        """Forget tokens that expired before `now_ms`; how many."""

    # moderation: bans and mutes (the server reads them once, at start, and keeps them in
    # memory), and the admins' audit log

    def save_sanction(self, sanction: StoredSanction) -> None:
        """Store a ban or mute, replacing the one of the same kind and target."""

    def delete_sanction(self, kind: str, target: str) -> None:
        """Forget a ban or mute (no error if there is none)."""

    def load_sanctions(self) -> list[StoredSanction]:
        """Every stored ban and mute, oldest first (expired ones too: the caller decides)."""

    def add_audit(self, entry: AuditRecord) -> None:
        """Append an admin action to the audit log."""

    def audit_log(self, limit: int = 50, offset: int = 0) -> list[AuditRecord]:
        """The audit log, newest first (in the order written, for actions in the same ms)."""


def assemble_tables(
    heads: Sequence[tuple[str, bytes]], turns: Sequence[tuple[str, int, bytes]]
) -> list[tuple[str, bytes]]:
    """Each head followed by its table's turns: `turns` are ``(table_id, n, value)`` ordered by
    table and number, a number given twice in a row replaced by the later value. Past a missing
    number a table's turns stop (a correct server never leaves one; it is logged)."""
    kept: dict[str, list[bytes]] = {}
    gaps: set[str] = set()
    for table_id, n, value in turns:
        mine = kept.setdefault(table_id, [])
        if n == len(mine):
            mine.append(value)
        elif n == len(mine) - 1:  # the same turn again, written later: it replaces
            mine[n] = value
        elif table_id not in gaps:  # rows come in order: past a gap, every row is past it
            gaps.add(table_id)
            log.error(
                "table %s: turn %d is missing; its turns from there on are ignored",
                table_id,
                len(mine),
            )
    return [(table_id, head + b"".join(kept.get(table_id, ()))) for table_id, head in heads]
