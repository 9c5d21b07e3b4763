#!/usr/bin/env python3
"""Sushi Roll engine speed: complete games with random legal actions, through the public API.

Each turn takes a die with probability 1/2, else plays any legal action uniformly (so re-rolls and
swaps happen while tokens last). Prints games/s and actions/s for 2, 3, 4 and 5 players. Usage:
    .venv/bin/python scripts/bench_roll.py [--seconds S]
    .venv/bin/python scripts/bench_roll.py --search GAMES

With ``--search``, instead: the search bot (`ismcts`, its default 160 playouts a decision) plays
every seat of GAMES 3-player games, and the playouts it ran a CPU second of its own decisions
(`time.process_time`) are printed: what its simulator (bots/games/sushi_roll/_sim.py) is worth.
The games are the same on every run (fixed seeds), so two versions play the same playouts.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from sushigo.bots.games.sushi_roll import RollSearchStrategy
from sushigo.engine.games.sushi_roll import RollAction, RollGame, RollOptions, Take


def play(options: RollOptions, seed: bytes, rng: random.Random) -> int:
    """One complete game; returns the number of actions applied."""
    game = RollGame(options, seed)
    actions = 0
    while (seat := game.to_move) is not None:
        legal = game.legal_actions(seat)
        action: RollAction
        if rng.random() < 0.5:
            action = Take(int(rng.random() * len(game.belts()[seat])))
        else:
            action = legal[int(rng.random() * len(legal))]
        game.apply(seat, action)
        actions += 1
    return actions


def search(games: int) -> tuple[int, float]:
    """Playouts the search bot ran over `games` 3-player games, and the CPU seconds it took."""
    playouts, spent = 0, 0.0
    for number in range(games):
        game = RollGame(RollOptions(3), f"search-{number}".encode())
        bot = RollSearchStrategy()
        rng = random.Random(number)
        while (seat := game.to_move) is not None:
            observation, legal = game.observation(seat), game.legal_actions(seat)
            start = time.process_time()
            action = bot.choose(observation, legal, rng)
            spent += time.process_time() - start
            playouts += bot.last_iterations
            game.apply(seat, action)
    return playouts, spent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per player count")
    parser.add_argument("--search", type=int, metavar="GAMES", help="the search bot's playouts")
    args = parser.parse_args(argv)
    if args.search is not None:
        if args.search < 1:
            parser.error("--search must be at least 1")
        playouts, spent = search(args.search)
        print(f"search: {playouts} playouts in {spent:.2f} CPU s, {playouts / spent:,.0f} a second")
        return 0
    rng = random.Random(1)
    for players in (2, 3, 4, 5):
        options = RollOptions(players)
        games = actions = 0
        start = time.perf_counter()
        while (elapsed := time.perf_counter() - start) < args.seconds:
            for _ in range(20):
                actions += play(options, games.to_bytes(8, "big"), rng)
                games += 1
        print(
            f"{players} players: {games / elapsed:8.0f} games/s  "
            f"{actions / elapsed:9.0f} actions/s  ({games} games in {elapsed:.1f} s)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
