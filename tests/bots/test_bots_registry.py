"""Finding strategies: built-in names, user classes from files and modules, and clear errors."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from sushigo.bots import (
    CARD_BUILTIN,
    LEVELS,
    HeuristicStrategy,
    IsmctsStrategy,
    StrategyError,
    get_strategy,
    level_spec,
    levels,
    strategy_factory,
)
from sushigo.client.arena import main
from sushigo.engine import Game, GameOptions
from sushigo.engine.games import rules as game_rules

ROOT = Path(__file__).resolve().parents[2]

BOT_SOURCE = """
class Mine:
    def __init__(self, pick: int = 0, name: str = "x") -> None:
        self.pick = pick
        self.name = name

    def reset(self) -> None:
        pass

    def choose(self, observation, legal, rng):
        return legal[min(self.pick, len(legal) - 1)]


class NoChoose:
    pass


class NoReset:
    def choose(self, observation, legal, rng):
        return legal[-1]

BROKEN = 1
"""


@pytest.fixture
def bot_file(tmp_path: Path) -> Path:
    path = tmp_path / "my_bot.py"
    path.write_text(BOT_SOURCE)
    return path


def _check_plays(strategy: object) -> None:
    game = Game(GameOptions(2), b"r")
    legal = game.legal_actions(0)
    assert strategy.choose(game.observation(0), legal, random.Random(0)) in legal  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", sorted(CARD_BUILTIN))
def test_builtin_names(name: str) -> None:
    strategy = get_strategy(name, game="sushi-go")
    assert type(strategy) is CARD_BUILTIN[name]


def test_options_are_parsed_and_passed() -> None:
    strategy = get_strategy("ismcts@iterations=7@exploration=0.3", game="sushi-go")
    assert isinstance(strategy, IsmctsStrategy)
    assert strategy.iterations == 7
    assert strategy.exploration == 0.3


def test_clock_is_injected_only_where_taken() -> None:
    factory = strategy_factory("ismcts@ms=50", clock=lambda: 0.0, game="sushi-go")
    bot = factory()
    assert isinstance(bot, IsmctsStrategy) and bot.seconds == 0.05
    assert isinstance(
        strategy_factory("heuristic", clock=lambda: 0.0, game="sushi-go")(), HeuristicStrategy
    )
    assert factory() is not bot  # a fresh instance every call


def test_user_strategy_from_file(bot_file: Path) -> None:
    strategy = get_strategy(f"{bot_file}:Mine@pick=1@name=hello", game="sushi-go")
    assert type(strategy).__name__ == "Mine"
    assert strategy.pick == 1 and strategy.name == "hello"  # type: ignore[attr-defined]
    _check_plays(strategy)


def test_user_strategy_from_module(bot_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(bot_file.parent))
    monkeypatch.delitem(sys.modules, "my_bot", raising=False)
    strategy = get_strategy("my_bot:Mine", game="sushi-go")
    _check_plays(strategy)


def test_example_bot_in_docs_loads_and_plays() -> None:
    strategy = get_strategy(
        f"{ROOT / 'docs' / 'example_bot.py'}:SashimiLover@greed=2", game="sushi-go"
    )
    _check_plays(strategy)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", "non-empty"),
        ("alphago", "unknown strategy 'alphago'"),
        ("no/such/file.py:Bot", "no strategy file"),
        ("no_such_module_xyz:Bot", "cannot import module 'no_such_module_xyz'"),
        ("{file}:Missing", "has no 'Missing'"),
        ("{file}:NoChoose", "has no choose"),
        ("{file}:BROKEN", "not a class"),
        ("{file}:Mine@pick", "expected @key=value"),
        ("{file}:Mine@speed=3", "cannot build strategy"),
        ("ismcts@ms=100", "needs a clock"),
        ("{file}:", "bad strategy spec"),
    ],
)
def test_errors_are_clear(bot_file: Path, spec: str, message: str) -> None:
    with pytest.raises(StrategyError, match=message) as info:
        get_strategy(spec.format(file=bot_file), game="sushi-go")
    assert "\n" not in str(info.value)


def test_a_file_that_fails_to_import(tmp_path: Path) -> None:
    path = tmp_path / "bad.py"
    path.write_text("raise RuntimeError('boom')\n")
    with pytest.raises(StrategyError, match="failed to load: RuntimeError: boom"):
        get_strategy(f"{path}:Bot", game="sushi-go")


def test_reset_is_optional_in_the_arena(bot_file: Path) -> None:
    assert (
        main(["--strategies", f"{bot_file}:NoReset,random", "--games", "2", "--workers", "1"]) == 0
    )


@pytest.mark.parametrize("game", ["sushi-go", "sushi-roll"])
def test_levels_are_strategies_of_rising_strength(game: str) -> None:
    """easy, medium, hard and expert are strategies of the game (a level's options can be
    added to), each a step up in the strength tables of docs/BENCHMARKS.md."""
    assert levels(game) == LEVELS
    made = [get_strategy(level, game=game) for level in LEVELS]
    names = [type(s).__name__ for s in made]
    assert "Greedy" in names[0] and "Heuristic" in names[1]
    assert type(made[2]) is type(made[3])  # hard and expert: the search, on different budgets
    assert made[2].iterations < made[3].iterations  # type: ignore[attr-defined]
    more = get_strategy("hard@iterations=7", game=game)
    assert more.iterations == 7  # type: ignore[attr-defined]
    # Every level plays a legal action.
    rules = game_rules(game)
    state = rules.new_game(rules.options(2, ()), bytes(32))
    seat = state.to_act()[0]
    for strategy in made:
        legal = list(state.legal_actions(seat))
        assert strategy.choose(state.observation(seat), legal, random.Random(1)) in legal


def test_a_game_without_levels_offers_none() -> None:
    assert levels("rock-paper-scissors") == ()
    assert level_spec("hard", "rock-paper-scissors") is None
