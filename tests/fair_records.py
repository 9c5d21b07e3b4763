"""A game's record built from its parts, for the tests that make records of their own (the
protocol's, and the web page's cross-checks)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sushigo.protocol import FairRecord, StepRecord, server_seed_hash


def fair_record(
    kind: str,
    table_id: str,
    options: Any,
    server_seed: bytes,
    seeds: tuple[bytes, ...],
    steps: Sequence[StepRecord],
    scores: tuple[int, ...],
) -> FairRecord:
    """The record of a game of `kind` at `table_id` (`options`), dealt from `server_seed` and
    the players' `seeds`, played in `steps` to `scores`."""
    return FairRecord(
        game=kind,
        table_id=table_id,
        options=options,
        server_seed=server_seed,
        server_seed_hash=server_seed_hash(server_seed),
        client_seeds=seeds,
        steps=tuple(steps),
        scores=scores,
    )
