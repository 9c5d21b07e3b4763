"""The faults, chosen by the seed: which, on which node, how long, and when (`schedule`), then
inflicted one at a time, each undone before the next (`inflict`). Never more than one node is
down at once, and a node's restart waits for PostgreSQL."""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass

from .cluster import Cluster, Node

KINDS = ("kill", "term", "pause", "pause-db", "restart-db", "lag")
"""SIGKILL and restart a node; SIGTERM and restart it (a rolling restart); SIGSTOP it, then
SIGCONT; SIGSTOP PostgreSQL (every process), then SIGCONT; stop PostgreSQL (fast: every
connection cut) and start it again; restart a node with its clock behind the machine's."""


@dataclass(frozen=True)
class Fault:
    at: float
    """Seconds after the run's start."""
    kind: str
    node: int
    """Which node (its index), for the kinds that hurt one."""
    seconds: float
    """How long it lasts (down, paused), or how far behind a lagging clock runs."""

    def describe(self, cluster: Cluster) -> str:
        name = cluster.nodes[self.node].name
        if self.kind == "kill":
            return f"SIGKILL {name}, restarted {self.seconds:.1f} s later"
        if self.kind == "term":
            return f"SIGTERM {name}, restarted {self.seconds:.1f} s later"
        if self.kind == "pause":
            return f"SIGSTOP {name} for {self.seconds:.1f} s"
        if self.kind == "pause-db":
            return f"SIGSTOP PostgreSQL for {self.seconds:.1f} s"
        if self.kind == "restart-db":
            return f"PostgreSQL stopped (fast) for {self.seconds:.1f} s"
        return f"{name} restarted with its clock {self.seconds:.0f} s behind"


def schedule(rng: random.Random, seconds: float, nodes: int, lease: float) -> list[Fault]:
    """The faults of a run of `seconds`: one every 12 s or so, at random moments, the first
    after the players are under way, none in the last 10 s."""
    faults: list[Fault] = []
    at = rng.uniform(5, 12)
    while at < seconds - 10:
        kind = rng.choice(KINDS)
        if kind in ("kill", "term"):
            length = rng.uniform(0.5, 3)
        elif kind == "pause":
            length = rng.uniform(0.5, 2 * lease)
        elif kind == "pause-db":
            length = rng.uniform(0.5, 1.5 * lease)
        elif kind == "restart-db":
            length = rng.uniform(0.5, 5)
        else:
            length = rng.uniform(2, 120)
        faults.append(Fault(at, kind, rng.randrange(nodes), length))
        at += length + rng.expovariate(1 / 10)
    return faults


async def inflict(cluster: Cluster, fault: Fault) -> None:
    """The fault, for as long as it lasts, then undone (no new player is sent to its node
    meanwhile: one starting could not reach it, which no client can help)."""
    n = cluster.nodes[fault.node]
    cluster.hurt = n.name
    try:
        await _inflict(cluster, fault, n)
    finally:
        cluster.hurt = None


async def _inflict(cluster: Cluster, fault: Fault, n: Node) -> None:
    if fault.kind == "kill":
        await cluster.kill(n)
        await asyncio.sleep(fault.seconds)
        await cluster.restart(n)
    elif fault.kind == "term":
        await cluster.terminate(n)
        await asyncio.sleep(fault.seconds)
        await cluster.restart(n)
    elif fault.kind == "pause":
        cluster.pause(n)
        try:
            await asyncio.sleep(fault.seconds)
        finally:
            cluster.unpause(n)
    elif fault.kind == "pause-db":
        cluster.pause_pg()
        try:
            await asyncio.sleep(fault.seconds)
        finally:
            cluster.unpause_pg()
    elif fault.kind == "restart-db":
        await cluster.stop_pg()
        try:
            await asyncio.sleep(fault.seconds)
        finally:
            await cluster.start_pg()
    else:
        await cluster.terminate(n)
        await cluster.restart(n, shift_ms=int(fault.seconds * 1000))
