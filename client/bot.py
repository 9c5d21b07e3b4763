"""`sushigo-bot host:port --strategy NAME`: a headless bot that plays games on a server.

    sushigo-bot localhost:7777 --strategy heuristic --games 10 --players 4 --name robo
    sushigo-bot localhost:7777 --strategy greedy --game sushi-roll --games 3 --players 3
    sushigo-bot localhost:7777 --strategy ismcts --tournament spring-cup

It quick-matches into a table of P seats of the game asked for, plays with the strategy (which
sees only its seat's observation), verifies every commitment, every action, every observation it
was shown and each game's signed record (`client.checks`), reconnects by itself if the connection
drops, and prints one line per game. The strategy names are each game's: the kind of each table
the bot is seated at picks the implementation (`bots.get_strategy(name, game=kind)`), so a
tournament of any installed game works too. Exit codes: 0 after N games all verified, 1 on a failure
(unreachable server, a fairness check that failed), 2 for a usage error, 130 after Ctrl-C.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import random
import secrets
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from sushigo.bots import Strategy, StrategyError, strategy_factory
from sushigo.protocol import (
    Acted,
    Error,
    ErrorCode,
    GameEnded,
    GameStarting,
    Phase,
    Redirect,
    TableJoined,
    TableLeft,
    TournamentInfo,
    TournamentStatus,
    TournamentUpdate,
    TurnStart,
)
from sushigo.protocol.about import interrupted, version_text

from .args import PLAYERS_HELP, STRATEGIES_HELP, add_game, address, check_players, count
from .connection import Client, ConnectError, ConnectionLost, ServerError, reconnect
from .errors import NoAnswer
from .identity import KeyFileError, load_or_create_key
from .stopping import stoppable
from .tournament import watch_again


@dataclass(slots=True)
class GameResult:
    """One finished game from the bot's seat."""

    place: int
    score: int
    players: int
    winners: tuple[str, ...]
    verified: bool
    problems: tuple[str, ...]
    seed_drawn: bool = False
    """The server drew our seed (ours came too late): said, not a failure."""
    unseen: bool = False
    """The server restarted as the game ended and no longer knew our seat: its end never
    reached us (the server's record of it can be checked with sushigo-replay)."""

    def line(self, index: int) -> str:
        """The one-line summary printed per game."""
        if self.unseen:
            return (
                f"game {index}: its end was not seen (the server restarted without our seat);"
                " its record is on the server"
            )
        check = (
            "fairness verified" if self.verified else "FAIRNESS FAILED: " + "; ".join(self.problems)
        )
        if self.seed_drawn:
            check += " (the server drew our seed: ours came too late)"
        return (
            f"game {index}: place {self.place}/{self.players}, score {self.score}"
            f" (won by {', '.join(self.winners)}); {check}"
        )


log = logging.getLogger("sushigo.client")
_T = TypeVar("_T")

SILENT_TRIES = 6
"""Connections `sushigo-bot` makes to a server that does not answer its login before it gives
up (about 2 minutes in all with the pauses and each try's wait)."""
SILENT_PAUSE = 1.0
"""Seconds before the second try; doubled before each next one."""
RECONNECT_DELAY = 0.25
"""Seconds before the second try to take the session back (each next waits 1.5 times longer, at
most 10 s): a restarted server is back within a second or two, and the table waits for us."""

MAX_REFUSALS = 3
"""Actions in a row the server may refuse before the bot gives up (after a refusal it plays a
random legal action instead of its strategy's)."""


class Strategies:
    """One strategy spec, played in each game by that game's implementation (made when first
    needed and kept, so its memory lasts across games)."""

    def __init__(self, spec: str = "", **made: Strategy) -> None:
        self.spec = spec
        self._made: dict[str, Strategy] = {kind.replace("_", "-"): s for kind, s in made.items()}

    def of(self, kind: str) -> Strategy:
        """The implementation for the game `kind`; `StrategyError` if the spec has none."""
        found = self._made.get(kind)
        if found is None:
            if not self.spec:
                raise StrategyError(f"no strategy was given for {kind!r}")
            # A clock for a time budget (`ismcts@ms=100`): strategies read none of their own.
            make = strategy_factory(self.spec, game=kind, clock=time.perf_counter)
            found = self._made[kind] = make()
        return found


def _move(client: Client, strategy: Strategy, rng: random.Random) -> None:
    """Our action, if one is wanted: the strategy's choice (after a refusal, a random legal
    action); `ServerError` when the server keeps refusing."""
    if not client.awaiting:
        return
    if client.refusals >= MAX_REFUSALS:
        raise ServerError.of(
            ErrorCode.ILLEGAL_ACTION, f"the server refused {client.refusals} actions in a row"
        )
    state = client.state
    legal = list(client.legal_actions())
    if not legal:
        return
    action = strategy.choose(state, legal, rng) if not client.refusals else rng.choice(legal)
    client.play(action)


async def play_game(
    client: Client, strategy: Strategy | Strategies, rng: random.Random
) -> GameResult | None:
    """Play the game at the table we were just seated at, to its end (any game); None when the
    table was lost before its game began (a server restart, an admin closed it, the seat given
    up while we were away and no quick match to queue again for), or the game was cut short (an
    admin closed its table)."""
    kind = client.table.settings.kind if client.table is not None else ""
    strategies = (
        strategy if isinstance(strategy, Strategies) else Strategies("", **{kind: strategy})
    )
    current = strategies.of(kind)
    _reset(current)
    started = False
    while True:
        try:
            event = await client.next_event()
        except ConnectionLost:
            resumed = await reconnect(client, delay=RECONNECT_DELAY)
            if not started:
                # A seat at a table whose game has not begun is not held for a resume: a quick
                # match's is taken again by `reconnect`, which queues us again.
                if client.table is None:
                    return None
                continue
            if resumed is None:
                # A restarted server restores the seats of games in progress, so a seat it no
                # longer knows was at a game that had ended before its end reached us.
                return GameResult(0, 0, 0, (), verified=True, problems=(), unseen=True)
            _move(client, current, rng)
            continue
        if isinstance(event, TableLeft) and event.ref is None and client.table is None:
            return None  # the table is ours no more (closed by an admin, say)
        if isinstance(event, GameStarting):
            started = True
            if event.kind != kind:
                kind = event.kind
                current = strategies.of(kind)
                _reset(current)
        elif isinstance(event, TurnStart | Acted | Error):
            _move(client, current, rng)
        elif isinstance(event, GameEnded):
            seat = client.seat if client.seat is not None else 0
            names = [s.name or f"seat {s.seat}" for s in client.table.seats] if client.table else []
            return GameResult(
                place=event.places[seat],
                score=event.totals[seat],
                players=len(event.places),
                winners=tuple(names[w] if w < len(names) else f"seat {w}" for w in event.winners),
                verified=client.fairness.final == "verified",
                problems=tuple(client.fairness.failures),
                seed_drawn=client.fairness.seed_drawn,
            )


def _reset(strategy: Strategy) -> None:
    reset = getattr(strategy, "reset", None)
    if reset is not None:
        reset()


async def play_one(
    client: Client,
    strategy: Strategy | Strategies,
    rng: random.Random,
    players: int,
    kind: str,
) -> GameResult:
    """Quick-match into a table of `kind` (unless queued at one again already), play one game,
    leave its table.

    A lobby request whose connection drops is made again once the session is back, unless the
    session shows it was done: a resume that finds us seated (the quick match went through), or
    at no table (the leave did)."""
    result: GameResult | None = None
    while result is None:
        if client.table is None:
            # (At a table already: a session the server lost was logged in again and queued
            # again, `connection.reconnect`, while the last game's end was awaited.)
            try:
                await client.quick_match(players, kind)
            except ConnectionLost:
                await reconnect(client, delay=RECONNECT_DELAY)
                if client.table is None:
                    continue
        result = await play_game(client, strategy, rng)
    if result.unseen:
        # The server lost our session with the game: the table we are at now, if any, is the
        # next game's, queued for again as we logged in (leaving it as its game began would
        # give our seat away and queue us alone).
        return result
    while client.table is not None:
        try:
            await client.leave()
        except ConnectionLost:
            await reconnect(client, delay=RECONNECT_DELAY)
        except ServerError as exc:
            if exc.code is not ErrorCode.NOT_ALLOWED:
                raise
            client.table = client.seat = None  # at no table already (it closed meanwhile)
    return result


async def _register(client: Client, name: str) -> TournamentInfo:
    """Enter tournament `name`, waiting out a server that does not answer (as `_connect`), or
    a REDIRECT to the tournament's node that could not be followed (that node dying or
    stopping: we are back where we were, and the tournament moves to a live node within a
    lease; until then the nodes know of no such tournament), or a connection that dropped
    (taken back, or logged in again, as in play): the entry asked again; if the first went
    through meanwhile, the server says we are entered already, and we are (or we are back at
    its first game)."""

    moving = False  # a REDIRECT for it could not be followed: it exists, on a node gone

    async def enter(tries: int) -> TournamentInfo:
        nonlocal moving
        try:
            if client.proto.phase is not Phase.LOBBY:  # taken back seated: entered, begun
                return await client.watch_tournament(name)
            return await client.register_tournament(name)
        except ConnectError:
            moving = True
            raise
        except ConnectionLost as exc:
            await reconnect(client, delay=RECONNECT_DELAY)
            raise NoAnswer(f"{exc} while entering") from exc
        except ServerError as exc:
            if moving and exc.code is ErrorCode.NO_SUCH_TABLE:
                # Its node is gone and no live node has taken it up yet (within a lease).
                raise NoAnswer(f"{exc} (its node is gone: another takes it up)") from exc
            if tries == 1 or "already entered" not in str(exc):
                raise
        return await client.watch_tournament(name)

    return await _patiently(enter, again=ConnectError)


async def play_tournament(
    client: Client, name: str, strategy: Strategy | Strategies, rng: random.Random
) -> list[GameResult]:
    """Enter a tournament and play every game the server seats us at until it finishes."""
    info = await _register(client, name)
    if isinstance(strategy, Strategies):
        strategy.of(info.settings.kind)  # StrategyError now, not in the first game
    print(f"entered tournament {name!r} ({len(info.standings)} entrants so far)", flush=True)
    results: list[GameResult] = []
    seated = client.table is not None  # back at the first game as we entered (`_register`)
    lost = False
    """The server lost our session and we logged in afresh (it restarted, or its node died):
    the tournament is watched again, to hear it finish even as a guest that is no longer its
    entrant. (A watch that still fails past `watch_again`'s patience is raised: said in one
    line, rather than waiting for ever for an end nobody would tell us of.)"""
    while True:
        event: object = None
        if lost:
            lost = False
            event = TournamentUpdate(tournament=await watch_again(client, name))
        elif not seated:
            try:
                event = await client.next_event()
            except ConnectionLost:
                lost = await reconnect(client, delay=RECONNECT_DELAY) is None
                continue
        if seated or isinstance(event, TableJoined):
            seated = False
            result = await play_game(client, strategy, rng)
            # No game, or its end unseen: a fresh login within it, most likely (an admin's
            # closing its table is the other way to no game: a look at the tournament then
            # costs one question).
            lost = result is None or result.unseen
            if result is not None:
                results.append(result)
                print(result.line(len(results)), flush=True)
        elif isinstance(event, TournamentUpdate) and event.tournament.settings.name == name:
            tournament = event.tournament
            if tournament.status is TournamentStatus.FINISHED and client.table is None:
                me = next(
                    (
                        i
                        for i, s in enumerate(tournament.standings)
                        if s.player_id == client.player_id
                    ),
                    None,
                )
                if me is not None:
                    st = tournament.standings[me]
                    print(
                        f"tournament {name!r} finished: rank {me + 1}/{len(tournament.standings)},"
                        f" wins {st.wins_milli / 1000:g}, points {st.points}",
                        flush=True,
                    )
                else:  # a guest whose session the server lost: another guest now
                    print(
                        f"tournament {name!r} finished (we are not its entrant any more)",
                        flush=True,
                    )
                return results
        elif isinstance(event, TableLeft):
            client.table = client.seat = None
        elif isinstance(event, Redirect) and event is client.stayed and client.table is None:
            # Sent on (home after a game elsewhere, say) and refused there (its node taking the
            # tournament over, or of an older version): we came back. Asked again here, where
            # the tournament runs is found (a redirect there), and we are its entrant again.
            with contextlib.suppress(ServerError, ConnectError, ConnectionLost):
                await watch_again(client, name)


async def _connect(args: argparse.Namespace, name: str, key: Ed25519PrivateKey | None) -> Client:
    """Connect and log in. Names are unique among the connected: without --name, a taken one is
    tried again with a number (several bots of one strategy on one server); a name given with
    --name is that name or an error. A server that takes the connection but does not answer in
    time (paused, frozen, overloaded: what a person would wait out) is asked again, `SILENT_TRIES`
    times with a growing pause, one line each; one that refuses the connection is an error at
    once (most likely a wrong address)."""
    host, port = args.address
    connect = Client.connect if args.name else Client.connect_unique
    return await _patiently(
        lambda tries: connect(host, port, name=name, tls=args.tls, key=key, software="sushigo-bot")
    )


async def _patiently(
    ask: Callable[[int], Awaitable[_T]], again: type[ConnectError] = NoAnswer
) -> _T:
    """`ask(tries)` (from 1), asked again while the server does not answer it (`NoAnswer`, or
    `again`), at most `SILENT_TRIES` times, the pause doubling from `SILENT_PAUSE`, one line
    a wait."""
    pause, tries = SILENT_PAUSE, 1
    while True:
        try:
            return await ask(tries)
        except again as exc:
            if tries >= SILENT_TRIES:
                raise
            log.warning("%s; trying again in %.0f s", exc, pause)
            await asyncio.sleep(pause)
            pause, tries = pause * 2, tries + 1


async def run(args: argparse.Namespace) -> int:
    """Connect and play `args.games` games (forever when None)."""
    name = args.name or f"{args.strategy.split(':')[-1].split('@')[0][:16]}-bot"
    kind = args.game
    strategy = Strategies(args.strategy)
    try:
        strategy.of(kind)
    except StrategyError as exc:
        print(f"sushigo-bot: error: {exc}", file=sys.stderr)
        return 2
    rng = random.Random(args.seed if args.seed is not None else secrets.randbits(64))
    try:
        key = load_or_create_key(args.key) if args.key is not None else None
        client = await _connect(args, name, key)
    except (ConnectError, KeyFileError, ServerError) as exc:
        print(f"sushigo-bot: error: {exc}", file=sys.stderr)
        return 1
    failed = 0
    played = 0
    try:
        if args.tournament:
            results = await play_tournament(client, args.tournament, strategy, rng)
            failed = sum(not r.verified for r in results)
        while not args.tournament and (args.games is None or played < args.games):
            result = await play_one(client, strategy, rng, args.players, kind)
            played += 1
            failed += not result.verified
            print(result.line(played), flush=True)
    except (ConnectError, ConnectionLost, ServerError, StrategyError) as exc:
        # ConnectionLost here: it kept dropping as we took the session back (`reconnect`).
        print(f"sushigo-bot: error: {exc}", file=sys.stderr)
        return 1
    finally:
        await client.close()
    return 1 if failed else 0


def parser() -> argparse.ArgumentParser:
    """The command line."""
    p = argparse.ArgumentParser(
        prog="sushigo-bot", description="A headless bot that plays on a sushigo server."
    )
    p.add_argument("--version", action="version", version=version_text("sushigo-bot"))
    p.add_argument(
        "address", metavar="HOST:PORT", type=address, help="the server ([::1]:7777 for IPv6)"
    )
    p.add_argument("--strategy", default="heuristic", help=f"{STRATEGIES_HELP} (default heuristic)")
    add_game(p, "the game to quick-match into (a tournament's own game is played regardless)")
    p.add_argument(
        "--games", type=_count, default=None, help="games to play (default: until stopped)"
    )
    p.add_argument(
        "--players",
        type=count(1),
        default=4,
        help=f"table size to quick-match into ({PLAYERS_HELP}; default 4)",
    )
    p.add_argument("--name", default=None, help="display name (default: the strategy's name)")
    p.add_argument(
        "--key",
        type=Path,
        default=None,
        help="Ed25519 key file (made if missing): a lasting identity whose games are rated",
    )
    p.add_argument(
        "--tls",
        action="store_true",
        help="connect with TLS (the certificate is pinned on first use)",
    )
    p.add_argument(
        "--tournament", default=None, help="enter this tournament instead of quick matches"
    )
    p.add_argument("--seed", type=int, default=None, help="seed for the strategy's own randomness")
    return p


def _count(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"a positive number of games, not {text!r}")
    return int(text)


def main(argv: list[str] | None = None) -> int:
    """Entry point of `sushigo-bot`."""
    p = parser()
    args = p.parse_args(argv)
    if args.tournament is None and (wrong := check_players(args.game, args.players)) is not None:
        p.error(f"--players {args.players}: {wrong}")
    try:
        return asyncio.run(stoppable("sushigo-bot", run(args)))
    except KeyboardInterrupt:
        return interrupted("sushigo-bot")


if __name__ == "__main__":
    sys.exit(main())
