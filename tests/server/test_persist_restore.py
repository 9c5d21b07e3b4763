"""Saved tables come back after a restart (hub level, injected clock): the same turn, hands and
tableaus; the restored table's info encodes on the wire."""

from __future__ import annotations

import random

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from server_helpers import Clock, Peer, check_ended, hello, hub_on, make_hub, table_with_bots

from sushigo.engine import GameOptions
from sushigo.protocol import (
    Phase,
    Resume,
    Resumed,
    TableLeft,
    TableSettings,
    TableUpdate,
    TurnStart,
    Welcome,
    encode_message,
)
from sushigo.server.storage.sqlite.storage import SqliteStorage
from sushigo.server.tables.persist import dump, load


def test_restart_restores_the_game_and_the_token_resumes_it() -> None:
    storage = SqliteStorage(":memory:")
    key = Ed25519PrivateKey.generate()
    hub = hub_on(storage, key)
    clock = Clock(hub)
    peer = table_with_bots(
        hub,
        clock,
        "keeper",
        TableSettings(kind="sushi-go", players=2, turn_seconds=60, variants=("soy_sauce",)),
        "random",
    )
    peer.seed()
    rng = random.Random(4)
    for _ in range(12):  # into round 2
        peer.play_turn(rng)
    start = [m for m in peer.drain() if isinstance(m, TurnStart)][-1]
    assert start.round == 2

    # The process dies: a new hub on the same database.
    again = hub_on(storage, key)
    clock2 = Clock(again, now=5.0)
    assert again.restore(clock2.now) == 1
    table = again.tables[peer.table_id]
    assert table.settings.kind == "sushi-go"
    encode_message(TableUpdate(table=table.info()), 1)  # must not raise
    back = Peer(again, clock2)
    back.table_id, back.seat = peer.table_id, peer.seat
    back.send(hello(back.ref()))
    back.expect(Welcome)
    back.send(Resume(ref=back.ref(), token=peer.token, last_seq=peer.proto.last_seq))
    resumed = back.expect(Resumed)
    assert resumed.phase is Phase.COMMITTING
    assert (resumed.round, resumed.turn) == (start.round, start.turn)
    assert resumed.snapshot is not None
    assert resumed.snapshot.observation == start.observation
    back.commit(rng.choice(start.observation.legal_actions()), start.round, start.turn)
    ended = None
    while ended is None:
        ended = back.play_turn(rng)
    back.verified += peer.verified  # the turns before the restart were checked by `peer`
    check_ended(back, ended, GameOptions(players=2, soy_sauce=True))


def test_dump_and_load_keep_settings_typed() -> None:
    hub, clock = make_hub()
    settings = TableSettings(
        kind="sushi-go", players=3, turn_seconds=42, variants=("pass_both_ways",)
    )
    peer = table_with_bots(hub, clock, "host", settings, start=False)
    table = hub.tables[peer.table_id]
    loaded = load(dump(table), hub, 0.0)
    assert loaded.settings == table.settings
    assert type(loaded.settings.kind) is str and loaded.settings.kind == "sushi-go"
    encode_message(TableUpdate(table=loaded.info()), 1)


def test_a_tournament_tables_state_names_its_tournament() -> None:
    """A node that takes a tournament's game over (its node died) must know whose it is, to send
    its entrants home at its end: the saved state says; another table's state says nothing."""
    hub, clock = make_hub()
    peer = table_with_bots(hub, clock, "host", TableSettings(kind="sushi-go", players=2))
    table = hub.tables[peer.table_id]
    assert load(dump(table), hub, 0.0).tournament is None
    assert b"tournament" not in dump(table)
    table.tournament = "spring cup"
    assert load(dump(table), hub, 0.0).tournament == "spring cup"


def test_a_restored_game_of_another_nodes_tournament_ends_as_there() -> None:
    """A node that takes over (or restores) a table whose saved state names a tournament it
    does not run plays it as the node it was placed on would: at its end its entrants are sent
    home (a cluster's node; nowhere for a lone server) and the table closes."""
    storage = SqliteStorage(":memory:")
    key = Ed25519PrivateKey.generate()
    hub = hub_on(storage, key)
    clock = Clock(hub)
    settings = TableSettings(kind="sushi-go", players=2, turn_seconds=60)
    peer = table_with_bots(hub, clock, "keeper", settings, "random", start=False)
    hub.tables[peer.table_id].tournament = "far cup"
    peer.start()
    peer.seed()
    rng = random.Random(5)
    peer.play_turn(rng)
    start = [m for m in peer.drain() if isinstance(m, TurnStart)][-1]

    again = hub_on(storage, key)
    clock2 = Clock(again, now=5.0)
    assert again.restore(clock2.now) == 1
    assert again.desk.visiting == {peer.table_id: "far cup"}
    back = Peer(again, clock2)
    back.table_id, back.seat = peer.table_id, peer.seat
    back.send(hello(back.ref()))
    back.expect(Welcome)
    back.send(Resume(ref=back.ref(), token=peer.token, last_seq=peer.proto.last_seq))
    back.expect(Resumed)
    back.commit(rng.choice(start.observation.legal_actions()), start.round, start.turn)
    while back.play_turn(rng) is None:
        pass
    left = [m for m in back.drain() if isinstance(m, TableLeft)]
    assert [m.reason for m in left] == ["tournament game over"]
    assert peer.table_id not in again.tables and not again.desk.visiting
