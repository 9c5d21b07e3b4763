"""The Sushi Roll search bot (`ismcts` for ``sushi-roll``): its simulator agrees with the engine,
it plays only legal actions from every phase of a turn, it is deterministic for a seed and a
budget, it finds a winning move the heuristic misses, and it is found by name."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest
from bots_helpers import play_roll

from sushigo import bots
from sushigo.bots import IsmctsStrategy, StrategyError, get_strategy, strategy_factory
from sushigo.bots.games.sushi_roll import (
    ROLL_BUILTIN,
    RollHeuristicStrategy,
    RollRandomStrategy,
    RollSearchStrategy,
)
from sushigo.bots.games.sushi_roll._search import candidates_of
from sushigo.bots.games.sushi_roll._sim import (
    KIND_OF,
    SimState,
    apply,
    face_values,
    play_round,
    policy_action,
)
from sushigo.client.arena import main as arena_main
from sushigo.engine.games.sushi_roll import (
    Die,
    DieKind,
    Face,
    PlayerView,
    Reroll,
    RollGame,
    RollObservation,
    RollOptions,
    Swap,
    Take,
)


def _die(label: str) -> Die:
    face = Face.from_label(label)
    return Die(DieKind(KIND_OF[face]), face)


def _positions(players: int, seed: int) -> list[RollGame]:
    """Every position of a game played by `random` (many re-rolls and swaps, so every phase of
    a turn shows up: fresh tokens, several token actions in one turn, the last die of a round)."""
    game = RollGame(RollOptions(players), seed.to_bytes(4, "big"))
    rng = random.Random(seed)
    bot = RollRandomStrategy()
    out = []
    while not game.is_terminal():
        out.append(game.clone())
        seat = game.to_move
        assert seat is not None
        game.apply(seat, bot.choose(game.observation(seat), game.legal_actions(seat), rng))
    return out


# -- the simulator -----------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_simulator_follows_the_engine_and_the_policy_is_heuristic(players: int) -> None:
    """Each action applied to `SimState.of(observation)` gives the state of the engine's next
    observation (belts slide and re-roll from other dice, so only their kinds are compared then);
    the final scores agree; the rollout policy plays what `heuristic` plays (up to equal takes)."""
    fields = [f for f in SimState.__slots__ if f not in ("belts", "stop", "halted")]
    for seed in range(3):
        game = RollGame(RollOptions(players), bytes([players, seed]))
        heuristic = RollHeuristicStrategy()
        rng = random.Random(seed)
        while not game.is_terminal():
            seat = game.to_move
            assert seat is not None
            obs = game.observation(seat)
            sim = SimState.of(obs)
            action = heuristic.choose(obs, game.legal_actions(seat), rng)
            mine = policy_action(sim)
            belt = obs.players[seat].belt
            if isinstance(action, Take) and isinstance(mine, Take):
                values = face_values(sim, seat)  # equal values: `heuristic` breaks ties at random
                theirs, ours = values[belt[action.position].face], values[belt[mine.position].face]
                assert abs(theirs - ours) < 1e-9
            else:
                assert mine == action
            cycle, round_ = game.cycle, game.round
            apply(sim, action, random.Random(0))
            game.apply(seat, action)
            if game.is_terminal():
                assert sim.over and sim.score == list(game.scores())
                break
            after = SimState.of(game.observation(game.to_move))
            for name in fields:
                assert getattr(sim, name) == getattr(after, name), name
            kinds = [[KIND_OF[f] for f in b] for b in sim.belts]
            if game.round == round_:
                assert kinds == [[KIND_OF[f] for f in b] for b in after.belts]
                if game.cycle == cycle and not isinstance(action, Reroll):
                    assert sim.belts == after.belts


def test_playouts_stop_at_the_end_of_the_round() -> None:
    game = RollGame(RollOptions(4), b"halt")
    sim = SimState.of(game.observation(game.to_move))
    play_round(sim, random.Random(1))
    assert sim.halted and not sim.over and sim.round == 2
    assert sum(sim.score) > 0 and all(not b for b in sim.belts)


# -- legality ----------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_candidates_are_legal_and_include_every_distinct_take(players: int) -> None:
    for seed in range(2):
        for game in _positions(players, seed):
            seat = game.to_move
            assert seat is not None
            legal = set(game.legal_actions(seat))
            state = SimState.of(game.observation(seat))
            candidates = candidates_of(state)
            assert candidates and set(candidates) <= legal
            assert len(set(candidates)) == len(candidates)
            belt = game.belts()[seat]
            taken = {belt[a.position].face for a in candidates if isinstance(a, Take)}
            assert taken == {d.face for d in belt}
            view = game.observation(seat).players[seat]
            assert any(isinstance(a, Reroll) for a in candidates) == (view.usable_menu > 0)
            if view.usable_chopsticks == 0:
                assert not any(isinstance(a, Swap) for a in candidates)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_search_chooses_legal_actions_in_every_phase_of_a_turn(players: int) -> None:
    bot = RollSearchStrategy(iterations=6)
    rng = random.Random(players)
    kinds = set()
    for game in _positions(players, 7)[::3]:
        seat = game.to_move
        assert seat is not None
        legal = game.legal_actions(seat)
        action = bot.choose(game.observation(seat), legal, rng)
        assert action in legal
        kinds.add(type(action))
    assert Take in kinds


def test_search_plays_whole_games_against_every_builtin() -> None:
    names = ["ismcts@iterations=8", "heuristic", "random", "greedy", "heuristic"]
    for players, seed in ((2, 1), (3, 2), (5, 3)):
        game, _ = play_roll(players, names, seed, bytes([seed]))
        assert game.winners()


# -- determinism and budgets -------------------------------------------------------------------


def test_same_seed_and_budget_same_choices() -> None:
    positions = _positions(4, 3)[5:60:6]

    def run(seed: int) -> list[object]:
        bot = RollSearchStrategy(iterations=24)
        rng = random.Random(seed)
        out: list[object] = []
        for game in positions:
            seat = game.to_move
            assert seat is not None
            out.append(bot.choose(game.observation(seat), game.legal_actions(seat), rng))
            out.append(dict(bot.last_values))
        return out

    first = run(5)
    assert run(5) == first
    assert run(6) != first  # other seeds sample other futures (so the values differ)


def test_iteration_budget_counts_playouts() -> None:
    game = RollGame(RollOptions(4), b"budget")
    seat = game.to_move
    assert seat is not None
    bot = RollSearchStrategy(iterations=50)
    bot.choose(game.observation(seat), game.legal_actions(seat), random.Random(0))
    candidates = len(candidates_of(SimState.of(game.observation(seat))))
    assert 50 <= bot.last_iterations < 50 + candidates


def test_time_budget_uses_the_injected_clock() -> None:
    now = [0.0]

    def clock() -> float:
        now[0] += 0.001  # every reading moves time on by a millisecond
        return now[0]

    game = RollGame(RollOptions(4), b"clock")
    seat = game.to_move
    assert seat is not None
    bot = RollSearchStrategy(ms=10, clock=clock)
    bot.choose(game.observation(seat), game.legal_actions(seat), random.Random(0))
    candidates = len(candidates_of(SimState.of(game.observation(seat))))
    # One reading sets the deadline, one more per pass: about ten passes over the candidates.
    assert candidates <= bot.last_iterations <= 10 * candidates


def test_bad_parameters_are_refused() -> None:
    with pytest.raises(ValueError, match="needs a clock"):
        RollSearchStrategy(ms=10)
    with pytest.raises(ValueError, match="iterations"):
        RollSearchStrategy(iterations=0)
    with pytest.raises(ValueError, match="swaps must be an integer"):
        RollSearchStrategy(swaps=1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="scale must be a number"):
        RollSearchStrategy(scale="big")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="ms must be positive"):
        RollSearchStrategy(ms=0, clock=lambda: 0.0)
    with pytest.raises(StrategyError, match="needs a clock"):
        get_strategy("ismcts@ms=100", game="sushi-roll")
    with pytest.raises(StrategyError, match="cannot build"):
        get_strategy("ismcts@depth=3", game="sushi-roll")
    with pytest.raises(StrategyError, match="iterations must be an integer"):
        get_strategy("ismcts@iterations=lots", game="sushi-roll")


# -- playing strength, in miniature --------------------------------------------------------------


def _crafted(
    belts: Sequence[Sequence[str]],
    trays: Sequence[Sequence[str]],
    puddings: Sequence[int],
    scores: Sequence[int],
    chopsticks: Sequence[int],
) -> RollObservation:
    """Round 3, the last cycle, seat 0 holds the red belt and moves first."""
    views = []
    for s, (belt, tray) in enumerate(zip(belts, trays, strict=True)):
        faces = [_die(label) for label in tray]
        open_wasabi = sum(d.face is Face.WASABI for d in faces)
        views.append(
            PlayerView(
                belt=tuple(_die(label) for label in belt),
                has_red_belt=s == 0,
                tray=tuple(faces),
                on_wasabi=(),
                open_wasabi=open_wasabi,
                menu=1,
                chopsticks=chopsticks[s],
                fresh_menu=0,
                fresh_chopsticks=0,
                puddings=puddings[s],
                score=scores[s],
                round_scores=(scores[s] // 2, scores[s] - scores[s] // 2),
                taken_this_cycle=False,
            )
        )
    return RollObservation(
        options=RollOptions(len(belts)),
        seat=0,
        round=3,
        cycle=6,
        to_move=0,
        red_belt=0,
        players=tuple(views),
        bag=6,
        menu_supply=14,
        chopsticks_supply=12 - sum(chopsticks),
        is_over=False,
    )


def _finish(obs: RollObservation, first: Take | Swap) -> RollGame:
    """Play seat 0's take or swap, then every seat takes its only die."""
    game = RollGame.from_observation(obs, b"finish")
    game.apply(0, first)
    while not game.is_terminal():
        seat = game.to_move
        assert seat is not None
        game.apply(seat, Take(0))
    return game


def test_search_finds_the_winning_swap_that_heuristic_misses() -> None:
    """The last cycle of the game, seat 0 to move first. Its squid lies on an open wasabi (9
    points), but seat 3's pudding3 would lift it from the fewest puddings (-6) to the most (+6)
    and drop seat 3, its rival on points, to the fewest: swapping wins, taking the squid loses.
    Nothing is rolled after that, so the outcome is certain; `heuristic` (puddings discounted)
    takes the squid."""
    obs = _crafted(
        belts=[["squid"], ["dumpling"], ["dumpling"], ["pudding3"]],
        trays=[
            ["egg", "maki1", "dumpling", "tempura", "wasabi"],
            ["maki2", "dumpling", "sashimi", "chopsticks1", "salmon"],
            ["maki1", "tempura", "menu1", "egg", "pudding1"],
            ["maki3", "dumpling", "pudding2", "maki1", "tempura"],
        ],
        puddings=[1, 3, 3, 2],
        scores=[40, 10, 10, 40],
        chopsticks=[1, 0, 0, 0],
    )
    legal = obs.legal_actions()
    winning = Swap(0, 3, 0)
    assert winning in legal and Take(0) in legal
    heuristic = RollHeuristicStrategy().choose(obs, legal, random.Random(0))
    assert heuristic == Take(0)
    assert _finish(obs, Take(0)).winners() == (3,)
    assert _finish(obs, winning).winners() == (0,)
    for seed in range(3):
        assert RollSearchStrategy(iterations=40).choose(obs, legal, random.Random(seed)) == winning


def test_search_beats_random_in_a_few_games() -> None:
    wins = 0.0
    for seed in range(3):
        game = RollGame(RollOptions(4), bytes([100 + seed]))
        seats = [RollSearchStrategy(iterations=12)] + [RollRandomStrategy() for _ in range(3)]
        rngs = [random.Random(seed * 10 + s) for s in range(4)]
        while not game.is_terminal():
            seat = game.to_move
            assert seat is not None
            legal = game.legal_actions(seat)
            game.apply(seat, seats[seat].choose(game.observation(seat), legal, rngs[seat]))
        winners = game.winners()
        wins += 1 / len(winners) if 0 in winners else 0
    assert wins >= 2


# -- by name -----------------------------------------------------------------------------------


def test_ismcts_names_the_search_bot_of_each_game() -> None:
    assert type(bots.get_strategy("ismcts", game="sushi-go")) is IsmctsStrategy
    roll_bot: object = bots.get_strategy("ismcts", game="sushi-roll")
    assert type(roll_bot) is RollSearchStrategy
    bot = get_strategy("ismcts@iterations=7@swaps=1@token_value=0.6@scale=10", game="sushi-roll")
    assert isinstance(bot, RollSearchStrategy)
    assert (bot.iterations, bot.swaps, bot.token_value, bot.scale) == (7, 1, 0.6, 10)
    timed = strategy_factory("ismcts@ms=50", clock=lambda: 0.0, game="sushi-roll")()
    assert isinstance(timed, RollSearchStrategy) and timed.seconds == 0.05
    assert timed.clock is not None
    # Server seats accept exactly the names in ROLL_BUILTIN.
    assert ROLL_BUILTIN["ismcts"] is RollSearchStrategy


def test_the_arena_plays_it(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--game", "sushi-roll", "--strategies", "ismcts@iterations=4,heuristic"]
    assert arena_main([*argv, "--games", "2", "--players", "3", "--workers", "1"]) == 0
    assert "ismcts@iterations=4" in capsys.readouterr().out
