"""A finished game's outcome as it is stored: each seat's result, and the ratings it moves."""

from __future__ import annotations

from collections.abc import Sequence

from openskill.models import PlackettLuce

from sushigo.protocol import SignedRecord
from sushigo.server.storage.contract import PlayerResult, Storage
from sushigo.server.tables.table import Table


def game_results(table: Table, signed: SignedRecord) -> tuple[str, list[PlayerResult]]:
    """The game's id (from its signature) and each seat's result; only players with a key keep
    their id (guests and bots are stored by name)."""
    game = table.game
    assert game is not None
    scores, places = game.scores(), game.places()
    results = [
        PlayerResult(
            player_id=seat.player_id
            if seat.player_id and seat.player_id.startswith("k:")
            else None,
            name=seat.name or f"seat {seat.index}",
            seat=seat.index,
            score=scores[seat.index],
            place=places[seat.index],
        )
        for seat in table.seating.seats
    ]
    return signed.signature[:16].hex(), results


def rate(
    storage: Storage, results: list[PlayerResult], kind: str, table_id: str | None = None
) -> None:
    """Move the identified players' ratings at this game kind (openskill's Plackett-Luce, one
    ladder per kind). The storage reads and writes them in its own time (in the commit after
    this one), so the server never waits for it."""
    rated = [(r.player_id, r.place) for r in results if r.player_id is not None]
    if len(rated) < 2:
        return
    places: list[float] = [place for _, place in rated]

    def new_ratings(old: Sequence[tuple[float, float] | None]) -> list[tuple[float, float]]:
        model = PlackettLuce()
        teams = [[model.rating(mu=o[0], sigma=o[1]) if o else model.rating()] for o in old]
        return [(t[0].mu, t[0].sigma) for t in model.rate(teams, ranks=places)]

    storage.rate_game(kind, [player_id for player_id, _ in rated], new_ratings, table_id)
