"""`sushigo-tournament`: create, start and watch tournaments on a server.

    sushigo-tournament HOST:PORT [--tls] list
    sushigo-tournament HOST:PORT create NAME [--players 4] [--games 12] [--format round_robin]
                       [--variant V ...] [--turn-seconds 30] [--entrants K] [--csv F] [--json F]
    sushigo-tournament HOST:PORT start NAME --key FILE
    sushigo-tournament HOST:PORT watch NAME [--csv F] [--json F]

`create` with `--entrants K` waits for K entrants (bots join with `sushigo-bot --tournament NAME`),
starts the tournament, shows the standings live and writes them as CSV and/or JSON at every update
until the last game. The host is whoever created it: to start it from another invocation, use the
same `--key` identity for both.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import io
import json
import sys
from pathlib import Path

from sushigo.engine import EngineError, rules
from sushigo.protocol import (
    ErrorCode,
    TournamentFormat,
    TournamentInfo,
    TournamentSettings,
    TournamentStatus,
    TournamentUpdate,
)
from sushigo.protocol.about import interrupted, version_text

from .args import PLAYERS_HELP, add_game, address, check_players, count
from .connection import Client, ConnectError, ConnectionLost, ServerError, reconnect
from .identity import KeyFileError, load_or_create_key
from .stopping import stoppable


def standings_rows(info: TournamentInfo) -> list[dict[str, object]]:
    """The standings as plain rows (rank first), for the table, CSV and JSON."""
    return [
        {
            "rank": rank,
            "player_id": s.player_id,
            "name": s.name,
            "games": s.games,
            "wins": s.wins_milli / 1000,
            "points": s.points,
            "mean_place": s.mean_place_milli / 1000,
            "rating": s.rating_milli / 1000,
        }
        for rank, s in enumerate(info.standings, 1)
    ]


def to_csv(info: TournamentInfo) -> str:
    """The standings as CSV with a header row."""
    out = io.StringIO()
    fields = ["rank", "player_id", "name", "games", "wins", "points", "mean_place", "rating"]
    writer = csv.DictWriter(out, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    writer.writerows(standings_rows(info))
    return out.getvalue()


def to_json(info: TournamentInfo) -> str:
    """The tournament and its standings as JSON."""
    s = info.settings
    return json.dumps(
        {
            "tournament": s.name,
            "status": str(info.status),
            "players_per_game": s.players,
            "games": s.games,
            "games_done": info.games_done,
            "format": str(s.format),
            "game": s.kind,
            "variants": list(s.variants),
            "standings": standings_rows(info),
        },
        indent=2,
    )


def render(info: TournamentInfo) -> str:
    """The standings as a text table."""
    s = info.settings
    lines = [
        f"{s.name}: {info.status}, {info.games_done}/{s.games} games done"
        f" ({info.games_running} running), {s.players} per game, {s.format}",
        f"{'#':>3} {'name':<24} {'games':>5} {'wins':>6} {'points':>7} {'place':>6} {'rating':>7}",
    ]
    for row in standings_rows(info):
        lines.append(
            f"{row['rank']:>3} {row['name']!s:<24} {row['games']:>5} {row['wins']:>6.2f}"
            f" {row['points']:>7} {row['mean_place']:>6.2f} {row['rating']:>7.2f}"
        )
    return "\n".join(lines)


def _write(info: TournamentInfo, args: argparse.Namespace) -> None:
    if args.csv is not None:
        args.csv.write_text(to_csv(info))
    if args.json is not None:
        args.json.write_text(to_json(info))


WATCH_PATIENCE = 60.0
"""Seconds a watch after a fresh login is asked again while the tournament is on its way back (a
restarted server, or a cluster's node taking a dead node's tournaments over after its lease)."""


async def watch_again(client: Client, name: str) -> TournamentInfo:
    """Watch `name` again after a fresh login, or after a redirect to it was refused: while no
    server runs it yet (NO_SUCH_TABLE; a redirect to its dead node, which cannot be reached; or
    to the node taking it over, which refuses the ticket until it has: UNKNOWN_SESSION, and we
    are back where we were), ask again, for `WATCH_PATIENCE`."""
    loop = asyncio.get_running_loop()
    until = loop.time() + WATCH_PATIENCE
    while True:
        try:
            return await client.watch_tournament(name)
        except ServerError as exc:
            again = exc.code in (ErrorCode.NO_SUCH_TABLE, ErrorCode.UNKNOWN_SESSION)
            if not again or loop.time() > until:
                raise
        except (ConnectError, ConnectionLost):
            if loop.time() > until:
                raise
            await reconnect(client)
        await asyncio.sleep(0.5)


async def _follow(client: Client, name: str, args: argparse.Namespace, need: int | None) -> int:
    """Print each update; start at `need` entrants (when given); stop when it finishes.

    Started again whenever an update says it still registers with `need` entrants. (A start
    asked on an update sent before our first was answered is refused, NOT_ALLOWED: it started.)"""
    while True:
        try:
            event = await client.next_event()
        except ConnectionLost:
            if await reconnect(client) is not None:
                continue
            # The server restarted, or its node died (a fresh login): watch again.
            event = TournamentUpdate(tournament=await watch_again(client, name))
        if not isinstance(event, TournamentUpdate) or event.tournament.settings.name != name:
            continue
        info = event.tournament
        if need is not None and info.status is TournamentStatus.REGISTERING:
            print(f"{len(info.standings)}/{need} entrants", flush=True)
            if len(info.standings) >= need:
                try:
                    info = await client.start_tournament(name)
                except ServerError as exc:
                    if exc.code is not ErrorCode.NOT_ALLOWED:
                        raise
                    continue
        print(render(info), flush=True)
        _write(info, args)
        if info.status is TournamentStatus.FINISHED:
            return 0


DEFAULT_NAME = "organiser"
"""The name of a run without ``--name``."""


async def run(args: argparse.Namespace) -> int:
    """Carry out the subcommand."""
    host, port = args.address
    key = load_or_create_key(args.key) if args.key is not None else None
    # A name given is that name or an error; the default is numbered while another holds it
    # (a registered player's name stays theirs: "organiser" may be someone's).
    connect = Client.connect if args.name is not None else Client.connect_unique
    client = await connect(
        host,
        port,
        name=args.name or DEFAULT_NAME,
        tls=args.tls,
        key=key,
        software="sushigo-tournament",
    )
    try:
        if args.command == "list":
            tournaments = await client.list_tournaments()
            if not tournaments:
                print("no tournaments")
            for t in tournaments:
                print(f"{t.settings.name}: {t.status}, {t.games_done}/{t.settings.games} games")
            return 0
        if args.command == "create":
            settings = TournamentSettings(
                name=args.tournament,
                kind=args.game,
                players=args.players,
                variants=tuple(dict.fromkeys(args.variant)),
                games=args.games,
                format=TournamentFormat(args.format),
                turn_seconds=args.turn_seconds,
            )
            info = await client.create_tournament(settings)
            print(
                f"created {info.settings.name!r}: bots enter with"
                f" `sushigo-bot {args.address_text}{' --tls' if args.tls else ''}"
                f" --tournament {info.settings.name}`",
                flush=True,
            )
            if args.entrants is None:
                return 0
            return await _follow(client, args.tournament, args, args.entrants)
        if args.command == "start":
            info = await client.start_tournament(args.tournament)
            print(render(info))
            return 0
        info = await client.watch_tournament(args.tournament)
        print(render(info), flush=True)
        _write(info, args)
        if info.status is TournamentStatus.FINISHED:
            return 0
        return await _follow(client, args.tournament, args, None)
    finally:
        await client.close()


COMMANDS = ("list", "create", "start", "watch")
"""The sub-commands, after the server's address."""


def parser() -> argparse.ArgumentParser:
    """The command line."""
    p = argparse.ArgumentParser(
        prog="sushigo-tournament", description="Create, start and watch tournaments."
    )
    p.add_argument("--version", action="version", version=version_text("sushigo-tournament"))
    p.add_argument("address", metavar="HOST:PORT", type=address, help="the server, host:port")
    p.add_argument(
        "--name", default=None, help=f"display name (default {DEFAULT_NAME}, numbered if taken)"
    )
    p.add_argument(
        "--key", type=Path, default=None, help="Ed25519 identity key file (made if missing)"
    )
    p.add_argument(
        "--tls",
        action="store_true",
        help="connect with TLS (the certificate is pinned on first use)",
    )
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list the tournaments")
    create = sub.add_parser(
        "create",
        help="create a tournament (and run it with --entrants)",
        description="Create a tournament for entrants to join (sushigo-bot --tournament NAME, or"
        " a player in the lobby); the organiser starts it (start NAME), or it starts by itself"
        " with --entrants, and the standings are watched to the end.",
    )
    create.add_argument("tournament", help="its name (1-32 characters)")
    create.add_argument(
        "--players", type=count(1), default=4, help=f"seats per game ({PLAYERS_HELP}; default 4)"
    )
    create.add_argument(
        "--games", type=int, default=12, help="games in the whole tournament, 1-10000 (default 12)"
    )
    create.add_argument(
        "--format",
        choices=[f.value for f in TournamentFormat],
        default="round_robin",
        help="round_robin: every group of entrants in every seat order, in turn; random: random"
        " seatings each game (default round_robin)",
    )
    add_game(create, "the game (default sushi-go)")
    create.add_argument(
        "--variant",
        action="append",
        default=[],
        help="a variant of the game (Sushi Go!: pass_both_ways, dummy, soy_sauce); repeatable",
    )
    create.add_argument(
        "--turn-seconds",
        type=int,
        default=30,
        help="each game's turn time, 0-600 (0: none; default 30): a seat that lets it pass is"
        " played for, and a bot plays it after two such turns",
    )
    create.add_argument(
        "--entrants", type=int, default=None, help="start when this many have entered, then watch"
    )
    for name in ("start", "watch"):
        cmd = sub.add_parser(name, help=f"{name} a tournament")
        cmd.add_argument("tournament", help="its name")
    for cmd in (create, sub.choices["watch"]):
        cmd.add_argument("--csv", type=Path, default=None, help="write the standings here as CSV")
        cmd.add_argument("--json", type=Path, default=None, help="write the standings here as JSON")
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of `sushigo-tournament`."""
    p = parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] and argv[0] in COMMANDS and {"-h", "--help"} & set(argv):
        # `sushigo-tournament create --help`: the command's help, though no server came first.
        argv.insert(0, "localhost:7777")
    args = p.parse_args(argv)
    args.address_text = next((a for a in (argv or sys.argv[1:]) if not a.startswith("-")), "")
    if args.command == "create" and not 1 <= args.games <= 10_000:
        p.error("--games must be 1-10000")
    if args.command == "create" and (wrong := check_players(args.game, args.players)):
        p.error(f"--players {args.players}: {wrong}")
    if args.command == "create":
        try:
            rules(args.game).options(args.players, args.variant)
        except EngineError as exc:
            p.error(str(exc))
    if args.command == "create" and not 0 <= args.turn_seconds <= 600:
        p.error("--turn-seconds must be 0-600")
    try:
        return asyncio.run(stoppable("sushigo-tournament", run(args)))
    except (ConnectError, ServerError, KeyFileError) as exc:
        print(f"sushigo-tournament: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return interrupted("sushigo-tournament")


if __name__ == "__main__":
    sys.exit(main())
