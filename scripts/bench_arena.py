#!/usr/bin/env python3
"""Where a random four-player arena game's time goes, against the stripped playout loop.

    .venv/bin/python scripts/bench_arena.py [--games N] [--repeats R] [--stripped FILE] [--startup K]

Counts process CPU time, not the wall clock: on a shared machine the wall clock mostly measures
the other processes, while CPU time moves far less. Everything runs in this one process, each
part timed on the same N games (after a warm-up of 5,000, as a long arena run is warm), the
parts taken in turn R times and the best kept. Prints microseconds per game for: the stripped
loop (/work/shared/bench/stripped_playout.py, or --stripped), the arena's `play_game`, the engine
played as the arena plays it but with the picks inline, a replay of the same games' actions
(`Game` and `apply` alone), `Game(options, seed)` alone, and the game's generator of the seats'
choices; then the arena's ratio to the stripped loop (the goal of issue 18 is 0.25).

With ``--startup K``, also the command's own start-up and exit: the CPU time (user + system, as the
kernel counts a finished child's, `resource.getrusage`) of ``sushigo-arena`` playing one random game, the best of K runs,
which the issue's figure (games over the wall time of the whole command) pays once a run.
"""

from __future__ import annotations

import argparse
import gc
import random
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from math import floor
from pathlib import Path
from typing import Any

from sushigo.client.arena import ArenaConfig, game_rng, game_seed, play_game
from sushigo.engine import Action, Game, GameOptions

STRIPPED = Path("/work/shared/bench/stripped_playout.py")
WARM_UP = 5_000


def stripped_play(path: Path) -> Callable[[int, random.Random], Any]:
    """The stripped loop's `play(players, rng)`, read from its file (without its timing code)."""
    source = path.read_text(encoding="utf-8").split("if __name__")[0]
    space: dict[str, Any] = {}
    exec(compile(source, str(path), "exec"), space)
    play: Callable[[int, random.Random], Any] = space["play"]
    return play


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=1_000, help="games per timed part")
    parser.add_argument("--repeats", type=int, default=7, help="rounds of every part")
    parser.add_argument("--stripped", type=Path, default=STRIPPED, help="the stripped loop")
    parser.add_argument("--startup", type=int, default=0, help="runs of the command's start-up")
    args = parser.parse_args(argv)
    try:
        play = stripped_play(args.stripped)
    except (OSError, KeyError, SyntaxError) as exc:
        print(f"bench_arena: cannot read the stripped loop {args.stripped}: {exc}", file=sys.stderr)
        return 2
    gc.set_threshold(20_000, 50, 100)  # as the arena's batch_gc
    options = GameOptions(4)
    config = ArenaConfig(("random",) * 4, WARM_UP + args.games, options, 1, 1)
    for index in range(WARM_UP):
        play_game(config, index)
    indexes = range(WARM_UP, WARM_UP + args.games)
    seeds = [game_seed(config.seed, index) for index in indexes]
    draw = random.Random(1).random
    histories: list[tuple[bytes, tuple[tuple[Action, ...], ...]]] = []
    for seed in seeds:
        game = Game(options, seed)
        while not game.is_terminal():
            game.step([a[floor(draw() * len(a))] for a in game.legal_actions_by_seat()])
        histories.append((seed, game.history))
    stripped_rng = random.Random(1)

    def stripped() -> None:
        for _ in indexes:
            play(4, stripped_rng)

    def arena() -> None:
        for index in indexes:
            play_game(config, index)

    def engine() -> None:
        for seed in seeds:
            game = Game(options, seed)
            every_legal, step, to_act = game.legal_actions_by_seat, game.step, game.to_act
            while to_act():
                step([a[floor(draw() * len(a))] for a in every_legal()])

    def replay() -> None:
        for seed, history in histories:
            step = Game(options, seed).step
            for actions in history:
                step(actions)

    def deal() -> None:
        for seed in seeds:
            Game(options, seed)

    def generator() -> None:
        for index in indexes:
            game_rng(config.seed, index)

    parts: dict[str, Callable[[], None]] = {
        "stripped loop": stripped,
        "arena play_game": arena,
        "engine, picks inline": engine,
        "Game + apply (replay)": replay,
        "Game(options, seed)": deal,
        "the game's generator": generator,
    }
    best = dict.fromkeys(parts, float("inf"))
    for _ in range(args.repeats):
        for name, part in parts.items():
            start = time.process_time()
            part()
            best[name] = min(best[name], time.process_time() - start)
    for name, seconds in best.items():
        print(f"{name:24} {seconds / args.games * 1e6:7.1f} µs/game")
    ratio = best["stripped loop"] / best["arena play_game"]
    print(f"arena / stripped loop: {ratio:.3f} (goal 0.25)")
    if args.startup > 0:
        print(f"the command's start-up and exit  {startup_seconds(args.startup) * 1e3:7.1f} ms CPU")
    return 0


def startup_seconds(runs: int) -> float:
    """The least CPU time (user + system) a run of ``sushigo-arena`` playing one random game took:
    counted by the kernel for the finished child, so other processes on the machine do not add to
    it as they add to its wall time."""
    command = [str(Path(sys.executable).parent / "sushigo-arena"), "--strategies", "random"]
    command += ["--players", "4", "--games", "1", "--workers", "1"]
    best = float("inf")
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        best = min(best, cpu)
    return best


if __name__ == "__main__":
    sys.exit(main())
