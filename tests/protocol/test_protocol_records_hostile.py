"""Hostile record bytes are refused with a protocol error, never an uncaught exception."""

from __future__ import annotations

import msgpack
import pytest

from sushigo.protocol import ErrorCode, ProtocolError
from sushigo.protocol.records import canonical_bytes, parse_record_bytes


@pytest.mark.parametrize(
    "value",
    [
        {"format": "sushigo-fair-record", b"version": 1},  # keys of mixed types
        {b"format": b"sushigo-fair-record"},  # bytes keys only
        [1, 2, 3],  # not a map at all
        {"format": "sushigo-fair-record", "version": 999},
        {"format": "sushigo-roll-record", "version": 2},
        {"format": "sushigo-record", "version": 999},
        {"format": "sushigo-record", "version": 2},  # no game
        {"format": "sushigo-record", "version": 2, "game": 7},
    ],
    ids=[
        "mixed-keys",
        "bytes-keys",
        "array",
        "version",
        "roll-version",
        "v2-version",
        "no-game",
        "game-type",
    ],
)
def test_a_malformed_record_is_refused(value: object) -> None:
    with pytest.raises(ProtocolError) as refused:
        parse_record_bytes(msgpack.packb(value, use_bin_type=True))
    assert refused.value.code is ErrorCode.FAIRNESS_VIOLATION


def test_a_record_of_a_game_not_installed_is_refused_clearly() -> None:
    data = canonical_bytes({"format": "sushigo-record", "game": "chess", "version": 2})
    with pytest.raises(ProtocolError) as refused:
        parse_record_bytes(data)
    assert refused.value.code is ErrorCode.UNSUPPORTED_GAME_KIND
    assert "chess" in refused.value.message
