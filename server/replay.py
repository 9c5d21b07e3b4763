"""`sushigo-replay`: list, show and verify finished games.

    sushigo-replay --db PATH|URL              list the finished games in a server's database
    sushigo-replay --db PATH|URL GAME_ID      show one game turn by turn and verify it
    sushigo-replay --db PATH|URL GAME_ID --export FILE   write its signed record to FILE
    sushigo-replay FILE                       show and verify an exported record
    sushigo-replay ... --view                 step through the game full screen instead

`--db` is an SQLite file or a PostgreSQL URL, as for `sushigo-server`. Each record is checked
against the public key stored with it (a server stores the key that signed each game; the first
server that opens a database made before it did fills it in for the games its key signed), so no
key file is needed. `--key` names the server's key file instead: then every record must be
signed by it. For a record with no key stored, the key file in its default place (beside an
SQLite file) or, on a cluster's database, the key its nodes registered is used. The listing says
of each game whether it verifies.

Verifying checks the server's Ed25519 signature, that the revealed server seed opens the hash
published before the game, that every pick opens its commitment, and that replaying the engine
from the re-derived seed reaches the recorded scores. Sushi Roll records (no commitments) are
replayed action by action, every die re-derived from the seeds. Exit codes: 0 verified, 1 a check failed or
the record cannot be read, 2 a usage error, 130 after Ctrl-C.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from sushigo.engine import EngineError, rules
from sushigo.protocol import (
    FairRecord,
    ProtocolError,
    SignedRecord,
    verify_record,
    verify_signed_record,
)
from sushigo.protocol.about import INTERRUPTED, version_text
from sushigo.protocol.records import export_bytes, import_bytes

from .cluster.node import cluster_key
from .keys import KeyFileError, load_or_create_server_key, public_key_bytes
from .options import default_db, key_path
from .storage.contract import Storage, StorageError, StoredRecord
from .storage.database import is_url, open_storage


class ReplayError(Exception):
    """A record that cannot be read; the message says why."""


def load_file(path: Path) -> tuple[SignedRecord, tuple[str, ...]]:
    """An exported record (`protocol.records.export_bytes`) and the names it carries."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ReplayError(f"cannot read {path}: {exc.strerror}") from None
    try:
        return import_bytes(data)
    except ValueError as exc:  # anything malformed in the file: one clear line
        raise ReplayError(f"{path} is not an exported sushigo record ({exc})") from None


def export(signed: SignedRecord, path: Path, names: Sequence[str] = ()) -> None:
    """Write a signed record (and the seats' names) to a file `load_file` reads."""
    path.write_bytes(export_bytes(signed, names))


def describe(record: FairRecord, names: list[str] | None = None) -> list[str]:
    """The game step by step, as lines of text (any installed game: its rules say what its
    actions and notable events are in words)."""
    try:
        game_rules = rules(record.game)
    except EngineError as exc:
        return [f"table {record.table_id}: {exc}"]
    game = game_rules.new_game(record.options, record.game_seed())
    n = game.players
    given = names or []
    names = [given[i] if i < len(given) else f"seat {i + 1}" for i in range(n)]
    # Seats numbered from 1, and the steps by what they count (a cycle in Sushi Roll): as the
    # screens say them.
    step_word = getattr(game_rules, "step_word", "turn")
    _, variants = game_rules.describe_options(record.options)
    lines = [
        f"table {record.table_id}: {game_rules.title}, {n} players"
        + "".join(f", {v}" for v in variants),
        "players: " + ", ".join(f"{i}:{name}" for i, name in enumerate(names, 1)),
    ]
    for step in record.steps:
        picks = "  ".join(
            f"{names[s] if s < len(names) else s + 1}="
            f"{game_rules.describe(o.action)}{'*' if o.auto else ''}"
            for s, o in zip(step.seats, step.openings, strict=False)
        )
        lines.append(f"round {step.round} {step_word} {step.turn:2}: {picks}")
        try:
            events = game.step([o.action for o in step.openings])
        except EngineError:
            break  # the verification names the step
        lines += [f"  {text}" for e in events if (text := game_rules.describe_event(e))]
    if game.is_terminal():
        label = [names[i] if i < n else "dummy" for i in range(len(game.scores()))]
        won = " and ".join(label[w] for w in game.winners())
        totals = ", ".join(f"{label[i]} {score}" for i, score in enumerate(game.scores()))
        lines.append(f"final: {totals} · won by {won}")
    if any(o.auto for step in record.steps for o in step.openings):
        lines.append("(* = chosen by the server: a timeout, or a bot playing for the seat)")
    return lines


def check(signed: SignedRecord, server_key: bytes | None) -> tuple[FairRecord | None, list[str]]:
    """The record (of any installed game) and every failed check (empty: verified)."""
    try:
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
    p.add_argument("--version", action="version", version=version_text("sushigo-replay"))
    p.add_argument(
        "target",
        nargs="?",
        help="a game id (with --db), an exported record file, or a server's HOST:PORT",
    )
    p.add_argument(
        "game", nargs="?", help="after HOST:PORT: one of our games on that server (else a list)"
    )
    p.add_argument(
        "--identity",
        type=Path,
        default=None,
        metavar="PATH",
        help="with HOST:PORT: our key file (as sushigo-client --key), whose games to fetch",
    )
    p.add_argument("--tls", action="store_true", help="with HOST:PORT: connect with TLS")
    p.add_argument(
        "--db",
        default=None,
        metavar="PATH|URL",
        help=f"the server's database: SQLite file (default {default_db()}) or PostgreSQL URL",
    )
    p.add_argument(
        "--key",
        type=Path,
        default=None,
        metavar="PATH",
        help="check against this server key file (default: the key stored with each record)",
    )
    p.add_argument(
        "--export", type=Path, default=None, help="write the game's signed record to this file"
    )
    p.add_argument("--limit", type=int, default=20, help="games to list (default 20)")
    p.add_argument(
        "--view",
        action="store_true",
        help="step through the game full screen (the terminal client's replay viewer)",
    )
    args = p.parse_intermixed_args(argv)  # HOST:PORT --identity K GAME_ID: ids after options
    if args.view and not args.target:
        p.error("--view needs a game id (with --db) or a record file")
    try:
        return _run(args)
    except (ReplayError, StorageError, KeyFileError) as exc:
        print(f"sushigo-replay: error: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # The reader went away (`sushigo-replay | head`): stop quietly, as Unix tools do; the
        # output still buffered goes nowhere instead of raising again at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _run(args: argparse.Namespace) -> int:
    if args.target and args.db is None and _is_address(args.target):
        return _from_server(args)
    if args.game is not None:
        raise ReplayError(f"a second argument ({args.game!r}) only follows a server's HOST:PORT")
    if args.target and args.db is None and Path(args.target).is_file():
        path = Path(args.target)
        signed, names = load_file(path)
        if args.view:
            return view(path, None)
        return _show(signed, None, list(names) or None)
    db: str = args.db or str(default_db())
    if not is_url(db) and not Path(db).exists():
        raise ReplayError(f"no database at {db} (give one with --db)")
    keys = Keys(db, args.key)
    with open_storage(db, read_only=True) as storage:
        if not args.target:
            return _list(storage, keys, max(1, args.limit))
        stored = storage.get_record(args.target)
        if stored is None:
            raise ReplayError(
                f"no game {args.target!r} in {storage.path} (run without a game id to list them)"
            )
    server_key = keys.of(stored)
    if server_key is None:
        raise ReplayError(keys.missing())
    signed = SignedRecord(record=stored.record, signature=stored.signature, server_key=server_key)
    if args.export is not None:
        export(signed, args.export, [r.name for r in stored.players])
        print(f"wrote {args.export}")
    if args.view:
        with tempfile.TemporaryDirectory(prefix="sushigo-replay-") as folder:
            path = Path(folder) / f"{args.target}.rec"
            export(signed, path, [r.name for r in stored.players])
            return view(path, server_key)
    return _show(signed, server_key, [r.name for r in stored.players])


class Keys:
    """The key each record of a database is checked against (see the module docstring)."""

    def __init__(self, db: str, given: Path | None) -> None:
        self.db = db
        self.given = given
        self._file = key_path(db, given)
        self._fallback: bytes | None = None
        self._looked = False

    def of(self, stored: StoredRecord) -> bytes | None:
        """The key to check `stored` against (None: none is known)."""
        if self.given is None and stored.server_key is not None:
            return stored.server_key
        return self.fallback()

    def fallback(self) -> bytes | None:
        """The key file's public key (`--key`, or the default place), or a cluster's key."""
        if not self._looked:
            self._looked = True
            if self._file.exists():
                self._fallback = public_key_bytes(load_or_create_server_key(self._file))
            elif self.given is None and is_url(self.db):
                # A cluster's database says which key its nodes sign with.
                self._fallback = cluster_key(self.db)
        return self._fallback

    def missing(self) -> str:
        return (
            f"no key is stored with this game and the server key {self._file} is missing:"
            " the signature cannot be checked"
        )


def _list(storage: Storage, keys: Keys, limit: int) -> int:
    """The newest `limit` finished games (asked for one more: whether there are more), a line
    each: id, when, the game, the table, every player's score, and whether it verifies (`check`);
    a last line when more are stored."""
    games = storage.list_records(limit=limit + 1)
    if not games:
        print("no finished games yet")
    failed = 0
    for g in games[:limit]:
        when = time.strftime("%Y-%m-%d %H:%M", time.gmtime(g.finished_ms / 1000))
        try:
            title = rules(g.kind).title
        except EngineError:
            title = g.kind  # a game this installation lacks
        scores = ", ".join(f"{r.name} {r.score}" for r in g.players)
        stored = storage.get_record(g.game_id)
        key = None if stored is None else keys.of(stored)
        if stored is None or key is None:
            mark = "NOT VERIFIED (no key to check it with)"
        else:
            signed = SignedRecord(record=stored.record, signature=stored.signature, server_key=key)
            _, problems = check(signed, key)
            mark = "verified" if not problems else f"NOT VERIFIED ({problems[0]})"
        failed += mark != "verified"
        print(f"{g.game_id}  {when}  {title:<10}  table {g.table_id}  {scores}  {mark}")
    if len(games) > limit:
        print(f"(the newest {limit} games; more are stored: --limit N lists more)")
    return 1 if failed else 0


FETCHER = "sushigo.client.fetch"
"""The program that asks a server for our games (`python -m`): the client's, like the viewer."""


def _is_address(target: str) -> bool:
    """`target` names a server (``HOST:PORT``, ``[::1]:PORT``), not a file or a game id."""
    if Path(target).exists():
        return False
    host, sep, port = target.rpartition(":")
    return bool(sep and host and port.isdigit())


def _from_server(args: argparse.Namespace) -> int:
    """Our games on a server: listed, or one fetched (by the client's program, run as the viewer
    is), then shown and verified here against the key the server gave."""
    command = [sys.executable, "-m", FETCHER, args.target]
    if args.identity is not None:
        command += ["--identity", str(args.identity)]
    if args.tls:
        command.append("--tls")
    if args.game is None:
        return _call([*command, "--limit", str(max(1, args.limit))])
    with tempfile.TemporaryDirectory(prefix="sushigo-replay-") as folder:
        path = Path(folder) / "fetched.rec"
        code = _call([*command, args.game, "--out", str(path)])
        if code != 0:
            return code
        signed, names = load_file(path)
        if args.export is not None:
            export(signed, args.export, list(names))
            print(f"wrote {args.export}")
        if args.view:
            return view(path, None)
        return _show(signed, None, list(names) or None)


def _call(command: list[str]) -> int:
    """Run one of the client's programs (``python -m MODULE ...``) and wait for it; its exit
    code. A SIGTERM meanwhile is passed on to it (it stops cleanly and says so: README, "Exit
    codes"), and its code is ours."""
    try:
        child = subprocess.Popen(command)
    except OSError as exc:
        raise ReplayError(f"cannot start {command[2]}: {exc.strerror or exc}") from None
    try:
        before = signal.signal(signal.SIGTERM, lambda signum, frame: child.send_signal(signum))
    except ValueError:  # called outside the main thread: no signal is ours
        before = None
    try:
        return child.wait()
    except KeyboardInterrupt:  # (the program run says so: Ctrl-C reaches it too)
        try:
            child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
        return INTERRUPTED
    finally:
        if before is not None:
            signal.signal(signal.SIGTERM, before)


VIEWER = "sushigo.client.replay"
"""The replay viewer's program (`python -m`)."""


def view(path: Path, server_key: bytes | None) -> int:
    """Step through the record in `path` with the terminal client's viewer; its exit code.

    The viewer is the client's (prompt_toolkit, the games' boards), and the server never imports
    the client (docs/ARCHITECTURE.md, "Packages"): so it runs as a program of its own, handed
    the exported record. It is waited for rather than exec'd into, so that a temporary export is
    removed when it ends, however it ends."""
    command = [sys.executable, "-m", VIEWER, str(path)]
    if server_key is not None:
        command += ["--key", server_key.hex()]
    return _call(command)


def _show(signed: SignedRecord, server_key: bytes | None, names: list[str] | None) -> int:
    record, problems = check(signed, server_key)
    if record is not None:
        for line in describe(record, names):
            print(line)
    if problems:
        print("NOT VERIFIED:")
        for problem in problems:
            print(f"  - {problem}")
        return 1
    picks = "every commitment" if record is None or rules(record.game).secret else "every roll"
    print(
        f"verified: signature, seed commitment, {picks} and the replayed game and scores check out"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
