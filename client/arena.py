"""`sushigo-arena`: strategies play many games offline, in-process, and are measured.

    sushigo-arena --strategies heuristic,random,random,random --games 2000 [--players P]
                  [--variant V] [--game KIND] [--seed S] [--workers K] [--json FILE]

Any installed game plays the same way, through its rules (`engine.api`) and its strategies
(`bots.get_strategy(spec, game=kind)`): ``--game sushi-roll`` plays Sushi Roll with the Sushi
Roll implementations of the same strategy names; seats, seeds, the table and the JSON are the
same.

Seat i of game g gets strategy ``(i + g) mod L`` of the L listed, so over L games every strategy
plays every seat once. Each game's deal and its one `random.Random`, which every seat's strategy
draws from in turn (seat order at each step), derive from the master seed and the game's number
alone, and results are tallied in game order, so a seed gives the same figures with any number of
workers (strategies with a time budget excepted: how far they search depends on the machine, and
with it what the seats after them draw).

This module is the one place in `bots` that reads a clock (`time.perf_counter`): it injects it into
strategies with a time budget and times the run for games/s. The strategies themselves stay pure.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import os
import random
import signal
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from operator import attrgetter, call
from typing import Any, TextIO

from sushigo.bots import StrategyError, strategy_factory
from sushigo.bots._stats import GameResult, StrategyStats, tally, wilson
from sushigo.client.args import (
    PLAYERS_HELP,
    STRATEGIES_HELP,
    add_game,
    add_version,
    check_players,
    count,
)
from sushigo.engine import EngineError, IllegalActionError, rules
from sushigo.engine.games import BUILTIN_KINDS


class ArenaError(Exception):
    """A game could not be played (a strategy failed or returned an illegal action)."""


@dataclass(frozen=True, slots=True)
class ArenaConfig:
    """One arena run."""

    strategies: tuple[str, ...]
    """Strategy specs, rotated over the seats."""
    games: int
    options: Any
    """The game's options (`engine.api.Rules.options`)."""
    seed: int = 1
    workers: int = 1
    game: str = "sushi-go"
    """The game's kind."""


def game_seed(master: int, index: int) -> bytes:
    """The engine seed of game `index`."""
    return hashlib.sha256(f"sushigo/arena/v1/{master}/{index}".encode()).digest()


_Random = random.Random
_new_random = _Random.__new__
_seed_random = vars(_Random.__mro__[1])["seed"]
"""The seeding of `random.Random`'s C base, which its Python-level `__init__` and `seed` reach
through two frames and their type checks."""


def game_rng(master: int, index: int) -> random.Random:
    """The one generator every seat of game `index` draws from, in the order the seats choose:
    the same state as ``random.Random(k)`` for the first 8 bytes of a hash of the two, made as
    `__init__` makes it (`_seed_random`; a test holds the two equal).

    One per game, not one per seat: seeding a Mersenne Twister costs as much as a fifth of a
    random game. Its key has a hash of its own, not the game's seed, so that a strategy which
    worked the key out from the numbers it draws would learn nothing of the deal."""
    digest = hashlib.sha256(f"sushigo/arena/v2/{master}/{index}/choices".encode()).digest()
    rng = _new_random(_Random)
    _seed_random(rng, int.from_bytes(digest[:8], "big"))
    rng.gauss_next = None  # type: ignore[attr-defined]  # (set by __init__; typeshed omits it)
    return rng


def lineup(strategies: Sequence[str], players: int, index: int) -> tuple[str, ...]:
    """The strategy at each seat of game `index`: the list rotated by the game number."""
    return tuple(strategies[(seat + index) % len(strategies)] for seat in range(players))


# -- playing (in worker processes) --------------------------------------------------------------

_FACTORIES: dict[tuple[str, str], Callable[[], Any]] = {}
_BY_SPECS: dict[tuple[str, tuple[str, ...]], dict[str, Callable[[], Any]]] = {}
"""`_factories`' answers, by game and specs: every game of a run asks for the same ones."""


def _factories(specs: Sequence[str], game: str) -> dict[str, Callable[[], Any]]:
    """A factory per spec, for the strategy names' implementation for `game` (cached)."""
    found = _BY_SPECS.get((game, specs := tuple(specs)))
    if found is None:
        for spec in specs:
            if (game, spec) not in _FACTORIES:
                _FACTORIES[game, spec] = strategy_factory(spec, clock=time.perf_counter, game=game)
        found = _BY_SPECS[game, specs] = {spec: _FACTORIES[game, spec] for spec in specs}
    return found


_LINEUPS: dict[
    tuple[tuple[str, ...], str, int], list[tuple[tuple[str, ...], list[Callable[[], Any]]]]
] = {}


def _lineups(
    specs: tuple[str, ...], game: str, players: int
) -> list[tuple[tuple[str, ...], list[Callable[[], Any]]]]:
    """Each of a run's lineups (game g plays number g mod the number of specs) with the factory of
    each seat's strategy (cached: every game of a run takes one)."""
    found = _LINEUPS.get((specs, game, players))
    if found is None:
        factories = _factories(specs, game)
        found = _LINEUPS[specs, game, players] = [
            (names, [factories[name] for name in names])
            for names in (lineup(specs, players, offset) for offset in range(len(specs)))
        ]
    return found


def play_game(config: ArenaConfig, index: int) -> GameResult:
    """Play game `index` of the run with fresh strategy instances: at every step, each seat that
    acts chooses from its own observation (Sushi Go!: every seat; Sushi Roll: the mover, one
    action at a time), and the game applies them together.

    The loop is the arena's hot path (random strategies play thousands of games a second), so it
    does only what a game needs: a strategy with `choose_legal` (one that never looks at the
    observation, such as `random`) gets the legal actions alone and no observation is built for
    its seat, and an action is checked once, by the game's `step`, which refuses anything illegal
    before changing the game.
    """
    game = rules(config.game).new_game(config.options, game_seed(config.seed, index))
    n = game.players
    names, factories = _lineups(config.strategies, config.game, n)[index % len(config.strategies)]
    bots = [make() for make in factories]
    rng = game_rng(config.seed, index)
    for bot in bots:
        # Fresh instances need no reset, but a strategy may expect the call (it is optional).
        reset = getattr(bot, "reset", None)
        if callable(reset):
            reset()
    legal, observe, step, to_act = game.legal_actions, game.observation, game.step, game.to_act
    blinds: list[Any] = [getattr(bot, "choose_legal", None) for bot in bots]
    every_legal = getattr(game, "legal_actions_by_seat", None)
    acting: tuple[int, ...] = ()
    try:
        if every_legal is not None and None not in blinds:
            # No seat needs an observation, and the game gives the legal actions of every acting
            # seat in one call: a whole step in one comprehension.
            everyone = tuple(range(n))
            if getattr(game, "every_seat_acts", False) and to_act() == everyone:
                # Every seat acts at every step until the game ends, when every seat's legal
                # actions are none (`engine.Game.every_seat_acts`): the game's legal sets alone
                # say when to stop, without a call of `to_act` a step.
                # Each seat's pick through one C-level map (`operator.call`, in seat order, as
                # the generator's draws must be): no comprehension's frame a step.
                acting, rngs = everyone, (rng,) * n
                while (step_legal := every_legal())[0]:
                    step(list(map(call, blinds, step_legal, rngs)))
            else:
                if to_act() == everyone:
                    everyone = to_act()  # (a game returning the same tuple each time: `is` below)
                while acting := to_act():
                    step_legal = every_legal()
                    # zip without strict=True (equal lengths): keywords take a slow call path.
                    if acting is everyone or acting == everyone:  # every seat, every step
                        picks = [b(a, rng) for b, a in zip(blinds, step_legal)]  # noqa: B905
                    else:
                        picks = [blinds[s](a, rng) for s, a in zip(acting, step_legal)]  # noqa: B905
                    step(picks)
        while acting := to_act():
            actions = []
            for seat in acting:
                blind = blinds[seat]
                if blind is not None:
                    actions.append(blind(legal(seat), rng))
                else:
                    actions.append(bots[seat].choose(observe(seat), legal(seat), rng))
            step(actions)
    except IllegalActionError as exc:
        culprits = [exc.seat] if exc.seat is not None else acting
        raise ArenaError(
            f"strategy {' or '.join(repr(names[s]) for s in culprits)} returned an illegal action"
            f" in game {index}: {exc}"
        ) from None
    except Exception as exc:
        culprits = acting
        raise ArenaError(
            f"strategy {' or '.join(repr(names[s]) for s in culprits)} failed in game {index}:"
            f" {type(exc).__name__}: {exc}"
        ) from None
    return GameResult(index, names, game.scores()[:n], game.places(), game.winners())


def _worker_setup() -> None:
    """A worker process: the batch's collector, and Ctrl-C left to the command, which stops the
    workers itself (each would otherwise stop with a traceback of its own)."""
    batch_gc()
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def batch_gc() -> None:
    """Tune the garbage collector for a batch of games (the command and its workers).

    A game allocates many small containers that die young, freed by reference counting; the
    collector's default, a young collection every 700 allocations, then mostly walks objects that
    are about to go anyway, and its older collections the engine's caches, which live for the
    whole run. Collecting the young generation every 20,000 allocations (and the older ones
    rarely) leaves the collector for the rare cycle: a fifth of the arena's time, measured with
    random strategies. Only for whole processes that play games: it is never changed on import.
    """
    gc.set_threshold(20_000, 50, 100)


def _play_chunk(job: tuple[ArenaConfig, range]) -> list[GameResult] | str:
    config, indices = job
    try:
        return [play_game(config, i) for i in indices]
    except (ArenaError, StrategyError) as exc:
        return str(exc)


_Wire = tuple[int, tuple[str, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...]]
"""A `GameResult` as a worker sends it: its fields as a plain tuple."""


def _play_chunk_in_worker(job: tuple[ArenaConfig, range]) -> list[_Wire] | str:
    """`_play_chunk` for a worker process: each result as a plain tuple, which pickle writes and
    reads in C, where a slotted dataclass takes two Python calls each way (2.4 µs a game against
    0.2, measured; a random game is under 200)."""
    out = _play_chunk(job)
    if isinstance(out, str):
        return out
    return [(r.index, r.lineup, r.scores, r.places, r.winners) for r in out]


def run(config: ArenaConfig, progress: TextIO | None = None) -> list[GameResult]:
    """Play every game of the run (in `config.workers` processes); results in game order."""
    results: list[GameResult] = []
    # Each worker gets about eight batches (so the work evens out), of at most 250 games: big
    # enough that sending the configuration and the results costs nothing next to the games.
    chunk = max(1, min(250, config.games // (config.workers * 8) or 1))
    jobs = [(config, range(i, min(i + chunk, config.games))) for i in range(0, config.games, chunk)]
    bar = _Progress(progress, config.games)
    for outcome in _map(config.workers, jobs):
        if isinstance(outcome, str):
            bar.close()
            raise ArenaError(outcome)
        results.extend(outcome)
        bar.update(len(results))
    bar.close()
    results.sort(key=_by_index)  # (in order already with one worker: one C-level pass)
    return results


_by_index = attrgetter("index")


def _map(workers: int, jobs: list[tuple[ArenaConfig, range]]) -> Iterator[list[GameResult] | str]:
    if workers <= 1 or len(jobs) <= 1:
        yield from map(_play_chunk, jobs)
        return
    import multiprocessing  # noqa: PLC0415  (5 ms of imports a run with one worker never needs)

    with multiprocessing.get_context().Pool(workers, initializer=_worker_setup) as pool:
        for out in pool.imap_unordered(_play_chunk_in_worker, jobs):
            yield out if isinstance(out, str) else [GameResult(*fields) for fields in out]


class _Progress:
    """A one-line progress bar on a terminal; silent otherwise."""

    def __init__(self, out: TextIO | None, total: int) -> None:
        self._out = out if out is not None and out.isatty() else None
        self._total = total
        self._start = time.perf_counter()

    def update(self, done: int) -> None:
        if self._out is None:
            return
        width = 30
        filled = width * done // max(1, self._total)
        rate = done / max(1e-9, time.perf_counter() - self._start)
        self._out.write(
            f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{self._total} games"
            f"  {rate:.1f} games/s"
        )
        self._out.flush()

    def close(self) -> None:
        if self._out is not None:
            self._out.write("\r\033[K")
            self._out.flush()


# -- reporting ----------------------------------------------------------------------------------


def summary(config: ArenaConfig, stats: dict[str, StrategyStats]) -> dict[str, Any]:
    """The figures as plain data, in the `--json` schema."""
    return {
        "games": config.games,
        "game": config.game,
        "players": rules(config.game).describe_options(config.options)[0],
        "strategies": {
            name: {
                "games": s.games,
                "wins": round(s.wins, 6),
                "win_rate": round(s.win_rate, 6),
                "mean_score": round(s.mean_score, 4),
                "mean_place": round(s.mean_place, 4),
                "rating": round(s.mu, 4),
            }
            for name, s in stats.items()
        },
    }


def table(stats: dict[str, StrategyStats]) -> str:
    """The per-strategy table, best win rate first."""
    width = max(8, *(len(name) for name in stats))
    lines = [
        f"{'strategy':<{width}}  {'games':>7}  {'wins':>9}  {'win rate [95% CI]':>22}"
        f"  {'score':>6}  {'place':>5}  {'rating (mu)':>11}"
    ]
    for name, s in sorted(stats.items(), key=lambda item: -item[1].win_rate):
        low, high = wilson(s.wins, s.games)
        interval = f"{100 * s.win_rate:5.1f}% [{100 * low:4.1f}, {100 * high:5.1f}]"
        lines.append(
            f"{name:<{width}}  {s.games:>7}  {s.wins:>9.2f}  {interval:>22}"
            f"  {s.mean_score:>6.1f}  {s.mean_place:>5.2f}  {s.mu:>11.2f}"
        )
    return "\n".join(lines)


# -- command line -------------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sushigo-arena",
        description="Play Sushi Go! (or Sushi Roll) strategies against each other offline and "
        "measure them.",
        epilog=f"Strategies: {STRATEGIES_HELP}. Ratings are openskill PlackettLuce mu.",
    )
    add_version(parser)
    parser.add_argument(
        "--strategies", required=True, help="comma-separated strategies, rotated over the seats"
    )
    parser.add_argument("--games", type=count(1), required=True, help="games to play")
    parser.add_argument(
        "--players",
        type=count(1),
        help=f"seats per game ({PLAYERS_HELP}; default: one per strategy)",
    )
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        help="a variant of the game to turn on (Sushi Go!: pass_both_ways, dummy, soy_sauce);"
        " repeat or separate with commas",
    )
    add_game(parser, f"the game (default {BUILTIN_KINDS[0]})")
    parser.add_argument("--seed", type=int, default=1, help="master seed (default 1)")
    parser.add_argument(
        "--workers",
        type=count(1),
        default=os.cpu_count() or 1,
        help="processes (default: all cores)",
    )
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON to FILE")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """The `sushigo-arena` command. Exit status: 0 done, 2 bad arguments, 130 after Ctrl-C
    (the workers stopped with it, quietly), 1 anything else."""
    parser = _parser()
    args = parser.parse_args(argv)
    specs = tuple(s.strip() for s in args.strategies.split(",") if s.strip())
    if not specs:
        parser.error("--strategies: name at least one strategy")
    variants = [v.strip() for arg in args.variant for v in arg.split(",") if v.strip()]
    players = args.players if args.players is not None else len(specs)
    wrong = check_players(args.game, players)
    if wrong is not None and args.players is not None:
        parser.error(f"--players {players}: {wrong}")
    if wrong is not None:
        parser.error(f"{players} strategies, one a seat (--players sets the seats): {wrong}")
    game_rules = rules(args.game)
    try:
        options = game_rules.options(players, variants)
    except EngineError as exc:
        parser.error(str(exc))
    try:
        for spec in dict.fromkeys(specs):
            _factories([spec], args.game)
    except StrategyError as exc:
        parser.error(str(exc))
    config = ArenaConfig(specs, args.games, options, args.seed, args.workers, args.game)
    batch_gc()
    start = time.perf_counter()
    try:
        results = run(config, progress=sys.stderr)
    except ArenaError as exc:
        print(f"sushigo-arena: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        # imported here: the protocol package is start-up time a run that finishes never needs
        from sushigo.protocol.about import interrupted  # noqa: PLC0415

        return interrupted("sushigo-arena")
    elapsed = time.perf_counter() - start
    stats = tally(results, list(dict.fromkeys(specs)))
    on = game_rules.describe_options(options)[1]
    variant_text = (
        ", ".join(on) if on else ("no variants" if game_rules.variants else game_rules.title)
    )
    print(
        f"{config.games} games, {players} players, {variant_text}, seed {config.seed}: "
        f"{elapsed:.1f} s, {config.games / max(elapsed, 1e-9):.1f} games/s "
        f"({config.workers} worker{'s' if config.workers > 1 else ''})"
    )
    print(table(stats))
    if args.json:
        import json  # noqa: PLC0415  (only for --json)

        try:
            with open(args.json, "w", encoding="utf-8") as out:
                json.dump(summary(config, stats), out, indent=2)
                out.write("\n")
        except OSError as exc:
            print(f"sushigo-arena: cannot write {args.json}: {exc.strerror}", file=sys.stderr)
            return 1
    if argv is None:
        # The command's process ends now. Its run left hundreds of thousands of objects (results,
        # the engine's caches), and the interpreter's exit walks them all in its last garbage
        # collections: 30-40 ms after a run of 20,000 random games. Frozen, the collector skips
        # them (they are still freed, and exit handlers still run). Not when called with
        # arguments (tests, programs): their process goes on.
        gc.freeze()
    return 0


if __name__ == "__main__":
    sys.exit(main())
