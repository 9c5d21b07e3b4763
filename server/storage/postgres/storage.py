"""The PostgreSQL backend of `storage.Storage` (``--db postgresql://user:password@host:port/db``).

Its own thread. asyncpg (an asyncio driver) runs on an event loop of this storage's own, in a
thread of its own, over one connection: the server's event loop never waits for PostgreSQL. The
calls the server makes while it serves only hold writes or read memory; `flush` hands the held
writes to the thread and returns at once, and the thread calls `on_ready` when they are
committed (`durable`) or when committing failed (`failing`). Every other call (start-up, tools,
tests) waits for its answer, which is what those callers want.

Write-behind. As with SQLite, the writes of play are held in memory, in order, and `flush`
commits all of them in one transaction, gathered by kind (`pg_plan`: a dozen statements or so
whatever the commit holds); only one commit is in flight at a time, and what is held meanwhile
goes in the next. `mark` numbers the writes as they are made, and `durable` says how many
of them are committed: the server sends a frame only once every write made before it is durable
(see `server.net.app`). A commit returns once PostgreSQL has its log record on disk (the default
``synchronous_commit=on``), so a committed turn survives a crash of the sushigo server, of
PostgreSQL, and of PostgreSQL's machine.

Outages. A commit that fails (the database away, its disk full) puts its writes back in front of
what was held since, marks the storage `failing` (`fault` says why), logs one warning, and tries
again after a back-off (doubling from `BACKOFF_START` to `BACKOFF_MAX`) on a new connection, until
one succeeds; then one line says how long it lasted. Meanwhile the server plays on in memory and
starts no new table.

Reads of tokens come from memory. The server looks a token up when a player resumes after a
restart; the tokens are read once at open and kept up to date by every write, so a resume never
waits for the database. (One server owns a database: with ``exclusive`` it holds an advisory lock
for as long as it is connected.)
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import itertools
import logging
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from datetime import timedelta
from typing import Any, Final, TypeVar

import asyncpg

from sushigo.server.lookalike import skeleton
from sushigo.server.storage.contract import (
    Closing,
    StorageError,
    TokenEntry,
    WriteCounts,
    assemble_tables,
)

from .batches import (
    APPEND_TURN,
    DELETES,
    HEADS,
    ORDER,
    SAVE_HEAD,
    TABLES,
    TOKENS,
    TURNS,
)
from .fence import LEASES, fence, idle_limit
from .moderation import PgModeration
from .plan import Held, Touches, plan, retiring
from .records import PgRecords
from .schema import (
    MIGRATE_KEY,
    MIGRATIONS,
    SCHEMA_VERSION,
    TRANSIENT,
    fault_of,
    reason,
    redact,
    take_lock,
)
from .tokens import KeptTokens, read_tables
from .tournaments import PgTournaments

__all__ = ["SCHEMA_VERSION", "PgStorage"]

log = logging.getLogger("sushigo.server")

T = TypeVar("T")

CONNECT_SECONDS: Final = 10.0
"""How long opening a connection may take."""
LOCK_GRACE_SECONDS: Final = 2.0
"""How long an exclusive server waits for the lock of one that has just stopped or died: its
backend holds the lock until it has seen the connection end, a few milliseconds on, and a
restart at once must not be refused."""
BACKOFF_START: Final = 0.05
"""Seconds before the first retry of a failed commit."""
BACKOFF_MAX: Final = 2.0
"""The longest wait between two retries (PostgreSQL back: the games are saved within this)."""


class PgStorage(KeptTokens, PgRecords, PgModeration, PgTournaments, WriteCounts, Closing):
    """A PostgreSQL database. ``exclusive=True`` keeps a second server out (an advisory lock);
    ``write_behind=True`` holds the writes of play until `flush` (see the module docstring)."""

    def __init__(
        self,
        url: str,
        *,
        exclusive: bool = False,
        write_behind: bool = False,
        connect_seconds: float = CONNECT_SECONDS,
    ) -> None:
        self.path = redact(url)
        """The URL without its password."""
        self.write_behind = write_behind
        self.on_ready: Callable[[], None] | None = None
        self.backoff_max = BACKOFF_MAX
        self.careful = False
        """The longest wait between two retries while the database is away."""
        self.deadline: float | None = None
        """Until when (`time.monotonic`) a waiting `flush` (and `close`) waits for the database,
        all of them together (None: for as long as it takes). A stopping server sets it: a
        database that answers nothing (paused, its machine frozen) must not keep it from
        exiting."""
        self._url = url
        self._exclusive = exclusive
        self._connect_seconds = connect_seconds
        self._held: dict[object, Held] = {}
        """The held writes in order. A table's whole state is keyed by its id (a newer one
        replaces it and moves to the end); every other write has a key of its own."""
        self._held_lock = threading.Lock()
        """Guards the held writes, the counts and the flags below (never held while waiting)."""
        self._keys = itertools.count()
        self._mark = 0
        self._durable = 0
        self._fault = None
        self._down_since = 0.0
        self._backoff = BACKOFF_START
        self._inflight: concurrent.futures.Future[None] | None = None
        self._retry: asyncio.TimerHandle | None = None
        self._closed = False
        KeptTokens.__init__(self)
        self.fence: tuple[str, timedelta] | None = None
        """A cluster's node: its name and lease; its writes are fenced by the lease (`pg_fence`)."""
        self._fenced: set[str] = set()
        """Tables whose writes a commit left out, another node holding them (`take_fenced`)."""
        self._dropped: set[str] = set()
        self.left_out_tournaments: set[str] = set()
        """The tournaments whose states the commit under way left out (their rows name another
        node: `pg_tournaments`)."""
        self._tournament_commits: list[tuple[int, frozenset[str]]] = []
        """A cluster's node: the commits since the last `take_tournament_commits`."""
        self._retiring: dict[str, int] = {}
        """Tables retired (a game stored, a table closed) by a write held or being committed,
        each with that write's number in `mark`'s count (`retiring_tables`)."""
        self._conn: Any = None
        self._limited: Any = None
        """The connection whose idle transactions end, once fenced (`pg_fence.idle_limit`)."""
        self._loop = asyncio.new_event_loop()
        self._busy = asyncio.Lock()  # bound to the loop on first use, which is in the thread
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="sushigo-postgresql", daemon=True
        )
        self._thread.start()
        try:
            self._call(self._open(), "cannot open the database")
        except BaseException:
            self._stop_thread()
            raise

    # --- the thread -----------------------------------------------------------------------------

    def _call(self, work: Coroutine[Any, Any, T], what: str) -> T:
        """Run `work` in the storage's thread and wait for it; its failure as a `StorageError`
        saying `what` failed."""
        if self._closed:
            work.close()
            raise StorageError(self.path, f"{what}: the storage is closed")
        future = asyncio.run_coroutine_threadsafe(work, self._loop)
        try:
            return future.result()
        except StorageError:
            raise
        except (asyncpg.PostgresError, ValueError, *TRANSIENT) as exc:
            raise StorageError(self.path, f"{what}: {reason(exc)}") from None

    async def _connect(self) -> None:
        """A new connection (the old one, if any, dropped), with the lock of an exclusive
        server taken again."""
        await self._drop()
        conn = await asyncpg.connect(self._url, timeout=self._connect_seconds)
        try:
            if self._exclusive and not await take_lock(conn, LOCK_GRACE_SECONDS):
                raise StorageError(
                    self.path, "another sushigo server is using this database (it holds its lock)"
                )
        except BaseException:
            conn.terminate()
            raise
        self._conn = conn

    async def _drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None and not conn.is_closed():
            conn.terminate()

    async def _open(self) -> None:
        async with self._busy:
            await self._connect()
            try:
                await self._migrate()
                rows = await self._conn.fetch(
                    "SELECT token_hash, table_id, seat, expires_ms FROM tokens"
                )
            except BaseException:
                await self._drop()
                raise
        for token_hash, table_id, seat, expires_ms in rows:
            self._remember(bytes(token_hash), TokenEntry(table_id, seat, expires_ms))

    async def _migrate(self) -> None:
        conn = self._conn
        async with conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock($1)", MIGRATE_KEY)
            known = await conn.fetchval("SELECT to_regclass('sushigo_schema') IS NOT NULL")
            if known:
                version = int(await conn.fetchval("SELECT version FROM sushigo_schema"))
            elif await conn.fetchval(
                "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()"
            ):
                raise StorageError(self.path, "not a sushigo database (another program's tables)")
            else:
                version = 0
            if version > SCHEMA_VERSION:
                raise StorageError(
                    self.path,
                    f"database schema version {version} is newer than this program supports "
                    f"({SCHEMA_VERSION}); upgrade sushigo",
                )
            for target, statements in MIGRATIONS:
                if version < target:
                    for statement in statements:
                        await conn.execute(statement)
            if version < 13:  # the look-alike keys of the names stored before them
                rows = await conn.fetch("SELECT player_id, name FROM identities")
                await conn.executemany(
                    "UPDATE identities SET name_key = $1 WHERE player_id = $2",
                    [(skeleton(name), player_id) for player_id, name in rows],
                )
            if not known:
                await conn.execute("INSERT INTO sushigo_schema (version) VALUES ($1)", 0)
            await conn.execute("UPDATE sushigo_schema SET version = $1", SCHEMA_VERSION)

    async def _run(self, writes: Sequence[Held]) -> None:
        """Write in one transaction, gathered by kind (`pg_plan.plan`): the statements of one
        text in a group go in one executemany (the turns of many tables: one round trip for all
        of them), a `Batched` kind's in its own statement or two."""
        async with self._busy:
            if self._conn is None or self._conn.is_closed():
                await self._connect()
            conn = self._conn
            try:
                try:
                    await self._send(conn, writes)
                except (asyncpg.IntegrityConstraintViolationError, asyncpg.DataError):
                    # Rolled back: again, carefully (`pg_records._store_games`).
                    self.careful = True
                    try:
                        await self._send(conn, writes)
                    finally:
                        self.careful = False
            except TRANSIENT:
                await self._drop()
                raise

    async def _send(self, conn: Any, writes: Sequence[Held]) -> None:
        if self.fence is not None and self._limited is not conn:
            ((name, value),) = idle_limit(self.fence[1]).items()
            await conn.execute("SELECT set_config($1, $2, false)", name, value)
            self._limited = conn
        async with conn.transaction():
            self._dropped, self.left_out_tournaments = set(), set()
            if self.fence is not None:
                writes, self._dropped = await fence(conn, writes, *self.fence)
            for kind, items in plan(writes, ORDER):
                if kind is None:
                    for op in items:
                        await op(conn)
                elif isinstance(kind, str):
                    await conn.executemany(kind, items)
                else:
                    await kind.run(self, conn, items)

    async def _read(self, query: Callable[[Any], Awaitable[T]]) -> T:
        async with self._busy:
            if self._conn is None or self._conn.is_closed():
                await self._connect()
            try:
                return await query(self._conn)
            except TRANSIENT:
                await self._drop()
                raise

    def _query(self, query: Callable[[Any], Awaitable[T]], what: str) -> T:
        """A read, after every held write (so it sees them)."""
        if self._held or self._inflight is not None:
            self.flush(wait=True)
        return self._call(self._read(query), what)

    def _stop_thread(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()

    # --- write-behind ---------------------------------------------------------------------------

    def _write(
        self,
        write: tuple[Any, Any],
        what: str,
        key: object = None,
        touches: Touches = None,
    ) -> None:
        """Hold `write` (with write-behind), or commit it now. `touches` says which rows it
        touches (`pg_plan`; None: it is a barrier, nothing moves across it)."""
        held: Held = (*write, touches)
        if self.write_behind:
            with self._held_lock:
                if key is None:
                    key = next(self._keys)
                elif key in self._held:
                    del self._held[key]
                self._held[key] = held
                self._mark += 1
            return
        if self._held or self._inflight is not None:
            self.flush(wait=True)
        self._call(self._run([held]), what)

    def flush(self, *, wait: bool = False) -> bool:
        """Commit what is held. Without `wait`, hand it to the storage's thread and return
        False at once (True: nothing to do); while the database is away, leave it to the
        retries. With `wait`, return once everything is committed, or raise `StorageError`."""
        while True:
            with self._held_lock:
                future = self._inflight
                mine = future is None
                if future is None:
                    if not self._held:
                        self._durable = self._mark
                        return True
                    if self._fault is not None and not wait:
                        return False  # the retry timer tries again
                    future = self._start()
            if not wait:
                return False
            left = None if self.deadline is None else max(0.0, self.deadline - time.monotonic())
            try:
                future.result(left)
            except concurrent.futures.TimeoutError:
                raise StorageError(
                    self.path, f"no answer in time: {self.held} held changes not saved"
                ) from None
            except (StorageError, asyncpg.PostgresError, *TRANSIENT) as exc:
                if not mine:
                    continue  # a retry begun before this call failed: try once more, now
                if isinstance(exc, StorageError):
                    raise
                raise StorageError(
                    self.path, f"could not save {self.held} held changes: {reason(exc)}"
                ) from None

    def _start(self) -> concurrent.futures.Future[None]:
        """Hand every held write to the thread as one commit (the caller holds `_held_lock`)."""
        batch, self._held = self._held, {}
        future = asyncio.run_coroutine_threadsafe(self._commit(batch, self._mark), self._loop)
        self._inflight = future
        return future

    async def _commit(self, batch: dict[object, Held], upto: int) -> None:
        try:
            await self._run(list(batch.values()))
        except BaseException as exc:
            with self._held_lock:
                # Held again, before anything held meanwhile (which, for a table, is newer).
                newer, self._held = self._held, batch
                for key, again in newer.items():
                    self._held.pop(key, None)
                    self._held[key] = again
                self._inflight = None
                began, was = self._fault is None, self._fault
                self._fault = fault_of(exc)
                if began:
                    self._down_since = time.monotonic()
                    self._backoff = BACKOFF_START
                delay = self._backoff
                self._backoff = min(self._backoff * 2, self.backoff_max)
            if self._fault is not was:  # once as it begins, and if what is wrong changes
                log.warning(
                    "cannot save to %s (%s): %s; playing on in memory, retrying until it is back",
                    *(self.path, self._fault, reason(exc)),
                )
            if not self._closed:
                self._retry = self._loop.call_later(delay, self._try_again)
            self._notify()
            raise
        with self._held_lock:  # before `durable`: what was left out is never taken as sent
            self._fenced |= self._dropped
            if self.fence is not None:
                commits, left_out = self._tournament_commits, frozenset(self.left_out_tournaments)
                if commits and not commits[-1][1] and not left_out:
                    commits[-1] = (upto, left_out)  # (two such say no more than the last)
                else:
                    commits.append((upto, left_out))
            self._durable = max(self._durable, upto)
            self._inflight = None
            back, self._fault = self._fault is not None, None
        if back:
            log.warning(
                "saving to %s works again after %.1f s; every held change is stored",
                self.path,
                time.monotonic() - self._down_since,
            )
        self._notify()

    def _try_again(self) -> None:
        """The retry timer (in the thread)."""
        self._retry = None
        with self._held_lock:
            if self._closed or self._inflight is not None or not self._held:
                return
            self._start()

    def _notify(self) -> None:
        callback = self.on_ready
        if callback is not None:
            callback()

    def close(self) -> None:
        """Commit what is held (one try, by `deadline`), then close the connection and stop
        the thread. Idempotent. `StorageError` if the held writes could not be committed."""
        if self._closed:
            return
        try:
            self.flush(wait=True)
        finally:
            self._closed = True
            retry, self._retry = self._retry, None
            if retry is not None:
                self._loop.call_soon_threadsafe(retry.cancel)
            asyncio.run_coroutine_threadsafe(self._drop(), self._loop).result()
            self._stop_thread()

    @property
    def schema_version(self) -> int:
        """The database's schema version (`SCHEMA_VERSION` once open)."""

        async def query(conn: Any) -> int:
            return int(await conn.fetchval("SELECT version FROM sushigo_schema"))

        return self._query(query, "read the schema version")

    # --- copying in (`server.storage.migrate`)
    # -----------------------------------------------------------

    def copy_in(self, rows: dict[str, list[tuple[Any, ...]]]) -> None:
        """Copy rows into empty tables, all in one transaction (PostgreSQL's COPY): `rows`
        by table name, each row in the table's column order. `StorageError` if any table
        already has rows."""

        async def copy(conn: Any) -> None:
            for table in rows:
                if await conn.fetchval(f"SELECT EXISTS (SELECT 1 FROM {table})"):
                    raise StorageError(self.path, f"the database is not empty ({table} has rows)")
            for table, values in rows.items():
                if values:
                    await conn.copy_records_to_table(table, records=values)
            for table, column in (("audit_log", "id"), ("tournaments", "made")):
                if rows.get(table):  # its numbers were copied: go on after the last
                    await conn.execute(
                        f"SELECT setval(pg_get_serial_sequence('{table}', '{column}'), "
                        f"max({column})) FROM {table}"
                    )

        self._call(self._run([(copy, None, None)]), "copy in")
        for token_hash, table_id, seat, expires_ms in rows.get("tokens", []):
            self._remember(bytes(token_hash), TokenEntry(table_id, seat, expires_ms))

    def count_rows(self, tables: Sequence[str]) -> dict[str, int]:
        """How many rows each table has."""

        async def query(conn: Any) -> dict[str, int]:
            return {
                table: int(await conn.fetchval(f"SELECT count(*) FROM {table}")) for table in tables
            }

        return self._query(query, "count rows")

    # --- tables in progress ---------------------------------------------------------------------

    def save_table(self, table_id: str, state: bytes, turns: Sequence[bytes] = ()) -> None:
        """Store a table's whole state: its head, then `turns` from 0, replacing its turns."""
        whole = (table_id, state, tuple(turns))
        touches = (("head", table_id), ("turns", table_id))
        what = f"save table {table_id!r}"
        self._write((TABLES, whole), what, key=("table", table_id), touches=touches)

    def append_turns(
        self, table_id: str, first: int, turns: Sequence[bytes], state: bytes | None = None
    ) -> None:
        """Append turns numbered from `first` (a number again replaces its turn), and the head
        when given. Held, the heads and the turns of every table a commit holds go in a
        statement each (`pg_batches.HEADS`, `TURNS`)."""
        if first < 0:
            raise ValueError(f"turns are numbered from 0, not {first}")
        what = f"save table {table_id!r}"
        rows = [(table_id, first + i, value) for i, value in enumerate(turns)]
        if self.write_behind:  # held one by one, committed together (a flush takes them all)
            if state is not None:
                self._write((HEADS, (table_id, state)), what, touches=(("head", table_id),))
            turns_of = (("turns", table_id),)
            for row in rows:
                self._write((TURNS, row), what, touches=turns_of)
            return

        async def append(conn: Any) -> None:
            if state is not None:
                await conn.execute(SAVE_HEAD, table_id, state)
            await conn.executemany(APPEND_TURN, rows)

        self._write((append, None), what)

    def delete_table(self, table_id: str) -> None:
        """Forget a table in progress, its turns and its tokens."""
        self._retire(table_id)
        what = f"delete table {table_id!r}"
        self._write((DELETES, (table_id,)), what, touches=retiring(table_id))

    def load_tables(self) -> list[tuple[str, bytes]]:
        """Every table in progress, its head and turns joined, ordered by table id."""

        async def query(conn: Any) -> tuple[list[Any], list[Any]]:
            heads = await conn.fetch(
                "SELECT table_id, state FROM tables_in_progress ORDER BY table_id"
            )
            turns = await conn.fetch(
                "SELECT t.table_id, t.n, t.value FROM table_turns t "
                "JOIN tables_in_progress USING (table_id) ORDER BY t.table_id, t.n"
            )
            return heads, turns

        heads, turns = self._query(query, "load tables")
        return assemble_tables(
            [(t, bytes(s)) for t, s in heads], [(t, n, bytes(v)) for t, n, v in turns]
        )

    def load_tables_of(self, table_ids: Sequence[str]) -> list[tuple[str, bytes]]:
        """The tables in progress among `table_ids`, as `load_tables` gives them, with their
        seats' tokens read again into memory: tables that another server saved (a node of a
        cluster taking them over, `server.cluster.node`), whose tokens it wrote after this one read
        its own at open."""
        ids = list(table_ids)
        return self.tables_read(self._query(lambda conn: read_tables(conn, ids), "load tables"))

    def lease_table(self, table_id: str) -> None:
        """A cluster's node leases a new table in the commit of its first writes (`pg_fence`)."""
        self._write((LEASES, table_id), "lease", touches=(("lease", table_id),))

    def notify_after(self, table_id: str, channel: str, payload: str) -> None:
        """NOTIFY `channel` with `payload` in the commit of the table's writes held so far (or
        a later one), so a listener hears of them once they are durable. Fenced with them."""
        notify = ("SELECT pg_notify($1, $2)", (channel, payload))
        self._write(notify, "notify", touches=(("head", table_id),))

    def notify(self, channel: str, payload: str) -> None:
        """NOTIFY `channel` with `payload` in the next commit, after every write held before it
        (a barrier: nothing moves across it), so a listener hears of them once they are
        durable."""
        self._write(("SELECT pg_notify($1, $2)", (channel, payload)), "notify")

    def take_fenced(self) -> set[str]:
        """The tables whose writes were left out since the last call: another node holds them."""
        with self._held_lock:
            fenced, self._fenced = self._fenced, set()
        return fenced

    def take_tournament_commits(self) -> list[tuple[int, frozenset[str]]]:
        """A cluster's node: the commits since the last call, in order, each as how many writes
        were durable with it (in `mark`'s count) and the tournaments whose states it left out
        (another node holds them). A write is in the first commit whose count reaches its
        number."""
        with self._held_lock:
            commits, self._tournament_commits = self._tournament_commits, []
        return commits

    def retiring_tables(self) -> list[str]:
        """The tables retired here whose retirement is not durable yet: their state is still in
        the database, though no game goes on there any more. (A cluster's node takes none of
        them up as a table of its own to restore: `Adoption`.)"""
        with self._held_lock:
            return list(self._still_retiring())

    def _retire(self, table_id: str) -> None:
        """Forget a table's tokens, for the write that retires the table, made next."""
        self._forget_table(table_id)
        if self.write_behind:  # (otherwise the write is durable once made)
            with self._held_lock:
                self._still_retiring()[table_id] = self._mark + 1

    def _still_retiring(self) -> dict[str, int]:
        """`_retiring` without the tables whose retirement is durable now (under `_held_lock`).
        Pruned at each retirement too: a server alone, with no cluster's node asking, would
        otherwise keep every table it ever retired."""
        durable = self._durable
        self._retiring = {t: n for t, n in self._retiring.items() if n > durable}
        return self._retiring

    # --- reconnect tokens (kept in memory: see the module docstring) ---------------------------

    def save_token(self, token_hash: bytes, table_id: str, seat: int, expires_ms: int) -> None:
        """Store a token's hash for a seat, revoking the seat's earlier token."""
        self._remember(token_hash, TokenEntry(table_id, seat, expires_ms))
        token = (token_hash, table_id, seat, expires_ms)
        touches = (("hash", token_hash), ("tokens", table_id))
        self._write((TOKENS, token), f"save token for {table_id!r} seat {seat}", touches=touches)

    def rotate_token(self, old_hash: bytes, new_hash: bytes, expires_ms: int) -> TokenEntry | None:
        """Replace a token by a new one for the same seat; None (no change) if unknown."""
        old = self._unremember(old_hash)
        if old is None:
            return None
        entry = TokenEntry(old.table_id, old.seat, expires_ms)
        self._remember(new_hash, entry)
        # As the batched tokens (the old one deleted, the new one saved for the seat), not two
        # statements of its own: when a dead node's lease ends, its thousands of players resume
        # at once, and a commit of a statement pair each held every table's frames for a second.
        touches = (("hash", old_hash), ("hash", new_hash), ("tokens", entry.table_id))
        self._write((TOKENS, (old_hash,)), "rotate token", touches=touches)
        token = (new_hash, entry.table_id, entry.seat, expires_ms)
        self._write((TOKENS, token), "rotate token", touches=touches)
        return entry

    def delete_token(self, token_hash: bytes) -> None:
        """Forget one token (no error if unknown). Fenced by the lease of its table, as every
        other write of the table's tokens (`pg_fence`): a node that lost the table deletes
        nothing of the seat its new node holds."""
        entry = self._unremember(token_hash)
        touches: tuple[tuple[str, object], ...] = (("hash", token_hash),)
        if entry is not None:
            touches += (("tokens", entry.table_id),)
        self._write((TOKENS, (token_hash,)), "delete token", touches=touches)

    def delete_tokens_for(self, table_id: str) -> None:
        """Forget every token of a table."""
        self._forget_table(table_id)
        self._write(
            ("DELETE FROM tokens WHERE table_id = $1", (table_id,)),
            f"delete tokens of {table_id!r}",
            touches=(("tokens", table_id),),
        )

    def delete_expired_tokens(self, now_ms: int) -> int:
        """Forget tokens that expired before `now_ms`; how many."""
        expired = [h for h, e in self._tokens.items() if e.expires_ms < now_ms]
        for token_hash in expired:
            self._unremember(token_hash)
        self._write(
            ("DELETE FROM tokens WHERE expires_ms < $1", (now_ms,)), "delete expired tokens"
        )
        return len(expired)
