#!/usr/bin/env python3
"""The chaos runner: a cluster played by real bots and a person's terminal client while faults
chosen by a seed hit it at random moments, and then checked.

    .venv/bin/python scripts/chaos.py --nodes 3 --seconds 60 --seed 7 [--lease 10] [--keep DIR]

It starts a PostgreSQL (the pgserver package's) and the nodes (`sushigo-server --node`), sends
waves of `sushigo-bot` processes (mixed strategies, both games, 2-5 seats; some waves a
tournament: `sushigo-tournament` and its entrants) and one player at the terminal client (the
TUI's own state, network loop and calls: it quick-matches, sometimes leaves the queue, plays,
reconnects by itself), and, meanwhile, faults chosen by the seed (scripts/chaoskit/faults.py):
SIGKILL and restart of a node, SIGTERM and restart (rolling restarts), SIGSTOP/SIGCONT of a
node and of PostgreSQL, a PostgreSQL restart, a node restarted with a lagging clock. After
`--seconds` it stops hurting and sending, lets every player finish, stops the nodes, and
checks (scripts/chaoskit/checks.py): every bot exited 0 having played all its games; the games
each player reports equal its appearances in the records; every record verifies; no seat of a
quick-match player was auto-picked; no quick-match players were kept apart (enough of them for
a table, waiting at several tables, for over 10 s); no node served a table whose lease it did
not hold; no gauge went negative; no traceback or unformatted line in any node's output, and
every clean stop exited 0. It prints the seed (the same seed makes the same choices: which
players, which faults, when) and what failed; exit code 0 when everything holds.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

from chaoskit import checks
from chaoskit.cluster import Cluster, Watched, watch_gauges, watch_leases, watch_waiting
from chaoskit.faults import inflict, schedule
from chaoskit.players import Crowd, TerminalPlayer

FINISH_SECONDS = 240.0
"""How long the players have to finish once the run is over, before they count as stuck."""
TERMINAL = "at-the-terminal"
"""The terminal player's name."""


def say(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", flush=True)


async def run(args: argparse.Namespace, folder: Path) -> int:
    rng = random.Random(args.seed)
    faults = schedule(random.Random(rng.random()), args.seconds, args.nodes, args.lease)
    waves_rng = random.Random(rng.random())
    terminal_rng = random.Random(rng.random())
    cluster = Cluster(folder, args.nodes, args.lease, args.log_level)
    await cluster.start()
    say(f"{args.nodes} nodes up on ports {', '.join(str(n.port) for n in cluster.nodes)}")
    watched = Watched()
    stop = asyncio.Event()
    watchers = [
        asyncio.create_task(watch(cluster, watched, stop))
        for watch in (watch_gauges, watch_waiting, watch_leases)
    ]
    crowd = Crowd(folder, cluster.live_ports)
    loop = asyncio.get_running_loop()
    began = loop.time()
    until = began + args.seconds
    terminal = TerminalPlayer(
        TERMINAL, terminal_rng, [n.port for n in cluster.nodes], cluster.by_port
    )
    playing = asyncio.create_task(terminal.run(until))
    hurting = asyncio.create_task(_hurt(cluster, faults, began))
    codes: list[int | None] = []
    try:
        while loop.time() < until - 5:
            say(await crowd.wave(waves_rng, cluster.live_ports() or [cluster.nodes[0].port]))
            await asyncio.sleep(waves_rng.uniform(4, 10))
        await hurting
        await cluster.heal()
        say("the run is over: the players finish")
        filling = asyncio.create_task(crowd.fill(waves_rng, lambda: watched.waiting))
        try:
            codes = await _finish(crowd)
        finally:
            filling.cancel()
        done, _ = await asyncio.wait({playing}, timeout=FINISH_SECONDS)
        if not done:
            terminal.seen.problems.append("the terminal player's last game never ended")
            stack = io.StringIO()
            playing.print_stack(file=stack)
            terminal.seen.problems.extend(stack.getvalue().splitlines()[-8:])
    finally:
        hurting.cancel()
        playing.cancel()
        await cluster.heal()
        stop.set()
        await asyncio.gather(*watchers, return_exceptions=True)
        for bot in crowd.bots:
            bot.kill()
        await cluster.stop_nodes()
        terminal.write(folder / f"{TERMINAL}.out")
        try:
            unverified, mismatched, auto, records = await checks.records(
                cluster, crowd.bots, (TERMINAL, terminal.seen)
            )
        finally:
            await cluster.stop_pg()
    say(
        f"{len(crowd.bots)} player processes, {sum(c is None for c in codes)} stuck,"
        f" {sum(b.retries for b in crowd.bots)} started again after a refusal before they played,"
        f" {crowd.fillers} tables left short after the run given partners"
    )
    found = {
        "every bot exited 0 having played all its games": checks.bots(crowd.bots),
        "each player's games are its appearances in the records": mismatched,
        f"every record verifies ({records} records)": unverified,
        "no quick-match seat was auto-picked": auto,
        "no quick-match players kept apart": watched.split,
        "no node served a table whose lease it did not hold": checks.served(
            cluster, watched, terminal.seen
        ),
        "no gauge negative": watched.negative,
        "no traceback or unformatted line in any log; clean stops exit 0": checks.logs(cluster),
        "the terminal player kept its session": terminal.seen.problems,
    }
    seen = terminal.seen
    say(
        f"the terminal player: {seen.games} games ({seen.unverified} unverified), left the queue"
        f" {seen.quits} times (and {seen.gave_up} after waiting long), back in the lobby before"
        f" a game {seen.requeued} times, waited {max(seen.waits, default=0):.1f} s at most for a"
        " game"
    )
    failed = 0
    for check, wrong in found.items():
        print(f"{'ok  ' if not wrong else 'FAIL'} {check}")
        for line in wrong[:20]:
            print(f"       {line}")
        failed += bool(wrong)
    print(f"seed {args.seed}: {'all checks hold' if not failed else f'{failed} check(s) failed'}")
    return 1 if failed else 0


async def _finish(crowd: Crowd) -> list[int | None]:
    """Every player's exit code (None: stuck), the fillers `Crowd.fill` adds included."""
    codes: dict[int, int | None] = {}
    while len(codes) < len(crowd.bots):
        more = list(enumerate(crowd.bots))[len(codes) :]
        for (i, _), code in zip(
            more, await asyncio.gather(*(b.finish(FINISH_SECONDS) for _, b in more)), strict=True
        ):
            codes[i] = code
    return [codes[i] for i in range(len(codes))]


async def _hurt(cluster: Cluster, faults: list, began: float) -> None:  # type: ignore[type-arg]
    loop = asyncio.get_running_loop()
    for fault in faults:
        await asyncio.sleep(max(0.0, began + fault.at - loop.time()))
        say(f"fault: {fault.describe(cluster)}")
        await inflict(cluster, fault)


def main(argv: list[str] | None = None) -> int:
    doc = __doc__ or ""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument(
        "--lease", type=float, default=10.0, help="the nodes' --lease (the server's default)"
    )
    parser.add_argument("--keep", type=Path, default=None, help="keep the logs in this folder")
    parser.add_argument("--log-level", default="info", help="the nodes' --log-level")
    args = parser.parse_args(argv)
    if args.seed is None:
        args.seed = random.randrange(1 << 32)
    print(f"seed {args.seed}", flush=True)
    with tempfile.TemporaryDirectory(prefix="sushigo-chaos-") as tmp:
        try:
            return asyncio.run(run(args, Path(tmp)))
        finally:
            if args.keep is not None:
                shutil.copytree(tmp, args.keep, dirs_exist_ok=True, ignore=_pg_data)
                print(f"logs kept in {args.keep}", flush=True)


def _pg_data(folder: str, names: list[str]) -> list[str]:
    return ["data", "run"] if folder.endswith("pg") else []


if __name__ == "__main__":
    sys.exit(main())
