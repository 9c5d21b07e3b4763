"""One run of the load test (`run`): the server or nodes started, the client processes
forked, the figures gathered."""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import shlex
import tempfile
import threading
import time
from collections.abc import Callable
from multiprocessing.connection import Connection as Pipe
from pathlib import Path
from typing import Any

from .measure import (
    CpuMeter,
    Scraper,
    cpu_figures,
    latency_figures,
    machine_cpu,
    percentile,
    pg_counters,
    pg_figures,
    samples,
    wait_figures,
)
from .options import HOST
from .servers import Nodes, ServerProcess, start_nodes, start_server
from .stats import Settings, Stats
from .worker import lobby_watcher_main, raise_fd_limit, worker_main


def _merge(counts: list[dict[str, int]]) -> dict[str, int]:
    """The client processes' counts added up, key by key (in the order first seen)."""
    out: dict[str, int] = {}
    for count in counts:
        for key, n in count.items():
            out[key] = out.get(key, 0) + n
    return out


def run(args: argparse.Namespace, pg_cpu: Callable[[], float] | None = None) -> dict[str, Any]:
    """One load test; the figures as a dict. `pg_cpu`: PostgreSQL's CPU seconds so far, when the
    run started it (`PgCluster.cpu_seconds`)."""
    raise_fd_limit()
    cpus = sorted(os.sched_getaffinity(0))
    pin = args.pin and len(cpus) >= 2
    server_cpus = {cpus[0]} if pin else None
    client_cpus = set(cpus[1:]) if pin else None
    games = args.games if args.games is not None else (1000 if args.mode == "human" else 200)
    seats = 4 * games
    database = ["--db", args.db] if args.db else []
    if args.metrics:
        database += ["--metrics", f"{HOST}:0"]
    if args.web:
        database += ["--web", f"{HOST}:0"]
    keys = tempfile.TemporaryDirectory(prefix="sushigo-load-key-")
    server: ServerProcess | Nodes
    if args.nodes:
        server = start_nodes(args, database, Path(keys.name))
        if len(server.servers) > 1:
            client_cpus = None  # the nodes have every CPU between them: the clients share
    else:
        server = start_server(
            args.turn_seconds, server_cpus, database, shlex.split(args.server_prefix)
        )
    scraper = Scraper(server.metrics_url) if server.metrics_url else None
    scraped: dict[str, Any] = {}
    try:
        start = time.time() + 0.5
        settings = Settings(
            port=server.web_port if isinstance(server, ServerProcess) and args.web else server.port,
            web=args.web,
            mode=args.mode,
            pick_seconds=args.pick_seconds,
            start=start,
            duration=args.duration,
            ramp_seconds=args.ramp_seconds,
            strict=args.strict_clients,
            barrier=args.barrier,
            start_seconds=args.start_seconds,
            seed=args.seed,
            ports=tuple(s.port for s in server.servers) if isinstance(server, Nodes) else (),
        )
        pg_before = pg_counters(args.db) if args.db and args.db.startswith("postgres") else {}
        meter = CpuMeter.read(server, pg_cpu)
        began = time.time()
        # The machine's CPU every second, to say how busy it was once every seat is in: the
        # meter's figures span the logins too (seconds at a tenth of the machine), and busy
        # over the whole run reads as CPU idle at saturation.
        machine: list[tuple[float, float]] = []
        sampled = threading.Event()

        def sample_machine() -> None:
            while not sampled.wait(1.0):
                machine.append((time.time(), machine_cpu()))

        threading.Thread(target=sample_machine, daemon=True).start()
        ctx = mp.get_context("fork")
        procs: list[tuple[Any, Pipe]] = []
        share, extra = divmod(seats, args.clients_procs)
        for i in range(args.clients_procs):
            mine = share + (1 if i < extra else 0)
            if not mine:
                continue
            receiver, sender = ctx.Pipe(duplex=False)
            worker_settings = Settings(**{**settings.__dict__, "seed": args.seed * 1000 + i})
            proc = ctx.Process(
                target=worker_main,
                args=(worker_settings, mine, client_cpus, sender),
                daemon=True,
            )
            proc.start()
            sender.close()
            procs.append((proc, receiver))
        watcher: tuple[Any, Pipe] | None = None
        if args.lobby_watcher:
            receiver, sender = ctx.Pipe(duplex=False)
            proc = ctx.Process(
                target=lobby_watcher_main,
                args=(server.port, args.duration, sender),
                daemon=True,
            )
            proc.start()
            sender.close()
            watcher = (proc, receiver)
        time.sleep(max(0.0, start - time.time()))
        if args.kill_node_after is not None and isinstance(server, Nodes):
            threading.Timer(
                max(0.0, start + args.kill_node_after - time.time()), server.kill_first
            ).start()
        before = server.status()
        cpu_window = (time.time(), before.get("ticks", 0))
        split_before = (before.get("user", 0), before.get("system", 0))
        window_start: float | None = None
        results: list[dict[str, Any]] = []
        deadline = start + args.duration + 60
        for proc, receiver in procs:
            if receiver.poll(max(0.0, deadline - time.time())):
                results.append(receiver.recv())
            else:
                results.append(Stats(errors={"worker did not report": 1}).to_data())
            proc.join(timeout=5)
            if proc.is_alive():
                proc.kill()
        sampled.set()
        after = server.status()
        metered = CpuMeter.read(server, pg_cpu)
        ended = time.time()
        pg_after = pg_counters(args.db) if pg_before else {}
        lobby: dict[str, Any] = {}
        if watcher is not None:
            if watcher[1].poll(max(0.0, deadline - time.time())):
                lobby = watcher[1].recv()
            watcher[0].join(timeout=5)
            if watcher[0].is_alive():
                watcher[0].kill()
    finally:
        if scraper is not None:
            scraped = scraper.stop()
        stderr = server.stop()
        keys.cleanup()
    ticks = os.sysconf("SC_CLK_TCK")
    cpu = (after.get("ticks", 0) - cpu_window[1]) / ticks / max(1e-9, time.time() - cpu_window[0])
    user = (after.get("user", 0) - split_before[0]) / ticks
    system = (after.get("system", 0) - split_before[1]) / ticks

    seconds = max(len(r["results_per_second"]) for r in results) if results else 0
    results_per_second = [0] * seconds
    open_per_second = [0] * seconds
    for r in results:
        for i, v in enumerate(r["results_per_second"]):
            results_per_second[i] += v
        for i, v in enumerate(r["open_per_second"]):
            open_per_second[i] += v
    turns_per_second = [v / 4 for v in results_per_second]
    ready = [r["all_connected_at"] for r in results]
    if all(t is not None for t in ready) and ready:
        window_start = max(ready)
    first = int(window_start) + 2 if window_start is not None else 2
    window = turns_per_second[first : int(args.duration)]
    steady = [(t, c) for t, c in machine if start + first <= t <= start + args.duration]
    machine_busy_steady = (
        (steady[-1][1] - steady[0][1]) / (steady[-1][0] - steady[0][0]) if len(steady) > 1 else None
    )
    errors = _merge([r["errors"] for r in results])
    notes = {k: errors.pop(k) for k in list(errors) if k.startswith("(not an error)")}
    back = sorted(samples(results, "back"))
    dropped = sum(r.get("dropped", 0) for r in results)
    # A table's seats are spread over the client processes: its best news counts.
    rank = {"lost": 0, "back": 1, "finished": 2}
    killed_tables: dict[str, str] = {}
    for r in results:
        for table_id, state in r.get("killed_tables", {}).items():
            if rank[state] > rank[killed_tables.get(table_id, "lost")]:
                killed_tables[table_id] = state
            else:
                killed_tables.setdefault(table_id, state)
    killed_count = {s: sum(v == s for v in killed_tables.values()) for s in rank}
    lags = sorted(samples(results, "lag"))
    server_errors = [line for line in stderr.splitlines() if "level=" in line]
    client_cpu = sum(r["cpu_seconds"] for r in results)
    cpu_split = cpu_figures(meter, metered, client_cpu, sum(turns_per_second), ended - began)
    return {
        "mode": args.mode,
        "games_concurrent": games,
        "connections_made": sum(r["connected"] for r in results),
        "connections_peak": max(open_per_second, default=0),
        "games_completed": sum(r["games"] for r in results),
        "turns_total": sum(turns_per_second),
        "turns_per_second_sustained": sum(window) / len(window) if window else 0.0,
        "turns_per_second_best": max(turns_per_second, default=0.0),
        "all_connected_after_s": window_start,
        **latency_figures(results),
        "client_lag_p99_ms": 1000 * percentile(lags, 0.99),
        "client_lag_max_ms": 1000 * (lags[-1] if lags else float("nan")),
        "errors": sum(errors.values()),
        "error_kinds": errors,
        "notes": notes,
        "killed_seats": dropped,
        "killed_seats_back": len(back),
        "killed_back_p50_s": percentile(back, 0.5),
        "killed_back_max_s": back[-1] if back else float("nan"),
        "killed_tables": len(killed_tables),
        "killed_tables_finished": killed_count["finished"],
        "killed_tables_playing": killed_count["back"],
        "killed_tables_not_back": killed_count["lost"],
        "nodes": args.nodes,
        "server_peak_memory_mib": after.get("VmHWM", 0) / 1024,
        "server_cpu_fraction": cpu,
        "turns_per_server_cpu_second": sum(turns_per_second) / max(1e-9, cpu * args.duration),
        "server_user_us_per_turn": 1e6 * user / max(1.0, sum(turns_per_second)),
        "server_system_us_per_turn": 1e6 * system / max(1.0, sum(turns_per_second)),
        "logged_in": sum(r["logged_in"] for r in results),
        "last_message": _merge([r["last_message"] for r in results]),
        "client_cpu_fraction": sum(r["cpu_seconds"] for r in results) / args.duration,
        "server_log_lines": len(server_errors),
        "server_log_sample": server_errors[:5],
        "turns_per_second_by_second": turns_per_second,
        "lobby_watcher": lobby,
        "metrics": scraped,
        "cpu": cpu_split,
        "machine_busy_steady_cpus": machine_busy_steady,
        "lobby_waits": wait_figures(results),
        "postgresql": pg_figures(pg_before, pg_after, sum(turns_per_second)) if pg_after else {},
    }
