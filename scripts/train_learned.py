"""Train the `learned` strategy's value networks by self-play; writes
bots/games/sushi_go/learned_go.npz.

    nice scripts/train_learned.py --seed 1 [--out FILE] [--players 2,3,4,5] [--scale 1.0]
                                  [--workers 2] [--epochs 6] [--generations N]
    nice scripts/train_learned.py --seed 1 --players 4 --lookahead --keep-others --scale 3
    nice scripts/train_learned.py --seed 1 --duel-only --scale 0.5    # learned_duel.npz

Needs the extra ``train`` (torch). For each player count, generation 0 plays `heuristic` against
itself and records, for every seat and turn, the afterstate of the action played (the features
of `bots._learned.GoFeatures`) with the game's outcome: the seat's share of the win and its final
margin over the others. A network learns to predict both. Each later generation plays the newest
network (with a little exploration) against `heuristic` and against itself, and trains a new
network from the games of the last `WINDOW` generations. The shipped 4-player network comes from
the second command, run on the first one's file: its games played by the look-ahead the bot plays
with 3-5 players (`--lookahead`), the other networks kept (`--keep-others`). The third plays the
installed 2-player network and values what lies past a round by `PAST_ROUND`, so it comes after
scripts/fit_endgame.py has been run on that network and its figures copied in. After each
generation the network plays `heuristic` in a short match (seats rotated), printed as the learning
curve. Every game's deal and every random choice derive from --seed, and torch runs on one thread
with a fixed seed, so a seed gives the same weights on the same machine. docs/BOTS.md ("The
learned bot") has the command; docs/BENCHMARKS.md its figures.
"""

from __future__ import annotations

import argparse
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
from _duel_training import train_duel  # sibling modules
from _nets import export, mlp, train_epoch

from sushigo.bots import HeuristicStrategy
from sushigo.bots._learned import (
    DUEL_WEIGHTS,
    MARGIN_SCALE,
    MARGIN_WEIGHT,
    WEIGHTS,
    GoFeatures,
    LearnedStrategy,
)
from sushigo.engine import Game, GameOptions

GAMES = {2: (3000, 10), 3: (2000, 6), 4: (1500, 8), 5: (1200, 6)}
"""Games a generation (times --scale) and generations, by player count."""
WINDOW = 4
"""Each generation trains on the data of this many generations, the newest included: older games
were played by weaker networks (generation 0 by `heuristic` alone)."""
EXPLORE = 0.03
"""The learned seats' chance of a random legal action in the training games."""
HIDDEN = 128
EVAL_GAMES = {2: 400, 3: 300, 4: 300, 5: 250}
DEALS = 3
"""The look-ahead's deals in the games of --lookahead, as the shipped 4-player network's were
played (the bot itself deals `bots._learned.DEALS` times, and weighs the next hand's holder's two
best picks, `ahead`: these games take its best only)."""
LOOKAHEAD = "+lookahead"
"""With --lookahead, the suffix of a lineup's learned specs: they play
`learned@deals=DEALS@roundend=0@ahead=0`."""


def _seed(*parts: object) -> int:
    text = "/".join(str(p) for p in ("sushigo/train_learned/v1", *parts))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


# -- playing ------------------------------------------------------------------------------------


class OnePly:
    """The learned seat of the training games: the legal action whose afterstate its player
    count's network values highest (win chance plus half the margin), ties broken with the rng,
    with a chance `explore` of a random legal action instead.

    It is the bot's one-ply choice (`LearnedStrategy` with ``search=0``) in the arithmetic of the
    code that trained the shipped networks: the input's normalization folded into the first layer
    as it is, a logistic of float32 and ties within 1e-6 of the best. The bot's own values differ
    by a few units in the sixth decimal (it zeroes the weights of inputs that never varied), enough
    to turn a near tie the other way now and then, and one move played differently changes every
    game after it. Kept here, the training games do not change when the bot does.
    """

    def __init__(self, weights: str, players: int, explore: float) -> None:
        with np.load(weights) as arrays:
            a = {k[3:]: arrays[k] for k in arrays.files if k.startswith(f"p{players}_")}
        w0, b0, mean, std = a["w0"], a["b0"], a["mean"], a["std"]
        first = (
            (w0 / std[:, None]).astype(np.float32),
            (b0 - (mean / std) @ w0).astype(np.float32),
        )
        rest = [(a[f"w{k}"], a[f"b{k}"]) for k in range(1, len(a)) if f"w{k}" in a]
        self._layers = [first, *rest]
        self._features = GoFeatures()
        self._explore = explore

    def choose(self, obs: Any, legal: Sequence[Any], rng: random.Random) -> Any:
        """The action to play (see the class)."""
        x = self._features.rows(obs, legal)  # every observation, the forced ones too
        if len(legal) == 1:
            return legal[0]
        *hidden, (w, b) = self._layers
        for wh, bh in hidden:
            x = np.maximum(x @ wh + bh, 0.0)
        out = x @ w + b
        values = 1.0 / (1.0 + np.exp(-out[:, 0])) + MARGIN_WEIGHT * out[:, 1]
        if self._explore and rng.random() < self._explore:
            return legal[rng.randrange(len(legal))]
        top = float(values.max())
        best = [i for i in range(len(legal)) if values[i] > top - 1e-6]
        return legal[best[0] if len(best) == 1 else best[rng.randrange(len(best))]]


def _make(spec: str, weights: str, players: int) -> Any:
    if spec == "heuristic":
        return HeuristicStrategy()
    base = spec.removesuffix(LOOKAHEAD)
    explore = EXPLORE if base == "explore" else 0.0
    if base != spec:  # --lookahead: the look-ahead of 3-5 players, set explicitly
        # The look-ahead alone, without the round's end search (`learned@roundend`): the
        # shipped 4-player network is trained on such games.
        return LearnedStrategy(weights=weights, explore=explore, deals=DEALS, roundend=0, ahead=0.0)
    return OnePly(weights, players, explore)


def play(
    players: int, lineup: Sequence[str], weights: str, seed: int, record: bool
) -> tuple[list[Any], list[float], list[float], list[float]]:
    """One game; the recorded rows, each row's win share and margin target, and each seat's
    win share (for the learning curve)."""
    game = Game(GameOptions(players), seed.to_bytes(8, "big"))
    seats = [_make(spec, weights, players) for spec in lineup]
    rngs = [random.Random(_seed(seed, "seat", s)) for s in range(players)]
    recorders = [GoFeatures() for _ in range(players)] if record else []
    rows: list[list[Any]] = [[] for _ in range(players)]
    while not game.is_terminal():
        actions = []
        for s, strategy in enumerate(seats):
            obs = game.observation(s)
            legal = game.legal_actions(s)
            action = strategy.choose(obs, legal, rngs[s])
            actions.append(action)
            if record:
                rows[s].append(recorders[s].rows(obs, [action])[0])
        game.apply(actions)
    scores = game.scores()[:players]
    winners = game.winners()
    share = [1.0 / len(winners) if s in winners else 0.0 for s in range(players)]
    out_rows: list[Any] = []
    wins: list[float] = []
    margins: list[float] = []
    for s in range(players):
        others = (sum(scores) - scores[s]) / (players - 1)
        out_rows += rows[s]
        wins += [share[s]] * len(rows[s])
        margins += [(scores[s] - others) / MARGIN_SCALE] * len(rows[s])
    return out_rows, wins, margins, share


def _batch(task: tuple[int, tuple[str, ...], str, list[int], bool]) -> tuple[Any, ...]:
    players, pool, weights, seeds, record = task
    rows: list[Any] = []
    wins: list[float] = []
    margins: list[float] = []
    learned_wins = 0.0
    learned_seats = 0
    for seed in seeds:
        # Seats rotate over the lineup pool, so every spec plays every seat.
        lineup = tuple(pool[(s + seed) % len(pool)] for s in range(players))
        r, w, m, share = play(players, lineup, weights, seed, record)
        rows += r
        wins += w
        margins += m
        for s, spec in enumerate(lineup):
            if spec != "heuristic":
                learned_wins += share[s]
                learned_seats += 1
    x = np.array(rows, dtype=np.float32) if rows else np.zeros((0, 0), np.float32)
    return x, np.array(wins, np.float32), np.array(margins, np.float32), learned_wins, learned_seats


def run_games(
    players: int,
    pool: tuple[str, ...],
    weights: str,
    seeds: list[int],
    workers: int,
    record: bool = True,
) -> tuple[Any, Any, Any, float]:
    """Play one game per seed (split over `workers` processes); the recorded data and the
    non-heuristic seats' win rate."""
    chunks = [seeds[i : i + 50] for i in range(0, len(seeds), 50)]
    tasks = [(players, pool, weights, chunk, record) for chunk in chunks]
    if workers > 1:
        with multiprocessing.get_context("fork").Pool(workers) as procs:
            parts = procs.map(_batch, tasks)
    else:
        parts = [_batch(task) for task in tasks]
    seats = sum(p[4] for p in parts)
    rate = sum(p[3] for p in parts) / seats if seats else 0.0
    if not record:
        return None, None, None, rate
    x = np.concatenate([p[0] for p in parts])
    return x, np.concatenate([p[1] for p in parts]), np.concatenate([p[2] for p in parts]), rate


def arguments(doc: str, out: Path, epochs: int) -> argparse.ArgumentParser:
    """The command line both training scripts share."""
    parser = argparse.ArgumentParser(description=doc.split("\n", maxsplit=1)[0])
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--out", type=Path, default=out)
    parser.add_argument("--players", default="2,3,4,5")
    parser.add_argument("--scale", type=float, default=1.0, help="times the games played")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--epochs", type=int, default=epochs)
    parser.add_argument("--generations", type=int, default=0, help="at most this many (0: all)")
    return parser


def setup(parser: argparse.ArgumentParser, args: argparse.Namespace) -> tuple[list[int], Any]:
    """The player counts asked for and torch (on one thread); without torch installed, the
    command exits 2 saying so."""
    try:
        counts = sorted({int(p) for p in args.players.split(",")})
    except ValueError:
        parser.error(f"--players takes player counts like 2,4, got {args.players!r}")
    if not counts or not set(counts) <= {2, 3, 4, 5}:
        parser.error("--players takes counts from 2 to 5")
    if args.scale <= 0 or args.workers < 1 or args.epochs < 1:
        parser.error("--scale, --workers and --epochs must be positive")
    if args.generations < 0:
        parser.error("--generations must not be negative")
    try:
        import torch  # noqa: PLC0415  # optional: the extra train
    except ImportError:
        parser.exit(2, f"{parser.prog}: needs torch: pip install 'sushigo[train]'\n")
    torch.set_num_threads(1)
    return counts, torch


# -- learning -----------------------------------------------------------------------------------


def train(
    torch: Any, x: Any, win: Any, margin: Any, epochs: int, seed: int
) -> tuple[dict[str, Any], list[float]]:
    """A network fitted to the data from scratch; its arrays and the validation loss per
    epoch."""
    torch.manual_seed(seed)
    mean = x.mean(axis=0)
    std = x.std(axis=0) + 1e-3
    z = torch.from_numpy((x - mean) / std)
    targets = torch.from_numpy(np.stack([win, margin], axis=1))
    order = torch.randperm(len(z), generator=torch.Generator().manual_seed(seed))
    held = max(1, len(z) // 20)
    val, fit = order[:held], order[held:]
    nn = torch.nn
    model = mlp(torch, x.shape[1], HIDDEN, 2)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, max(1, epochs))
    bce = nn.BCEWithLogitsLoss()
    mse = nn.MSELoss()

    def loss(index: Any) -> Any:
        out = model(z[index])
        t = targets[index]
        return bce(out[:, 0], t[:, 0]) + mse(out[:, 1], t[:, 1])

    curve = []
    gen = torch.Generator().manual_seed(seed + 1)
    for _ in range(epochs):
        train_epoch(model, optimizer, fit[torch.randperm(len(fit), generator=gen)], 512, loss)
        schedule.step()
        with torch.no_grad():
            curve.append(float(loss(val)))
    return export(torch, model, mean, std), curve


def save(path: Path, nets: dict[int | str, dict[str, Any]]) -> None:
    """Write every network's arrays to one .npz: a player count's afterstate network under
    ``p2_``, ``p3_``, ...; the duel network under ``d2_``."""
    flat = {
        f"{'p' if isinstance(p, int) else ''}{p}_{k}": v
        for p, arrays in nets.items()
        for k, v in arrays.items()
    }
    np.savez_compressed(path, **flat)


def kept(parser: argparse.ArgumentParser, path: Path) -> dict[int | str, dict[str, Any]]:
    """--keep-others: the networks in `path` (as `save` writes them), read before training (a
    file that cannot be read ends the command at once, exit 2)."""
    try:
        with np.load(path) as data:
            flat = {name: data[name] for name in data.files}
    except (OSError, ValueError) as exc:
        parser.exit(2, f"{parser.prog}: --keep-others cannot read {str(path)!r}: {exc}\n")
    out: dict[int | str, dict[str, Any]] = {}
    for name, array in flat.items():
        prefix, _, key = name.partition("_")
        if not key or not (prefix == "d2" or prefix in {f"p{p}" for p in range(2, 6)}):
            parser.exit(2, f"{parser.prog}: --keep-others: {str(path)!r} is not a weights file\n")
        out.setdefault(int(prefix[1:]) if prefix[0] == "p" else prefix, {})[key] = array
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = arguments(__doc__ or "", WEIGHTS, 6)
    parser.add_argument(
        "--duel", action="store_true", help="also train the two-player duel network (d2_)"
    )
    parser.add_argument(
        "--duel-only",
        action="store_true",
        help=f"train only the duel network, on games of the shipped networks; --out defaults "
        f"to {DUEL_WEIGHTS.name}",
    )
    parser.add_argument(
        "--lookahead",
        action="store_true",
        help=f"3-5 players: the learned seats of the training games play the look-ahead "
        f"(learned@deals={DEALS}), not one ply",
    )
    parser.add_argument(
        "--keep-others",
        action="store_true",
        help="copy the networks of the player counts not trained from the file --out names",
    )
    args = parser.parse_args(argv)
    counts, torch = setup(parser, args)
    if args.keep_others and args.duel_only:
        parser.error("--keep-others is for the afterstate networks, not --duel-only")
    others = kept(parser, args.out) if args.keep_others else {}
    start = time.perf_counter()
    if args.duel_only:
        out = DUEL_WEIGHTS if args.out == WEIGHTS else args.out
        duel = train_duel(
            torch,
            args.seed,
            str(WEIGHTS),
            args.scale,
            args.workers,
            lambda line: print(f"{line}; {time.perf_counter() - start:.0f} s", flush=True),
        )
        save(out, {"d2": duel})
        print(f"wrote {out} in {time.perf_counter() - start:.0f} s")
        return 0
    nets: dict[int | str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        current = str(Path(scratch) / "current.npz")
        for players in counts:
            data: list[tuple[Any, Any, Any]] = []
            size, generations = GAMES[players]
            generations = min(generations, args.generations or generations)
            for gen in range(generations):
                games = max(2, round(size * args.scale))
                seeds = [_seed(args.seed, players, gen, i) % 2**63 for i in range(games)]
                pool: tuple[str, ...] = (
                    ("heuristic",) if gen == 0 else ("explore", "heuristic", "explore")
                )
                look = LOOKAHEAD if args.lookahead and players > 2 else ""
                pool = tuple(spec if spec == "heuristic" else spec + look for spec in pool)
                x, w, m, _ = run_games(players, pool, current, seeds, args.workers)
                data = [*data[-(WINDOW - 1) :], (x, w, m)]
                arrays, curve = train(
                    torch,
                    np.concatenate([d[0] for d in data]),
                    np.concatenate([d[1] for d in data]),
                    np.concatenate([d[2] for d in data]),
                    args.epochs,
                    _seed(args.seed, players, gen, "train") % 2**31,
                )
                nets[players] = arrays
                save(Path(current), nets)
                evals = max(2, round(EVAL_GAMES[players] * min(1.0, args.scale * 10)))
                eval_seeds = [_seed(args.seed, players, "eval", i) % 2**63 for i in range(evals)]
                pool = (f"learned{look}", *("heuristic",) * (players - 1))
                _, _, _, rate = run_games(players, pool, current, eval_seeds, args.workers, False)
                rows = sum(len(d[0]) for d in data)  # in the window
                print(
                    f"{players}p gen {gen}: {games} games, {rows} rows, val loss "
                    f"{curve[0]:.4f} -> {curve[-1]:.4f}; vs heuristic {100 * rate:.1f}% "
                    f"({evals} games); {time.perf_counter() - start:.0f} s",
                    flush=True,
                )
        if args.duel and 2 in counts:
            arrays = train_duel(
                torch,
                args.seed,
                current,
                args.scale,
                args.workers,
                lambda line: print(f"{line}; {time.perf_counter() - start:.0f} s", flush=True),
            )
            nets["d2"] = arrays
    save(args.out, {**others, **nets})
    print(f"wrote {args.out} in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
