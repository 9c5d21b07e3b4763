"""Helpers for the storage contract's tests (test_storage_*.py): how a test opens its database
(the fixtures are in conftest.py), and the rows it writes."""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from sushigo.server.storage.contract import PlayerResult, Storage, StoredSanction

Opener = Callable[..., Storage]


def results(*ids: str | None) -> list[PlayerResult]:
    return [
        PlayerResult(player_id=pid, name=f"p{seat}", seat=seat, score=10 * seat, place=seat + 1)
        for seat, pid in enumerate(ids)
    ]


def h(token: bytes) -> bytes:
    return hashlib.sha256(token).digest()


def ban(target: str, at: int, kind: str = "ban", until: int | None = None) -> StoredSanction:
    return StoredSanction(kind, target, f"why {target}", "k:admin", at, until)
