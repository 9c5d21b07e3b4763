"""The `learned` strategy's round end with three to five players: every final position it scores
in round 3 is worth what the engine's play-out says, the others' combinations are weighed as
documented, it plays the pick that wins, and its options parse."""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator

import numpy as np
import pytest

from sushigo.bots import get_strategy
from sushigo.bots._base import StrategyError
from sushigo.bots._learned import GoFeatures, LearnedStrategy
from sushigo.bots.games.sushi_go._learned_roundend import (
    advance,
    combinations,
    last_choice,
    last_rows,
    search,
)
from sushigo.bots.games.sushi_go._learned_search import tables
from sushigo.bots.games.sushi_go._learned_table import best_picks, their_rows
from sushigo.bots.games.sushi_go._memory import SeatMemory
from sushigo.engine import Action, Game, GameOptions, Observation

TABLES = [GameOptions(3), GameOptions(4), GameOptions(5), GameOptions(4, pass_both_ways=True)]
MARGIN = 0.5


def action_of(legal: list[Action], index: int) -> Action:
    """The legal action of a kept table index (`tables`), a pair in either order."""
    code = int(tables(np).index[index])
    first, second = code % 13, code // 13 - 1
    for action in legal:
        a, b, _ = action
        if (b is None and second < 0 and a == first) or (
            b is not None and second >= 0 and sorted((a, b)) == sorted((first, second))
        ):
            return action
    raise AssertionError(f"no legal action for table index {index}")


def value_of(game: Game) -> float:
    """Seat 0's value once `game` is over: its share of the win plus the margin's share."""
    scores, winners = game.scores(), game.winners()
    n = len(scores)
    share = 1 / len(winners) if 0 in winners else 0.0
    return float(share + MARGIN * (scores[0] - (sum(scores) - scores[0]) / (n - 1)) / 20)


def last_choices(
    options: GameOptions, seeds: range
) -> list[tuple[Game, GoFeatures, LearnedStrategy]]:
    """Games played (heuristic seats, seat 0's features followed) to seat 0's last choice of
    round 3: the game, seat 0's features (its memory up to date) and a strategy to score with."""
    found = []
    for seed in seeds:
        for game, features, obs, _ in heuristic_turns(options, seed):
            if obs[0].round == 3 and len(obs[0].hand) == 2:
                found.append((game, features, LearnedStrategy()))
                break
    return found


def heuristic_turns(
    options: GameOptions, seed: int
) -> Iterator[tuple[Game, GoFeatures, list[Observation], SeatMemory]]:
    """Each turn of a game of heuristic seats, before its picks are played: the game, seat 0's
    features (this turn observed), every seat's observation and seat 0's memory before it."""
    n = options.players
    game = Game(options, seed.to_bytes(8, "big"))
    bots = [get_strategy("heuristic", game="sushi-go") for _ in range(n)]
    features = GoFeatures()
    rng = random.Random(seed)
    while not game.is_terminal():
        obs = [game.observation(s) for s in range(n)]
        before = copy.deepcopy(features.memory)
        features.raw_rows(obs[0], game.legal_actions(0))
        yield game, features, obs, before
        game.apply([bots[s].choose(obs[s], game.legal_actions(s), rng) for s in range(n)])


def known_hands(features: GoFeatures, n: int) -> np.ndarray:
    """Every hand's counts by offset from seat 0, from seat 0's memory (all known by now)."""
    hands = features.memory.hands
    assert not any(hands[r].unknown for r in range(n))
    return np.array([[hands[r].known for r in range(n)]], dtype=np.float32)


def searched_last_choices(
    options: GameOptions, seeds: range, best: float = 0.0
) -> Iterator[tuple[Game, list[Action], tuple[np.ndarray, ...]]]:
    """Each of `last_choices`' positions, its legal picks and what `last_choice` makes of it
    (the others' softmax at 0.05, the shipped margin weight, `best`)."""
    n = options.players
    for game, features, strategy in last_choices(options, seeds):
        obs, legal = game.observation(0), game.legal_actions(0)
        after = features.raw_rows(obs, legal)
        found = last_choice(
            np,
            obs,
            features.base[None],
            known_hands(features, n),
            after,
            np.zeros(len(after), dtype=np.intp),
            lambda rows, strategy=strategy: strategy._score(rows, n),
            0.05,
            MARGIN,
            best,
        )
        yield game, list(legal), found


@pytest.mark.parametrize("options", TABLES, ids=str)
def test_round_three_ends_are_worth_what_the_engine_plays_out(options: GameOptions) -> None:
    # For each of seat 0's picks and each combination of the others' picks, the value the
    # search gives equals the value of the real game played on to its end with those picks.
    checked = 0
    for game, legal, (mine, leaf_after, picks, weights, values) in searched_last_choices(
        options, range(6)
    ):
        assert np.allclose(np.bincount(leaf_after, weights=weights), 1.0)
        assert np.allclose(np.bincount(leaf_after, weights=weights * values), mine)
        for a, c, value in zip(leaf_after, picks, values, strict=True):
            played = played_out(game, legal[a], c)
            assert value == pytest.approx(value_of(played), abs=1e-5), (legal[a], c)
            checked += 1
    assert checked >= 30


def played_out(game: Game, action: Action, picks: np.ndarray) -> Game:
    """A copy of `game` played to its end: seat 0 plays `action`, the seat at offset r the pick
    `picks[r]` (a table index), then everyone its last card."""
    n = game.options.players
    played = copy.deepcopy(game)
    others = [action_of(played.legal_actions(s), int(picks[s])) for s in range(1, n)]
    played.apply([action, *others])
    played.apply([played.legal_actions(s)[0] for s in range(n)])
    assert played.is_terminal()
    return played


def test_the_others_combinations_are_weighed_by_their_values() -> None:
    # Every combination of the others' picks at each position, its weight the product of each
    # seat's softmax; at temperature 0 the one combination of their best picks, as the
    # look-ahead predicts them.
    games = last_choices(GameOptions(4), range(3))
    strategy = games[0][2]
    bases = np.stack([features.base for _, features, _ in games])
    hands = np.concatenate([known_hands(features, 4) for _, features, _ in games])
    rows, v_idx, b_idx = their_rows(np, bases, hands, 4)
    values = strategy._score(rows, 4)
    where, picks, weights = combinations(np, values, v_idx, b_idx, 3, 4, 0.05)
    counts = np.bincount(v_idx, minlength=9).reshape(3, 3)
    assert np.array_equal(np.bincount(where, minlength=3), counts.prod(axis=1))
    assert np.allclose(np.bincount(where, weights=weights), 1.0)
    for k, c, w in zip(where, picks, weights, strict=True):
        expected = 1.0
        for q in range(1, 4):
            mine = v_idx == k * 3 + q - 1
            soft = np.exp((values[mine] - values[mine].max()) / 0.05)
            expected *= float(soft[b_idx[mine] == c[q]][0] / soft.sum())
        assert w == pytest.approx(expected)
    assert len({(int(k), *c.tolist()) for k, c in zip(where, picks, strict=True)}) == len(picks)
    where, best, one = combinations(np, values, v_idx, b_idx, 3, 4, 0.0)
    assert where.tolist() == [0, 1, 2] and one.tolist() == [1.0, 1.0, 1.0]
    assert np.array_equal(best[:, 1:], best_picks(np, values, v_idx, b_idx, 3, 4)[:, 1:])


def test_it_plays_the_pick_that_wins() -> None:
    # Last choices of round 3 where, the others playing the picks the network predicts, one pick
    # of seat 0 wins the game outright and every other loses it: the round-end search plays it.
    found = 0
    for game, features, _ in last_choices(GameOptions(4), range(40)):
        obs, legal = game.observation(0), game.legal_actions(0)
        bot = LearnedStrategy(roundend=2, others=0)
        bot._features = features  # the seat's memory of the game so far
        rows, v_idx, b_idx = their_rows(np, features.base, known_hands(features, 4), 4)
        picks = best_picks(np, bot._score(rows, 4), v_idx, b_idx, 1, 4)[0]
        winners = [played_out(game, action, picks).winners() for action in legal]
        wins = [w == (0,) for w in winners]
        if sum(wins) != 1 or any(0 in w for w, won in zip(winners, wins, strict=True) if not won):
            continue
        assert bot.choose(obs, legal, random.Random(0)) == legal[wins.index(True)]
        found += 1
    assert found >= 2


def learned(spec: str) -> LearnedStrategy:
    """The Sushi Go! `learned` bot of `spec`."""
    bot = get_strategy(spec, game="sushi-go")
    assert isinstance(bot, LearnedStrategy)
    return bot


def test_its_options_parse() -> None:
    # `@roundend=H` searches from H cards in hand (0: off), `@others=T` the others' temperature,
    # `@ahead=T` the look-ahead's for the seat whose hand comes next.
    bot = learned("learned@roundend=3@others=0@ahead=0.1")
    assert (bot._roundend, bot._others, bot._ahead) == (3, 0.0, 0.1)
    default = LearnedStrategy()
    assert default._roundend in (0, 2, 3)
    with pytest.raises((StrategyError, ValueError)):
        get_strategy("learned@roundend=two", game="sushi-go")


@pytest.mark.parametrize("options", TABLES, ids=str)
def test_the_next_position_is_the_one_the_seat_sees(options: GameOptions) -> None:
    # Once every hand is known: with the others' real picks, the row `advance` builds from seat
    # 0's real afterstate is seat 0's own position on the next turn, and the hands it gives are
    # the hands the seats then hold.
    n = options.players
    checked = 0
    for seed in range(3):
        game = Game(options, seed.to_bytes(8, "big"))
        bots = [get_strategy("heuristic", game="sushi-go") for _ in range(n)]
        features, probe = GoFeatures(), GoFeatures()
        rng = random.Random(seed)
        pending: tuple[np.ndarray, np.ndarray] | None = None
        while not game.is_terminal():
            obs = [game.observation(s) for s in range(n)]
            acts = [bots[s].choose(obs[s], game.legal_actions(s), rng) for s in range(n)]
            probe.raw_rows(obs[0], game.legal_actions(0))
            if pending is not None:
                row, held = pending
                assert np.array_equal(row, probe.base), obs[0].turn
                assert np.array_equal(held, dealt(game)), obs[0].turn
                checked += 1
            after = features.raw_rows(obs[0], [acts[0]])
            pending = None
            hands = features.memory.hands
            if len(obs[0].hand) >= 2 and not any(hands[r].unknown for r in range(n)):
                picks = np.zeros((1, n), dtype=np.intp)
                for r in range(1, n):
                    picks[0, r] = table_index(acts[r])
                nxt, held = advance(np, after, dealt(game), picks, n, obs[0].pass_direction)
                pending = nxt[0], held
            game.apply(acts)
    assert checked > 10


def dealt(game: Game) -> np.ndarray:
    """Every hand's counts by offset from seat 0 (one row)."""
    n = game.options.players
    hands = np.zeros((1, n, 13), dtype=np.float32)
    for r in range(n):
        for card in game.hand(r):
            hands[0, r, card] += 1
    return hands


def table_index(action: Action) -> int:
    """The kept table index (`tables`) of `action`, a pair in either order."""
    legal = [action]
    for index in range(len(tables(np).index)):
        try:
            if action_of(legal, index) == action:
                return index
        except AssertionError:
            continue
    raise AssertionError(f"no table index for {action}")


def known_positions(
    options: GameOptions, cards: int, seeds: range
) -> list[tuple[Game, GoFeatures]]:
    """Games played (heuristic seats) to seat 0's turns with `cards` in hand and every hand
    known, in every round: the game (a copy) and seat 0's features."""
    n = options.players
    found = []
    for seed in seeds:
        for game, features, obs, before in heuristic_turns(options, seed):
            hands = features.memory.hands
            if len(obs[0].hand) == cards and not any(hands[r].unknown for r in range(n)):
                copied = GoFeatures()
                copied._memory = before  # as it was before this turn's observation
                found.append((copy.deepcopy(game), copied))
    return found


@pytest.mark.parametrize("options", TABLES, ids=str)
@pytest.mark.parametrize("temperature", [0.05, 0.0])
def test_the_last_choice_rows_are_counted_before_they_are_made(
    options: GameOptions, temperature: float
) -> None:
    # `last_rows` is the number of rows `last_choice` has the network score, in every round.
    n = options.players
    strategy = LearnedStrategy()
    rounds = set()
    scored: list[int] = []

    def score(rows: np.ndarray) -> np.ndarray:
        scored.append(len(rows))
        return strategy._score(rows, n)

    for game, features in known_positions(options, 2, range(4)):
        obs, legal = game.observation(0), game.legal_actions(0)
        after = features.raw_rows(obs, legal)
        owner = np.zeros(len(after), dtype=np.intp)
        scored.clear()
        hands = known_hands(features, n)
        last_choice(np, obs, features.base[None], hands, after, owner, score, temperature, MARGIN)
        counted = last_rows(np, obs, features.base[None], hands, owner, temperature)
        assert counted == sum(scored) > 0
        rounds.add(obs.round)
    assert rounds == {1, 2, 3}


def test_a_search_too_big_is_dropped_before_its_last_rows() -> None:
    # From four cards a search scoring R rows runs within `max_rows` = R and is dropped (None)
    # within R - 1, and one whose last level alone is over its budget is dropped before the
    # network scores that level.
    n = 4
    strategy = LearnedStrategy()
    checked = 0
    scored: list[int] = []

    def score(rows: np.ndarray) -> np.ndarray:
        scored.append(len(rows))
        return strategy._score(rows, n)

    for game, features in known_positions(GameOptions(n), 4, range(6)):
        obs, legal = game.observation(0), game.legal_actions(0)
        after = features.raw_rows(obs, legal)
        args = (features.base[None], known_hands(features, n), after)
        owner = np.zeros(len(after), dtype=np.intp)
        scored.clear()
        full = search(np, obs, *args, owner, score, 0.05, MARGIN, max_rows=10**6)
        assert full is not None and len(full) == len(after)
        total, levels = sum(scored), list(scored)
        scored.clear()
        again = search(np, obs, *args, owner, score, 0.05, MARGIN, max_rows=total)
        assert again is not None and np.array_equal(again, full)
        scored.clear()
        assert search(np, obs, *args, owner, score, 0.05, MARGIN, max_rows=total - 1) is None
        # The two levels before the last choice are scored, the last choice's rows are not.
        assert scored == levels[:2]
        checked += 1
    assert checked >= 5


def test_a_search_too_big_is_tried_again_over_our_best_picks() -> None:
    # `@roundrows=N` bounds the search; over it, `@roundtop=K` searches again our K picks best
    # by one ply and plays the best of them by the search; with `@roundtop=0` the look-ahead
    # plays (`_round_end` gives None).
    bot = learned("learned@roundend=4@roundrows=150@roundtop=2")
    assert (bot._round_rows, bot._round_top) == (150, 2)
    n, retried = 4, 0
    for game, features in known_positions(GameOptions(n), 4, range(8)):
        obs, legal = game.observation(0), game.legal_actions(0)
        bot._features = features
        after = features.raw_rows(obs, legal)
        if len(after) <= 2:
            continue
        hands = known_hands(features, n)
        if searched(bot, obs, features, hands, after) is not None:
            continue
        top = np.sort(np.argsort(-bot._score(after, n), kind="stable")[:2])
        again = searched(bot, obs, features, hands, after[top])
        expected = None if again is None else int(top[int(np.argmax(again))])
        assert bot._round_end(obs, after, hands) == expected
        bot._round_top = 0
        assert bot._round_end(obs, after, hands) is None
        bot._round_top = 2
        retried += expected is not None
    assert retried >= 2


def searched(
    bot: LearnedStrategy,
    obs: Observation,
    features: GoFeatures,
    hands: np.ndarray,
    rows: np.ndarray,
) -> np.ndarray | None:
    """`search` from seat 0's afterstates `rows` with `bot`'s network, options and rows."""
    n = obs.players
    owner = np.zeros(len(rows), dtype=np.intp)
    return search(
        np,
        obs,
        features.base[None],
        hands,
        rows,
        owner,
        lambda x: bot._score(x, n),
        bot._others,
        bot._margin,
        bot._round_rows,
    )


@pytest.mark.parametrize("best", [1.0, 0.5])
def test_round_three_margins_over_the_best_other_seat(best: float) -> None:
    # With `best` > 0 the exact scoring counts that share of the margin over the best other seat
    # instead of over the others' mean: each leaf's value is the real game's, so valued.
    n, checked = 4, 0
    for game, legal, (_, leaf_after, picks, _, values) in searched_last_choices(
        GameOptions(n), range(4), best
    ):
        for a, c, value in zip(leaf_after, picks, values, strict=True):
            scores = played_out(game, legal[a], c).scores()
            top = max(scores[1:])
            mean_lead = value_of(played_out(game, legal[a], c))
            expected = (
                mean_lead
                + MARGIN
                * best
                * (scores[0] - top - (scores[0] - (sum(scores) - scores[0]) / (n - 1)))
                / 20
            )
            assert value == pytest.approx(expected, abs=1e-5)
            checked += 1
    assert checked >= 20


def test_round_three_searches_from_its_own_hand_size() -> None:
    # `@lastround=H` starts the round's end search from H cards in round 3 only (-1: as in the
    # other rounds, `@roundend`); `@best=W` reaches the exact scoring.
    bot = learned("learned@roundend=3@lastround=4@best=1")
    assert (bot._lastround, bot._best) == (4, 1.0)
    assert LearnedStrategy()._lastround == -1
    calls: list[int] = []
    searched_by = bot._round_end

    def spy(obs: Observation, raw: np.ndarray, known: np.ndarray) -> int | None:
        calls.append(obs.round)
        found: int | None = searched_by(obs, raw, known)
        return found

    bot._round_end = spy  # type: ignore[method-assign]
    rounds = set()
    for game, features in known_positions(GameOptions(4), 4, range(3)):
        obs, legal = game.observation(0), game.legal_actions(0)
        for lastround in (4, -1):
            bot._features = GoFeatures()
            bot._features._memory = copy.deepcopy(features.memory)
            bot._lastround = lastround
            calls.clear()
            bot.choose(obs, legal, random.Random(0))
            assert calls == ([3] if lastround == 4 and obs.round == 3 else [])
        rounds.add(obs.round)
    assert rounds == {1, 2, 3}
