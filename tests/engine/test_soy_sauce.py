"""The soy sauce variant, played through real games, and the engine's two soy sauce rulings:
(a) colours are counted over the tableau at round end, so a used (returned) chopsticks card no
longer counts; (b) in the dummy variant the dummy's tableau takes part in the comparison."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from engine_helpers import (
    CHOP,
    SOY,
    find,
    first_legal,
    play_turn,
    ref_round,
    ref_round_breakdown,
    seeded_policy,
)

from sushigo.engine import (
    Card,
    ChopsticksReturned,
    Game,
    GameOptions,
    RoundScored,
    score_round,
)


@dataclass
class Round:
    """A finished round as the tests see it: each tableau in play order, the engine's points, and
    the seats that used chopsticks during it."""

    tableaus: list[list[Card]]
    soy: list[int]
    totals: list[int]
    used_chopsticks: set[int]


def rounds_of(game: Game) -> list[Round]:
    """Play `game` to the end with its seed's random policy, recording each round."""
    policy = seeded_policy(game.seed)
    out: list[Round] = []
    used: set[int] = set()
    while not game.is_terminal():
        before = [list(v.cards) for v in game.observation(None).tableaus]
        actions = [policy(game, s) for s in range(game.players)]
        events = game.apply(actions)
        used |= {e.seat for e in events if isinstance(e, ChopsticksReturned)}
        for e in events:
            if isinstance(e, RoundScored):
                last: list[Card | None] = [a.first for a in actions]
                if game.options.dummy:
                    ctrl = events[0].dummy_controller  # type: ignore[union-attr]
                    last.append(actions[ctrl].dummy)
                final = [before[t] + [last[t]] for t in range(len(before))]  # type: ignore[list-item]
                out.append(
                    Round(
                        final,  # type: ignore[arg-type]
                        [p.soy_sauce for p in e.points],
                        [p.total for p in e.points],
                        used,
                    )
                )
                used = set()
    return out


def first_round(options: GameOptions, want: Callable[[Round], bool]) -> Round:
    def scenario(game: Game) -> Round | None:
        return next((r for r in rounds_of(game) if want(r)), None)

    found = find(options, scenario, limit=500)[2]
    assert isinstance(found, Round)
    return found


def test_soy_sauce_game_has_111_cards_throughout() -> None:
    game = Game(GameOptions(4, soy_sauce=True), b"soy-111")
    seen: Counter[Card] = Counter()
    while not game.is_terminal():
        if game.turn == 1:
            for s in range(4):
                seen.update(game.hand(s))
        assert game.card_count() == 111
        play_turn(game, first_legal)
    assert game.card_count() == 111
    assert seen[SOY] <= 3


def test_without_the_variant_there_is_no_soy_sauce() -> None:
    game = Game(GameOptions(5), b"no-soy")
    while not game.is_terminal():
        assert all(SOY not in game.hand(s) for s in range(5))
        play_turn(game, first_legal)
    assert all(p.soy_sauce == 0 for r in game.round_points() for p in r)


def test_soy_sauce_scores_4_for_the_most_colours_in_a_game() -> None:
    found = first_round(GameOptions(3, soy_sauce=True), lambda r: 4 in r.soy)
    winner = found.soy.index(4)
    colours = [len({_family(c) for c in t}) for t in found.tableaus]
    assert SOY in found.tableaus[winner]
    assert colours[winner] == max(colours)
    assert found.totals == ref_round(found.tableaus)
    assert found.totals == score_round([[c.label for c in t] for t in found.tableaus])


def test_soy_sauce_tie_splits_4_in_a_game() -> None:
    found = first_round(GameOptions(4, soy_sauce=True), lambda r: sorted(r.soy)[-2:] == [2, 2])
    tied = [s for s, p in enumerate(found.soy) if p == 2]
    assert len(tied) == 2
    assert all(SOY in found.tableaus[s] for s in tied)
    assert found.soy == [p["soy_sauce"] for p in ref_round_breakdown(found.tableaus)]


def test_soy_sauce_colour_count_uses_the_tableau_at_round_end_not_used_chopsticks() -> None:
    """Ruling (a): chopsticks that were used went back into a hand, so they are no colour of the
    user's. The round found here scores differently if they were (wrongly) still counted."""

    def chopsticks_would_matter(r: Round) -> bool:
        for s in r.used_chopsticks:
            t = r.tableaus[s]
            if SOY in t and CHOP not in t:
                counted = [list(x) for x in r.tableaus]
                counted[s].append(CHOP)
                if ref_round(counted) != ref_round(r.tableaus):
                    return True
        return False

    found = first_round(GameOptions(2, soy_sauce=True), chopsticks_would_matter)
    assert found.totals == ref_round(found.tableaus)
    assert found.soy == [p["soy_sauce"] for p in ref_round_breakdown(found.tableaus)]


def test_dummy_can_score_soy_sauce() -> None:
    """Ruling (b): the dummy's tableau takes part in the soy sauce comparison, and scores it."""
    found = first_round(GameOptions(2, dummy=True, soy_sauce=True), lambda r: r.soy[2] > 0)
    assert SOY in found.tableaus[2]
    assert found.soy == [p["soy_sauce"] for p in ref_round_breakdown(found.tableaus)]


def test_dummy_colours_can_beat_a_soy_sauce_seat() -> None:
    """Ruling (b): a seat's soy sauce that would top the two seats alone scores less because the
    dummy's tableau has more colours."""

    def dummy_blocks(r: Round) -> bool:
        seats_only = ref_round_breakdown(r.tableaus[:2])
        return any(seats_only[s]["soy_sauce"] > r.soy[s] for s in range(2))

    found = first_round(GameOptions(2, dummy=True, soy_sauce=True), dummy_blocks)
    assert found.soy == [p["soy_sauce"] for p in ref_round_breakdown(found.tableaus)]
    assert found.totals == ref_round(found.tableaus)


_FAMILIES = {
    Card.MAKI1: "maki",
    Card.MAKI2: "maki",
    Card.MAKI3: "maki",
    Card.EGG: "nigiri",
    Card.SALMON: "nigiri",
    Card.SQUID: "nigiri",
    Card.WASABI: "nigiri",
}


def _family(card: Card) -> str:
    return _FAMILIES.get(card, card.label)
