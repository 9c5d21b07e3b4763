"""What a run of the arena imports: only what it plays (issue 18, the arena's start-up).

The strategies, Sushi Roll's engine and bots, the plug-in scan, multiprocessing and json are
imported when first needed, and every public name still imports as before."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import sushigo.bots
from sushigo.bots import CARD_BUILTIN, builtin_names, builtins
from sushigo.bots.games.sushi_go._heuristic import HeuristicStrategy
from sushigo.bots.games.sushi_go._ismcts import IsmctsStrategy
from sushigo.bots.games.sushi_roll import ROLL_BUILTIN
from sushigo.client.arena import main
from sushigo.engine import games, kinds, rules
from sushigo.engine.games.sushi_roll.rules import SUSHI_ROLL

_NOT_FOR_RANDOM = (
    "importlib.metadata",
    "json",
    "multiprocessing",
    "numpy",
    "sushigo.bots.games.sushi_go._greedy",
    "sushigo.bots.games.sushi_go._heuristic",
    "sushigo.bots.games.sushi_go._ismcts",
    "sushigo.bots._learned",
    "sushigo.bots.games.sushi_roll",
    "sushigo.engine.games.sushi_roll",
    "sushigo.protocol",
)


def _imported_by(code: str) -> set[str]:
    """The modules a fresh interpreter holds after running `code`."""
    out = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys\nprint('\\n'.join(sys.modules))"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    return set(out.split())


def test_a_run_of_random_imports_only_what_it_plays() -> None:
    loaded = _imported_by(
        "from sushigo.client.arena import main\n"
        "main(['--strategies', 'random,random', '--games', '2', '--workers', '1'])"
    )
    assert "sushigo.bots.games.sushi_go._simple" in loaded
    assert sorted(loaded.intersection(_NOT_FOR_RANDOM)) == []


def test_a_strategy_and_a_game_import_when_named() -> None:
    loaded = _imported_by(
        "from sushigo.client.arena import main\n"
        "main(['--strategies', 'heuristic,random', '--games', '1', '--workers', '1'])\n"
        "main(['--game', 'sushi-roll', '--strategies', 'random,random', '--games', '1', '--workers', '1'])"
    )
    assert {
        "sushigo.bots.games.sushi_go._heuristic",
        "sushigo.engine.games.sushi_roll",
        "sushigo.bots.games.sushi_roll",
    } <= loaded
    assert (
        "sushigo.bots.games.sushi_go._ismcts" not in loaded and "importlib.metadata" not in loaded
    )


@pytest.mark.parametrize("name", sushigo.bots.__all__)
def test_every_public_name_imports(name: str) -> None:
    assert getattr(sushigo.bots, name) is not None
    with pytest.raises(AttributeError):
        sushigo.bots.NoSuchName  # noqa: B018


def test_the_tables_are_the_strategies() -> None:
    assert builtin_names("sushi-go") == ("random", "greedy", "heuristic", "ismcts", "learned")
    assert "heuristic" in CARD_BUILTIN and "nosuch" not in CARD_BUILTIN
    assert CARD_BUILTIN["heuristic"] is HeuristicStrategy
    assert CARD_BUILTIN["ismcts"] is sushigo.bots.IsmctsStrategy is IsmctsStrategy
    assert builtins("sushi-roll") is ROLL_BUILTIN
    with pytest.raises(KeyError):
        CARD_BUILTIN["nosuch"]


def test_the_built_in_games_without_the_plugin_scan() -> None:
    assert rules("sushi-roll") is SUSHI_ROLL
    assert kinds()[: len(games.BUILTIN_KINDS)] == games.BUILTIN_KINDS == ("sushi-go", "sushi-roll")
    assert games.is_kind("sushi-roll") and not games.is_kind("no-such-game")


def test_the_game_option_lists_every_kind(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "--game {sushi-go,sushi-roll}" in capsys.readouterr().out
    with pytest.raises(SystemExit) as info:
        main(["--game", "chess", "--strategies", "random", "--games", "1"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'chess' (choose from 'sushi-go', 'sushi-roll')" in err


def test_the_command_leaves_its_objects_to_the_exit() -> None:
    """As the command (no argv), the run's objects are frozen for the interpreter's exit; called
    with arguments, nothing is."""
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "import gc, sys\n"
            "from sushigo.client.arena import main\n"
            "main(['--strategies', 'random,random', '--games', '2', '--workers', '1'])\n"
            "called = gc.get_freeze_count()\n"
            "sys.argv = ['sushigo-arena', '--strategies', 'random,random', '--games', '2']\n"
            "print(main(), called, gc.get_freeze_count() > 0)",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    assert out.splitlines()[-1] == "0 0 True"


def test_a_blind_strategy_that_fails_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The loop for strategies that never look at an observation (every seat blind, the legal
    sets alone deciding when the game ends) names a strategy that fails or cheats."""
    path = tmp_path / "blind.py"
    path.write_text(
        "class Cheat:\n"
        "    def choose(self, observation, legal, rng): return legal[0]\n"
        "    def choose_legal(self, legal, rng): return 'sashimi'\n"
        "class Crash:\n"
        "    def choose(self, observation, legal, rng): return legal[0]\n"
        "    def choose_legal(self, legal, rng): raise RuntimeError('oops')\n"
    )
    assert main(["--strategies", f"random,{path}:Cheat", "--games", "1", "--workers", "1"]) == 1
    err = capsys.readouterr().err
    assert f"strategy '{path}:Cheat' returned an illegal action in game 0" in err
    assert main(["--strategies", f"{path}:Crash,random", "--games", "1", "--workers", "1"]) == 1
    err = capsys.readouterr().err
    assert "failed in game 0: RuntimeError: oops" in err and "Traceback" not in err
