#!/usr/bin/env python3
"""Engine speed: complete games with uniformly random legal actions, through the public API.

Prints games/s for 2, 3, 4 and 5 players (one process). Usage:
    .venv/bin/python scripts/bench_engine.py [--seconds S] [--variant NAME]

Two figures per player count: the mean over the whole run, and the best of its batches of 20
games. On a shared machine the mean moves with what else runs on the host (the same code has
measured anywhere from 2,700 to 3,900 four-player games/s on this one); the best batch is the
lower bound on the time the code needs, as `timeit` reports the minimum of its repeats for the
same reason.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from sushigo.engine import Game, GameOptions, OptionsError

BATCH = 20
"""Games per timed batch."""


def play(options: GameOptions, seed: bytes, rng: random.Random) -> int:
    """One complete game with random legal actions; returns the number of turns."""
    game = Game(options, seed)
    seats = range(options.players)
    r = rng.random
    legal, apply, over = game.legal_actions, game.apply, game.is_terminal
    turns = 0
    while not over():
        apply([(a := legal(s))[int(r() * len(a))] for s in seats])
        turns += 1
    return turns


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per player count")
    parser.add_argument(
        "--variant",
        choices=["pass_both_ways", "dummy", "soy_sauce"],
        action="append",
        default=[],
        help="turn a variant on (repeatable)",
    )
    args = parser.parse_args(argv)
    rng = random.Random(1)
    for players in (2, 3, 4, 5):
        try:
            options = GameOptions(players, **dict.fromkeys(args.variant, True))
        except OptionsError as exc:
            print(f"{players} players: skipped ({exc})")
            continue
        games = turns = 0
        best = float("inf")
        clock = time.perf_counter
        start = clock()
        while (elapsed := clock() - start) < args.seconds:
            batch = clock()
            for _ in range(BATCH):
                turns += play(options, games.to_bytes(8, "big"), rng)
                games += 1
            best = min(best, clock() - batch)
        print(
            f"{players} players: {games / elapsed:8.0f} games/s  "
            f"{turns / elapsed:9.0f} turns/s  ({games} games in {elapsed:.1f} s; "
            f"best batch {BATCH / best:.0f} games/s)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
