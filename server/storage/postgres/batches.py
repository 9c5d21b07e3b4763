"""The PostgreSQL backend's held writes of tables in play and tokens, and the order of kinds in
a round of a commit (`pg_plan`): each kind goes to PostgreSQL in an ``executemany`` or in one or
two statements over arrays, however many of it a commit holds (a part of `pg_storage.PgStorage`)."""

from __future__ import annotations

from typing import Any, Final

from .plan import Batched
from .records import FINISHES

__all__ = [
    "APPEND_TURN",
    "DELETES",
    "DELETE_TOKEN",
    "HEADS",
    "INSERT_TOKEN",
    "ORDER",
    "SAVE_HEAD",
    "TABLES",
    "TOKENS",
    "TURNS",
]

SAVE_HEAD: Final = (
    "INSERT INTO tables_in_progress (table_id, state) VALUES ($1, $2) "
    "ON CONFLICT (table_id) DO UPDATE SET state = excluded.state"
)
APPEND_TURN: Final = (
    "INSERT INTO table_turns (table_id, n, value) VALUES ($1, $2, $3) "
    "ON CONFLICT (table_id, n) DO UPDATE SET value = excluded.value"
)
DELETE_TOKEN: Final = "DELETE FROM tokens WHERE token_hash = $1"


async def _save_tokens(storage: Any, conn: Any, tokens: list[tuple[Any, ...]]) -> None:
    """Save and delete tokens in two statements whatever their number (a crowd of players
    leaving their tables and sitting down again at once), leaving the tokens as doing them one
    after the other would: ``(hash, table_id, seat, expires_ms)`` saves a token, revoking any
    earlier token of its seat and an earlier one under its hash; ``(hash,)`` deletes one."""
    hashes: set[bytes] = set()
    seats: set[tuple[str, int]] = set()
    kept: list[tuple[Any, ...]] = []
    for token in reversed(tokens):  # a later save or delete undoes an earlier save it meets
        if len(token) == 1:
            hashes.add(token[0])
            continue
        if token[0] not in hashes and (token[1], token[2]) not in seats:
            kept.append(token)
        hashes.add(token[0])
        seats.add((token[1], token[2]))
    # Joined with the arrays rather than `= ANY($1) OR ... IN (...)`: once PostgreSQL plans the
    # prepared statement generically, that form scans every token and compares each with every
    # element of the array (20-25 ms for 300 tokens among 4,000, when a crowd of games ends),
    # where the joins look each one up in an index.
    await conn.execute(
        "WITH by_hash AS (DELETE FROM tokens t USING unnest($1::bytea[]) AS h (token_hash) "
        "WHERE t.token_hash = h.token_hash) "
        "DELETE FROM tokens t USING unnest($2::text[], $3::integer[]) AS s (table_id, seat) "
        "WHERE t.table_id = s.table_id AND t.seat = s.seat",
        list(hashes),
        [table for table, _ in seats],
        [seat for _, seat in seats],
    )
    if kept:
        await conn.execute(
            "INSERT INTO tokens (token_hash, table_id, seat, expires_ms) "
            "SELECT * FROM unnest($1::bytea[], $2::text[], $3::integer[], $4::bigint[])",
            *[list(column) for column in zip(*kept, strict=True)],
        )


async def _save_tables(storage: Any, conn: Any, tables: list[tuple[Any, ...]]) -> None:
    """Save tables' whole states ``(table_id, head, turns)`` in two statements whatever their
    number (a crowd of games starting at once): each table's turns replaced, its head set."""
    latest = {table[0]: table for table in tables}  # a later whole state replaces an earlier one
    ids = list(latest)
    await conn.execute(  # the old turns go with the heads' statement; the new ones come after
        "WITH turns AS (DELETE FROM table_turns WHERE table_id = ANY($1::text[])) "
        "INSERT INTO tables_in_progress (table_id, state) "
        "SELECT * FROM unnest($1::text[], $2::bytea[]) "
        "ON CONFLICT (table_id) DO UPDATE SET state = excluded.state",
        ids,
        [table[1] for table in latest.values()],
    )
    turns = [(t, n, value) for t, _, values in latest.values() for n, value in enumerate(values)]
    if turns:
        await conn.execute(
            "INSERT INTO table_turns (table_id, n, value) "
            "SELECT * FROM unnest($1::text[], $2::integer[], $3::bytea[])",
            *[list(column) for column in zip(*turns, strict=True)],
        )


async def _save_heads(storage: Any, conn: Any, heads: list[tuple[Any, ...]]) -> None:
    """Set tables' heads ``(table_id, state)`` in one statement whatever their number (a turn
    of every table in play: as many rows a commit as tables moved, which an ``executemany``
    sent as a statement each)."""
    latest: dict[str, bytes] = dict(heads)  # a later head replaces an earlier one
    await conn.execute(
        "INSERT INTO tables_in_progress (table_id, state) "
        "SELECT * FROM unnest($1::text[], $2::bytea[]) "
        "ON CONFLICT (table_id) DO UPDATE SET state = excluded.state",
        list(latest),
        list(latest.values()),
    )


async def _append_turns(storage: Any, conn: Any, rows: list[tuple[Any, ...]]) -> None:
    """Append turns ``(table_id, n, value)`` in one statement whatever their number (a number
    again replaces its turn)."""
    latest = {(table_id, n): value for table_id, n, value in rows}
    await conn.execute(
        "INSERT INTO table_turns (table_id, n, value) "
        "SELECT * FROM unnest($1::text[], $2::integer[], $3::bytea[]) "
        "ON CONFLICT (table_id, n) DO UPDATE SET value = excluded.value",
        [table_id for table_id, _ in latest],
        [n for _, n in latest],
        list(latest.values()),
    )


HEADS: Final = Batched(_save_heads)
"""The held write of a table's head (`PgStorage.append_turns`): `SAVE_HEAD`, batched."""

TURNS: Final = Batched(_append_turns)
"""The held write of a table's turn (`PgStorage.append_turns`): `APPEND_TURN`, batched."""

TABLES: Final = Batched(_save_tables)
"""The held write of a table's whole state (`PgStorage.save_table`)."""

TOKENS: Final = Batched(_save_tokens)
"""The held write of a saved or deleted token (`PgStorage.save_token`, `delete_token`)."""


async def _delete_tables(storage: Any, conn: Any, tables: list[tuple[Any, ...]]) -> None:
    """Forget tables in progress ``(table_id,)``, with their turns and tokens, in one statement
    whatever their number (every game that ends closes its table)."""
    await conn.execute(
        "WITH heads AS (DELETE FROM tables_in_progress WHERE table_id = ANY($1::text[])), "
        "turns AS (DELETE FROM table_turns WHERE table_id = ANY($1::text[])) "
        "DELETE FROM tokens WHERE table_id = ANY($1::text[])",
        list({table[0] for table in tables}),
    )


DELETES: Final = Batched(_delete_tables)
"""The held write of a table forgotten (`PgStorage.delete_table`)."""

ORDER: Final = (TABLES, HEADS, TURNS, FINISHES, DELETES, TOKENS)
"""The kinds of held writes in the order a round of a commit sends them (`pg_plan.plan`): the
order of a table's life (its whole state, its turns, its record, its end), then tokens, so that
such a chain, and a crowd of them, goes in one round."""

INSERT_TOKEN: Final = (
    "INSERT INTO tokens (token_hash, table_id, seat, expires_ms) VALUES ($1, $2, $3, $4)"
)
