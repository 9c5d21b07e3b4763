"""Train Sushi Roll's `learned` strategy in the PettingZoo environment; writes
bots/games/sushi_roll/learned_roll.npz.

    nice scripts/train_learned_roll.py --seed 1 [--out FILE] [--players 2,3,4,5] [--scale 1.0]
                                       [--workers 2] [--epochs 20]

Needs the extra ``train`` (torch). One step of expert iteration: games are played through
`sushi_roll_v0.parallel_env`, every move chosen by the search bot (`ismcts`, with a small chance
of a random legal move so the positions vary), and a policy network learns, from the
environment's observation and action mask alone, to pick the index the search bot picked
(cross-entropy over the legal indexes), with many more games of `heuristic` as a cheap start
(`BULK`). Every deal and random choice derive from --seed; torch runs
on one thread with a fixed seed.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import random
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
from _nets import export, mlp, train_epoch  # sibling scripts
from train_learned import arguments, setup

from sushigo.bots import get_strategy
from sushigo.bots.games.sushi_roll._learned import WEIGHTS
from sushigo.bots.games.sushi_roll._pz_encoding import WAIT
from sushigo.bots.games.sushi_roll._pz_table import SushiRollTable
from sushigo.bots.pettingzoo import sushi_roll_v0

GAMES = {2: 400, 3: 120, 4: 80, 5: 60}
"""Games of the search bot against itself by player count (times --scale)."""
BULK = {2: 3000, 3: 1500, 4: 1000, 5: 800}
"""Games of `heuristic` against itself, whose moves are learned too: the search bot's moves are
dear (a few thousand games' worth is what this script can afford), the heuristic's nearly free,
and a network that has learned them from plenty of positions learns the search bot's corrections
from fewer. The search bot's moves count `EXPERT_WEIGHT` times as much."""
EXPERT_WEIGHT = 3
TEACHER = {
    2: "ismcts",
    3: "ismcts@iterations=60",
    4: "ismcts@iterations=60",
    5: "ismcts@iterations=60",
}
"""The search bot whose moves are learned: at its default budget for 2 players (where the learned
bot is measured against it), at the "hard" level's for more (games are longer and each search
dearer there, and this keeps the script within its time)."""
EXPLORE = 0.05
HIDDEN = 256


def _seed(*parts: object) -> int:
    text = "/".join(str(p) for p in ("sushigo/train_learned_roll/v1", *parts))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def play(task: tuple[int, int, str]) -> tuple[Any, Any, Any]:
    """One game in the environment, every move chosen by `teacher`: each move's observation,
    mask and the teacher's index."""
    players, seed, teacher = task
    env = sushi_roll_v0.parallel_env(players=players)
    observations, _ = env.reset(seed=seed % 2**31)
    table = env.table
    assert isinstance(table, SushiRollTable)
    encoding = table.encoding
    teachers = [get_strategy(teacher, game="sushi-roll") for _ in range(players)]
    rng = random.Random(_seed(seed, "moves"))
    xs, masks, picks = [], [], []
    while env.agents:
        (seat,) = table.acting()
        agent = env.agents[seat]
        game = table.game
        legal = game.legal_actions(seat)
        action = teachers[seat].choose(game.observation(seat), legal, rng)
        xs.append(observations[agent]["observation"])
        masks.append(observations[agent]["action_mask"])
        picks.append(encoding.action_index(action, seat))
        if rng.random() < EXPLORE:
            action = legal[rng.randrange(len(legal))]
        moves = dict.fromkeys(env.agents, WAIT)
        moves[agent] = encoding.action_index(action, seat)
        observations, *_ = env.step(moves)
    return np.array(xs), np.array(masks), np.array(picks)


def train(
    torch: Any, x: Any, mask: Any, pick: Any, weight: Any, epochs: int, seed: int
) -> tuple[dict[str, Any], list[float]]:
    """A policy network fitted to the teachers' picks (each move's loss times its `weight`); its
    arrays and, per epoch, the held-out agreement with the moves of weight above 1 (the search
    bot's)."""
    torch.manual_seed(seed)
    mean = x.mean(axis=0).astype(np.float32)
    std = (x.std(axis=0) + 1e-3).astype(np.float32)
    z = torch.from_numpy(((x - mean) / std).astype(np.float32))
    illegal = torch.from_numpy(mask == 0)
    target = torch.from_numpy(pick.astype(np.int64))
    weights = torch.from_numpy(weight.astype(np.float32))
    order = torch.randperm(len(z), generator=torch.Generator().manual_seed(seed))
    held = max(1, len(z) // 10)
    val, fit = order[:held], order[held:]
    nn = torch.nn
    model = mlp(torch, x.shape[1], HIDDEN, mask.shape[1])
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=1e-5)
    cross = nn.CrossEntropyLoss(reduction="none")
    expert = val[weights[val] > 1]

    def logits(index: Any) -> Any:
        return model(z[index]).masked_fill(illegal[index], -1e9)

    def loss(index: Any) -> Any:
        return (cross(logits(index), target[index]) * weights[index]).mean()

    curve = []
    gen = torch.Generator().manual_seed(seed + 1)
    for _ in range(epochs):
        train_epoch(model, optimizer, fit[torch.randperm(len(fit), generator=gen)], 256, loss)
        with torch.no_grad():
            right = logits(expert).argmax(dim=1) == target[expert]
            curve.append(float(right.float().mean()))
    return export(torch, model, mean, std), curve


def main(argv: Sequence[str] | None = None) -> int:
    parser = arguments(__doc__ or "", WEIGHTS, 10)
    args = parser.parse_args(argv)
    counts, torch = setup(parser, args)
    if torch is None:
        return 2
    start = time.perf_counter()
    flat: dict[str, Any] = {}
    for players in counts:
        games = max(2, round(GAMES[players] * args.scale))
        bulk = max(2, round(BULK[players] * args.scale))
        tasks = [(players, _seed(args.seed, players, i), TEACHER[players]) for i in range(games)]
        tasks += [(players, _seed(args.seed, players, "bulk", i), "heuristic") for i in range(bulk)]
        if args.workers > 1:
            with multiprocessing.get_context("fork").Pool(args.workers) as procs:
                parts = procs.map(play, tasks, chunksize=4)
        else:
            parts = [play(task) for task in tasks]
        x, mask, pick = (np.concatenate([p[k] for p in parts]) for k in range(3))
        weight = np.concatenate(
            [np.full(len(p[2]), EXPERT_WEIGHT if i < games else 1) for i, p in enumerate(parts)]
        )
        seed = _seed(args.seed, players) % 2**31
        arrays, curve = train(torch, x, mask, pick, weight, args.epochs, seed)
        flat.update({f"p{players}_{k}": v for k, v in arrays.items()})
        print(
            f"{players}p: {games} + {bulk} games, {len(x)} moves; held-out agreement with "
            f"{TEACHER[players]} "
            f"{100 * curve[0]:.1f}% -> {100 * curve[-1]:.1f}%; {time.perf_counter() - start:.0f} s",
            flush=True,
        )
    np.savez_compressed(args.out, **flat)
    print(f"wrote {args.out} in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
