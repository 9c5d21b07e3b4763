"""Tournaments: who plays which game, and the standings.

Sans-IO: the hub asks `next_games(free)` which games can start now (every entrant of a game must be
free: not at a table), seats them, and reports each finished game with `record(...)`. Seatings:

- round robin: every group of entrants of the table size in turn (itertools.combinations in
  registration order), the n-th time a group comes round with its seats rotated n places, so over
  full cycles every entrant meets every other and sits in every seat equally often;
- random: a random group in random seats each game (from the tournament's own generator).

Standings rank by wins (a win shared by k counts 1/k), then total points. Each entrant also has a
tournament openskill rating (Plackett-Luce, shown as the ordinal mu - 3 sigma).
"""

from __future__ import annotations

import itertools
import random
import secrets
from dataclasses import dataclass, field

from openskill.models import PlackettLuce

from sushigo.protocol import (
    Standing,
    TableSettings,
    TournamentFormat,
    TournamentInfo,
    TournamentSettings,
    TournamentStatus,
)

_MODEL = PlackettLuce()


@dataclass(slots=True)
class Entrant:
    """One registered player and their results so far."""

    player_id: str
    name: str
    games: int = 0
    wins: float = 0.0
    points: int = 0
    places: int = 0
    """Sum of places, for the mean."""
    mu: float = field(default_factory=lambda: _MODEL.rating().mu)
    sigma: float = field(default_factory=lambda: _MODEL.rating().sigma)

    def standing(self) -> Standing:
        """As the wire shows it (thousandths for the fractions)."""
        return Standing(
            player_id=self.player_id,
            name=self.name,
            games=self.games,
            wins_milli=round(self.wins * 1000),
            points=self.points,
            mean_place_milli=round(self.places / self.games * 1000) if self.games else 0,
            rating_milli=round((self.mu - 3 * self.sigma) * 1000),
        )


class Tournament:
    """One tournament's entrants, schedule and results."""

    def __init__(self, settings: TournamentSettings, host: str | None) -> None:
        self.settings = settings
        self.host = host
        self.address = ""
        """The address its host created it from (for the cap per address)."""
        self.status = TournamentStatus.REGISTERING
        self.entrants: dict[str, Entrant] = {}
        """By player id, in registration order."""
        self.games_started = 0
        self.games_done = 0
        self.running: dict[str, tuple[str, ...]] = {}
        """Table id -> the player ids seated there, in seat order."""
        self.rng = random.Random(secrets.randbits(64))

    def table_settings(self) -> TableSettings:
        """The settings of this tournament's tables."""
        s = self.settings
        return TableSettings(
            kind=s.kind,
            players=s.players,
            variants=s.variants,
            turn_seconds=s.turn_seconds,
        )

    def register(self, player_id: str, name: str) -> None:
        """Add an entrant (ValueError naming why when that is not possible)."""
        if self.status is not TournamentStatus.REGISTERING:
            raise ValueError(f"tournament {self.settings.name!r} is not taking entrants")
        if player_id in self.entrants:
            raise ValueError(f"already entered in {self.settings.name!r}")
        if len(self.entrants) >= 256:
            raise ValueError(f"tournament {self.settings.name!r} is full (256 entrants)")
        self.entrants[player_id] = Entrant(player_id, name)

    def start(self) -> None:
        """Close registration (ValueError when there are too few entrants for one game)."""
        if self.status is not TournamentStatus.REGISTERING:
            raise ValueError(f"tournament {self.settings.name!r} has already started")
        if len(self.entrants) < self.settings.players:
            raise ValueError(
                f"{len(self.entrants)} entrants, but a game needs {self.settings.players}"
            )
        self.status = TournamentStatus.RUNNING
        order = list(self.entrants)
        self._groups = list(itertools.combinations(order, self.settings.players))

    def _seating(self, index: int) -> tuple[str, ...]:
        """Who sits where in the tournament's game number `index` (from 0)."""
        p = self.settings.players
        if self.settings.format is TournamentFormat.RANDOM:
            return tuple(self.rng.sample(list(self.entrants), p))
        group = self._groups[index % len(self._groups)]
        turn = (index // len(self._groups)) % p
        return group[turn:] + group[:turn]

    def next_games(self, free: set[str]) -> list[tuple[str, ...]]:
        """Seatings of the games that can start now, given the entrants who are free. Each one is
        counted as started; the caller must seat it (and report it with `record`)."""
        out: list[tuple[str, ...]] = []
        if self.status is not TournamentStatus.RUNNING:
            return out
        free = set(free)
        while self.games_started < self.settings.games:
            seating = self._seating(self.games_started)
            if not free.issuperset(seating):
                break  # in order: a later game never overtakes the one whose players are busy
            free.difference_update(seating)
            self.games_started += 1
            out.append(seating)
        return out

    def record(self, table_id: str, scores: tuple[int, ...], places: tuple[int, ...]) -> None:
        """A game at `table_id` finished with these per-seat scores and places."""
        seating = self.running.pop(table_id)
        winners = [s for s, place in enumerate(places) if place == 1]
        entrants = [self.entrants[pid] for pid in seating]
        for seat, entrant in enumerate(entrants):
            entrant.games += 1
            entrant.points += scores[seat]
            entrant.places += places[seat]
            if seat in winners:
                entrant.wins += 1 / len(winners)
        teams = [[_MODEL.rating(mu=e.mu, sigma=e.sigma)] for e in entrants]
        for entrant, (rating,) in zip(
            entrants, _MODEL.rate(teams, ranks=list(places)), strict=True
        ):
            entrant.mu, entrant.sigma = rating.mu, rating.sigma
        self.games_done += 1
        if self.games_done >= self.settings.games:
            self.status = TournamentStatus.FINISHED

    def standings(self) -> list[Entrant]:
        """Entrants, best first: most wins, then most points, then registration order."""
        return sorted(self.entrants.values(), key=lambda e: (-e.wins, -e.points))

    def info(self, with_standings: bool = True) -> TournamentInfo:
        """The tournament as everyone may see it."""
        return TournamentInfo(
            settings=self.settings,
            status=self.status,
            host=self.host,
            games_done=self.games_done,
            games_running=len(self.running),
            standings=tuple(e.standing() for e in self.standings()) if with_standings else (),
        )
