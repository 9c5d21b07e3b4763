"""The replay viewer as a program: a finished game's exported record, full screen, step by step.

    python -m sushigo.client.replay FILE [--key HEX]
    sushigo-client --replay FILE
    sushigo-replay FILE --view, sushigo-replay --db PATH GAME_ID --view   (which run this)

FILE is a record as ``sushigo-replay --export`` writes it (`protocol.records.export_bytes`).
``--key`` pins the signature to the server's public key (hex); without it the key the file
names is checked and the screen says it is not pinned. Exit codes, as `sushigo-replay`'s: 0 the
record verified, 1 it did not or cannot be read, 2 a usage error, 130 left with Ctrl-C.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sushigo.protocol.records import import_bytes

from .tui.replay_state import Replay, ReplayError, open_record
from .tui.replay_view import run_replay

__all__ = ["load", "main", "view_file"]


def load(path: Path, server_key: bytes | None = None) -> Replay:
    """The replay of an exported record file; `ReplayError` saying why it cannot be shown."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ReplayError(f"cannot read {path}: {exc.strerror}") from None
    try:
        signed, names = import_bytes(data)
    except ValueError as exc:
        raise ReplayError(f"{path} is not an exported sushigo record ({exc})") from None
    return open_record(signed, server_key, names)


def view_file(path: Path, server_key: bytes | None = None, prog: str = "sushigo-replay") -> int:
    """Show an exported record until the person leaves; the exit code."""
    try:
        replay = load(path, server_key)
    except ReplayError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 1
    return run_replay(replay)


def _key(text: str) -> bytes:
    try:
        key = bytes.fromhex(text)
    except ValueError:
        raise argparse.ArgumentTypeError("not hex") from None
    if len(key) != 32:
        raise argparse.ArgumentTypeError(f"an Ed25519 public key is 32 bytes, not {len(key)}")
    return key


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m sushigo.client.replay``."""
    p = argparse.ArgumentParser(
        prog="sushigo-replay --view", description="Step through a finished game's record."
    )
    p.add_argument("file", type=Path, help="an exported record (sushigo-replay --export)")
    p.add_argument("--key", type=_key, default=None, help="the server's public key, in hex")
    args = p.parse_args(argv)
    return view_file(args.file, args.key)


if __name__ == "__main__":
    sys.exit(main())
