"""Our finished games from a server, over the protocol: listed, or one fetched to a file.

    python -m sushigo.client.fetch HOST:PORT [--identity KEY] [--tls]            (list them)
    python -m sushigo.client.fetch HOST:PORT GAME_ID --out FILE [--identity KEY] [--tls]

`sushigo-replay HOST:PORT [GAME_ID]` runs this (the server's command never imports the client:
docs/ARCHITECTURE.md, "Packages") and shows and verifies the file it writes. A player logged in
with their key (``--identity``, the key file of ``sushigo-client --key``) gets every game stored
under it; a guest has none (a guest's games are its session's, and this session is new). The
file is the one ``sushigo-replay --export`` writes, with the server key the server gave in
WELCOME (over ``--tls``, pinned in the known-hosts file as the terminal client pins it).
Exit codes: 0 done, 1 anything else, 2 a usage error, 130 after Ctrl-C; always one line saying
why.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

from sushigo.engine import EngineError, rules
from sushigo.protocol import ErrorCode
from sushigo.protocol.about import interrupted
from sushigo.protocol.records import export_bytes

from .address import AddressError, parse_address
from .connection import Client, ConnectError, ConnectionLost, ServerError
from .identity import KeyFileError, load_or_create_key
from .known_hosts import KnownHosts, KnownHostsError
from .stopping import stoppable

__all__ = ["main"]


def parser() -> argparse.ArgumentParser:
    """The command line."""
    p = argparse.ArgumentParser(
        prog="sushigo-replay", description="List or fetch our finished games from a server."
    )
    p.add_argument("address", help="the server, HOST:PORT")
    p.add_argument("game", nargs="?", help="the game to fetch (without it: list our games)")
    p.add_argument("--out", type=Path, help="where to write the fetched game's record")
    p.add_argument("--identity", type=Path, help="our key file (as sushigo-client --key)")
    p.add_argument("--tls", action="store_true", help="connect with TLS (certificate pinned)")
    p.add_argument("--known-hosts", type=Path, help="pinned TLS certificates file")
    p.add_argument("--limit", type=int, default=20, help="games to list (default 20)")
    return p


async def _run(args: argparse.Namespace) -> int:
    host, port = parse_address(args.address)
    key = load_or_create_key(args.identity) if args.identity is not None else None
    known = KnownHosts(args.known_hosts) if args.known_hosts is not None else None
    client = await Client.connect_unique(
        host, port, name="replay", tls=args.tls, key=key, known_hosts=known, software="replay"
    )
    try:
        if args.game is None:
            page = await client.my_games(limit=max(1, min(args.limit, 50)))
            if page.guest:
                print("a guest has no stored games: give your key with --identity")
            elif not page.games:
                print("no finished games of yours on this server")
            for game in page.games:
                when = time.strftime("%Y-%m-%d %H:%M", time.gmtime(game.finished_ms / 1000))
                scores = ", ".join(f"{r.name} {r.score}" for r in game.players)
                print(f"{game.game_id}  {when}  {_title(game.kind):<10}  {scores}")
            return 0
        found = await client.get_record(args.game)
        names = [r.name for r in found.game.players]
        args.out.write_bytes(export_bytes(found.record, names))
        return 0
    finally:
        await client.close()


def main(argv: list[str] | None = None) -> int:
    """Entry point; the exit code."""
    p = parser()
    args = p.parse_intermixed_args(argv)
    if args.game is not None and args.out is None:
        p.error("fetching a game needs --out")
    try:
        return asyncio.run(stoppable("sushigo-replay", _run(args)))
    except (AddressError, KeyFileError, KnownHostsError, ConnectError, OSError) as exc:
        print(f"sushigo-replay: error: {exc}", file=sys.stderr)
    except ServerError as exc:
        error = exc.error
        mine = error.error_code is ErrorCode.NO_SUCH_TABLE
        why = "not a game of yours on this server" if mine else error.message
        print(f"sushigo-replay: error: {args.game}: {why}", file=sys.stderr)
    except ConnectionLost as exc:
        print(f"sushigo-replay: error: the server closed the connection: {exc}", file=sys.stderr)
    except KeyboardInterrupt:
        return interrupted("sushigo-replay")
    return 1


def _title(kind: str) -> str:
    """A game's name as the other listings give it ("Sushi Go!"), or its kind if not installed."""
    try:
        return rules(kind).title
    except EngineError:
        return kind


if __name__ == "__main__":
    sys.exit(main())
