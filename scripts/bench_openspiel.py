#!/usr/bin/env python3
"""OpenSpiel speed: random games through pyspiel's API, one process, per CPU second.

    .venv/bin/python scripts/bench_openspiel.py [--seconds S] [--players P ...]

Each game is played from `new_initial_state()`: chance outcomes drawn by their probabilities,
every seat's action uniform among its legal ones (Sushi Go!'s simultaneous turns, Sushi Roll's
moves), and `clone()` once a decision, as a search would. Prints decisions (one seat's action),
chance outcomes and games per CPU second (`time.process_time`). Needs the extra ``openspiel``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

# Run as a file, the script's own folder is on sys.path, not the repository root.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pyspiel

import sushigo.bots.openspiel  # noqa: F401  (registers the games)


def run(name: str, seconds: float) -> tuple[float, float, float]:
    """Decisions, chance outcomes and games per CPU second of random play of `name`."""
    game = pyspiel.load_game(name)
    players = game.num_players()
    rng = random.Random(1)
    decisions = chances = games = 0
    clock = time.process_time
    start = clock()
    while clock() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, probabilities)[0])
                chances += 1
                continue
            state.clone()
            if state.is_simultaneous_node():
                state.apply_actions([rng.choice(state.legal_actions(p)) for p in range(players)])
                decisions += players
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                decisions += 1
        games += 1
    elapsed = clock() - start
    return decisions / elapsed, chances / elapsed, games / elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="CPU time per setting")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4, 5])
    args = parser.parse_args(argv)
    for short in ("python_sushi_go", "python_sushi_roll"):
        for players in args.players:
            decisions, chances, games = run(f"{short}(players={players})", args.seconds)
            print(
                f"{short} {players} players: {decisions:7.0f} decisions/s "
                f"{chances:7.0f} chance outcomes/s {games:6.1f} games/s (CPU)"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
