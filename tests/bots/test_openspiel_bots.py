"""OpenSpiel's algorithms on our games, our strategies in OpenSpiel, and OpenSpiel bots as our
strategies in the arena."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason="OpenSpiel is not installed (pip install sushigo[openspiel])"
)

from open_spiel.python.algorithms import mcts  # noqa: E402
from open_spiel.python.algorithms.evaluate_bots import evaluate_bots  # noqa: E402

from sushigo.bots import StrategyError, get_strategy  # noqa: E402
from sushigo.bots.openspiel import MctsStrategy, StrategyBot  # noqa: E402
from sushigo.client.arena import main as arena  # noqa: E402

MCTS_SPEC = "sushigo.bots.openspiel:MctsStrategy@simulations=4"


def _mcts(game: object, seed: int, simulations: int = 6) -> object:
    state = np.random.RandomState(seed)
    evaluator = mcts.RandomRolloutEvaluator(1, state)
    return mcts.MCTSBot(game, 2.0, simulations, evaluator, random_state=state)


def test_openspiel_mcts_plays_our_heuristic_on_the_turn_based_conversion() -> None:
    game = pyspiel.load_game("python_sushi_go(players=2)")
    turn_based = pyspiel.convert_to_turn_based(game)
    bots = [_mcts(turn_based, 1), StrategyBot(game, 1, "heuristic", seed=1)]
    returns = evaluate_bots(turn_based.new_initial_state(), bots, np.random.RandomState(2))
    assert sorted(returns) in ([-1.0, 1.0], [0.0, 0.0])


def test_our_strategies_play_each_other_in_openspiel() -> None:
    game = pyspiel.load_game("python_sushi_go(players=3,utility=points)")
    bots = [
        StrategyBot(game, s, spec, seed=s)
        for s, spec in enumerate(["greedy", "heuristic", "random"])
    ]
    returns = evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(4))
    assert len(returns) == 3 and max(returns) > 20  # points: someone scored
    roll = pyspiel.load_game("python_sushi_roll(players=2)")
    roll_bots = [_mcts(roll, 5, simulations=3), StrategyBot(roll, 1, "heuristic", seed=5)]
    returns = evaluate_bots(roll.new_initial_state(), roll_bots, np.random.RandomState(5))
    assert sum(returns) == pytest.approx(0.0)


def test_strategy_bot_refuses_what_it_cannot_play() -> None:
    game = pyspiel.load_game("python_sushi_go(players=2)")
    with pytest.raises(StrategyError, match="unknown strategy 'nosuch'"):
        StrategyBot(game, 0, "nosuch")
    with pytest.raises(ValueError, match="plays python_sushi_go or python_sushi_roll"):
        StrategyBot(pyspiel.load_game("kuhn_poker"), 0)
    with pytest.raises(ValueError, match="before the game starts"):
        StrategyBot(game, 0).step(game.new_initial_state())


def test_openspiel_mcts_is_a_strategy_of_the_arena(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "go.json"
    assert (
        arena(
            [
                "--strategies",
                f"{MCTS_SPEC},heuristic",
                "--games",
                "2",
                "--workers",
                "1",
                "--json",
                str(out),
            ]
        )
        == 0
    )
    figures = json.loads(out.read_text())
    assert figures["games"] == 2 and MCTS_SPEC in json.dumps(figures)
    roll = tmp_path / "roll.json"
    args = ["--game", "sushi-roll", "--strategies", f"{MCTS_SPEC},greedy", "--games", "1"]
    assert arena([*args, "--workers", "1", "--json", str(roll)]) == 0
    assert json.loads(roll.read_text())["games"] == 1
    with pytest.raises(StrategyError, match="simulations must be a positive integer"):
        get_strategy("sushigo.bots.openspiel:MctsStrategy@simulations=0", game="sushi-go")
    assert isinstance(get_strategy(MCTS_SPEC, game="sushi-roll"), MctsStrategy)


def test_any_pyspiel_bot_wraps_as_a_strategy(tmp_path: Path) -> None:
    bot_file = tmp_path / "uniform.py"
    bot_file.write_text(
        "import pyspiel\n"
        "from sushigo.bots.openspiel import OpenSpielStrategy\n\n"
        "class Uniform(OpenSpielStrategy):\n"
        "    def make_bot(self, game, player, seed):\n"
        "        return pyspiel.make_uniform_random_bot(player, seed)\n"
    )
    spec = f"{bot_file}:Uniform"
    for game in ("sushi-go", "sushi-roll"):
        out = tmp_path / f"{game}.json"
        args = ["--game", game, "--strategies", f"{spec},random", "--games", "2"]
        assert arena([*args, "--players", "3", "--workers", "1", "--json", str(out)]) == 0
        assert json.loads(out.read_text())["games"] == 2
