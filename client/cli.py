"""`sushigo-client`: the terminal client.

    sushigo-client HOST:PORT [--name NAME] [--tls] [--key FILE] [--known-hosts FILE]
                   [--bots N [--players N] [--game KIND] [--variant V]...
                   [--level L | --bot-strategy S] [--turn-seconds N]]
    sushigo-client HOST:PORT --leaderboard [--game KIND] [--key FILE]
    sushigo-client --replay FILE

Without ``--bots`` it opens the lobby (where ``h`` lists your finished games, to step through
them), or, after a quit in the middle of a game at this server, takes that seat back
(`client.seats`); ``--leaderboard`` prints a game's leaderboard (with your own rank when you log in with
``--key``) and exits. With ``--bots N`` it creates a table with the given settings, seats N
server bots and starts the game as soon as every seat is taken (the play command uses this), at
``--level`` easy, medium (the default), hard or expert, or playing ``--bot-strategy`` by name.
``--game sushi-roll`` plays Sushi Roll, the dice game, which has no variants. ``--replay FILE``
steps through a finished game's exported record (``sushigo-replay --export``), with no server.
Failures are one line on stderr, never a traceback. Exit codes: 0 after a normal quit, 2 for a
usage error (a bad address or option), 130 when Ctrl-C stopped it (on the full screen, Ctrl-C
asks whether to quit and a second one quits), 1 for anything else (unreachable, refused, version
mismatch, changed TLS certificate, a bad key file, a record that does not verify).
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import re
import sys
from collections.abc import Callable
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from sushigo.bots import DEFAULT_LEVEL, LEVELS, levels
from sushigo.client import seats
from sushigo.client.address import AddressError
from sushigo.client.address import parse_address as _parse_address
from sushigo.client.args import PLAYERS_HELP, add_game, check_players, count
from sushigo.client.command import exit_code
from sushigo.client.connection import Client, ConnectError, ConnectionLost, ServerError
from sushigo.client.identity import load_or_create_key
from sushigo.client.known_hosts import KnownHosts
from sushigo.client.replay import view_file
from sushigo.client.stopping import stoppable
from sushigo.client.tui import AppState, run_tui
from sushigo.client.tui.lobby import leaderboard_lines
from sushigo.client.tui.ops import seat_with_bots
from sushigo.engine import EngineError, rules
from sushigo.protocol import SUPPORTED_VERSIONS, ErrorCode, ProtocolError, Resumed, TableSettings
from sushigo.protocol.about import interrupted, version_text
from sushigo.protocol.identity import player_id_for_key

__all__ = ["UsageError", "load_or_create_key", "main", "parse_address", "parser"]


class UsageError(Exception):
    """A bad command line (exit code 2)."""


def parse_address(text: str) -> tuple[str, int]:
    """``host:port``, ``[v6]:port`` → (host, port); `UsageError` saying what is wrong."""
    try:
        return _parse_address(text)
    except AddressError as exc:
        raise UsageError(str(exc)) from None


def _default_name() -> str:
    try:
        name = getpass.getuser()
    except (KeyError, OSError):
        name = ""
    name = re.sub(r"[^\w.-]", "", name)[:24]
    return name or "player"


def parser() -> argparse.ArgumentParser:
    """The command line."""
    p = argparse.ArgumentParser(
        prog="sushigo-client",
        description="Play Sushi Go! or Sushi Roll on a sushigo server, in the terminal.",
    )
    p.add_argument("--version", action="version", version=version_text("sushigo-client"))
    p.add_argument(
        "address", metavar="HOST:PORT", nargs="?", help="the server, e.g. localhost:7777"
    )
    p.add_argument(
        "--replay",
        metavar="FILE",
        type=Path,
        help="step through a finished game's exported record (no server needed)",
    )
    p.add_argument("--name", default=None, help="your name at the table (default: login name)")
    p.add_argument("--tls", action="store_true", help="connect with TLS (certificate pinned)")
    p.add_argument(
        "--key", type=Path, help="Ed25519 PEM key for a lasting identity (made if missing)"
    )
    p.add_argument("--known-hosts", type=Path, help="pinned TLS certificates file")
    p.add_argument(
        "--leaderboard",
        action="store_true",
        help="print the leaderboard of --game (default Sushi Go!) and exit",
    )
    game = p.add_argument_group("start a game with bots at once")
    game.add_argument("--bots", type=count(0, 4), help="seat N server bots and start")
    game.add_argument(
        "--players", type=count(1), help=f"seats at the table ({PLAYERS_HELP}; default 4)"
    )
    add_game(
        game, "sushi-go (the card game, default), sushi-roll (the dice game), or another installed"
    )
    game.add_argument(
        "--variant",
        action="append",
        default=[],
        help="a variant of the game, repeatable (Sushi Go!: pass_both_ways, dummy, soy_sauce)",
    )
    level = game.add_mutually_exclusive_group()
    level.add_argument(
        "--level",
        choices=LEVELS,
        default=None,
        help=f"how well the bots play (default {DEFAULT_LEVEL})",
    )
    level.add_argument(
        "--bot-strategy", default=None, help="the bots' strategy by name, instead of a level"
    )
    game.add_argument(
        "--turn-seconds", type=count(0, 600), default=60, help="0: no timer (default 60)"
    )
    return p


def table_settings(args: argparse.Namespace) -> TableSettings:
    """The table `--bots` creates; `UsageError` for settings that make no game."""
    variants = tuple(dict.fromkeys(args.variant))
    game_rules = rules(args.game)
    players = args.players
    if players is not None and (wrong := check_players(args.game, players)) is not None:
        raise UsageError(f"--players {players}: {wrong}")
    if players is None:
        # The smallest table the variants allow (the dummy needs two), else one per bot and you.
        fitting = [n for n in game_rules.players if _fits(game_rules.options, n, variants)]
        want = args.bots + 1 if args.bots else 4
        players = want if want in fitting else (fitting[0] if fitting else want)
    if args.bots is not None and args.bots > players - 1:
        raise UsageError(f"--bots {args.bots} leaves no seat for you at a {players}-player table")
    try:
        game_rules.options(players, variants)
    except EngineError as exc:
        raise UsageError(str(exc)) from None
    return TableSettings(
        kind=args.game, players=players, variants=variants, turn_seconds=args.turn_seconds
    )


def _fits(
    make: Callable[[int, tuple[str, ...]], object], players: int, variants: tuple[str, ...]
) -> bool:
    try:
        make(players, variants)
    except EngineError:
        return False
    return True


def _bots(args: argparse.Namespace, kind: str) -> str:
    """What the server is asked to seat: the strategy named, or the level (a game without levels
    gets the server's default bots)."""
    if args.bot_strategy is not None:
        return str(args.bot_strategy)
    level = args.level or DEFAULT_LEVEL
    return level if level in levels(kind) else "default"


def describe_server_error(exc: ServerError) -> str:
    """A refusal during connect, for a person."""
    error = exc.error
    if error.error_code is ErrorCode.UNSUPPORTED_VERSION:
        theirs = ", ".join(f"{v.major}.{v.minor}" for v in error.supported_versions) or "?"
        ours = ", ".join(f"{v.major}.{v.minor}" for v in SUPPORTED_VERSIONS)
        return (
            f"version mismatch: the server speaks protocol {theirs}, this client {ours}; "
            "update whichever is older"
        )
    if error.error_code is ErrorCode.NAME_TAKEN:
        return f"{error.message} (with --name)"
    return f"the server refused: {error.message or exc}"


def _refused(exc: ConnectError | ServerError) -> int:
    """Say in one line why the server could not be reached or refused us; the exit code, 1."""
    said = describe_server_error(exc) if isinstance(exc, ServerError) else str(exc)
    print(f"sushigo-client: error: {said}", file=sys.stderr)
    return 1


def main(argv: list[str] | None = None) -> int:
    """Run the client; returns the exit code."""
    args = parser().parse_args(argv)
    if args.replay is not None:
        return view_file(args.replay, prog="sushigo-client")
    try:
        if args.address is None:
            raise UsageError("give the server's HOST:PORT (or --replay FILE)")
        host, port = parse_address(args.address)
        settings = table_settings(args) if args.bots is not None else None
    except UsageError as exc:
        print(f"sushigo-client: error: {exc}", file=sys.stderr)
        return 2

    def run() -> int:
        key = load_or_create_key(args.key) if args.key is not None else None
        known = KnownHosts(args.known_hosts) if args.known_hosts is not None else None
        # SIGTERM before the screen is up (connecting, the ladder): a clean stop too.
        return asyncio.run(
            stoppable("sushigo-client", _run(args, host, port, key, known, settings))
        )

    return exit_code("sushigo-client", run)


async def _run(
    args: argparse.Namespace,
    host: str,
    port: int,
    key: Ed25519PrivateKey | None,
    known: KnownHosts | None,
    settings: TableSettings | None,
) -> int:
    address = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    # Reading the ladder with --key but no --name: a guest asks for the key's place, since a
    # login with the key would set its name on the ladder to the default one.
    ask_for = None
    if args.leaderboard and key is not None and not args.name:
        ask_for, key = player_id_for_key(key.public_key().public_bytes_raw()), None
    # A seat left in the middle of a game here (client.seats): taken back before anything else,
    # unless --bots asks for a new game or --name for another player.
    kept = seats.take(address) if not args.leaderboard and settings is None else None
    if kept is not None and args.name in (None, kept.name):
        back, resumed = await _take_back(args, host, port, key, known, kept)
        if back is not None:
            return await _play(args, back, address, None, resumed)
    try:
        # Names are unique among the connected: the login name, when two people on one machine
        # play, becomes "name-2"; a name given with --name is that name or an error.
        connect = Client.connect if args.name else Client.connect_unique
        client = await connect(
            host,
            port,
            name=args.name or _default_name(),
            tls=args.tls,
            known_hosts=known,
            key=key,
            software="sushigo-client",
        )
    except ServerError as exc:
        if exc.code is ErrorCode.NAME_TAKEN and seats.kept_name(address) == args.name:
            # Ours: the seat left mid-game here, held for a resume that --bots did not ask for.
            print(
                f"sushigo-client: error: {args.name!r} still holds the seat you left in a game"
                " here: run the client again without --bots to take it back",
                file=sys.stderr,
            )
            return 1
        return _refused(exc)
    except ConnectError as exc:
        return _refused(exc)
    except (ConnectionLost, ProtocolError) as exc:
        print(f"sushigo-client: error: {address} closed the connection: {exc}", file=sys.stderr)
        return 1

    if args.leaderboard:
        try:
            if ask_for is not None and not client.names_places:
                raise ConnectError(
                    f"{address} is too old to show a key's place without its login: give --name"
                    " (the key's name on the ladder becomes that name)"
                )
            board = await client.leaderboard(args.game, player_id=ask_for)
        except (ConnectError, ServerError) as exc:
            return _refused(exc)
        finally:
            await client.close()
        me = ask_for or client.player_id
        signed_in = ask_for is not None or key is not None
        for line in leaderboard_lines(board, me, signed_in=signed_in):
            print(line.replace("▸", "*"))
        return 0

    return await _play(args, client, address, settings)


async def _take_back(
    args: argparse.Namespace,
    host: str,
    port: int,
    key: Ed25519PrivateKey | None,
    known: KnownHosts | None,
    kept: seats.KeptSeat,
) -> tuple[Client | None, Resumed | None]:
    """The session kept at this server, taken back on a new connection; (None, None) when the
    server no longer has it (its resume window passed) or cannot be reached for it."""
    client = Client(
        host, port, name=kept.name, tls=args.tls, known_hosts=known, key=key,
        software="sushigo-client",
    )  # fmt: skip
    client.token = kept.token
    try:
        return client, await client.resume()
    except (ServerError, ConnectError, ConnectionLost, ProtocolError):
        await client.close()
        return None, None


async def _play(
    args: argparse.Namespace,
    client: Client,
    address: str,
    settings: TableSettings | None,
    resumed: Resumed | None = None,
) -> int:
    """The terminal client until the player quits; the exit code. A quit in the middle of a game,
    or a closed terminal (SIGHUP; SIGTERM too: a clean stop, exit code 0, as the server's),
    keeps the session's token (`client.seats`), so that the next run here takes the seat back."""

    async def startup(state: AppState) -> None:
        if settings is not None:
            await seat_with_bots(state, settings, args.bots, _bots(args, settings.kind))

    def keep_seat(state: AppState) -> None:
        if (
            state.in_game
            and state.final is None
            and state.seat is not None
            and not state.server_ends_with_us
        ):
            seats.keep(address, client.token, client.name)

    try:
        state = await run_tui(client, address, startup=startup, resumed=resumed, hung_up=keep_seat)
    finally:
        await client.close()
    if not state.signalled:  # (a signal's handler kept it already, as the signal came)
        keep_seat(state)
    if state.interrupted:
        return interrupted("sushigo-client")
    return 0


if __name__ == "__main__":
    sys.exit(main())
