#!/usr/bin/env python3
"""Server CPU per turn, in-process: the sans-IO hub driving many 4-player quick-match games.

    .venv/bin/python scripts/bench_server.py [--tables 200] [--turns 6000] [--batch 8] [--steps]

No sockets and no asyncio: every seat is a scripted client on a fake transport that answers the
server's frames from the raw msgpack maps (as scripts/loadtest.py's clients do), with real
commitments and reveals. Only the hub's own work is timed, by the CPU clock of this thread (other
processes' load disturbs it far less than a wall-clock load test), and split by what the client
sent: a COMMIT, a REVEAL (the last of a turn also runs the engine, saves the table and sends the
results and the next TURN_START), or anything else (logins, quick match, seeds, leaving: the cost
of starting and ending games, spread over their turns). After each game every seat leaves and
quick matches again, so the figures include game ends (signing and storing the record).

Prints microseconds of hub CPU per four-player turn and per frame (sent and received), the split,
the time in a few named steps (storage, signing, the engine), and the process's CPU per turn
(which also counts any worker thread the server uses). `--profile` runs cProfile over the hub
calls and prints the top functions. The storage holds its writes as the server's does, and commits
them every `--batch` inputs (the server commits once per pass of its event loop, so a busy one
batches many; 1 is the worst case).

CPU time still moves with what else runs on the machine (caches, shared cores). For counts that do
not, run the hub under valgrind, which counts only inside the hub's calls (made through
`operator.call` for this), and take the difference of two lengths to leave start-up out:

    valgrind --tool=callgrind --toggle-collect=_operator_call --callgrind-out-file=/dev/null \
        .venv/bin/python scripts/bench_server.py --tables 10 --warmup 10 --turns 530 --fixed
    (the same with --turns 50; instructions per turn = the difference / 480)

`--fixed` draws every random byte (the server's seeds, nonces, table ids and tokens, the seats'
too) from `--seed`, and the server key from it: two runs then play the very same games, and
the difference between two versions of the code is the code's alone (without it, the games
differ from run to run, and so does the engine's work: about 1% either way).
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import operator
import pstats
import random
import secrets
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import msgpack
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

# Run as a file, the script's own folder is on sys.path, not the repository root.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sushigo.engine import Action, Card, Game
from sushigo.protocol import (
    CARD_WIRE,
    CLIENT_LIMITS,
    PROTOCOL_NAME,
    ClientMessage,
    Commit,
    Hello,
    LeaveTable,
    LoginGuest,
    QuickMatch,
    Reveal,
    Seed,
    encode_frame,
    encode_message,
    make_commitment,
)
from sushigo.protocol.versions import CURRENT_VERSION
from sushigo.server.config import HubConfig
from sushigo.server.hub.core import Hub
from sushigo.server.sessions.session import Conn
from sushigo.server.storage.sqlite.storage import SqliteStorage

_BY_LABEL = {card.label: card for card in Card}
_call = operator.call


class Meter:
    """Hub CPU time (this thread's clock), by kind of input."""

    def __init__(self) -> None:
        self.ns: dict[str, int] = {"commit": 0, "reveal": 0, "other": 0}
        self.calls: dict[str, int] = {"commit": 0, "reveal": 0, "other": 0}
        self.steps: dict[str, int] = {}
        """CPU ns inside named functions of the server (wrapped while measuring)."""
        self.frames_in = 0
        self.frames_out = 0
        self.results = 0
        """TURN_RESULTs received: four make one four-player turn."""
        self.games = 0


class Transport:
    """What the hub writes to: frames wait here for the seat to read."""

    __slots__ = ("closed", "data")

    def __init__(self) -> None:
        self.data = bytearray()
        self.closed = False

    def write(self, data: bytes) -> None:
        self.data += data

    def close(self) -> None:
        self.closed = True


class Seat:
    """One scripted client: reads the raw maps, commits to a card of its hand, reveals it."""

    def __init__(self, bench: Bench, index: int) -> None:
        self.bench = bench
        self.index = index
        self.transport = Transport()
        conn = bench.hub.open(self.transport, "127.0.0.1", 10_000 + index, bench.now)
        assert conn is not None
        self.conn: Conn = conn
        self.ref = 0
        self.last_seq = 0
        self.table_id = ""
        self.seat = 0
        self.action: Action | None = None
        self.nonce = b""
        self.send(
            Hello(ref=1, protocol=PROTOCOL_NAME, version=CURRENT_VERSION, software="bench"),
            "other",
        )

    def send(self, message: ClientMessage, kind: str) -> None:
        self.ref += 1
        frame = encode_frame(encode_message(message, None, CARD_WIRE), CLIENT_LIMITS)
        bench = self.bench
        meter = bench.meter
        start = time.thread_time_ns()
        # Through operator.call, a C function, so that valgrind can count the hub's instructions
        # alone: valgrind --tool=callgrind --toggle-collect=_operator_call ...
        _call(bench.hub.data, self.conn, frame, bench.now)
        bench.inputs += 1
        if bench.inputs % bench.batch == 0:
            _call(bench.storage.flush)  # as the server's adapter does before writing what was sent
        meter.ns[kind] += time.thread_time_ns() - start
        meter.calls[kind] += 1
        meter.frames_in += 1

    def pump(self) -> bool:
        """Read and answer every frame the server sent; False when there were none."""
        data = self.transport.data
        if not data:
            return False
        buf = bytes(data)
        data.clear()
        at = 0
        while at < len(buf):
            size = int.from_bytes(buf[at : at + 4], "big")
            body = buf[at + 4 : at + 4 + size]
            at += 4 + size
            self.bench.meter.frames_out += 1
            self.handle(msgpack.unpackb(body, raw=False))
        return True

    def handle(self, msg: dict[str, Any]) -> None:
        if msg["seq"] != self.last_seq + 1:
            raise SystemExit(f"bench: seat {self.index}: bad sequence number {msg['seq']}")
        self.last_seq = msg["seq"]
        kind = msg["type"]
        if kind == "turn_start":
            round_, turn = msg["round"], msg["turn"]
            self.action = Action(_BY_LABEL[self.bench.pick(msg["observation"]["hand"])])
            self.nonce = secrets.token_bytes(32)
            commitment = make_commitment(
                self.table_id,
                round_,
                turn,
                self.seat,
                CARD_WIRE.commit_bytes(self.action),
                self.nonce,
            )
            self.send(
                Commit(ref=self.ref, round=round_, turn=turn, commitment=commitment), "commit"
            )
        elif kind == "commitments":
            assert self.action is not None
            message = Reveal(
                ref=self.ref,
                round=msg["round"],
                turn=msg["turn"],
                action=self.action,
                nonce=self.nonce,
            )
            self.send(message, "reveal")
        elif kind == "turn_result":
            self.bench.meter.results += 1
        elif kind == "welcome":
            self.send(LoginGuest(ref=self.ref, name=f"bench{self.index}"), "other")
        elif kind in ("logged_in", "table_left"):
            if not self.bench.stopping:
                self.send(QuickMatch(ref=self.ref, kind="sushi-go", players=4), "other")
        elif kind == "game_starting":
            self.table_id, self.seat = msg["table_id"], msg["seat"]
            self.send(Seed(ref=self.ref, seed=secrets.token_bytes(32)), "other")
        elif kind == "game_over":
            if self.seat == 0:
                self.bench.meter.games += 1
            self.send(LeaveTable(ref=self.ref), "other")
        elif kind == "error":
            raise SystemExit(f"bench: seat {self.index}: ERROR {msg.get('message')}")


class Bench:
    """The hub and its seats."""

    def __init__(self, storage: SqliteStorage, tables: int, seed: int, batch: int) -> None:
        self.storage = storage
        self.batch = batch
        """Inputs per storage flush (the server flushes once per pass of its event loop)."""
        self.inputs = 0
        self.hub = Hub(
            storage=storage,
            key=Ed25519PrivateKey.from_private_bytes(secrets.token_bytes(32)),
            config=HubConfig(
                max_per_address=1_000_000,
                max_connections=1_000_000,
                max_unidentified_per_address=1_000_000,
                connect_burst_per_address=1e9,
            ),
            wall_ms=lambda: 1_700_000_000_000,
        )
        self.now = 1000.0
        self.meter = Meter()
        self.stopping = False
        self._rng = random.Random(seed)
        self.seats = [Seat(self, i) for i in range(4 * tables)]

    def read(self) -> bool:
        """Run the database reads the hub asked for (a login's look at the registered names), as
        the server's adapter does in a worker thread, and hand their results back; whether
        there were any."""
        hub = self.hub
        if not hub.reads:
            return False
        while hub.reads:
            reads, hub.reads = hub.reads, []
            for read in reads:
                hub.read_done(read, read.job(), self.now)
        return True

    def pick(self, hand: list[str]) -> str:
        return str(hand[int(self._rng.random() * len(hand))])

    def run(self, turns: int) -> None:
        """Until `turns` four-player turns are played (then let every game finish its turn)."""
        while self.meter.results < 4 * turns:
            self.now += 0.001
            moved = self.read()
            for seat in self.seats:
                moved = seat.pump() or moved
            if not moved:
                raise SystemExit("bench: nothing is moving")


@contextmanager
def measuring_steps(meter: Meter) -> Iterator[None]:
    """Wrap a few named server functions to add their CPU time to `meter.steps`."""
    import sushigo.server.hub.core as hub_module  # noqa: PLC0415

    patched: list[tuple[Any, str, Any]] = []

    def wrap(owner: Any, name: str, label: str) -> None:
        original = getattr(owner, name)
        steps = meter.steps
        steps.setdefault(label, 0)

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.thread_time_ns()
            try:
                return original(*args, **kwargs)
            finally:
                steps[label] += time.thread_time_ns() - start

        patched.append((owner, name, original))
        setattr(owner, name, timed)

    wrap(SqliteStorage, "save_table", "storage.save_table")
    wrap(SqliteStorage, "flush", "storage.flush")
    wrap(SqliteStorage, "append_turns", "storage.append_turns")
    wrap(hub_module, "changes", "persist.changes")
    wrap(SqliteStorage, "finish_game", "storage.finish_game")
    wrap(SqliteStorage, "save_token", "storage.save_token")
    wrap(SqliteStorage, "delete_token", "storage.delete_token")
    wrap(hub_module, "sign_record", "sign_record")
    wrap(Game, "apply", "engine.apply")
    wrap(Game, "observation", "engine.games.sushi_go.observation")
    try:
        yield
    finally:
        for owner, name, original in reversed(patched):
            setattr(owner, name, original)


def _report(
    meter: Meter, turns: int, wall: float, process_ns: int, steps: bool, out: Callable[[str], None]
) -> None:
    hub_ns = sum(meter.ns.values())
    per_turn = hub_ns / 1000 / turns
    frames = meter.frames_in + meter.frames_out
    out(f"{turns} four-player turns, {meter.games} games, {wall:.1f} s")
    out(
        f"hub CPU: {per_turn:.0f} us per turn, {hub_ns / 1000 / frames:.1f} us per frame"
        f" ({frames} frames: {meter.frames_in} in, {meter.frames_out} out)"
        f" -> {1e6 / per_turn:,.0f} turns per CPU-second"
    )
    for kind in ("commit", "reveal", "other"):
        calls = meter.calls[kind]
        out(
            f"  {kind:7} {meter.ns[kind] / 1000 / turns:6.0f} us per turn"
            f" ({calls} frames, {meter.ns[kind] / 1000 / max(1, calls):.1f} us each)"
        )
    if steps:
        out("named steps (us per turn, inside the figures above):")
        for label, ns in sorted(meter.steps.items(), key=lambda kv: -kv[1]):
            out(f"  {label:22} {ns / 1000 / turns:6.1f}")
    out(f"process CPU (all threads, clients too): {process_ns / 1000 / turns:.0f} us per turn")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--tables", type=int, default=200, help="concurrent 4-player games")
    parser.add_argument("--turns", type=int, default=6000, help="four-player turns to measure")
    parser.add_argument("--warmup", type=int, default=1000, help="turns played before measuring")
    parser.add_argument("--memory", action="store_true", help="an in-memory database")
    parser.add_argument(
        "--no-write-behind",
        dest="write_behind",
        action="store_false",
        help="commit every write at once (the server holds hot writes until it sends)",
    )
    parser.add_argument("--steps", action="store_true", help="time a few named steps too")
    parser.add_argument(
        "--batch", type=int, default=1, help="inputs per storage commit (default 1)"
    )
    parser.add_argument("--profile", action="store_true", help="cProfile the run; top functions")
    parser.add_argument("--seed", type=int, default=1, help="seed of the seats' picks")
    parser.add_argument(
        "--fixed", action="store_true", help="every random byte from --seed too (A/B runs)"
    )
    args = parser.parse_args(argv)
    if args.tables < 1 or args.turns < 1 or args.batch < 1 or args.warmup < 0:
        parser.error("--tables, --turns and --batch must be positive, --warmup not negative")
    if args.fixed:
        _fix_randomness(args.seed)
    with tempfile.TemporaryDirectory(prefix="sushigo-bench-") as folder:
        storage = SqliteStorage(
            ":memory:" if args.memory else Path(folder) / "bench.db",
            exclusive=True,
            write_behind=args.write_behind,
        )
        try:
            bench = Bench(storage, args.tables, args.seed, args.batch)
            bench.run(args.warmup)
            gc.collect()
            bench.meter = meter = Meter()
            profile = cProfile.Profile() if args.profile else None
            process = time.process_time_ns()
            wall = time.perf_counter()
            with measuring_steps(meter) if args.steps else _nothing():
                if profile is not None:
                    profile.enable()
                bench.run(args.turns)
                if profile is not None:
                    profile.disable()
            wall = time.perf_counter() - wall
            process = time.process_time_ns() - process
            bench.stopping = True
        finally:
            storage.close()
    turns = meter.results // 4
    _report(meter, turns, wall, process, args.steps, print)
    if profile is not None:
        stats = pstats.Stats(profile)
        stats.sort_stats("tottime").print_stats(30)
    return 0


@contextmanager
def _nothing() -> Iterator[None]:
    yield


def _fix_randomness(seed: int) -> None:
    """Draw what the server and the seats take from `secrets` from a generator seeded by `seed`
    (for this benchmark process only: nothing here is secret)."""
    rng = random.Random(seed)

    def token_bytes(nbytes: int | None = None) -> bytes:
        return rng.randbytes(32 if nbytes is None else nbytes)

    def token_hex(nbytes: int | None = None) -> str:
        return token_bytes(nbytes).hex()

    def randbits(k: int) -> int:
        return rng.getrandbits(k)

    secrets.token_bytes, secrets.token_hex, secrets.randbits = token_bytes, token_hex, randbits


if __name__ == "__main__":
    sys.exit(main())
