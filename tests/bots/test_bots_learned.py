"""The `learned` strategy: its weights, legal and repeatable play, the error without numpy, and the
training script end to end at a tiny size (only where torch is installed)."""

from __future__ import annotations

import importlib
import importlib.util
import random
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from bots_helpers import ALL_OPTIONS, play, play_roll
from hypothesis import given, settings
from hypothesis import strategies as st

from sushigo.bots import StrategyError, get_strategy
from sushigo.bots._learned import MARGIN_WEIGHT, WEIGHTS, LearnedStrategy, Mlp, load_nets
from sushigo.bots.games.sushi_roll._learned import WEIGHTS as ROLL_WEIGHTS
from sushigo.client.arena import main as arena_main
from sushigo.engine import Game, GameOptions

ROOT = Path(__file__).resolve().parents[2]


def test_the_shipped_weights_load_for_every_player_count() -> None:
    nets = load_nets()
    assert sorted(nets) == [2, 3, 4, 5]
    assert load_nets() is nets  # loaded once


def test_the_sushi_roll_weights_load_and_play_the_same_game_from_the_same_seeds() -> None:
    assert ROLL_WEIGHTS.stat().st_size + WEIGHTS.stat().st_size <= 5 * 1024 * 1024
    assert sorted(load_nets(ROLL_WEIGHTS)) == [2, 3, 4, 5]
    # Every seat learned with exploration (so the rng is used); play_roll checks legality.
    first, moves = play_roll(3, ["learned@explore=0.2"], 8)
    again, moves_again = play_roll(3, ["learned@explore=0.2"], 8)
    assert (first.scores(), moves) == (again.scores(), moves_again)


def test_a_number_constant_in_training_is_ignored_in_play() -> None:
    # Column 1 never changed in training (std 1e-3, as the scripts compute it): a variant that
    # moves it (soy sauce cards) must not feed the network a thousandfold random input.
    rng = np.random.default_rng(0)
    w0, b0 = rng.normal(size=(3, 4)).astype(np.float32), np.zeros(4, np.float32)
    w1, b1 = rng.normal(size=(4, 2)).astype(np.float32), np.zeros(2, np.float32)
    mean = np.array([0.5, 0.0, 2.0], np.float32)
    std = np.array([0.5, 1e-3, 1.0], np.float32)
    net = Mlp([(w0, b0), (w1, b1)], mean, std)
    seen = np.array([[1.0, 0.0, 3.0]], np.float32)
    assert np.allclose(net(seen), net(np.array([[1.0, 4.0, 3.0]], np.float32)))
    hidden = np.maximum(((seen - mean) / std) @ w0 + b0, 0)
    assert np.allclose(net(seen), hidden @ w1 + b1, atol=1e-5)  # as trained


def test_margin_sets_how_much_the_predicted_margin_counts() -> None:
    # By default the margin's half counts beside the chance to win; `@margin=0` leaves the chance.
    for players in (2, 4):
        game = Game(GameOptions(players), bytes(8))
        obs, legal = game.observation(0), game.legal_actions(0)
        shipped = LearnedStrategy().values(obs, legal)
        win = get_strategy("learned@margin=0", game="sushi-go")
        assert isinstance(win, LearnedStrategy)
        chance = win.values(obs, legal)
        assert ((chance > 0) & (chance < 1)).all()
        assert not np.allclose(chance, shipped)
        assert np.array_equal(LearnedStrategy(margin=MARGIN_WEIGHT).values(obs, legal), shipped)


def test_the_benchmark_times_the_strategy_it_is_given() -> None:
    script = str(ROOT / "scripts" / "bench_learned.py")
    run = [sys.executable, script, "--games", "1", "--strategy"]
    done = subprocess.run([*run, "learned@margin=0.5"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [line.split(",")[0] for line in lines[::2]] == [
        f"sushi-go {p} players" for p in range(2, 6)
    ]
    bad = subprocess.run([*run, "learned@margins=1"], capture_output=True, text=True, check=False)
    assert bad.returncode == 2 and "margins" in bad.stderr and "Traceback" not in bad.stderr


def test_soy_sauce_games_play_to_the_end(capsys: pytest.CaptureFixture[str]) -> None:
    # Game 132 of this run once stopped: the learned seat's values were all near 34 and, compared
    # in float32, none was within 1e-6 of their maximum.
    args = ["--strategies", "learned,heuristic", "--variant", "soy_sauce", "--seed", "6"]
    assert arena_main([*args, "--games", "133", "--workers", "1"]) == 0
    assert "133 games" in capsys.readouterr().out


def test_a_weights_file_that_is_not_one_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(StrategyError, match="cannot read the learned bot's weights"):
        get_strategy(f"learned@weights={bad}", game="sushi-go")


@settings(max_examples=12, deadline=None)
@given(options=st.sampled_from(ALL_OPTIONS), seed=st.integers(0, 2**32))
def test_every_action_is_legal(options: GameOptions, seed: int) -> None:
    # Every seat learned, every player count and variant: `play` checks each action is legal.
    bots = [get_strategy("learned", game="sushi-go") for _ in range(options.players)]
    assert play(options, bots, seed).is_terminal()


def test_the_same_rng_gives_the_same_game() -> None:
    def moves(seed: int) -> list[object]:
        # Exploration too, so the rng is used: the same seeds must still give the same moves.
        bots = [LearnedStrategy(explore=0.2) for _ in range(3)]
        rngs = [random.Random(seed + s) for s in range(3)]
        game = Game(GameOptions(3), b"deal")
        played = []
        while not game.is_terminal():
            actions = [
                bots[s].choose(game.observation(s), game.legal_actions(s), rngs[s])
                for s in range(3)
            ]
            played.append(actions)
            game.apply(actions)
        return played

    assert moves(5) == moves(5)


def test_it_beats_heuristic_more_often_than_not() -> None:
    # A smoke test of the weights (the real figures are the arena's, in docs/BENCHMARKS.md).
    wins = 0
    for seed in range(20):
        bots = [
            get_strategy("learned", game="sushi-go"),
            get_strategy("heuristic", game="sushi-go"),
        ]
        if seed % 2:
            bots.reverse()
        game = play(GameOptions(2), bots, seed)
        wins += (seed % 2) in game.winners()
    assert wins >= 11


@pytest.mark.parametrize("game", ["sushi-go", "sushi-roll"])
def test_without_numpy_it_says_which_extra_to_install(game: str) -> None:
    # A real interpreter in which numpy cannot be imported (a None in sys.modules makes Python's
    # import raise ImportError), running the arena as a user would.
    code = (
        "import sys; sys.modules['numpy'] = None\n"
        "from sushigo.client.arena import main\n"
        f"sys.exit(main(['--game', '{game}', '--strategies', 'learned,random', '--games', '2']))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        "sushigo-arena: error: the learned strategy needs numpy: "
        "install the extra 'rl' (pip install 'sushigo[rl]')"
    )


needs_torch = pytest.mark.skipif(
    importlib.util.find_spec("torch") is None,
    reason="torch is not installed (the extra 'train'); the training scripts need it",
)


def _script(name: str) -> Any:
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(ROOT / "scripts"))


@needs_torch
def test_the_training_script_runs_end_to_end_and_repeats(tmp_path: Path) -> None:
    train_learned = _script("train_learned")
    tiny = ["--players", "2", "--workers", "1", "--scale", "0.002", "--epochs", "1"]
    outs = [tmp_path / "a.npz", tmp_path / "b.npz"]
    for out in outs:
        assert (
            train_learned.main(["--seed", "3", "--out", str(out), *tiny, "--generations", "2"]) == 0
        )
    with np.load(outs[0]) as a, np.load(outs[1]) as b:
        assert a.files == b.files
        assert all(
            np.array_equal(a[key], b[key]) for key in a.files
        )  # the same seed, the same weights
    out = str(outs[0])
    assert play(GameOptions(2), [LearnedStrategy(weights=out) for _ in range(2)], 1).is_terminal()
    assert sorted(load_nets(outs[0])) == [2]
    with pytest.raises(StrategyError, match="no learned network for 3 players"):
        play(GameOptions(3), [LearnedStrategy(weights=out) for _ in range(3)], 2)


@needs_torch
def test_the_sushi_roll_training_script_repeats_per_player_count(tmp_path: Path) -> None:
    # A player count's network depends on the seed alone: trained with another count or alone,
    # it comes out the same (the shipped weights may be trained count by count).
    train_roll = _script("train_learned_roll")
    both, alone = tmp_path / "both.npz", tmp_path / "alone.npz"
    tiny = ["--seed", "3", "--workers", "1", "--scale", "0.005", "--epochs", "1"]
    assert train_roll.main([*tiny, "--players", "2,3", "--out", str(both)]) == 0
    assert train_roll.main([*tiny, "--players", "3", "--out", str(alone)]) == 0
    with np.load(both) as a, np.load(alone) as b:
        assert sorted(load_nets(both)) == [2, 3]
        assert b.files and all(np.array_equal(a[key], b[key]) for key in b.files)
    bots = [f"learned@weights={both}"]
    game, _ = play_roll(3, bots, 4)
    assert game.is_terminal()


@needs_torch
def test_the_duel_only_training_repeats_and_its_network_plays(tmp_path: Path) -> None:
    # --duel-only trains the duel network alone (on games of the shipped networks): a seed gives
    # the same file, holding only the duel network, and the bot plays with it beside the
    # shipped afterstate networks it was given.
    train_learned = _script("train_learned")
    outs = [tmp_path / "a.npz", tmp_path / "b.npz"]
    for out in outs:
        args = ["--seed", "3", "--duel-only", "--scale", "0.002", "--workers", "1"]
        assert train_learned.main([*args, "--out", str(out)]) == 0
    with np.load(outs[0]) as a, np.load(outs[1]) as b:
        assert a.files == b.files and all(name.startswith("d2_") for name in a.files)
        assert all(np.array_equal(a[key], b[key]) for key in a.files)
        merged = tmp_path / "merged.npz"
        with np.load(WEIGHTS) as shipped:
            np.savez(merged, **{k: shipped[k] for k in shipped.files if k.startswith("p2_")}, **a)
    bot = LearnedStrategy(weights=str(merged))
    assert bot._duel is not None
    assert play(GameOptions(2), [bot, LearnedStrategy(duel=0)], 1).is_terminal()


@pytest.mark.parametrize("players", [2, 3])
def test_the_training_games_play_one_ply_whatever_the_bot_searches(players: int) -> None:
    # The training games' learned seats play the best afterstate by their network (one ply, in
    # the arithmetic of the shipped weights' training: within 1e-5 of the bot's one-ply values),
    # whatever the bot's search does in play: the bot as it plays leaves that choice somewhere.
    train_learned = _script("train_learned")
    for make, one_ply in (
        (lambda: train_learned._make("learned", str(WEIGHTS), players), True),
        (LearnedStrategy, False),
    ):
        game = Game(GameOptions(players), b"one ply")
        seats = [make() for _ in range(players)]
        judges = [LearnedStrategy(search=0) for _ in range(players)]
        rng = random.Random(5)
        agreed = []
        while not game.is_terminal():
            actions = []
            for s, seat in enumerate(seats):
                obs, legal = game.observation(s), game.legal_actions(s)
                action = seat.choose(obs, legal, rng)
                values = judges[s].values(obs, legal)
                agreed.append(values[legal.index(action)] >= values.max() - 1e-5)
                actions.append(action)
            game.apply(actions)
        assert all(agreed) if one_ply else not all(agreed)


@needs_torch
def test_lookahead_training_of_one_count_keeps_the_other_networks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # --lookahead --keep-others retrains one player count's network, its training games played
    # by the look-ahead, into a copy of the shipped file: the other networks stay as they were.
    train_learned = _script("train_learned")
    bot = train_learned._make("explore" + train_learned.LOOKAHEAD, str(WEIGHTS), 4)
    assert bot._deals == train_learned.DEALS > 0 and bot._explore > 0
    assert (bot._roundend, bot._ahead) == (0, 0.0)  # as the shipped network's games
    out, again = tmp_path / "weights.npz", tmp_path / "again.npz"
    args = ["--seed", "3", "--players", "4", "--lookahead", "--keep-others", "--workers", "1"]
    tiny = ["--scale", "0.002", "--epochs", "1", "--generations", "2"]
    for path in (out, again):
        shutil.copy(WEIGHTS, path)
        assert train_learned.main([*args, *tiny, "--out", str(path)]) == 0
    with np.load(out) as new, np.load(again) as repeated, np.load(WEIGHTS) as shipped:
        assert new.files == shipped.files == repeated.files
        assert all(np.array_equal(new[key], repeated[key]) for key in new.files)  # one seed
        for key in shipped.files:
            same = np.array_equal(new[key], shipped[key])
            assert same == (not key.startswith("p4_")), key
    bots = [LearnedStrategy(weights=str(out)) for _ in range(4)]
    assert play(GameOptions(4), bots, 1).is_terminal()
    np.savez(tmp_path / "other.npz", x=np.zeros(3))
    for name, error in (("missing", "cannot read"), ("other", "is not a weights file")):
        with pytest.raises(SystemExit) as exited:
            train_learned.main([*args, *tiny, "--out", str(tmp_path / f"{name}.npz")])
        assert exited.value.code == 2
        assert error in capsys.readouterr().err.strip().splitlines()[-1]
