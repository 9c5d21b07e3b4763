"""Train Sushi Roll's `learned` strategy: value networks of afterstates; writes
bots/games/sushi_roll/learned_roll.npz.

    nice scripts/train_learned_roll.py --seed 1 [--out FILE] [--players 2,3,4,5] [--scale 1.0]
                                       [--workers 1] [--epochs 8] [--generations N]

Needs the extra ``train`` (torch). Games are played in the search bot's simulator
(`bots.games.sushi_roll._sim.SimState`, the engine's rules on plain ints: a game of the rollout
policy takes well under a millisecond), dealt as the engine deals them. For each player count,
generation 0 plays the search's rollout policy (`heuristic`'s) against itself, with a chance
`EXPLORE` of a random take, and records after every take the afterstate the taker's network
would score (`bots.games.sushi_roll._afterstate`) with the game's outcome for the taker: its
share of the win and its final margin over the others' mean. A network learns to predict both
(the Sushi Go! script's `train`). Each later generation plays the newest network
(`RollLearnedStrategy.decide`, with the same exploration) against itself and trains a new
network on the games of every generation so far. Every deal and random choice derive from
--seed, and torch runs on one thread with a fixed seed, so a seed gives the same weights on the
same machine. docs/BOTS.md ("The learned bot") has the command and what it took.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import random
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from train_learned import arguments, save, setup, train  # sibling script

from sushigo.bots.games.sushi_roll._afterstate import encode
from sushigo.bots.games.sushi_roll._learned import MARGIN_SCALE, WEIGHTS, RollLearnedStrategy
from sushigo.bots.games.sushi_roll._sim import SimState, apply, policy_action
from sushigo.engine.games.sushi_roll import RollGame, RollOptions, Take

GAMES = {2: (24000, 3000), 3: (12000, 1200), 4: (9000, 800), 5: (8000, 600)}
"""Games of generation 0 and of each later one (times --scale), by player count."""
GENERATIONS = {2: 3, 3: 2, 4: 2, 5: 2}
"""Generations by player count, the first included."""
EXPLORE = 0.05
"""The chance of a uniformly random take instead of the policy's action."""


def _seed(*parts: object) -> int:
    text = "/".join(str(p) for p in ("sushigo/train_learned_roll/v2", *parts))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def play(task: tuple[int, int, str]) -> tuple[Any, Any, Any]:
    """One game in the simulator (`weights` empty: the rollout policy; else that network's
    bot): each take's afterstate for the taker, its win share and its margin."""
    players, seed, weights = task
    game = RollGame(RollOptions(players), seed.to_bytes(8, "big"))
    state = SimState.of(game.observation(0))
    rng = random.Random(_seed(seed, "moves"))
    bot = RollLearnedStrategy(weights=weights) if weights else None
    rows: list[list[float]] = []
    seats: list[int] = []
    while not state.over:
        me = state.to_move
        belt = state.belts[me]
        action = policy_action(state) if bot is None else bot.decide(state, rng)
        if rng.random() < EXPLORE or action is None:
            action = Take(rng.randrange(len(belt)))
        if type(action) is Take:
            state.place(belt.pop(action.position))
            rows.append(encode(state, me))
            seats.append(me)
            state.advance(rng)
        else:
            apply(state, action, rng)
    places = state.places()
    winners = places.count(1)
    scores = state.score
    win = [1 / winners if p == 1 else 0.0 for p in places]
    margin = [
        (scores[s] - (sum(scores) - scores[s]) / (players - 1)) / MARGIN_SCALE
        for s in range(players)
    ]
    return (
        np.array(rows, dtype=np.float32),
        np.array([win[s] for s in seats], dtype=np.float32),
        np.array([margin[s] for s in seats], dtype=np.float32),
    )


def _games(tasks: list[tuple[int, int, str]], workers: int) -> list[tuple[Any, Any, Any]]:
    if workers > 1:
        with multiprocessing.get_context("fork").Pool(workers) as procs:
            return procs.map(play, tasks, chunksize=16)
    return [play(task) for task in tasks]


def main(argv: Sequence[str] | None = None) -> int:
    parser = arguments(__doc__ or "", WEIGHTS, 8)
    args = parser.parse_args(argv)
    counts, torch = setup(parser, args)
    start = time.perf_counter()
    nets: dict[int | str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for players in counts:
            first, later = (max(2, round(g * args.scale)) for g in GAMES[players])
            generations = GENERATIONS[players]
            if args.generations:
                generations = min(generations, args.generations)
            data: list[tuple[Any, Any, Any]] = []
            weights = ""
            for gen in range(generations):
                games = first if gen == 0 else later
                tasks = [
                    (players, _seed(args.seed, players, gen, i), weights) for i in range(games)
                ]
                data += _games(tasks, args.workers)
                x, win, margin = (np.concatenate([d[k] for d in data]) for k in range(3))
                arrays, curve = train(
                    torch, x, win, margin, args.epochs, _seed(args.seed, players, gen) % 2**31
                )
                nets[players] = arrays
                weights = str(Path(tmp) / f"gen{players}_{gen}.npz")
                save(Path(weights), {players: arrays})
                save(args.out, nets)  # what is done so far, to try while the rest trains
                print(
                    f"{players}p generation {gen}: {games} games, {len(x)} afterstates, "
                    f"held-out loss {curve[0]:.4f} -> {curve[-1]:.4f}; "
                    f"{time.perf_counter() - start:.0f} s",
                    flush=True,
                )
    print(f"wrote {args.out} in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
