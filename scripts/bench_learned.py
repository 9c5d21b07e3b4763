"""Time the `learned` strategy's moves: mean, 99th percentile and slowest, by player count.

    scripts/bench_learned.py [--game sushi-go|sushi-roll] [--games 50] [--strategy learned]

Every seat plays `--strategy` (a spec such as ``learned@deals=4``) and every call to `choose` is
timed (the first game's included, so the weights' one load counts too), by the wall clock and by
the process's CPU time: on a shared machine the wall clock also counts the moments the process
waits for a core.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence

from sushigo.bots import StrategyError, get_strategy
from sushigo.engine import Game, GameOptions
from sushigo.engine.games.sushi_roll import RollGame, RollOptions


def times(
    game_kind: str, players: int, games: int, spec: str = "learned"
) -> tuple[list[float], list[float]]:
    """Seconds of every move of `games` games of `spec` in every seat, by the wall clock and in
    CPU time."""
    out: list[float] = []
    cpu: list[float] = []
    for g in range(games):
        seed = g.to_bytes(8, "big")
        bots = [get_strategy(spec, game=game_kind) for _ in range(players)]
        rng = random.Random(g)
        if game_kind == "sushi-roll":
            roll = RollGame(RollOptions(players), seed)
            while (seat := roll.to_move) is not None:
                view, moves = roll.observation(seat), roll.legal_actions(seat)
                start, start_cpu = time.perf_counter(), time.process_time()
                action = bots[seat].choose(view, moves, rng)
                out.append(time.perf_counter() - start)
                cpu.append(time.process_time() - start_cpu)
                roll.apply(seat, action)
            continue
        game = Game(GameOptions(players), seed)
        while not game.is_terminal():
            actions = []
            for s in range(players):
                obs, legal = game.observation(s), game.legal_actions(s)
                start, start_cpu = time.perf_counter(), time.process_time()
                actions.append(bots[s].choose(obs, legal, rng))
                out.append(time.perf_counter() - start)
                cpu.append(time.process_time() - start_cpu)
            game.apply(actions)
    return out, cpu


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", choices=("sushi-go", "sushi-roll"), default="sushi-go")
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--strategy", default="learned", help="the spec timed (default learned)")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be positive")
    try:
        get_strategy(args.strategy, game=args.game)
    except StrategyError as exc:
        parser.error(str(exc))
    for players in range(2, 6):
        wall, cpu = times(args.game, players, args.games, args.strategy)
        for clock, found in (("wall", sorted(wall)), ("cpu", sorted(cpu))):
            mean = sum(found) / len(found)
            p99 = found[int(0.99 * (len(found) - 1))]
            print(
                f"{args.game} {players} players, {clock}: {len(found)} moves, mean "
                f"{1000 * mean:.3f} ms, p99 {1000 * p99:.3f} ms, slowest {1000 * found[-1]:.3f} ms"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
