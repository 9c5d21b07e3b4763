"""Every strategy plays legal actions in every variant, and sees nothing but observations."""

from __future__ import annotations

import gc
import random
from collections.abc import Sequence

import pytest
from bots_helpers import ALL_OPTIONS, needs_from_observation, play, random_game

from sushigo.bots import (
    GreedyStrategy,
    HeuristicStrategy,
    IsmctsStrategy,
    RandomStrategy,
    SeatMemory,
    Strategy,
    get_strategy,
)
from sushigo.engine import Action, Game, GameOptions, Observation, TableauView


def _ids(options: GameOptions) -> str:
    return f"{options.players}p-" + ("+".join(options.variants()) or "plain")


@pytest.mark.parametrize("options", ALL_OPTIONS, ids=_ids)
@pytest.mark.parametrize("name", ["random", "greedy", "heuristic"])
def test_strategies_play_legal_actions_in_every_variant(name: str, options: GameOptions) -> None:
    for seed in range(3):
        strategies = [get_strategy(name, game="sushi-go") for _ in range(options.players)]
        game = play(options, strategies, seed)
        assert game.is_terminal()


@needs_from_observation
@pytest.mark.parametrize("options", ALL_OPTIONS, ids=_ids)
def test_ismcts_plays_legal_actions_in_every_variant(options: GameOptions) -> None:
    strategies: list[Strategy] = [IsmctsStrategy(iterations=4, candidates=3)]
    strategies += [HeuristicStrategy() for _ in range(options.players - 1)]
    assert play(options, strategies, seed=1).is_terminal()


@needs_from_observation
def test_ismcts_time_budget_uses_the_injected_clock() -> None:
    now = [0.0]

    def clock() -> float:
        now[0] += 0.001  # every reading moves time on by a millisecond
        return now[0]

    bot = IsmctsStrategy(ms=10, clock=clock)
    game = Game(GameOptions(3), b"clock")
    obs = game.observation(0)
    bot.choose(obs, game.legal_actions(0), random.Random(0))
    assert 1 <= bot.last_iterations <= 10


def test_ismcts_time_budget_needs_a_clock() -> None:
    with pytest.raises(ValueError, match="clock"):
        IsmctsStrategy(ms=100)


class _Spy:
    """Wraps a strategy and keeps every argument it was given."""

    def __init__(self, inner: Strategy) -> None:
        self.inner = inner
        self.seen: list[tuple[object, object, object]] = []

    def reset(self) -> None:
        self.inner.reset()

    def choose(
        self, observation: Observation, legal: Sequence[Action], rng: random.Random
    ) -> Action:
        self.seen.append((observation, legal, rng))
        return self.inner.choose(observation, legal, rng)


def _reachable(root: object, limit: int = 20000) -> list[object]:
    """Every object reachable from `root` by references (the garbage collector's view)."""
    seen = {id(root)}
    todo = [root]
    out = []
    while todo and len(out) < limit:
        obj = todo.pop()
        out.append(obj)
        for ref in gc.get_referents(obj):
            if id(ref) not in seen and not isinstance(ref, type):
                seen.add(id(ref))
                todo.append(ref)
    return out


def test_strategies_are_given_only_observations_with_no_path_to_the_game() -> None:
    options = GameOptions(4, soy_sauce=True)
    spies = [_Spy(HeuristicStrategy()) for _ in range(options.players)]
    game = play(options, spies, seed=3)
    for seat, spy in enumerate(spies):
        assert spy.seen
        for observation, legal, rng in spy.seen[:3]:
            assert type(observation) is Observation
            assert observation.seat == seat
            assert isinstance(legal, tuple) and all(type(a) is Action for a in legal)
            assert type(rng) is random.Random
            # Hidden state (other hands, the deck) lives only in the Game: it must be unreachable.
            reachable = _reachable(observation)
            assert any(isinstance(obj, TableauView) for obj in reachable)  # the walk works
            assert not any(isinstance(obj, Game) for obj in reachable)
            for obj in _reachable(legal):
                assert not isinstance(obj, Game)
    assert game.is_terminal()


def test_observation_holds_no_other_hand() -> None:
    game = Game(GameOptions(4), b"hidden")
    obs = game.observation(1)
    # Its only hand is the seat's own: tests/engine/test_observation.py holds the observation to
    # exactly its agreed fields, none of which is another hand.
    assert obs.hand == game.hand(1)
    assert [view.hand_size for view in obs.tableaus] == [len(game.hand(s)) for s in range(4)]


@pytest.mark.parametrize("options", ALL_OPTIONS, ids=_ids)
def test_memory_deductions_are_always_true(options: GameOptions) -> None:
    """What SeatMemory claims to know of other hands is really there, and the unseen cards cover
    every hand's unknown part. In plain games it knows every hand after n turns."""
    for seed in range(3):
        memories = [SeatMemory() for _ in range(options.players)]
        for game in random_game(options, seed):
            for seat, memory in enumerate(memories):
                memory.observe(game.observation(seat))
                unseen = memory.unseen()
                for other, knowledge in enumerate(memory.hands):
                    actual = game.hand(other)
                    for card in set(actual) | {c for c, k in enumerate(knowledge.known) if k}:
                        assert knowledge.known[card] <= actual.count(card), (seat, other, card)
                    assert sum(knowledge.known) + knowledge.unknown == len(actual)
                    if other != seat:
                        hidden = list(actual)
                        for card, k in enumerate(knowledge.known):
                            for _ in range(k):
                                hidden.remove(card)  # type: ignore[arg-type]
                        for card in set(hidden):
                            assert hidden.count(card) <= unseen[card]
                if not options.dummy and game.turn > options.players:
                    assert all(k.unknown == 0 for k in memory.hands)


def test_memory_sample_respects_what_is_known() -> None:
    options = GameOptions(3)
    memory = SeatMemory()
    rng = random.Random(5)
    for game in random_game(options, 11):
        memory.observe(game.observation(0))
        hands, deck, pile = memory.sample(rng)
        assert sorted(hands[0]) == sorted(game.hand(0))
        assert [len(h) for h in hands] == [len(game.hand(s)) for s in range(3)]
        assert len(deck) == 108 - game.round * 27
        assert pile == []


def test_baselines_are_stateless_and_random_uses_the_given_rng() -> None:
    game = Game(GameOptions(2), b"x")
    obs, legal = game.observation(0), game.legal_actions(0)
    a = [RandomStrategy().choose(obs, legal, random.Random(9)) for _ in range(3)]
    assert len(set(a)) == 1
    assert GreedyStrategy().choose(obs, legal, random.Random(1)) in legal
