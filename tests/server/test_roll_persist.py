"""Sushi Roll tables saved and restored (hub level, injected clock): every action is saved, the
saved form is packed incrementally and loads back to the same game, a restart resumes at the very
action it was at (re-rolled dice included) and the players take their seats back by token; roll
results are stored and rated apart from the card game's."""

from __future__ import annotations

import dataclasses
import io
import random
from collections.abc import Sequence
from pathlib import Path

import msgpack
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from roll_server_helpers import RollPeer, mover_of, play_out, resume, roll_settings, seated
from server_helpers import Clock, hello, make_hub, table_with_bots

from sushigo.engine.games.sushi_roll import Reroll, Swap, Take
from sushigo.protocol import (
    Acted,
    JoinTable,
    LoggedIn,
    Phase,
    TableJoined,
    TableSettings,
    TableUpdate,
    Welcome,
    encode_message,
    login_key_message,
)
from sushigo.server.hub.core import Hub
from sushigo.server.keys import load_or_create_server_key
from sushigo.server.replay import export
from sushigo.server.replay import main as replay_main
from sushigo.server.storage.sqlite.storage import SqliteStorage
from sushigo.server.tables.persist import StateError, dump, load, table_state
from sushigo.server.tables.table import Table

NOW_MS = 1_700_000_000_000


def test_every_action_is_saved_incrementally_and_loads_back() -> None:
    hub, clock = make_hub()
    peers = seated(hub, clock, 3)
    table = hub.tables[peers[0].table_id]
    assert table.settings.kind == "sushi-roll"
    saved_at: list[int] = []
    real_save, real_append = hub.storage.save_table, hub.storage.append_turns

    def save(table_id: str, state: bytes, turns: Sequence[bytes] = ()) -> None:
        saved_at.append(len(table.steps))
        real_save(table_id, state, turns)

    def append(
        table_id: str, first: int, turns: Sequence[bytes], state: bytes | None = None
    ) -> None:
        assert first + len(turns) == len(table.steps), "only the new action is written"
        saved_at.append(len(table.steps))
        real_append(table_id, first, turns, state)

    hub.storage.save_table = save  # type: ignore[method-assign]
    hub.storage.append_turns = append  # type: ignore[method-assign]
    rng = random.Random(3)
    over = False
    while not over:
        for peer in peers:
            peer.play(rng)
            over = not table.playing
            if over:
                break  # the table was retired with its record
            blob = dump(table)
            assert len(table.packed_steps[1]) == len(table.steps)
            table.packed_steps = (b"", [])
            assert dump(table) == blob, "incremental saves equal a save from scratch"
            again = load(blob, hub, clock.now)
            assert again.settings.kind == "sushi-roll"
            assert table_state(again) == table_state(table)
            assert again.game is not None and table.game is not None
            assert again.game.observation(None) == table.game.observation(None)
    assert saved_at == list(range(1, len(saved_at) + 1)), "one save after every action"


def test_a_card_tables_state_is_the_same_as_any_games() -> None:
    hub, clock = make_hub()
    peer = table_with_bots(
        hub, clock, "card", TableSettings(kind="sushi-go", players=2, turn_seconds=60), "random"
    )
    peer.seed()
    peer.play_turn(random.Random(1))
    table = hub.tables[peer.table_id]
    state = table_state(table)
    assert "turns" not in state and state["settings"]["kind"] == "sushi-go"
    (step,) = state["steps"]
    assert list(step["seats"]) == [0, 1] and len(step["commitments"]) == 2
    assert isinstance(load(dump(table), hub, clock.now), Table)


def test_a_roll_state_that_does_not_replay_is_refused_and_others_still_load() -> None:
    storage = SqliteStorage(":memory:")
    hub = Hub(storage=storage, key=Ed25519PrivateKey.generate(), wall_ms=lambda: NOW_MS)
    clock = Clock(hub)
    peers = seated(hub, clock, 2)
    mover = mover_of(peers)
    mover.act(Take(0))
    table = hub.tables[mover.table_id]
    header, *steps = msgpack.Unpacker(io.BytesIO(dump(table)), raw=False)
    bad_step = {**steps[0], "seats": [1 - steps[0]["seats"][0]]}  # not that seat's turn
    broken = msgpack.packb(header, use_bin_type=True) + msgpack.packb(bad_step, use_bin_type=True)
    with pytest.raises(StateError, match="does not replay"):
        load(broken, hub, clock.now)
    with pytest.raises(StateError, match="unreadable"):
        load(msgpack.packb({**header, "phase": "dancing"}, use_bin_type=True), hub, clock.now)
    other = table_with_bots(hub, clock, "card", TableSettings(kind="sushi-go", players=2), "random")
    other.seed()
    other.play_turn(random.Random(1))  # saved at the turn's end
    storage.save_table("zz-broken", broken)

    again = Hub(storage=storage, key=hub.key, wall_ms=lambda: NOW_MS)
    assert again.restore(clock.now) == 2  # the good roll table and the card table
    assert set(again.tables) == {mover.table_id, other.table_id}


def test_restart_mid_turn_resumes_at_the_same_dice_and_players_take_their_seats_back() -> None:
    storage = SqliteStorage(":memory:")
    key = Ed25519PrivateKey.generate()
    hub = Hub(storage=storage, key=key, wall_ms=lambda: NOW_MS)
    clock = Clock(hub)
    peers = seated(hub, clock, 3, turn_seconds=45)
    rng = random.Random(8)
    for _ in range(5):  # five turns of plain takes, keeping every token
        mover = mover_of(peers)
        mover.act(Take(0))
        for peer in peers:
            peer.drain()
    mover = mover_of(peers)
    assert mover.seat is not None
    mover.act(Reroll((0, 1)))
    mover.expect(Acted)
    mover.act(Swap(0, (mover.seat + 1) % 3, 0))
    shown = mover.expect(Acted).observation
    for peer in peers:
        peer.drain()
    table = hub.tables[mover.table_id]
    assert table.settings.kind == "sushi-roll"
    steps = len(table.steps)

    # The process dies: a new hub on the same database, some time later.
    again = Hub(storage=storage, key=key, wall_ms=lambda: NOW_MS)
    clock2 = Clock(again, now=7.0)
    assert again.restore(clock2.now) == 1
    restored = again.tables[mover.table_id]
    assert restored.settings.kind == "sushi-roll" and restored.game is not None
    assert restored.settings.kind == "sushi-roll"
    encode_message(TableUpdate(table=restored.info()), 1)  # must not raise
    assert len(restored.steps) == steps
    assert restored.game.observation(mover.seat) == shown, "the same dice, tokens and turn"
    assert restored.deadline == clock2.now + 45

    backs = []
    for peer in peers:
        back, resumed = resume(again, clock2, peer, peer.proto.last_seq, address="10.0.4.1")
        snapshot = resumed.snapshot
        assert snapshot is not None
        assert resumed.phase is (Phase.MOVING if peer is mover else Phase.WAITING)
        assert (resumed.round, resumed.turn) == (shown.round, shown.cycle)
        assert snapshot.observation == dataclasses.replace(shown, seat=peer.seat)
        assert back.moving is (peer is mover)
        backs.append(back)
    play_out(backs, rng)
    records = [b.witness.verify() for b in backs]
    assert records[0] == records[1] == records[2]
    assert not any(s.openings[0].auto for s in records[0].steps)
    assert [r.kind for r in storage.list_records()] == ["sushi-roll"]
    assert storage.load_tables() == []


def test_roll_games_are_rated_apart_from_card_games() -> None:
    hub, clock = make_hub()
    keys = [Ed25519PrivateKey.generate() for _ in range(2)]
    peers = [RollPeer(hub, clock, address=f"10.0.5.{i}") for i in range(2)]
    ids = []
    for i, (peer, key) in enumerate(zip(peers, keys, strict=True)):
        peer.send(hello(peer.ref()))
        welcome = peer.expect(Welcome)
        peer.send(login_key_message(key, f"k{i}", welcome.server_key, welcome.challenge, 9))
        ids.append(peer.expect(LoggedIn).player_id)
    peers[0].create(roll_settings(2))
    peers[1].send(JoinTable(ref=peers[1].ref(), table_id=peers[0].table_id))
    peers[1].joined(peers[1].expect(TableJoined))
    peers[0].start()
    play_out(peers, random.Random(2))
    for pid in ids:
        assert hub.storage.get_rating(pid, "sushi-roll") is not None
        assert hub.storage.get_rating(pid, "sushi-go") is None, "the card rating is untouched"
    board = hub.storage.leaderboard(kind="sushi-roll")
    assert sorted(e.player_id for e in board) == sorted(ids)
    assert all(e.games == 1 for e in board)
    assert hub.storage.leaderboard(kind="sushi-go") == []


def test_ratings_by_kind_in_storage() -> None:
    db = SqliteStorage(":memory:")
    ann = db.upsert_identity(bytes(range(32)), "ann", 1)
    db.set_ratings({ann: (20.0, 5.0)}, "sushi-go")
    db.set_ratings({ann: (30.0, 2.0)}, "sushi-roll")
    assert db.get_rating(ann, "sushi-go") == (20.0, 5.0)
    assert db.get_rating(ann, "sushi-roll") == (30.0, 2.0)
    assert [e.mu for e in db.leaderboard(kind="sushi-go")] == [20.0]
    assert [e.mu for e in db.leaderboard(kind="sushi-roll")] == [30.0]


def test_the_replay_tool_shows_and_verifies_a_stored_roll_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "server.db"
    key = load_or_create_server_key(db.with_name(db.name + ".key"))
    with SqliteStorage(db) as storage:
        hub = Hub(storage=storage, key=key, wall_ms=lambda: NOW_MS)
        clock = Clock(hub)
        peer = RollPeer(hub, clock)
        peer.login("solo")
        peer.create(roll_settings(3))
        peer.add_bot("heuristic")
        peer.add_bot("greedy")
        peer.start()
        play_out([peer], random.Random(1))
        (game,) = storage.list_records()
    assert game.kind == "sushi-roll"
    exported = tmp_path / "roll.rec"
    assert replay_main(["--db", str(db), game.game_id, "--export", str(exported)]) == 0
    out = capsys.readouterr().out
    assert "Sushi Roll, 3 players" in out and "round 3 cycle  7:" in out
    assert "take" in out and "verified: signature" in out
    assert replay_main([str(exported)]) == 0
    over = peer.witness.over
    assert over is not None
    tampered = dataclasses.replace(over.record, signature=bytes(64))
    export(tampered, tmp_path / "tampered.rec")
    capsys.readouterr()
    assert replay_main([str(tmp_path / "tampered.rec")]) == 1
    assert "NOT VERIFIED" in capsys.readouterr().out
