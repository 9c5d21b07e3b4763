"""A tournament restored on a hub (server.tournaments.desk, `TournamentDesk.restore`), without
sockets: the hub of a restarted server takes its tournament up with the game in play at its restored
table; a game whose table did not come back is played again; an entrant that logs in again with its
key is its entrant again, one that does not is waited for `RESTORE_GRACE`, then the default bot
plays for it; the tournament finishes with every game counted."""

from __future__ import annotations

from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from server_helpers import Clock, Peer, hub_on

from sushigo.protocol import (
    CreateTournament,
    RegisterTournament,
    StartTournament,
    TableJoined,
    TournamentSettings,
    TournamentStatus,
    TournamentUpdate,
)
from sushigo.server.hub.core import Hub
from sushigo.server.storage.sqlite.storage import SqliteStorage
from sushigo.server.tournaments.desk import RESTORE_GRACE

SETTINGS = TournamentSettings(name="cup", kind="sushi-go", players=2, games=2, turn_seconds=1)


def _hub(path: Path, key: Ed25519PrivateKey) -> Hub:
    return hub_on(SqliteStorage(path), key)


def test_a_restored_tournament_takes_its_entrants_back_and_waits_for_the_others(
    tmp_path: Path,
) -> None:
    path, server_key = tmp_path / "server.db", Ed25519PrivateKey.generate()
    ann_key, bob_key = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    first = _hub(path, server_key)
    clock = Clock(first)
    host, ann, bob = (Peer(first, clock) for _ in range(3))
    host.login("host")
    ann_id = ann.login_key(ann_key, "ann").player_id
    bob_id = bob.login_key(bob_key, "bob").player_id
    host.send(CreateTournament(ref=host.ref(), settings=SETTINGS))
    for peer in (ann, bob):
        peer.send(RegisterTournament(ref=peer.ref(), name="cup"))
    host.send(StartTournament(ref=host.ref(), name="cup"))
    table_id = ann.expect(TableJoined).table.table_id
    first.storage.close()  # every write was committed as made: as after a crash

    again = _hub(path, server_key)
    again.restore(5000.0)
    assert again.tables[table_id].tournament == "cup"  # the game goes on, as the tournament's
    t = again.desk.tournaments["cup"]
    assert (t.status, t.games_started, t.games_done) == (TournamentStatus.RUNNING, 1, 0)
    assert t.running == {table_id: (ann_id, bob_id)}
    again.storage.close()

    # Had that table not come back (its state unreadable), its game is played again.
    with SqliteStorage(path) as storage:
        storage.delete_table(table_id)
    third = _hub(path, server_key)
    clock = Clock(third, now=9000.0)
    third.restore(clock.now)
    t = third.desk.tournaments["cup"]
    assert (t.games_started, t.running) == (0, {})
    ann = Peer(third, clock)
    ann.login_key(ann_key, "ann")  # in the lobby: the entrant again, and a watcher
    clock.alive = [ann]
    clock.advance(RESTORE_GRACE / 2, step=0.5)
    seen = ann.drain()
    assert any(isinstance(m, TournamentUpdate) for m in seen)
    assert not any(isinstance(m, TableJoined) for m in seen)  # bob is waited for
    clock.advance(RESTORE_GRACE, step=0.5)
    joined = ann.expect(TableJoined)  # and then played for by the default bot
    clock.alive = []  # ann plays no more: the timers play for her
    seats = third.tables[joined.table.table_id].seating.seats
    assert [(s.player_id, s.bot) for s in seats] == [(ann_id, None), (bob_id, "default")]
    clock.advance(600, step=1)
    assert t.status is TournamentStatus.FINISHED
    assert sum(e.games for e in t.entrants.values()) == 4
    assert len(third.storage.list_records()) == 2
    third.storage.close()
