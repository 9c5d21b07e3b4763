"""The duel network's training, for ``scripts/train_learned.py``: two-player round positions and
the values the bot's own rule gives them (`bots.games.sushi_go._learned_duel`).

Positions come from two-player games: `heuristic` against itself with a random legal move now and
then, and the newly trained afterstate network (`learned` without a duel network) against itself,
likewise. Every turn from a round's second card to its second-to-last gives one position per seat
(both hands known, as they are to the seats from the second turn on), and each also sends `BRANCH`
of its children (a random pair of picks) one card down: positions a game did not reach, near those
it did.

The targets are the values the duel search stands in for, worked out backwards through the round:
a position with at most `EXACT` cards in each hand is searched to the round's end
(`_learned_endgame.root_values`); the network learns those first. Then, one card count at a time,
every position with one card more is valued by the same rule one turn deep over the network's
values of its children, and the network learns those too. The value past the round is the
endgame's (`past_round`), so nothing here depends on who played the games but which positions
are seen.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import random
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
from _nets import export, mlp, train_epoch  # a sibling module

from sushigo.bots import HeuristicStrategy
from sushigo.bots._learned import LearnedStrategy, Mlp
from sushigo.bots.games.sushi_go._learned_duel import FEATURES, children, features
from sushigo.bots.games.sushi_go._learned_endgame import WIDTH, backup, position_of, root_values
from sushigo.bots.games.sushi_go._learned_search import tables
from sushigo.bots.games.sushi_go._memory import counts_of
from sushigo.engine import Game, GameOptions
from sushigo.engine.games.sushi_go.cards import ROUNDS

GAMES = 10_000
"""Games played for positions (times --scale), half of each kind."""
EXPLORE = {"heuristic": 0.15, "learned": 0.05}
"""Each kind's chance of a random legal move instead of its own."""
BRANCH = 2
"""Children of each position played sent one card down as positions of their own."""
EXACT = 4
"""Positions with at most this many cards in each hand are searched to the round's end."""
HAND = 10
"""Cards dealt to each of two players."""
HIDDEN = 256
EPOCHS = (12, 5)
"""Epochs over the exact positions, then after each card count's targets."""
RATES = (1e-3, 5e-4)
VALIDATION = 0.03
"""The share of positions held out to print the fit's error."""


def _seed(*parts: object) -> int:
    text = "/".join(str(p) for p in ("sushigo/train_learned/duel/v1", *parts))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


class Positions:
    """Round positions (rows as `_learned_endgame.Position.row`) with each one's leads from
    earlier rounds, its round, cards in hand and target (NaN until worked out)."""

    def __init__(self, parts: Sequence[tuple[Any, Any, Any, Any]]) -> None:
        rows = [p[0] for p in parts if len(p[0])]
        self.rows = np.concatenate(rows) if rows else np.zeros((0, WIDTH), np.float32)
        self.lead = np.concatenate([p[1] for p in parts]).astype(np.float32)
        self.puddings = np.concatenate([p[2] for p in parts]).astype(np.float32)
        self.round = np.concatenate([p[3] for p in parts]).astype(np.int8)
        self.cards = self.rows[:, : len(counts_of([]))].sum(axis=1).astype(np.int8)
        self.target = np.full(len(self.rows), np.nan, dtype=np.float32)

    def __len__(self) -> int:
        return len(self.rows)

    def batches(self, cards: int, size: int) -> Iterator[tuple[int, Any]]:
        """The indexes of the positions with `cards` in hand, by round, at most `size` at a
        time: (round, indexes)."""
        for r in range(1, ROUNDS + 1):
            idx = np.flatnonzero((self.cards == cards) & (self.round == r))
            for i in range(0, len(idx), size):
                yield r, idx[i : i + size]


def _play(task: tuple[int, str, str]) -> tuple[Any, Any, Any, Any]:
    """The positions of one game of `kind` against itself (`weights` for learned)."""
    seed, kind, weights = task
    rng = random.Random(_seed(seed, "moves"))
    game = Game(GameOptions(2), seed.to_bytes(8, "big"))
    seats: list[Any] = (
        [HeuristicStrategy(), HeuristicStrategy()]
        if kind == "heuristic"
        else [LearnedStrategy(weights=weights, duel=0) for _ in range(2)]
    )
    rows, lead, puddings, rounds = [], [], [], []
    while not game.is_terminal():
        obs = [game.observation(s) for s in range(2)]
        if 2 <= len(obs[0].hand) < HAND:
            for s in range(2):
                pos = position_of(np, obs[s], counts_of(obs[1 - s].hand))
                rows.append(pos.row)
                lead.append(pos.scores[0] - pos.scores[1])
                puddings.append(pos.puddings[0] - pos.puddings[1])
                rounds.append(pos.round)
        actions = []
        for s in range(2):
            legal = game.legal_actions(s)
            action = seats[s].choose(obs[s], legal, rng)
            if rng.random() < EXPLORE[kind]:
                action = legal[rng.randrange(len(legal))]
            actions.append(action)
        game.apply(actions)
    return np.array(rows, np.float32).reshape(-1, WIDTH), lead, puddings, rounds


def play_positions(seed: int, games: int, weights: str, workers: int) -> Positions:
    """The positions of `games` games, half `heuristic`'s, half the afterstate network's."""
    tasks = [
        (_seed(seed, "game", i) % 2**63, "heuristic" if i % 2 else "learned", weights)
        for i in range(games)
    ]
    if workers > 1:
        with multiprocessing.get_context("fork").Pool(workers) as procs:
            parts = procs.map(_play, tasks, chunksize=25)
    else:
        parts = [_play(task) for task in tasks]
    return Positions(parts)


def branch(found: Positions, seed: int, per: int = BRANCH) -> Positions:
    """`found` and, for each of its positions with 3 cards or more, `per` of its children
    chosen at random (a pair of picks, the hands passed)."""
    rng = np.random.default_rng(_seed(seed, "branch") % 2**63)
    parts = [(found.rows, found.lead, found.puddings, found.round)]
    for cards in range(HAND - 1, 2, -1):
        for _, part in found.batches(cards, 500):
            made = children(np, found.rows[part])
            assert made is not None
            par, _, _, child = made
            starts = np.searchsorted(par, np.arange(len(part)))
            counts = np.bincount(par, minlength=len(part))
            offsets = (rng.random((len(part), per)) * counts[:, None]).astype(np.intp)
            pick = (starts[:, None] + offsets).ravel()
            src = part[par[pick]]
            parts.append((child[pick], found.lead[src], found.puddings[src], found.round[src]))
    return Positions(parts)


def exact_targets(found: Positions, cards: int) -> None:
    """The targets of the positions with `cards` in hand (at most `EXACT`), searched to the
    round's end; a batch whose trees are big (chopsticks) is searched one position at a time."""
    batch = {2: 4000, 3: 800, 4: 100}.get(cards, 10)
    for r, part in found.batches(cards, batch):
        values = root_values(np, found.rows[part], found.lead[part], found.puddings[part], r, 5000)
        if values is None:
            values = np.array([_one_exact(found, j, r) for j in part])
        found.target[part] = values


def _one_exact(found: Positions, j: int, round_: int) -> float:
    """The exact value of position `j` alone, however big its tree."""
    one = slice(j, j + 1)
    value = root_values(np, found.rows[one], found.lead[one], found.puddings[one], round_, 10**7)
    assert value is not None
    return float(value[0])


def backup_targets(found: Positions, cards: int, net: Mlp) -> None:
    """The targets of the positions with `cards` in hand: the rule one turn deep over the
    network's values of their children."""
    width = len(tables(np).index)
    for r, part in found.batches(cards, 300):
        made = children(np, found.rows[part])
        assert made is not None
        par, a, b, child = made
        x = features(np, child, found.lead[part][par], found.puddings[part][par], r)
        found.target[part] = backup(np, net(x)[:, 0], par, a, b, width)


def all_features(found: Positions) -> Any:
    """The network's input for every position."""
    x = np.empty((len(found), FEATURES), dtype=np.float32)
    for r in range(1, ROUNDS + 1):
        idx = np.flatnonzero(found.round == r)
        x[idx] = features(np, found.rows[idx], found.lead[idx], found.puddings[idx], r)
    return x


class Fitter:
    """The duel network in torch, fitted to the targets as they are worked out."""

    def __init__(self, torch: Any, found: Positions, seed: int) -> None:
        torch.manual_seed(seed)
        self.torch = torch
        self.found = found
        x = all_features(found)
        self.mean = x.mean(axis=0)
        self.std = x.std(axis=0) + 1e-3
        self.z = torch.from_numpy((x - self.mean) / self.std)
        self.model = mlp(torch, FEATURES, HIDDEN, 1)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=RATES[0])
        self.rng = np.random.default_rng(_seed(seed, "fit") % 2**63)
        self.held = self.rng.random(len(found)) < VALIDATION

    def fit(self, upto: int, epochs: int, rate: float) -> list[str]:
        """Fit to every position with at most `upto` cards (learning rate decaying linearly from
        `rate`); the held-out error per card count."""
        torch = self.torch
        fit = np.flatnonzero((self.found.cards <= upto) & ~self.held)
        y = torch.from_numpy(self.found.target)

        def loss(batch: Any) -> Any:
            return ((self.model(self.z[batch])[:, 0] - y[batch]) ** 2).mean()

        for epoch in range(epochs):
            for group in self.optimizer.param_groups:
                group["lr"] = rate * (1 - epoch / epochs) + 1e-5
            order = torch.from_numpy(self.rng.permutation(fit))
            train_epoch(self.model, self.optimizer, order, 512, loss)
        errors = []
        with torch.no_grad():
            for cards in range(2, upto + 1):
                held = torch.from_numpy(np.flatnonzero((self.found.cards == cards) & self.held))
                err = (self.model(self.z[held])[:, 0] - y[held]).numpy()
                errors.append(f"{cards}: {float(np.sqrt((err**2).mean())):.3f}")
        return errors

    def arrays(self) -> dict[str, Any]:
        """The network's arrays as `bots._learned` reads them (without the ``d2_`` prefix)."""
        return export(self.torch, self.model, self.mean, self.std)

    def net(self) -> Mlp:
        """The network as the bot runs it."""
        arrays = self.arrays()
        layers: list[tuple[Any, Any]] = []
        while f"w{len(layers)}" in arrays:
            k = len(layers)
            layers.append((arrays[f"w{k}"], arrays[f"b{k}"]))
        return Mlp(layers, arrays["mean"], arrays["std"])


def train_duel(
    torch: Any, seed: int, weights: str, scale: float, workers: int, log: Any
) -> dict[str, Any]:
    """The duel network's arrays, from games played with the afterstate networks `weights`."""
    games = max(2, round(GAMES * scale))
    found = branch(play_positions(seed, games, weights, workers), seed)
    log(f"duel: {games} games, {len(found)} positions")
    for cards in range(2, EXACT + 1):
        exact_targets(found, cards)
    fitter = Fitter(torch, found, _seed(seed, "torch") % 2**31)
    errors = fitter.fit(EXACT, EPOCHS[0], RATES[0])
    log(f"duel: exact to {EXACT} cards, held-out RMSE by cards {', '.join(errors)}")
    for cards in range(EXACT + 1, HAND):
        backup_targets(found, cards, fitter.net())
        errors = fitter.fit(cards, EPOCHS[1], RATES[1])
        log(f"duel: to {cards} cards, held-out RMSE {errors[-1]}")
    return fitter.arrays()
