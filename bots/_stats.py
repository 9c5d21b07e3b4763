"""Arena statistics: per-strategy totals, Wilson intervals and openskill ratings."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from openskill.models import PlackettLuce, PlackettLuceRating


@dataclass(frozen=True, slots=True)
class GameResult:
    """One arena game, as the parent process needs it (small: it crosses process boundaries)."""

    index: int
    """The game's number: its seeds derive from it, and results are tallied in this order."""
    lineup: tuple[str, ...]
    """The strategy name at each seat."""
    scores: tuple[int, ...]
    places: tuple[int, ...]
    winners: tuple[int, ...]


@dataclass(slots=True)
class StrategyStats:
    """Pooled figures of one strategy name over every seat it played."""

    games: int = 0
    """Seat-games: a strategy seated twice in one game counts twice."""
    wins: float = 0.0
    """A win shared by k seats counts 1/k."""
    score_sum: int = 0
    place_sum: int = 0
    rating: PlackettLuceRating | None = field(default=None, repr=False)

    @property
    def win_rate(self) -> float:
        """Wins per seat-game."""
        return self.wins / self.games if self.games else 0.0

    @property
    def mean_score(self) -> float:
        """Mean final score."""
        return self.score_sum / self.games if self.games else 0.0

    @property
    def mean_place(self) -> float:
        """Mean place (1 is first; tied seats share a place)."""
        return self.place_sum / self.games if self.games else 0.0

    @property
    def mu(self) -> float:
        """The openskill (PlackettLuce) mean skill; 25 before any game."""
        return self.rating.mu if self.rating is not None else 25.0


def wilson(successes: float, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval for a proportion (95% by default); (0, 1) with no trials."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def tally(results: Iterable[GameResult], names: Sequence[str]) -> dict[str, StrategyStats]:
    """Pool results by strategy name, rating games in index order (ratings depend on order)."""
    model = PlackettLuce()
    stats = {name: StrategyStats(rating=model.rating(name=name)) for name in names}
    for result in sorted(results, key=lambda r: r.index):
        share = 1 / len(result.winners)
        for seat, name in enumerate(result.lineup):
            entry = stats[name]
            entry.games += 1
            entry.score_sum += result.scores[seat]
            entry.place_sum += result.places[seat]
            if seat in result.winners:
                entry.wins += share
        _rate(model, stats, result)
    return stats


def _rate(model: PlackettLuce, stats: dict[str, StrategyStats], result: GameResult) -> None:
    """One openskill update: each seat is a team of one. A strategy seated more than once plays
    from its one rating and takes the mean of its seats' updates."""
    distinct = set(result.lineup)
    if len(distinct) < 2:
        return  # a strategy against itself learns nothing about its rating
    teams = [[stats[name].rating] for name in result.lineup]
    rated = model.rate(teams, ranks=[float(p) for p in result.places])  # type: ignore[arg-type]
    for name in distinct:
        seats = [i for i, n in enumerate(result.lineup) if n == name]
        mu = sum(rated[i][0].mu for i in seats) / len(seats)
        sigma = sum(rated[i][0].sigma for i in seats) / len(seats)
        stats[name].rating = model.rating(mu=mu, sigma=sigma, name=name)
