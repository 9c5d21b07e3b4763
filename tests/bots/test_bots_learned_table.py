"""The `learned` strategy's look-ahead with three to five players: the positions it imagines for
the other seats and for its own next turn are exactly what those seats then see (checked against
real games), `@deals=0` plays the one-ply rule, and `@ahead=T` weighs the best two picks of the
seat whose hand comes next."""

from __future__ import annotations

import random

import numpy as np
import pytest

from sushigo.bots import _learned as learned
from sushigo.bots import get_strategy
from sushigo.bots._learned import GoFeatures, LearnedStrategy
from sushigo.bots.games.sushi_go._learned_search import tables
from sushigo.bots.games.sushi_go._learned_table import (
    best_picks,
    lookahead,
    neighbour_mix,
    next_positions,
    their_rows,
    their_views,
)
from sushigo.bots.games.sushi_go._pz_encoding import action_index
from sushigo.engine import Action, Game, GameOptions

TABLES = [
    GameOptions(3),
    GameOptions(4),
    GameOptions(5),
    GameOptions(4, pass_both_ways=True, soy_sauce=True),
]


def table_index(action: Action) -> int:
    """The index of `action` among `tables`' actions (a pair kept in its other order)."""
    index = [int(i) for i in tables(np).index]
    first, second, _ = action
    if action_index(action) in index or second is None:
        return index.index(action_index(action))
    return index.index(int(second) + 13 * (int(first) + 1))


def dealt(game: Game, seat: int) -> np.ndarray:
    """Every hand's counts, by offset from `seat`, as one deal."""
    n = game.options.players
    hands = np.zeros((1, n, 13), dtype=np.float32)
    for r in range(n):
        for card in game.hand((seat + r) % n):
            hands[0, r, card] += 1
    return hands


@pytest.mark.parametrize("options", TABLES, ids=str)
def test_the_others_views_are_what_they_see(options: GameOptions) -> None:
    # Heuristic seats play (chopsticks, wasabi, puddings); every seat's features are followed. The
    # view seat 0 builds for each other seat from the true hands equals that seat's own
    # features, its knowledge of the hands included.
    n = options.players
    checked = 0
    for seed in range(2):
        game = Game(options, seed.to_bytes(8, "big"))
        bots = [get_strategy("heuristic", game="sushi-go") for _ in range(n)]
        features = [GoFeatures() for _ in range(n)]
        rng = random.Random(seed)
        while not game.is_terminal():
            obs = [game.observation(s) for s in range(n)]
            legal = [game.legal_actions(s) for s in range(n)]
            for s in range(n):
                features[s].raw_rows(obs[s], legal[s])
            views = their_views(np, features[0].base, dealt(game, 0), n)
            for q in range(1, n):
                assert np.array_equal(views[0, q - 1], features[q].base), (obs[0].turn, q)
                checked += 1
            game.apply([bots[s].choose(obs[s], legal[s], rng) for s in range(n)])
    assert checked > 100


@pytest.mark.parametrize("options", TABLES, ids=str)
def test_the_imagined_next_turn_is_the_one_the_seat_sees(options: GameOptions) -> None:
    # With the others' real picks and hands, the row the look-ahead builds for seat 0's real pick
    # a and its real next pick a' equals the afterstate seat 0's features give for a' on the next
    # turn: the hands passed, the tableaus and what seat 0 knows of every hand then.
    n = options.players
    t = tables(np)
    checked = 0
    for seed in range(3):
        game = Game(options, seed.to_bytes(8, "big"))
        bots = [get_strategy("heuristic", game="sushi-go") for _ in range(n)]
        mine, probe = GoFeatures(), GoFeatures()
        rng = random.Random(seed)
        pending: tuple[np.ndarray, np.ndarray] | None = None
        while not game.is_terminal():
            obs = [game.observation(s) for s in range(n)]
            acts = [bots[s].choose(obs[s], game.legal_actions(s), rng) for s in range(n)]
            if pending is not None:
                rows, ours = pending
                real = probe.raw_rows(obs[0], [acts[0]])[0]
                matches = np.flatnonzero(ours == table_index(acts[0]))
                assert any(np.array_equal(rows[r], real) for r in matches), obs[0].turn
                checked += 1
            probe.raw_rows(obs[0], game.legal_actions(0))
            after = mine.raw_rows(obs[0], [acts[0]])
            pending = None
            if len(obs[0].hand) >= 2:
                hands = dealt(game, 0)
                picks = np.zeros((1, n), dtype=np.intp)
                for r in range(1, n):
                    picks[0, r] = table_index(acts[r])
                direction = obs[0].pass_direction
                rows, _ = next_positions(np, after, hands, picks, n, direction)
                # Which a' each row holds: the rows run over the legal a' in table order.
                received = (hands + t.hand[picks])[0, (-direction) % n]
                can = (received[None] >= t.need).all(axis=1)
                if after[0, 8 + 13 + 10] == 0:  # no chopsticks on seat 0's tableau
                    can &= ~t.pair
                pending = rows, np.flatnonzero(can)
            game.apply(acts)
    assert checked > 40


def test_without_deals_it_plays_one_ply_and_with_them_differently() -> None:
    # `@deals=0` is the one-ply rule (`@search=0`); the look-ahead changes some moves.
    options = GameOptions(4)
    differ = 0
    for seed in range(3):
        game = Game(options, seed.to_bytes(8, "big"))
        bots = [LearnedStrategy(deals=0), LearnedStrategy(search=0), LearnedStrategy()]
        while not game.is_terminal():
            obs, legal = game.observation(0), game.legal_actions(0)
            plain, one_ply, ahead = (b.choose(obs, legal, random.Random(0)) for b in bots)
            assert plain == one_ply
            differ += ahead != plain
            game.apply([plain, *(game.legal_actions(s)[0] for s in range(1, 4))])
    assert differ > 0


def test_holds_is_every_kind_counted() -> None:
    # `holds` (two look-ups a pick) agrees with comparing the hand with each pick's needs over
    # all thirteen kinds, on random hands of up to three cards a kind, in any batch shape.
    t = tables(np)
    rng = np.random.default_rng(7)
    hands = rng.integers(0, 4, size=(40, 3, 13)).astype(np.float32)
    hands[rng.random(hands.shape) < 0.6] = 0
    expected = (hands[..., None, :] >= t.need).all(axis=-1)
    found = t.holds(hands)
    assert found.shape == expected.shape and np.array_equal(found, expected)
    assert 0 < found.sum() < found.size


def test_lookrows_bounds_the_look_ahead_down_to_one_ply() -> None:
    # `@lookrows=N` is the look-ahead's bound on next-turn positions: with 1 only the best pick
    # by one ply is looked at, so every move is the one-ply rule's (up to a tie: the two orders of
    # a pair land alike); the default differs.
    bot = get_strategy("learned@lookrows=1@deals=2@roundend=0", game="sushi-go")
    assert isinstance(bot, LearnedStrategy)
    assert (bot._lookrows, bot._deals) == (1, 2)
    options = GameOptions(4)
    differ = 0
    for seed in range(3):
        game = Game(options, seed.to_bytes(8, "big"))
        bots = [bot, LearnedStrategy(deals=0), LearnedStrategy(roundend=0)]
        for b in bots:
            b.reset()
        while not game.is_terminal():
            obs, legal = game.observation(0), game.legal_actions(0)
            cut, one_ply, ahead = (b.choose(obs, legal, random.Random(0)) for b in bots)
            values = bots[1].values(obs, legal)
            assert values[legal.index(cut)] > values.max() - 1e-5, obs.turn
            differ += ahead != one_ply
            game.apply([one_ply, *(game.legal_actions(s)[0] for s in range(1, 4))])
    assert differ > 0


def test_the_first_lap_is_dealt_six_times_and_the_known_hands_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The look-ahead gets `DEALS` (6) deals while hands are unknown: our hand as it is, the
    # others' 8 cards each dealt from what seat 0 has not seen; once every hand has gone round,
    # the one true deal. `@deals=N` sets the count.
    seen: list[np.ndarray] = []
    real = learned.lookahead

    def spy(*args: object, **kwargs: object) -> object:
        seen.append(np.array(args[3]))
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(learned, "lookahead", spy)
    assert learned.DEALS == 6
    for bot, count in ((LearnedStrategy(), 6), (LearnedStrategy(deals=2), 2)):
        game = Game(GameOptions(4), (7).to_bytes(8, "big"))
        for turn in range(5):
            seen.clear()
            bot.choose(game.observation(0), game.legal_actions(0), random.Random(turn))
            (hands,) = seen
            truth = dealt(game, 0)
            if turn < 3:
                assert hands.shape == (count, 4, 13)
                assert (hands.sum(axis=2) == 8 - turn).all()
                assert (hands[:, 0] == truth[0, 0]).all()
                assert len({h.tobytes() for h in hands}) == count  # dealt apart
            else:
                assert np.array_equal(hands, truth), turn
            game.apply([game.legal_actions(s)[0] for s in range(4)])


def test_the_neighbour_plays_its_best_two_picks_by_a_softmax() -> None:
    # Four seats, two deals. Deal 0: the seat at offset 3 values its picks 4, 5 and 6 at 0.5,
    # 0.7 and 0.6, so its best two weigh 1 : e^-1 at temperature 0.1; deal 1: its one legal pick
    # weighs 1, and a second pick below the floor is left out. Each deal's weights sum to 1/2.
    v_idx = np.array([0, 1, 2, 2, 2, 3, 4, 5, 5])
    b_idx = np.array([1, 1, 4, 5, 6, 2, 3, 7, 8])
    values = np.array([0.9, 0.9, 0.5, 0.7, 0.6, 0.1, 0.1, 0.8, 0.1], dtype=np.float32)
    picks = best_picks(np, values, v_idx, b_idx, 2, 4)
    assert picks.tolist() == [[0, 1, 1, 5], [0, 2, 3, 7]]
    deal, mixed, weights = neighbour_mix(np, values, v_idx, b_idx, picks, 4, 3, 0.1)
    second = np.exp(-1.0) / (1 + np.exp(-1.0))
    assert deal.tolist() == [0, 0, 1]
    assert mixed.tolist() == [[0, 1, 1, 6], [0, 1, 1, 5], [0, 2, 3, 7]]
    assert weights == pytest.approx([second / 2, (1 - second) / 2, 0.5])
    # Above the floor (0.1) only: at temperature 0.02 the second pick is too unlikely.
    deal, mixed, weights = neighbour_mix(np, values, v_idx, b_idx, picks, 4, 3, 0.02)
    assert mixed.tolist() == picks.tolist() and weights.tolist() == [0.5, 0.5]


def test_with_the_neighbour_mixed_the_look_ahead_weighs_its_picks() -> None:
    # From real positions: at a temperature that leaves the second pick out, the look-ahead is
    # the one with the best pick; at 0.1, each of our picks is worth the weighted mean of its
    # values with the neighbour's picks taken one at a time.
    options = GameOptions(4)
    bot = LearnedStrategy()
    changed = checked = 0
    for seed in range(2):
        game = Game(options, seed.to_bytes(8, "big"))
        features = GoFeatures()
        while not game.is_terminal():
            obs, legal = game.observation(0), game.legal_actions(0)
            after = features.raw_rows(obs, legal)
            acts = [legal[0], *(game.legal_actions(s)[0] for s in range(1, 4))]
            if len(obs.hand) >= 2:
                hands = dealt(game, 0)
                direction = obs.pass_direction
                score = lambda rows: bot._score(rows, 4)  # noqa: E731
                plain = lookahead(np, after, features.base, hands, 4, direction, score)
                same = lookahead(np, after, features.base, hands, 4, direction, score, 256, 1e-6)
                assert np.array_equal(plain[1], same[1])
                assert np.allclose(plain[0], same[0])
                mixed, kept = lookahead(
                    np, after, features.base, hands, 4, direction, score, 10_000, 0.1
                )
                expected = np.zeros(len(kept))
                rows, v_idx, b_idx = their_rows(np, features.base, hands, 4)
                values = score(rows)
                picks = best_picks(np, values, v_idx, b_idx, 1, 4)
                _, each, weights = neighbour_mix(
                    np, values, v_idx, b_idx, picks, 4, (-direction) % 4, 0.1
                )
                for c, w in zip(each, weights, strict=True):
                    nxt, cells = next_positions(np, after[kept], hands, c[None], 4, direction)
                    v = score(nxt)
                    expected += w * np.array([v[cells[:, 0] == a].max() for a in range(len(kept))])
                assert np.allclose(mixed, expected, atol=1e-5)
                changed += len(weights) > 1
                checked += 1
            game.apply(acts)
    assert checked > 20 and changed > 3
