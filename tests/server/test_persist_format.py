"""The saved form of a table: each step packed once, the bytes equal to a save made from scratch,
and what loads back is the same table (saves of protocol 1.0's servers too)."""

from __future__ import annotations

import random
from collections.abc import Sequence

import msgpack
import pytest
from protocol_helpers import v1_turns
from server_helpers import Clock, Peer, check_ended, make_hub, table_with_bots

from sushigo.protocol import (
    CARD_WIRE,
    FairRecord,
    LeaveTable,
    SignedRecord,
    TableSettings,
    verify_signed_record,
)
from sushigo.protocol.records import record_bytes, step_record_bytes
from sushigo.server.hub.core import Hub
from sushigo.server.tables.persist import changes, dump, load, table_state
from sushigo.server.tables.table import Table


def started(name: str, settings: TableSettings, *bots: str) -> tuple[Hub, Clock, Peer]:
    """A hub (in-memory storage) where `name` sits at a new table with `bots`, seeds in."""
    hub, clock = make_hub()
    peer = table_with_bots(hub, clock, name, settings, *bots)
    peer.seed()
    return hub, clock, peer


def test_incremental_saves_equal_a_save_from_scratch_and_load_back() -> None:
    hub, clock, peer = started(
        "saver",
        TableSettings(kind="sushi-go", players=3, turn_seconds=60, variants=("pass_both_ways",)),
        "random",
        "greedy",
    )
    table = hub.tables[peer.table_id]
    rng = random.Random(9)
    for turn in range(1, 14):
        peer.play_turn(rng)
        saved = dump(table)  # the hub saved too: the packed steps are reused, not repacked
        assert len(table.packed_steps[1]) == len(table.steps) == turn
        table.packed_steps = (b"", [])
        assert dump(table) == saved
        again = load(saved, hub, clock.now)
        assert table_state(again) == table_state(table)
        assert again.game is not None and table.game is not None
        assert again.game.observation(0) == table.game.observation(0)


def _protocol_1_state(table: Table) -> dict[str, object]:
    """The table as a protocol 1.0 server saved it (state version 1: one map, the settings with a
    flag per card variant, the turns with every seat's opening)."""
    state = table_state(table)
    settings = table.settings
    return {
        **{k: v for k, v in state.items() if k not in ("steps", "drawn")},
        "v": 1,
        "settings": {
            "kind": settings.kind,
            "players": settings.players,
            "pass_both_ways": "pass_both_ways" in settings.variants,
            "dummy": "dummy" in settings.variants,
            "soy_sauce": "soy_sauce" in settings.variants,
            "turn_seconds": settings.turn_seconds,
        },
        "turns": v1_turns(table.steps),
    }


def test_a_single_map_save_of_protocol_1_still_loads() -> None:
    hub, clock, peer = started(
        "old",
        TableSettings(kind="sushi-go", players=2, turn_seconds=60, variants=("soy_sauce",)),
        "random",
    )
    peer.play_turn(random.Random(1))
    peer.play_turn(random.Random(2))
    table = hub.tables[peer.table_id]
    old = msgpack.packb(_protocol_1_state(table), use_bin_type=True)
    again = load(old, hub, clock.now)
    assert table_state(again) == table_state(table)
    assert again.settings == table.settings


def test_the_saved_turns_are_the_records_and_the_record_is_made_of_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hub, _, peer = started(
        "signer", TableSettings(kind="sushi-go", players=2, turn_seconds=60), "greedy"
    )
    table = hub.tables[peer.table_id]
    assert isinstance(table, Table)
    given: list[Sequence[bytes] | None] = []
    sign = hub.sign

    def spied(record: FairRecord, steps: Sequence[bytes] | None = None) -> SignedRecord:
        given.append(steps)
        return sign(record, steps)

    monkeypatch.setattr(hub, "sign", spied)
    rng = random.Random(3)
    ended = None
    while ended is None:
        ended = peer.play_turn(rng)
    record = verify_signed_record(ended.record, hub.server_key)  # canonical, or refused
    packed = [step_record_bytes(t, CARD_WIRE) for t in record.steps]
    assert given == [packed], "signed from the steps saved as they were played"
    assert table.packed_steps[1] == packed
    assert ended.record.record == record_bytes(record)
    check_ended(peer, ended, table.options)


def test_the_header_is_packed_again_only_when_it_changes() -> None:
    hub, _, peer = started(
        "header", TableSettings(kind="sushi-go", players=3, turn_seconds=60), "random", "greedy"
    )
    table = hub.tables[peer.table_id]
    peer.play_turn(random.Random(4))
    first = changes(table).head
    assert dump(table).startswith(first)
    assert changes(table).head is first, "nothing in it changed: the same bytes, not packed again"
    peer.send(LeaveTable(ref=peer.ref()))  # a bot takes the seat over: the header changes
    again = changes(table).head
    assert again != first and dump(table).startswith(again)
    assert changes(table).head is again
