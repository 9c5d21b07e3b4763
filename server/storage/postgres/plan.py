"""How the PostgreSQL backend's held writes go to the database: gathered by kind, so that a commit
costs a few round trips whatever the writes' number and mix (a part of `pg_storage.PgStorage`).

Why. A commit of the write-behind is one transaction of every write held since the last one, in
the order they were made. When a crowd of games ends at once, those writes interleave: a game's
last turn, its record, its players' tokens dropped, its table deleted, the same players' tokens
saved at their new tables, the new tables saved, and so on for the next game. Sent as they came,
a run of writes of one kind at a time, that was a statement per two writes or so: several hundred
round trips in a commit, each of which wakes the storage's thread and waits for the interpreter
lock while the server is at its busiest. Such a commit took 100 to 350 ms, the frames of every
table waited for it, and the writes made meanwhile made the next one bigger still.

How. Each held write says which rows it touches (`Touches`): keys such as ``("turns", table)``
or ``("hash", token_hash)``. Two writes that share no key touch different rows, and neither one's
effect depends on rows the other changes, so they commute: either order leaves the database the
same. `plan` puts each write in the earliest group that comes after every earlier write it
shares a key with; groups are numbered ``(round, kind)``, kinds in a fixed order (`PgStorage`
gives the usual chain of a table's life: its whole state, its turns, its record, its deletion,
then tokens), so a chain that follows that order fits in one round, and writes of one kind in one
group go to PostgreSQL together, in their order (an ``executemany``, or a `Batched` kind's one or
two statements, which leave the database as the same writes one after another would). A write
that does not say what it touches (`None`) is a barrier: it comes after everything held before
it and before everything held after it, as if nothing were regrouped around it. The commit is
still one transaction, so what is durable when does not change: all of it, or none of it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Hashable, Iterable
from typing import Any, Final

__all__ = ["Batched", "Held", "Op", "Touches", "plan", "retiring"]

Op = Callable[[Any], Awaitable[object]]
"""A held write as a function of the connection (not batched: run one by one, in order)."""


class Batched:
    """A kind of held write whose instances in one group go to PostgreSQL together: `PgStorage`
    hands ``run(storage, conn, args)`` the arguments of each, in order, so a crowd of them costs
    one round trip or two instead of one each (see the module docstring). `run` must leave the
    database as the writes one after another would."""

    def __init__(self, run: Callable[[Any, Any, list[tuple[Any, ...]]], Awaitable[None]]) -> None:
        self.run = run


Touches = tuple[Hashable, ...] | None
"""The keys of the rows a write reads or changes (see the module docstring); None: any row."""

Held = tuple[str | Op | Batched, Any, Touches]
"""A held write: a statement and its arguments, a function of the connection (arguments None),
or a `Batched` kind and its arguments; and what it touches."""


def retiring(table_id: str) -> tuple[Hashable, ...]:
    """What a write that retires a table touches: its head, its turns and its tokens (the keys
    the writes of each use: ``("head", table)``, ``("turns", table)``, ``("tokens", table)``;
    a token also touches ``("hash", its hash)``, a player's identity and ratings ``("player",
    id)``, a finished game ``("game", id)``)."""
    return (("head", table_id), ("turns", table_id), ("tokens", table_id))


_OPS: Final = object()
"""The kind of every `Op`: they are never batched, but share a group and run in turn."""
_NOWHERE: Final = (-1, -1)


def plan(
    writes: Iterable[Held], order: Iterable[object]
) -> list[tuple[str | Batched | None, list[Any]]]:
    """The groups to send, in order: ``(statement, its argument tuples)`` for an ``executemany``,
    ``(batched, its argument tuples)`` for a `Batched` kind, or ``(None, ops)`` for functions of
    the connection to await in turn. `order` ranks the kinds that come first in a round; others
    follow in the order they are met."""
    ranks: dict[object, int] = {kind: rank for rank, kind in enumerate(order)}
    last: dict[Hashable, tuple[int, int]] = {}
    top = floor = _NOWHERE  # the greatest group so far; the last barrier's group
    groups: dict[tuple[int, int], tuple[str | Batched | None, list[Any]]] = {}
    for write, args, touches in writes:
        kind: object = write if isinstance(write, str | Batched) else _OPS
        rank = ranks.setdefault(kind, len(ranks))
        if touches is None:
            after = top
        else:
            after = max((last.get(key, _NOWHERE) for key in touches), default=_NOWHERE)
            after = max(after, floor)
        # The first group of this kind at or after `after`: the same group if it is of this kind
        # (its writes run in their order, this one last), else this kind in that round or the next.
        where = (max(after[0], 0) if rank >= after[1] else after[0] + 1, rank)
        if where not in groups:
            groups[where] = (write if isinstance(write, str | Batched) else None, [])
        groups[where][1].append(write if kind is _OPS else args or ())
        if touches is None:
            floor = where
        else:
            for key in touches:
                last[key] = where
        top = max(top, where)
    return [groups[where] for where in sorted(groups)]
