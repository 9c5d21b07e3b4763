"""The saved form of a table: each turn packed once, the bytes equal to a save made from scratch,
and what loads back is the same table."""

from __future__ import annotations

import random

import msgpack
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from server_helpers import Clock, Peer

from protocol import TableSettings
from server.hub import Hub
from server.persist import dump, load, table_state
from server.storage import Storage


def test_incremental_saves_equal_a_save_from_scratch_and_load_back() -> None:
    hub = Hub(storage=Storage(":memory:"), key=Ed25519PrivateKey.generate())
    clock = Clock(hub)
    peer = Peer(hub, clock)
    peer.login("saver")
    peer.create(TableSettings(players=3, pass_both_ways=True, turn_seconds=60))
    peer.add_bot("random")
    peer.add_bot("greedy")
    peer.start()
    peer.seed()
    table = hub.tables[peer.table_id]
    rng = random.Random(9)
    for turn in range(1, 14):
        peer.play_turn(rng)
        saved = dump(table)  # the hub saved too: the packed turns are reused, not repacked
        assert len(table.packed_turns[1]) == len(table.turns) == turn
        table.packed_turns = (b"", [])
        assert dump(table) == saved
        again = load(saved, hub, clock.now)
        assert table_state(again) == table_state(table)
        assert again.game is not None and table.game is not None
        assert again.game.observation(0) == table.game.observation(0)


def test_a_single_map_save_of_version_1_still_loads() -> None:
    hub = Hub(storage=Storage(":memory:"), key=Ed25519PrivateKey.generate())
    clock = Clock(hub)
    peer = Peer(hub, clock)
    peer.login("old")
    peer.create(TableSettings(players=2, turn_seconds=60))
    peer.add_bot("random")
    peer.start()
    peer.seed()
    peer.play_turn(random.Random(1))
    table = hub.tables[peer.table_id]
    old = msgpack.packb({**table_state(table), "v": 1}, use_bin_type=True)
    again = load(old, hub, clock.now)
    assert table_state(again) == table_state(table)
