"""A run's figures as readable lines (`report`), and several runs compared (`compare`)."""

from __future__ import annotations

import os
from typing import Any


def report(figures: dict[str, Any]) -> str:
    """The figures as a few readable lines."""
    f = figures
    lines = [
        f"mode {f['mode']}: {f['games_concurrent']} concurrent 4-player games",
        f"connections: {f['connections_peak']} open at peak ({f['connections_made']} made;"
        f" all logged in after {f['all_connected_after_s']} s)",
        f"games completed: {f['games_completed']}",
        f"turns/s: {f['turns_per_second_sustained']:.0f} sustained,"
        f" {f['turns_per_second_best']:.0f} best second ({f['turns_total']:.0f} turns)",
        f"reveal->turn_result latency: p50 {f['latency_p50_ms']:.1f} ms,"
        f" p99 {f['latency_p99_ms']:.1f} ms, max {f['latency_max_ms']:.1f} ms"
        f" ({f['latency_samples']} samples)",
        "  p99 by 10 s from the start: "
        + ", ".join(f"{at}s {ms:.0f}" for at, ms in f.get("latency_p99_ms_by_10s", {}).items()),
        "  the worst seconds' p99: "
        + ", ".join(
            f"{at}s {ms:.0f}" for at, ms in f.get("latency_p99_ms_worst_seconds", {}).items()
        ),
        f"errors: {f['errors']}" + (f" {f['error_kinds']}" if f["errors"] else ""),
        *(
            [f"cluster of {f['nodes']} nodes: {f.get('notes') or 'no redirects'}"]
            if f.get("nodes")
            else []
        ),
        *(
            [
                f"node killed: {f['killed_seats']} seats lost their node, {f['killed_seats_back']}"
                f" played again (after p50 {f['killed_back_p50_s']:.1f} s, max"
                f" {f['killed_back_max_s']:.1f} s); of its {f['killed_tables']} tables"
                f" {f['killed_tables_finished']} finished their game after the kill,"
                f" {f['killed_tables_playing']} were playing again when the run ended,"
                f" {f['killed_tables_not_back']} never played again (lost)"
            ]
            if f.get("killed_seats")
            else []
        ),
        f"server: peak memory (VmHWM) {f['server_peak_memory_mib']:.1f} MiB,"
        f" CPU {100 * f['server_cpu_fraction']:.0f}% of one core"
        f" ({f['turns_per_server_cpu_second']:.0f} turns per CPU-second; per turn"
        f" {f['server_user_us_per_turn']:.0f} us user, {f['server_system_us_per_turn']:.0f} us"
        f" system), {f['server_log_lines']} warning/error log lines",
        f"clients: {f['logged_in']} logged in, CPU {100 * f['client_cpu_fraction']:.0f}% of one"
        f" core (all client processes), event-loop lag p99 {f['client_lag_p99_ms']:.1f} ms,"
        f" max {f['client_lag_max_ms']:.1f} ms",
        f"  last message per seat: {f['last_message']}",
        *[
            f"  {what}: p50 {w['p50_ms']:.0f} ms, p90 {w['p90_ms']:.0f} ms, mean"
            f" {w['mean_ms']:.0f} ms ({w['n']} samples)"
            for what, w in (
                ("QUICK_MATCH -> TABLE_JOINED", (f.get("lobby_waits") or {}).get("joined")),
                ("GAME_OVER -> next GAME_STARTING", (f.get("lobby_waits") or {}).get("between")),
            )
            if w
        ],
        *cpu_report(f.get("cpu") or {}),
        *(
            [
                f"  machine busy {f['machine_busy_steady_cpus']:.2f} of {os.cpu_count()} CPUs"
                " once every seat was in (the turns/s window)"
            ]
            if f.get("machine_busy_steady_cpus") is not None
            else []
        ),
        *pg_report(f.get("postgresql") or {}),
    ]
    lobby = f.get("lobby_watcher") or {}
    if "frames_per_minute" in lobby:
        lines.append(
            f"lobby watcher (the terminal client's lobby): {lobby['frames_per_minute']:.0f}"
            f" frames/min, {lobby['bytes_per_minute'] / 1024:.0f} KiB/min"
            f" (by kind: {lobby['pushed_kinds']})"
        )
    elif lobby:
        lines.append(f"lobby watcher failed: {lobby.get('error')}")
    scraped = f.get("metrics") or {}
    if scraped:
        lines.append(
            f"metrics: {scraped['scrapes']} scrapes of {scraped['bytes']} bytes, p50"
            f" {scraped['p50_ms']:.1f} ms, max {scraped['max_ms']:.1f} ms,"
            f" {scraped['failures']} failed; the last counted {scraped['turns_counted']} turns"
        )
    lines += [f"  server log: {line}" for line in f["server_log_sample"]]
    return "\n".join(lines)


def cpu_report(c: dict[str, Any]) -> list[str]:
    """The CPU breakdown (`cpu_figures`) as lines."""
    if not c:
        return []
    pg = c["postgresql_cpu_s_per_1000_turns"]
    nodes = ", ".join(f"{v:.1f}" for v in c["node_cpu_s"])
    return [
        f"CPU seconds per 1,000 turns: nodes {c['node_cpu_s_per_1000_turns']:.3f}, load"
        f" generator {c['client_cpu_s_per_1000_turns']:.3f}, PostgreSQL"
        + (f" {pg:.3f}" if pg is not None else " (not measured: not started by this run)")
        + f", the machine's other processes {c['others_cpu_s_per_1000_turns']:.3f}",
        f"  over {c['cpu_seconds']:.1f} s: nodes {nodes} s, load generator"
        f" {c['client_cpu_s']:.1f} s, PostgreSQL "
        + ("?" if c["postgresql_cpu_s"] is None else f"{c['postgresql_cpu_s']:.1f}")
        + f" s, others {c['others_cpu_s']:.1f} s; machine busy"
        f" {c['machine_cpu_s'] / max(1e-9, c['cpu_seconds']):.2f} of {c['cpus']} CPUs;"
        f" load average {c['load_average_start']:.2f} at the start, {c['load_average_end']:.2f}"
        " at the end",
        f"  two nodes on two cores could give at most {c['two_node_ratio_bound']:.2f}x one node"
        " at these costs per turn (2N/(N+R): N the node's, R the load generator's and"
        " PostgreSQL's)",
    ]


def pg_report(pg: dict[str, Any]) -> list[str]:
    """PostgreSQL's work per turn (`pg_figures`) as a line."""
    if not pg:
        return []
    rows = ", ".join(f"{name} {n:.2f}" for name, n in list(pg["rows_per_turn"].items())[:6])
    return [
        f"PostgreSQL per turn: {pg['commits_per_turn']:.3f} commits,"
        f" {pg['wal_bytes_per_turn']:.0f} bytes of WAL, rows written: {rows}"
    ]


def compare(runs: list[dict[str, Any]]) -> str:
    """Several runs' sustained turns/s by node count, and each count's mean over one node's."""
    by_count: dict[int, list[float]] = {}
    for figures in runs:
        by_count.setdefault(figures["nodes"], []).append(figures["turns_per_second_sustained"])
    means = {n: sum(v) / len(v) for n, v in sorted(by_count.items())}
    lines = ["== turns/s sustained, by node count (in run order; load average at each start):"]
    lines += [
        f"  {f['nodes']} node(s): {f['turns_per_second_sustained']:.0f}"
        f" (load {f['cpu']['load_average_start']:.2f})"
        for f in runs
    ]
    one = means.get(1)
    for n, mean in means.items():
        ratio = f", {mean / one:.2f}x one node" if one and n != 1 else ""
        lines.append(f"  mean with {n}: {mean:.0f}{ratio}")
    return "\n".join(lines)
