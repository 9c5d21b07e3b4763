"""What the chaos runner checks once the run is over, each check a list of what went wrong
(empty: it holds)."""

from __future__ import annotations

import bisect
import re
from collections import Counter

from sushigo.protocol import SignedRecord, verify_record, verify_signed_record

from .cluster import Cluster, Watched
from .players import Bot, Seen

LOG_LINE = re.compile(
    r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ level=(debug|info|warning|error) |"
    r"sushigo-server (listening|metrics) on |sushigo-server: error: )"
)
"""A line of a node's output in the server's format, or one of the lines the command itself
prints (where it listens; the one-line reason it exits 1 with)."""
SERVED_ELSEWHERE = ("fenced by its lease", "another node holds it now")
"""What a node logs when it finds it played on a table whose lease another node held."""
MADE = re.compile(r"level=info table (\w+) created ")
PLAYED = re.compile(r"table (\w+): a game of |resume \S+ at table (\w+)")
TABLE = re.compile(r"table (\w+): ")
"""A node's log lines: a table made there, a game begun (or a player resumed) at a table
there, and the table a line is of."""
LEASE_SLACK = 0.5
"""Seconds either side of a frame within which the lease as read may have named its node (the
leases are read five times a second)."""


def bots(players: list[Bot]) -> list[str]:
    """Every bot exited 0, having played all its games (a tournament's entrant: having heard it
    finish)."""
    wrong = []
    for bot in players:
        code = bot.proc.returncode if bot.proc is not None else None
        last = bot.output.strip().splitlines()[-1:] or ["(nothing)"]
        if code != 0:
            wrong.append(f"{bot.name} exited {code}: {last[0]}")
        elif bot.games is not None and bot.reported != bot.games:
            wrong.append(f"{bot.name} played {bot.reported} of its {bot.games} games")
        elif bot.tournament and not bot.host and "finished" not in bot.output:
            wrong.append(f"{bot.name} never heard tournament {bot.tournament} finish")
        if "FAIRNESS FAILED" in bot.output:
            wrong.append(f"{bot.name}: a fairness check failed")
    return wrong


async def records(
    cluster: Cluster, players: list[Bot], terminal: tuple[str, Seen] | None
) -> tuple[list[str], list[str], list[str], int]:
    """(records that do not verify, players whose games do not match their appearances in the
    records, seats of ours auto-picked, how many records)."""
    rows = await cluster.query("SELECT game_id, record, signature, server_key FROM records")
    seats = await cluster.query("SELECT game_id, seat, name FROM results")
    names = {(g, s): n for g, s, n in seats}
    unverified, auto = [], []
    for game_id, record, signature, key in rows:
        signed = SignedRecord(record=bytes(record), signature=bytes(signature), server_key=key)
        try:
            report = verify_record(verify_signed_record(signed, bytes(key)))
        except Exception as exc:  # a record that cannot even be read
            unverified.append(f"{game_id}: {exc}")
            continue
        if not report.ok:
            unverified.append(f"{game_id}: {'; '.join(report.problems)}")
        for _, _, seat in report.auto_picks:
            name = names.get((game_id, seat), "?")
            if not name.startswith("cup"):  # a tournament's absent entrant: its bot plays
                auto.append(f"{game_id}: seat {seat} ({name})")
    appearances = Counter(n for _, _, n in seats)
    mismatched = [
        f"{bot.name} reported {bot.reported} games, the records hold {appearances[bot.name]}"
        for bot in players
        if not bot.host and bot.reported != appearances[bot.name]
    ]
    if terminal is not None:
        name, seen = terminal
        if seen.games + seen.left_begun != appearances[name]:
            mismatched.append(
                f"{name} (terminal) finished {seen.games} games (and left {seen.left_begun} as"
                f" they began), the records hold {appearances[name]}"
            )
    return unverified, mismatched, sorted(set(auto)), len(rows)


def served(cluster: Cluster, watched: Watched, seen: Seen | None) -> list[str]:
    """No node served a table whose lease it did not hold: none logged finding it had (a
    fenced commit, a renewal finding the table another's) of a table whose game it played
    (a table made as its node's lease lapsed, whose first commit the fence left out, had no
    game: its players were sent on before any), and every frame of a game the terminal player
    was shown came from the node the lease named then."""
    wrong = []
    for n in cluster.nodes:
        made: set[str] = set()  # tables made here whose game has not begun here
        for line in n.process.log.decode(errors="replace").splitlines():
            if match := MADE.search(line):
                made.add(match[1])
            elif match := PLAYED.search(line):
                made.discard(match[1] or match[2])
            elif any(text in line for text in SERVED_ELSEWHERE):
                table = TABLE.search(line)
                if table is None or table[1] not in made:
                    wrong.append(f"{n.name}: {line}")
    for at, node, table_id in seen.frames if seen is not None else []:
        history = watched.leases.get(table_id, [])
        owners = {
            owner
            for d in (-LEASE_SLACK, 0.0, LEASE_SLACK)
            if (owner := _owner(history, at + d)) is not None
        }
        if owners and node not in owners:
            wrong.append(f"table {table_id}: shown by {node}, its lease named {sorted(owners)}")
    return wrong


def _owner(history: list[tuple[float, str]], at: float) -> str | None:
    """The node a table's lease named at `at`, as read (None: not read yet)."""
    i = bisect.bisect_right([t for t, _ in history], at)
    return history[i - 1][1] if i else None


def logs(cluster: Cluster) -> list[str]:
    """Every line of every node's output is in the server's format and holds no traceback; and
    every node's clean stops (SIGTERM) exited 0."""
    wrong = []
    for n in cluster.nodes:
        for line in n.process.log.decode(errors="replace").splitlines():
            if line and (not LOG_LINE.match(line) or "Traceback" in line):
                wrong.append(f"{n.name}: {line[:300]}")
        wrong += [f"{n.name}: a SIGTERM exited {code}" for code in n.exits if code != 0]
    return wrong
