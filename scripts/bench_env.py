#!/usr/bin/env python3
"""PettingZoo environment speed: random play through the parallel environments, one process.

    .venv/bin/python scripts/bench_env.py [--seconds S] [--game sushi-go|sushi-roll|both]
                                          [--players P ...]

Every live agent picks uniformly among the indexes its action mask allows (the policy's cost is
part of the figure, as a learner's would be). Prints agent steps per second (an agent step is
one agent's action: a Sushi Go! step of n players is n of them; a Sushi Roll step is n as well,
the others waiting) and games per second, for each game and player count. The needs the extra
``rl`` (the ``dev`` extra installs it).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Any

# Run as a file, the script's own folder is on sys.path, not the repository root.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sushigo.bots.pettingzoo import sushi_go_v0, sushi_roll_v0


def run(env: Any, seconds: float) -> tuple[float, float]:
    """Agent steps and games per second of random play for about `seconds`."""
    r = random.Random(1).random
    steps = games = 0
    clock = time.perf_counter
    start = clock()
    while clock() - start < seconds:
        observations, _ = env.reset(seed=games)
        games += 1
        while env.agents:
            actions = {}
            for agent, obs in observations.items():
                legal = obs["action_mask"].nonzero()[0]
                actions[agent] = legal[int(r() * len(legal))]
            observations, _, _, _, _ = env.step(actions)
            steps += len(actions)
    elapsed = clock() - start
    return steps / elapsed, games / elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per setting")
    parser.add_argument("--game", choices=["sushi-go", "sushi-roll", "both"], default="both")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4, 5])
    args = parser.parse_args(argv)
    modules = {"sushi-go": sushi_go_v0, "sushi-roll": sushi_roll_v0}
    for name, module in modules.items():
        if args.game not in (name, "both"):
            continue
        for players in args.players:
            steps, games = run(module.parallel_env(players=players), args.seconds)
            print(f"{name} {players} players: {steps:8.0f} agent steps/s  {games:6.1f} games/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
