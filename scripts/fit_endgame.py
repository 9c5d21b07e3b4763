"""Fit the `learned` bot's value of a round's end (rounds 1 and 2, 2 players): the chance to win
and the final margin from the points lead and the pudding lead once the round is scored.

    nice scripts/fit_endgame.py [--games 3000] [--seed 1]

The exact endgame (`bots.games.sushi_go._learned_endgame`) scores the rest of a round by the rules;
what lies past the round it values with this model. Games of `learned` (with `endgame=0 duel=0`:
the afterstate networks' matrix search, which the shipped model was fitted on) against itself are
played (equal players: against a weaker one a lead would also measure the skill gap), and
at the end of rounds 1 and 2 each seat's lead in points D and in puddings P are recorded with the
game's outcome (its share of the win, its final margin). Per round a logistic regression of the win
on (D, clip(P, -3, 3), sign(P)) and a least-squares fit of the margin on the same are printed, to be
copied into `bots.games.sushi_go._learned_endgame.PAST_ROUND`.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence

import numpy as np

from sushigo.bots._learned import LearnedStrategy
from sushigo.engine import Game, GameOptions


def features(d: float, p: float) -> list[float]:
    """The model's inputs for a points lead `d` and a pudding lead `p` (as the endgame's)."""
    return [d, max(-3.0, min(3.0, p)), float(np.sign(p))]


def play(games: int, seed: int) -> dict[int, list[tuple[list[float], float, float]]]:
    """Per round (1, 2): (features, win share, final margin) of each seat of each game."""
    out: dict[int, list[tuple[list[float], float, float]]] = {1: [], 2: []}
    rng = random.Random(seed)
    for g in range(games):
        bots = [LearnedStrategy(endgame=0, duel=0) for _ in range(2)]
        game = Game(GameOptions(2), (seed * 1_000_003 + g).to_bytes(8, "big"))
        marks: list[tuple[int, tuple[int, ...], tuple[int, ...]]] = []
        last_round = 1
        while not game.is_terminal():
            actions = [
                bots[s].choose(game.observation(s), game.legal_actions(s), rng) for s in range(2)
            ]
            game.apply(actions)
            if game.round != last_round and not game.is_terminal():
                marks.append((last_round, game.scores(), game.puddings()))
                last_round = game.round
        final = game.scores()
        places = game.places()
        for s in range(2):
            win = 1.0 if places[s] == 1 and places[1 - s] != 1 else 0.5 if places[s] == 1 else 0.0
            for r, scores, puddings in marks:
                d = scores[s] - scores[1 - s]
                p = puddings[s] - puddings[1 - s]
                out[r].append((features(d, p), win, float(final[s] - final[1 - s])))
    return out


def logistic(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Weights of a logistic regression without intercept (the seats are symmetric), by Newton's
    method."""
    w = np.zeros(x.shape[1])
    for _ in range(30):
        p = 1 / (1 + np.exp(-x @ w))
        grad = x.T @ (p - y)
        hess = (x * (p * (1 - p))[:, None]).T @ x + 1e-6 * np.eye(x.shape[1])
        w -= np.linalg.solve(hess, grad)
    return w


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.games < 10:
        parser.error("--games must be at least 10")
    data = play(args.games, args.seed)
    for r in (1, 2):
        x = np.array([f for f, _, _ in data[r]])
        win = np.array([w for _, w, _ in data[r]])
        margin = np.array([m for _, _, m in data[r]])
        w = logistic(x, win)
        m, *_ = np.linalg.lstsq(x, margin, rcond=None)
        p = 1 / (1 + np.exp(-x @ w))
        print(
            f"round {r}: {len(x)} samples; win logit {[round(float(v), 4) for v in w]} "
            f"(log loss {float(-np.mean(win * np.log(p) + (1 - win) * np.log(1 - p))):.4f}); "
            f"margin {[round(float(v), 4) for v in m]} "
            f"(rmse {float(np.sqrt(np.mean((x @ m - margin) ** 2))):.2f})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
