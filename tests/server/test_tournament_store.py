"""A tournament as stored (`server.tournaments.store`): what comes back is the same tournament, and
a blob that is not one is refused in one line."""

from __future__ import annotations

import msgpack
import pytest

from sushigo.protocol import TournamentFormat, TournamentSettings, TournamentStatus
from sushigo.server.tournaments.store import dump, load
from sushigo.server.tournaments.tournament import Tournament


def _played() -> Tournament:
    t = Tournament(TournamentSettings(name="cup", kind="sushi-go", players=2, games=5), "k:host")
    t.address = "10.0.0.1"
    for n in range(4):
        t.register(f"k:{n}", f"p{n}")
    t.start()
    everyone = {"k:0", "k:1", "k:2", "k:3"}
    (t.running["a"],) = t.next_games(everyone)
    t.record("a", (40, 31), (1, 2))
    (t.running["b"],) = t.next_games(everyone)
    return t


def test_a_stored_tournament_comes_back_the_same() -> None:
    t = _played()
    again = load(dump(t))
    assert again.info() == t.info()
    assert (again.host, again.address, again.status) == ("k:host", "10.0.0.1", t.status)
    assert again.running == {"b": t.running["b"]}
    assert (again.games_started, again.games_done) == (2, 1)
    assert [(e.mu, e.sigma) for e in again.entrants.values()] == [
        (e.mu, e.sigma) for e in t.entrants.values()
    ]
    # It goes on where it stopped: the same next games as the one that was not stored.
    free = {"k:0", "k:1", "k:2", "k:3"} - set(t.running["b"])
    assert again.next_games(free) == t.next_games(free)


@pytest.mark.parametrize(
    "status", [TournamentStatus.REGISTERING, TournamentStatus.RUNNING, TournamentStatus.FINISHED]
)
def test_every_status_comes_back(status: TournamentStatus) -> None:
    settings = TournamentSettings(
        name="r", kind="sushi-go", players=2, games=1, format=TournamentFormat.RANDOM
    )
    t = Tournament(settings, None)
    t.register("g:a", "a")
    t.register("g:b", "b")
    if status is not TournamentStatus.REGISTERING:
        t.start()
    t.status = status
    again = load(dump(t))
    assert again.info() == t.info() and again.host is None


@pytest.mark.parametrize(
    "blob",
    [
        b"",
        b"\xc1",
        msgpack.packb([1, 2]),
        msgpack.packb({"v": 99}),
        msgpack.packb({"v": 1, "settings": {}}),
    ],
)
def test_a_blob_that_is_no_tournament_is_refused_in_one_line(blob: bytes) -> None:
    with pytest.raises(ValueError, match="cannot read a stored tournament") as caught:
        load(blob)
    assert "\n" not in str(caught.value)
