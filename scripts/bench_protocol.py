"""Protocol throughput: frames encoded and decoded per second, commitments made and checked.

    .venv/bin/python scripts/bench_protocol.py [--seconds 1.0]

Typical game traffic: a seat's TURN_START (with a full observation), a COMMIT, a REVEAL and a
TURN_RESULT for 4 players. Each figure is a full round trip through the public API: typed message
-> frame bytes -> frame decoder -> validated typed message.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable

from sushigo.engine import Game, GameOptions
from sushigo.protocol import (
    CARD_WIRE,
    CLIENT_LIMITS,
    SERVER_LIMITS,
    FrameDecoder,
    Limits,
    Opening,
    encode_frame,
    make_commitment,
    messages,
    verify_commitment,
)
from sushigo.protocol._registry import Role


def _sample_messages() -> list[tuple[str, messages.Message]]:
    rnd = random.Random(1)
    game = Game(GameOptions(players=4), b"bench")
    for _ in range(3):
        game.apply([rnd.choice(game.legal_actions(s)) for s in range(4)])
    picks = [rnd.choice(game.legal_actions(s)) for s in range(4)]
    nonce = bytes(range(32))
    return [
        (
            "turn_start",
            messages.TurnStart(
                round=game.round,
                turn=game.turn,
                seats=(0, 1, 2, 3),
                observation=game.observation(0),
                deadline_ms=60000,
            ),
        ),
        ("commit", messages.Commit(ref=9, round=1, turn=4, commitment=nonce)),
        ("reveal", messages.Reveal(ref=10, round=1, turn=4, action=picks[0], nonce=nonce)),
        (
            "turn_result",
            messages.TurnResult(
                round=1,
                turn=4,
                openings=tuple(Opening(action=a, nonce=nonce) for a in picks),
            ),
        ),
    ]


def _rate(work: Callable[[], None], seconds: float, batch: int) -> float:
    """Calls of `work` per second (each call does `batch` operations)."""
    done = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        work()
        done += batch
    return done / elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=1.0, help="time per figure (default 1)")
    args = parser.parse_args(argv)
    if args.seconds <= 0:
        parser.error("--seconds must be positive")

    for name, message in _sample_messages():
        client = message.SENDER is Role.CLIENT
        limits = CLIENT_LIMITS if client else SERVER_LIMITS
        seq = None if client else 1
        size = len(encode_frame(messages.encode_message(message, seq, CARD_WIRE), limits))

        def round_trip(
            message: messages.Message = message, seq: int | None = seq, limits: Limits = limits
        ) -> None:
            decoder = FrameDecoder(limits)
            for _ in range(100):
                decoder.receive_data(
                    encode_frame(messages.encode_message(message, seq, CARD_WIRE), limits)
                )
                messages.decode_message(decoder.next_value(), message.SENDER, CARD_WIRE)

        rate = _rate(round_trip, args.seconds, 100)
        print(f"{name:12} {size:5d} bytes  {rate:10,.0f} frames/s encode+decode")

    game = Game(GameOptions(players=4), b"bench")
    action = CARD_WIRE.commit_bytes(game.legal_actions(0)[0])
    nonce = bytes(32)

    def commit_verify() -> None:
        for turn in range(1, 101):
            c = make_commitment("t-1", 1, turn % 11 + 1, 2, action, nonce)
            if not verify_commitment(c, "t-1", 1, turn % 11 + 1, 2, action, nonce):
                raise AssertionError("a commitment failed to verify")

    rate = _rate(commit_verify, args.seconds, 100)
    print(f"{'commitment':12} {'':11} {rate:10,.0f} create+verify/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
