"""Hostile record bytes are refused with a protocol error, never an uncaught exception."""

from __future__ import annotations

from collections.abc import Callable

import msgpack
import pytest
from sample_helpers import sample_record

from sushigo.protocol import ErrorCode, ProtocolError
from sushigo.protocol.records import (
    canonical_bytes,
    export_bytes,
    import_bytes,
    parse_record_bytes,
)


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


# -- exported record files ---------------------------------------------------------------------


def test_an_exported_record_reads_back_with_its_names_or_without() -> None:
    signed = sample_record()
    assert import_bytes(export_bytes(signed, ["ann", "bob"])) == (signed, ("ann", "bob"))
    assert import_bytes(export_bytes(signed)) == (signed, ())
    # A file written before names were exported (no "names" key) reads the same.
    old = {"record": signed.record, "signature": signed.signature, "server_key": signed.server_key}
    assert import_bytes(msgpack.packb(old, use_bin_type=True)) == (signed, ())


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda d: d.pop("record"), "record: missing"),
        (lambda d: d.update(signature=b"x" * 63), "signature: 63 bytes"),
        (lambda d: d.update(server_key="not bytes"), "server_key: missing, or not bytes"),
        (lambda d: d.update(names=["ann", 7]), "names"),
        (lambda d: d.update(names=["x"] * 10), "names"),
    ],
    ids=["no-record", "short-signature", "key-type", "name-type", "too-many-names"],
)
def test_a_malformed_export_is_refused_saying_what_is_wrong(
    change: Callable[[dict[str, object]], object], said: str
) -> None:
    signed = sample_record()
    data: dict[str, object] = {
        "record": signed.record,
        "signature": signed.signature,
        "server_key": signed.server_key,
    }
    change(data)
    with pytest.raises(ValueError, match=said):
        import_bytes(msgpack.packb(data, use_bin_type=True))


@pytest.mark.parametrize("data", [b"", b"\xc1", b"\x93\x01\x02\x03", b"\x00" * 300_000])
def test_bytes_that_are_no_export_are_refused(data: bytes) -> None:
    with pytest.raises(ValueError):
        import_bytes(data)
