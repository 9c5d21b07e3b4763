"""`sushigo-replay`: list, show and verify finished games.

    sushigo-replay --db PATH                  list the finished games in a server's database
    sushigo-replay --db PATH GAME_ID          show one game turn by turn and verify it
    sushigo-replay --db PATH GAME_ID --export FILE   write its signed record to FILE
    sushigo-replay FILE                       show and verify an exported record

Verifying checks the server's Ed25519 signature, that the revealed server seed opens the hash
published before the game, that every pick opens its commitment, and that replaying the engine
from the re-derived seed reaches the recorded scores. Sushi Roll records (no commitments) are
replayed action by action, every die re-derived from the seeds. Exit codes: 0 verified, 1 a check failed or
the record cannot be read, 2 a usage error.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import msgpack

from sushigo.engine import Game, RoundScored
from sushigo.engine.roll import RollGame, Taken
from sushigo.engine.roll import RoundScored as RollRoundScored
from sushigo.protocol import (
    FairRecord,
    ProtocolError,
    RollFairRecord,
    SignedRecord,
    verify_record,
    verify_roll_record,
    verify_signed_record,
    verify_signed_roll_record,
)
from sushigo.protocol.roll import ROLL_RECORD_FORMAT

from .cli import default_db
from .keys import KeyFileError, load_or_create_server_key, public_key_bytes
from .storage import Storage, StorageError


class ReplayError(Exception):
    """A record that cannot be read; the message says why."""


def load_file(path: Path) -> SignedRecord:
    """An exported record (msgpack map of record, signature and server_key)."""
    try:
        data = msgpack.unpackb(
            path.read_bytes(), raw=False, max_bin_len=1 << 20, max_str_len=1 << 16
        )
        return SignedRecord(
            record=bytes(data["record"]),
            signature=bytes(data["signature"]),
            server_key=bytes(data["server_key"]),
        )
    except OSError as exc:
        raise ReplayError(f"cannot read {path}: {exc.strerror}") from None
    except Exception as exc:  # anything malformed in the file: one clear line
        raise ReplayError(f"{path} is not an exported sushigo record ({exc!r})") from None


def export(signed: SignedRecord, path: Path) -> None:
    """Write a signed record to a file `load_file` reads."""
    data = {"record": signed.record, "signature": signed.signature, "server_key": signed.server_key}
    path.write_bytes(msgpack.packb(data, use_bin_type=True))


def describe(record: FairRecord, names: list[str] | None = None) -> list[str]:
    """The game turn by turn, as lines of text."""
    n = record.options.players
    names = names or [f"seat {i}" for i in range(n)]
    lines = [
        f"table {record.table_id}: {n} players"
        + "".join(f", {v}" for v in record.options.variants()),
        "players: " + ", ".join(f"{i}:{name}" for i, name in enumerate(names)),
    ]
    game = Game(record.options, record.game_seed())
    for t in record.turns:
        picks = "  ".join(
            f"{names[s] if s < len(names) else s}={o.action.describe()}{'*' if o.auto else ''}"
            for s, o in enumerate(t.openings)
        )
        lines.append(f"round {t.round} turn {t.turn:2}: {picks}")
        for event in game.apply([o.action for o in t.openings]):
            if isinstance(event, RoundScored):
                lines.append(
                    _round_line(event.round, [p.total for p in event.points], event.totals)
                )
    if game.is_terminal():
        lines.append(_final_line(game.scores(), game.winners()))
    lines.append("(* = picked by the server after a timeout)")
    return lines


def describe_roll(record: RollFairRecord, names: list[str] | None = None) -> list[str]:
    """A Sushi Roll game action by action, as lines of text."""
    n = record.options.players
    names = names or [f"seat {i}" for i in range(n)]
    lines = [
        f"table {record.table_id}: Sushi Roll, {n} players",
        "players: " + ", ".join(f"{i}:{name}" for i, name in enumerate(names)),
    ]
    game = RollGame(record.options, record.game_seed())
    for step in record.steps:
        where = f"round {game.round} cycle {game.cycle}"
        who = names[step.seat] if step.seat < len(names) else str(step.seat)
        events = game.apply(step.seat, step.action)
        what = step.action.describe()
        for event in events:
            if isinstance(event, Taken):
                what += f" ({event.die.describe()})"
        lines.append(f"{where}: {who} {what}{'*' if step.auto else ''}")
        for event in events:
            if isinstance(event, RollRoundScored):
                lines.append(
                    _round_line(event.round, [p.total for p in event.points], event.totals)
                )
    if game.is_terminal():
        lines.append(_final_line(game.scores(), game.winners()))
    lines.append("(* = chosen by the server after a timeout)")
    return lines


def _round_line(round_: int, points: Sequence[int], totals: Sequence[int]) -> str:
    """A round's scores in a replay listing (both games)."""
    return (
        f"  round {round_} scores: "
        + ", ".join(f"{p:+}" for p in points)
        + "  totals: "
        + ", ".join(map(str, totals))
    )


def _final_line(scores: Sequence[int], winners: Sequence[int]) -> str:
    """A finished game's last line in a replay listing (both games)."""
    return "final: " + ", ".join(map(str, scores)) + f"  winners: {list(winners)}"


def _is_roll(signed: SignedRecord) -> bool:
    """The record says it is a Sushi Roll record (the verifier checks everything else)."""
    try:
        data = msgpack.unpackb(signed.record, raw=False)
    except Exception:  # not msgpack at all: the card game's verifier says what is wrong
        return False
    return isinstance(data, dict) and data.get("format") == ROLL_RECORD_FORMAT


def check(
    signed: SignedRecord, server_key: bytes | None
) -> tuple[FairRecord | RollFairRecord | None, list[str]]:
    """The record (of either game) and every failed check (empty: verified)."""
    try:
        if _is_roll(signed):
            roll = verify_signed_roll_record(signed, server_key)
            return roll, list(verify_roll_record(roll).problems)
        record = verify_signed_record(signed, server_key)
    except ProtocolError as exc:
        return None, [f"signature: {exc}"]
    report = verify_record(record)
    return record, list(report.problems)


def main(argv: list[str] | None = None) -> int:
    """Entry point of `sushigo-replay`."""
    p = argparse.ArgumentParser(
        prog="sushigo-replay", description="List, show and verify finished games."
    )
    p.add_argument("target", nargs="?", help="a game id (with --db) or an exported record file")
    p.add_argument(
        "--db", type=Path, default=None, help=f"the server's database (default {default_db()})"
    )
    p.add_argument(
        "--export", type=Path, default=None, help="write the game's signed record to this file"
    )
    p.add_argument("--limit", type=int, default=20, help="games to list (default 20)")
    args = p.parse_args(argv)
    try:
        return _run(args)
    except (ReplayError, StorageError, KeyFileError) as exc:
        print(f"sushigo-replay: error: {exc}", file=sys.stderr)
        return 1


def _run(args: argparse.Namespace) -> int:
    if args.target and args.db is None and Path(args.target).is_file():
        signed = load_file(Path(args.target))
        return _show(signed, None, None)
    db: Path = args.db or default_db()
    if not db.exists():
        raise ReplayError(f"no database at {db} (give one with --db)")
    with Storage(db) as storage:
        if not args.target:
            games = storage.list_records(limit=max(1, args.limit))
            if not games:
                print("no finished games yet")
            for g in games:
                when = time.strftime("%Y-%m-%d %H:%M", time.gmtime(g.finished_ms / 1000))
                scores = ", ".join(f"{r.name} {r.score}" for r in g.players)
                print(f"{g.game_id}  {when}  table {g.table_id}  {scores}")
            return 0
        stored = storage.get_record(args.target)
        if stored is None:
            raise ReplayError(
                f"no game {args.target!r} in {db} (run without a game id to list them)"
            )
    key_file = db.with_name(db.name + ".key")
    server_key = (
        public_key_bytes(load_or_create_server_key(key_file)) if key_file.exists() else None
    )
    if server_key is None:
        raise ReplayError(f"the server key {key_file} is missing: the signature cannot be checked")
    signed = SignedRecord(record=stored.record, signature=stored.signature, server_key=server_key)
    if args.export is not None:
        export(signed, args.export)
        print(f"wrote {args.export}")
    return _show(signed, server_key, [r.name for r in stored.players])


def _show(signed: SignedRecord, server_key: bytes | None, names: list[str] | None) -> int:
    record, problems = check(signed, server_key)
    if record is not None:
        lines = (
            describe_roll(record, names)
            if isinstance(record, RollFairRecord)
            else describe(record, names)
        )
        for line in lines:
            print(line)
    if problems:
        print("NOT VERIFIED:")
        for problem in problems:
            print(f"  - {problem}")
        return 1
    if isinstance(record, RollFairRecord):
        print("verified: signature, seed commitment and the replayed dice and scores check out")
    else:
        print(
            "verified: signature, seed commitment, every commitment and the replayed scores"
            " check out"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
