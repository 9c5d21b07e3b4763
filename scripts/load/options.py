"""The load test's command line: its options and their checks (`parse`)."""

from __future__ import annotations

import argparse

HOST = "127.0.0.1"
"""The only address a run ever contacts: its servers listen there."""


def node_counts(text: str) -> list[int]:
    """``N`` or ``N,N,...``: node counts, each at least 1."""
    try:
        counts = [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a node count or a list of them: {text!r}") from None
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError(f"a node count is at least 1: {text!r}")
    return counts


def parser() -> argparse.ArgumentParser:
    """The command line."""
    p = argparse.ArgumentParser(
        prog="loadtest.py",
        description="Drive a local sushigo-server with many concurrent 4-player games.",
    )
    p.add_argument(
        "--mode",
        choices=["human", "saturation"],
        default="human",
        help="human: one pick about every --pick-seconds; saturation: pick at once",
    )
    p.add_argument(
        "--games",
        type=int,
        default=None,
        help="concurrent 4-player games (default 1000 human, 200 saturation)",
    )
    p.add_argument("--duration", type=float, default=60.0, help="seconds the run lasts")
    p.add_argument("--pick-seconds", type=float, default=2.0, help="mean pick delay (human mode)")
    p.add_argument(
        "--ramp-seconds", type=float, default=5.0, help="spread the connections over this long"
    )
    p.add_argument(
        "--clients-procs",
        type=int,
        default=2,
        help="client processes (default 2: one alone lags behind the server at saturation)",
    )
    p.add_argument(
        "--turn-seconds", type=int, default=60, help="server turn timer (auto-pick after it)"
    )
    p.add_argument(
        "--strict-clients",
        action="store_true",
        help="also validate every frame with protocol.ClientConnection (costs client CPU)",
    )
    p.add_argument(
        "--no-pin",
        dest="pin",
        action="store_false",
        help="do not pin the server to CPU 0 and the clients to the other CPUs",
    )
    p.add_argument(
        "--no-barrier",
        dest="barrier",
        action="store_false",
        help="quick match as soon as each seat logs in (default: once a process's seats all have)",
    )
    p.add_argument(
        "--start-seconds",
        type=float,
        default=0.0,
        help="once every seat is logged in, spread the games' starts over this long (default:"
        " all at once)",
    )
    p.add_argument("--seed", type=int, default=1, help="random seed of the clients' picks")
    p.add_argument(
        "--server-prefix",
        default="",
        metavar="COMMAND",
        help="run the server under this command, e.g. a profiler: 'py-spy record -o prof.txt"
        " --format raw --' or 'valgrind --tool=callgrind --callgrind-out-file=cg.out'",
    )
    p.add_argument(
        "--db", default=None, help="the server's --db (default: SQLite in a temporary directory)"
    )
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.add_argument(
        "--metrics",
        action="store_true",
        help="run the server with --metrics and scrape /metrics every second during the load",
    )
    p.add_argument(
        "--pgserver",
        action="store_true",
        help="run the load on SQLite, then on a temporary durable PostgreSQL (pgserver), and"
        " compare",
    )
    p.add_argument(
        "--nodes",
        type=node_counts,
        default=[],
        metavar="N[,N...]",
        help="run a cluster of N sushigo-server --node processes on one PostgreSQL (--db, or a"
        " temporary durable one from pgserver), each on a CPU of its own, the seats spread"
        " over them four by four. Several counts (1,2,1,2): one run each, one after the other"
        " on one pgserver PostgreSQL (a fresh database each), then their turns/s compared",
    )
    p.add_argument(
        "--kill-node-after",
        type=float,
        default=None,
        metavar="S",
        help="with --nodes: SIGKILL the first node S seconds into the run; its seats resume on"
        " the others (as the client library does), and how long until they play again is"
        " reported",
    )
    p.add_argument(
        "--web",
        action="store_true",
        help="the seats connect over WebSocket, as browsers do (the server's --web endpoint, a"
        " frame's body a binary message), instead of TCP",
    )
    p.add_argument(
        "--lobby-watcher",
        action="store_true",
        help="also keep one player in the lobby, listing tables as the terminal client does,"
        " and report the frames and bytes it receives per minute",
    )
    return p


def parse(argv: list[str] | None = None) -> tuple[argparse.Namespace, list[int]]:
    """The command line read and checked (a usage error exits with code 2, in one line), and
    its ``--nodes`` counts: ``args.nodes`` is then the first count, or 0 without a cluster."""
    args = parser().parse_args(argv)
    if args.games is not None and args.games < 1:
        parser().error("--games must be at least 1")
    if args.start_seconds < 0:
        parser().error("--start-seconds must not be negative")
    if args.clients_procs < 1 or args.duration <= 0:
        parser().error("--clients-procs must be at least 1 and --duration positive")
    counts: list[int] = args.nodes
    if len(counts) > 1 and args.db:
        parser().error("several --nodes counts run on a fresh pgserver database each: no --db")
    args.nodes = counts[0] if counts else 0
    if args.web and (counts or args.pgserver or args.lobby_watcher):
        parser().error("--web runs on one server: not with --nodes, --pgserver or --lobby-watcher")
    return args, counts
