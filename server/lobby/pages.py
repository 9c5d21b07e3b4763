"""The table list's pages: bounded in bytes, and built once while nothing they show changes.

A TABLE_LIST page holds at most the `limit` asked for (100 at most) and no more tables than fit
in `PAGE_BYTES`, whatever the tables' names and settings: its frame stays under
`TABLE_LIST_BYTES` (PROTOCOL.md section 8); `total` says how many match, so a client pages on
from ``offset + len(tables)``.

A page is built once and sent again to every request for it while no table was opened, closed or
changed (`server.tables.index.Tables.version`): a lobby that many players browse, or a flood of requests, costs one
page's building, and the protocol packs the same page's tables once too (`TableList`'s packer).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TypeVar

import msgpack

from sushigo.protocol import TableInfo, TableStatus
from sushigo.protocol._codec import codec
from sushigo.server.tables.index import Tables
from sushigo.server.tables.table import Table

T = TypeVar("T")

TABLE_LIST_BYTES = 64 * 1024
"""The largest TABLE_LIST frame the server sends (PROTOCOL.md section 8), and the largest page
of the admins' listings (`session_list`, `sanction_list`, `audit_list`)."""
PAGE_BYTES = TABLE_LIST_BYTES - 1024
"""A page's tables, packed, at most: the rest of the frame (its header, ``ref``, ``total``,
``offset``) takes a few dozen bytes."""
KEPT_PAGES = 64
"""Pages kept built at once (each filter and offset asked for is one)."""
PAGE_SECONDS = 1.0
"""A page built longer ago is built again even if no change was counted (a change that is not
counted, if there is one, shows a second late at most)."""


def fill(items: Iterable[T], limit: int, kind: type[T], budget: int = PAGE_BYTES) -> list[T]:
    """The first of `items` (structures of `kind`), at most `limit` of them and no more than fit
    in `budget` bytes packed (one always does: no structure is that long). The other listings'
    pages are bounded so too (`server.operations.admin`)."""
    encode = codec(kind)[0]
    page: list[T] = []
    used = 0
    for item in items:
        used += len(msgpack.packb(encode(item)))
        if used > budget and page:
            break
        page.append(item)
        if len(page) >= limit:
            break
    return page


@dataclass(frozen=True, slots=True)
class Page:
    """A page as built: its tables, and how many tables matched."""

    tables: tuple[TableInfo, ...]
    total: int
    version: int
    built: float


class Pages:
    """The pages built, by what they were asked for."""

    def __init__(self) -> None:
        self._pages: dict[tuple[str | None, TableStatus | None, int, int], Page] = {}

    def page(
        self,
        tables: Tables,
        kind: str | None,
        status: TableStatus | None,
        offset: int,
        limit: int,
        now: float,
    ) -> Page:
        """The page of `tables` (newest first) matching `kind` and `status` from `offset`."""
        key = (kind, status, offset, limit)
        known = self._pages.get(key)
        if (
            known is not None
            and known.version == tables.version
            and now - known.built < PAGE_SECONDS
        ):
            return known
        matching = [
            t
            for t in reversed(tables.values())
            if (kind is None or t.settings.kind == kind) and (status is None or t.status is status)
        ]
        page = Page(
            tuple(fill(_infos(matching[offset:]), limit, TableInfo)),
            len(matching),
            tables.version,
            now,
        )
        if known is None and len(self._pages) >= KEPT_PAGES:
            del self._pages[next(iter(self._pages))]
        self._pages[key] = page
        return page


def _infos(tables: Iterable[Table]) -> Iterator[TableInfo]:
    for table in tables:
        yield table.info()
