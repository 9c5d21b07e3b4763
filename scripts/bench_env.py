#!/usr/bin/env python3
"""PettingZoo environment speed: random play, one process, per CPU second.

    .venv/bin/python scripts/bench_env.py [--seconds S] [--game sushi-go|sushi-roll|both]
                                          [--players P ...] [--loop parallel|tutorial|both]

Two loops, each picking uniformly among the indexes the action mask allows (the policy's cost is
part of the figure, as a learner's would be):

- ``tutorial``: PettingZoo's own AEC loop as its documentation writes it, unchanged
  (``for agent in env.agent_iter(): ... env.last() ... env.action_space(agent).sample(mask)
  ... env.step(action)``) on `env()`, PettingZoo's wrappers included;
- ``parallel``: the parallel environment, every live agent's action in one `step`.

Prints, for each game and player count, agent steps (one agent's turn of the loop: in the
parallel form of Sushi Roll the seats not to move send "wait", and count here), decisions (the
agent steps of a seat that had a choice to make: every seat of a Sushi Go! turn, the seat to move
in Sushi Roll; the AEC loop's last step of each agent, with its None action, is no decision) and
games, each per CPU second of the process (`time.process_time`). Needs the extra ``rl`` (the
``dev`` extra installs it).
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

Figures = tuple[float, float, float]
"""Agent steps, decisions and games, each per CPU second."""


def run_parallel(env: Any, seconds: float) -> Figures:
    """Random play through the parallel environment for about `seconds` of CPU time."""
    r = random.Random(1).random
    steps = decisions = games = 0
    clock = time.process_time
    start = clock()
    while clock() - start < seconds:
        observations, _ = env.reset(seed=games)
        games += 1
        while env.agents:
            actions = {}
            for agent, obs in observations.items():
                legal = obs["action_mask"].nonzero()[0]
                actions[agent] = legal[int(r() * len(legal))]
            decisions += len(env.table.acting())
            observations, _, _, _, _ = env.step(actions)
            steps += len(actions)
    elapsed = clock() - start
    return steps / elapsed, decisions / elapsed, games / elapsed


def run_tutorial(env: Any, seconds: float) -> Figures:
    """PettingZoo's tutorial loop, unchanged inside, for about `seconds` of CPU time."""
    steps = decisions = games = 0
    clock = time.process_time
    start = clock()
    while clock() - start < seconds:
        env.reset(seed=games)
        games += 1
        for agent in env.agent_iter():
            observation, reward, termination, truncation, info = env.last()  # noqa: RUF059
            if termination or truncation:
                action = None
            else:
                action = env.action_space(agent).sample(observation["action_mask"])
            env.step(action)
            steps += 1
            decisions += action is not None
    elapsed = clock() - start
    return steps / elapsed, decisions / elapsed, games / elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="CPU time per setting")
    parser.add_argument("--game", choices=["sushi-go", "sushi-roll", "both"], default="both")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4, 5])
    parser.add_argument("--loop", choices=["parallel", "tutorial", "both"], default="both")
    args = parser.parse_args(argv)
    modules = {"sushi-go": sushi_go_v0, "sushi-roll": sushi_roll_v0}
    loops = [name for name in ("tutorial", "parallel") if args.loop in (name, "both")]
    for name, module in modules.items():
        if args.game not in (name, "both"):
            continue
        for players in args.players:
            for loop in loops:
                if loop == "tutorial":
                    figures = run_tutorial(module.env(players=players), args.seconds)
                else:
                    figures = run_parallel(module.parallel_env(players=players), args.seconds)
                steps, decisions, games = figures
                print(
                    f"{name} {players} players, {loop:8}: {steps:8.0f} agent steps/s "
                    f"{decisions:8.0f} decisions/s {games:7.1f} games/s (CPU)"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
