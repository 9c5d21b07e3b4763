"""The `learned` strategy's share of a machine: it never hands work to BLAS threads, and the work a
move does stays within what fits its time budget (counted, not timed)."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from bots_helpers import ALL_OPTIONS

from sushigo.bots._learned import MOVE_LEAVES, MOVE_MULTIPLIES, LearnedStrategy
from sushigo.engine import Game, GameOptions

_PROBE = r"""
import os, random, sys, threading, time
import numpy as np
from threadpoolctl import threadpool_info

from sushigo.bots import get_strategy
from sushigo.engine import Game, GameOptions
from sushigo.engine.games.sushi_roll import RollGame, RollOptions

main = threading.get_native_id()

def others():
    # Nanoseconds every other thread of the process has run (schedstat's first field).
    total = 0
    for tid in os.listdir("/proc/self/task"):
        if int(tid) != main:
            with open(f"/proc/self/task/{tid}/schedstat") as f:
                total += int(f.read().split()[0])
    return total

def settled():
    # OpenBLAS's workers spin for a moment after they start or work, then sleep: wait (10 s at
    # most) until they have stopped, so that what follows counts only new work.
    deadline = time.monotonic() + 10
    last = others()
    while time.monotonic() < deadline:
        threading.Event().wait(0.05)
        now = others()
        if now == last:
            return now
        last = now
    sys.exit("the BLAS threads never went idle")

blas = [i for i in threadpool_info() if i["user_api"] == "blas"]
print("blas threads", blas[0]["num_threads"] if blas else 0)
print("threads", len(os.listdir("/proc/self/task")))
kinds = [GameOptions(p) for p in (2, 3, 4, 5)]
kinds += [GameOptions(2, dummy=True), GameOptions(4, soy_sauce=True, pass_both_ways=True)]
for warm in (True, False):
    before = settled()
    for options in kinds:
        bots = [get_strategy("learned", game="sushi-go") for _ in range(options.players)]
        game, rng = Game(options, b"probe"), random.Random(1)
        while not game.is_terminal():
            game.apply([
                bots[s].choose(game.observation(s), game.legal_actions(s), rng)
                for s in range(options.players)
            ])
    for players in (2, 4):
        bots = [get_strategy("learned", game="sushi-roll") for _ in range(players)]
        roll = RollGame(RollOptions(players), b"probe")
        while (seat := roll.to_move) is not None:
            roll.apply(seat, bots[seat].choose(
                roll.observation(seat), roll.legal_actions(seat), rng))
    if not warm:
        print("during play", others() - before)
before = settled()
x = np.ones((600, 600), dtype=np.float32)
for _ in range(20):
    x = x @ x / 600
print("a free matrix product", others() - before)
"""


@pytest.mark.skipif(
    not Path("/proc/self/task").is_dir() or not Path("/proc/self/schedstat").exists(),
    reason="needs Linux's per-thread schedstat",
)
def test_it_never_hands_work_to_blas_threads() -> None:
    # A real interpreter whose BLAS keeps a pool of threads (one per core, up to 4), as it would
    # on a server with cores to spare: the other threads run not a nanosecond while learned bots play every table size
    # of both games, and the same probe sees them work for a plain matrix product.
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "4", "OMP_NUM_THREADS": "4"}
    done = subprocess.run(
        [sys.executable, "-c", _PROBE],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    found = dict(line.rsplit(" ", 1) for line in done.stdout.splitlines())
    if int(found["blas threads"]) < 2:
        pytest.skip("BLAS keeps no thread pool on one core")
    assert int(found["threads"]) >= int(found["blas threads"])
    assert int(found["during play"]) == 0
    assert int(found["a free matrix product"]) > 0


def work_of(options: GameOptions, bots: list[LearnedStrategy]) -> list[tuple[int, int]]:
    """Every choice's `last_work` (those with more than one legal action) over three games."""
    work: list[tuple[int, int]] = []
    for seed in range(3):
        game = Game(options, seed.to_bytes(8, "big"))
        rng = random.Random(seed)
        for bot in bots:
            bot.reset()
        while not game.is_terminal():
            actions = []
            for s, bot in enumerate(bots):
                legal = game.legal_actions(s)
                actions.append(bot.choose(game.observation(s), legal, rng))
                if len(legal) > 1:
                    work.append(bot.last_work)
            game.apply(actions)
    return work


@pytest.mark.parametrize("options", ALL_OPTIONS, ids=str)
def test_a_move_does_no_more_work_than_its_budget(options: GameOptions) -> None:
    # Every choice of every seat, every player count and variant: the networks' multiply-adds and
    # the exact endgame's leaves stay within what the bot allows itself, and every choice with
    # more than one legal action did some of either.
    work = work_of(options, [LearnedStrategy() for _ in range(options.players)])
    assert max(m for m, _ in work) <= MOVE_MULTIPLIES
    assert max(leaves for _, leaves in work) <= MOVE_LEAVES
    assert all(m > 0 or leaves > 0 for m, leaves in work)


def test_the_search_limits_bound_a_moves_work() -> None:
    # Two players, where the searches run: `rows` and `leaves` cap the matrix search's positions
    # (the search without the duel network) and the exact endgame's leaves, so the same games
    # cost less with tighter limits, and a limit of 0 leaves drops the exact endgame altogether.
    options = GameOptions(2)
    full = work_of(options, [LearnedStrategy(duel=0) for _ in range(2)])
    tight = work_of(options, [LearnedStrategy(duel=0, rows=128, leaves=0) for _ in range(2)])
    assert max(leaves for _, leaves in full) > 0
    assert max(leaves for _, leaves in tight) == 0
    assert max(m for m, _ in tight) < max(m for m, _ in full) / 2
