"""The tournament scheduler and standings (server.tournaments.tournament), and a tournament's tables
on the hub, without sockets."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest
from server_helpers import logged_in, make_hub, two_player_cup

from sushigo.protocol import (
    Phase,
    Spectate,
    TableLeft,
    TournamentFormat,
    TournamentSettings,
    TournamentStatus,
)
from sushigo.server.tournaments.tournament import Tournament


def _tournament(entrants: int, players: int = 3, games: int = 12, **kw: object) -> Tournament:
    t = Tournament(
        TournamentSettings(name="cup", kind="sushi-go", players=players, games=games, **kw), "host"
    )  # type: ignore[arg-type]
    for i in range(entrants):
        t.register(f"p{i}", f"P{i}")
    t.start()
    return t


def _play_all(t: Tournament) -> list[tuple[str, ...]]:
    """Run every game to the end, seat 0 winning each; the seatings in order."""
    seatings = []
    while t.status is TournamentStatus.RUNNING:
        games = t.next_games(set(t.entrants))
        assert games, "nothing schedulable although everyone is free"
        for i, seating in enumerate(games):
            table = f"t{len(seatings)}-{i}"
            t.running[table] = seating
            seatings.append(seating)
            n = len(seating)
            t.record(table, tuple(10 * (n - s) for s in range(n)), tuple(range(1, n + 1)))
    return seatings


def test_round_robin_meets_every_group_and_rotates_seats() -> None:
    t = _tournament(4, players=3, games=12)  # 4 groups of 3, each three times
    seatings = _play_all(t)
    assert len(seatings) == 12
    assert Counter(frozenset(s) for s in seatings) == Counter(
        {frozenset(g): 3 for g in combinations(["p0", "p1", "p2", "p3"], 3)}
    )
    seats = Counter((pid, seat) for s in seatings for seat, pid in enumerate(s))
    # Every entrant plays 9 games, 3 in each seat.
    assert all(seats[pid, seat] == 3 for pid in t.entrants for seat in range(3))


def test_random_format_seats_distinct_entrants() -> None:
    t = _tournament(6, players=4, games=20, format=TournamentFormat.RANDOM)
    for seating in _play_all(t):
        assert len(set(seating)) == 4 and set(seating) <= set(t.entrants)


def test_a_game_waits_until_all_its_players_are_free() -> None:
    t = _tournament(3, players=2, games=3)
    first = t.next_games({"p0", "p1", "p2"})
    assert first == [("p0", "p1")]  # p2 alone cannot make the next game (p0+p2)
    t.running["a"] = first[0]
    assert t.next_games({"p2"}) == []
    t.record("a", (5, 3), (1, 2))
    assert t.next_games({"p0", "p1", "p2"}) == [("p0", "p2")]


def test_standings_count_shared_wins_as_fractions_and_rank_by_wins_then_points() -> None:
    t = _tournament(3, players=3, games=2)
    (seating,) = t.next_games(set(t.entrants))
    t.running["a"] = seating
    t.record("a", (30, 30, 10), (1, 1, 3))  # a shared win
    standing = {e.player_id: e.standing() for e in t.standings()}
    assert standing[seating[0]].wins_milli == 500 == standing[seating[1]].wins_milli
    assert standing[seating[2]].wins_milli == 0 and standing[seating[2]].mean_place_milli == 3000
    assert t.standings()[-1].player_id == seating[2]
    ranked = t.standings()
    assert ranked[0].mu > ranked[-1].mu  # the openskill rating moved
    assert t.status is TournamentStatus.RUNNING
    (second,) = t.next_games(set(t.entrants))
    t.running["b"] = second
    t.record("b", (1, 2, 3), (3, 2, 1))
    assert t.status is TournamentStatus.FINISHED
    assert t.next_games(set(t.entrants)) == []
    assert t.info().games_done == 2 and len(t.info().standings) == 3


def test_registration_and_start_refuse_what_they_must() -> None:
    t = Tournament(TournamentSettings(name="cup", kind="sushi-go", players=4), "host")
    t.register("a", "A")
    with pytest.raises(ValueError, match="already entered"):
        t.register("a", "A")
    with pytest.raises(ValueError, match="needs 4"):
        t.start()
    for pid in "bcd":
        t.register(pid, pid.upper())
    t.start()
    with pytest.raises(ValueError, match="not taking entrants"):
        t.register("e", "E")
    with pytest.raises(ValueError, match="already started"):
        t.start()


def test_a_tournament_table_that_closes_sends_its_spectators_back_to_the_lobby_too() -> None:
    """After a tournament's game the server closes its table: everyone at it, spectators as
    well as entrants, gets TABLE_LEFT (docs/PROTOCOL.md section 2.4), not only the seats."""
    hub, clock = make_hub()
    sam = logged_in(hub, clock, "sam")
    _, _, table_id = two_player_cup(hub, clock, sam)
    sam.send(Spectate(ref=sam.ref(), table_id=table_id))
    clock.advance(600, step=1)  # nobody plays: the timers and then bots play the game out
    assert table_id not in hub.tables
    left = sam.expect(TableLeft)
    assert (left.table_id, left.ref) == (table_id, None)
    assert sam.proto.phase is Phase.LOBBY
