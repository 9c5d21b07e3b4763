"""The players the chaos runner sends: waves of real `sushigo-bot` processes (mixed strategies,
both games, 2-5 seats; some waves a tournament, its host `sushigo-tournament` and its entrants
bots with keys), and one person's terminal client, driven as a person drives it
(`TerminalPlayer`: the TUI's own state and network loop, its quick match, leave and picks)."""

from __future__ import annotations

import asyncio
import contextlib
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sushigo.client.connection import Client, ConnectError, ConnectionLost, ServerError
from sushigo.client.tui import ops
from sushigo.client.tui.app import _reconnect, network_loop
from sushigo.client.tui.state import AppState
from sushigo.protocol import Message, TurnResult, TurnStart

BIN = Path(sys.executable).parent
GAMES = ("sushi-go", "sushi-roll")
REFUSED_AT_ONCE = (
    "refused the connection",
    "closed the connection during the handshake",
    "closed the connection without answering",  # its node killed with our HELLO unanswered
    "no answer to hello",
    "no answer to login_",  # its node paused between the hello and the login's answer
    "NO_SUCH_TABLE: no tournament",
)
"""What a player process says when refused before it played: it is started again."""
FILL_AFTER = 10.0
"""Seconds between the looks at the tables left waiting after the run (`Crowd.fill`)."""
Key = tuple[str, int]
"""A quick match's game and size."""
STRATEGIES = ("random", "greedy", "heuristic")
"""The bots' strategies: the cheap ones (the machine runs every player and every node)."""


@dataclass
class Bot:
    """One `sushigo-bot` (or `sushigo-tournament` host) process and what it printed."""

    name: str
    games: int | None
    """The games it was told to play (None: a tournament's, as many as it seats it at)."""
    command: list[str]
    proc: asyncio.subprocess.Process | None = None
    output: str = ""
    started: float = 0.0
    tournament: str | None = None
    host: bool = False
    retries: int = 0
    """Times it was started again after its node refused it at once."""

    async def start(self, log: Path, ports: Callable[[], list[int]]) -> None:
        """Start it; `ports` says which nodes are up when it must be started again."""
        self.started = time.monotonic()
        self._log = log
        self._ports = ports
        self._task = asyncio.create_task(self._run())

    async def _run(self) -> int | None:
        """Run it to its exit. A process refused at once (`REFUSED_AT_ONCE`: nothing played,
        nothing seated) is started again a second later on a node that is up, as a person would
        try again; `retries` counts those."""
        while True:
            self.proc = await asyncio.create_subprocess_exec(
                *self.command, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
            )
            out, _ = await self.proc.communicate()
            self.output += out.decode(errors="replace")
            last = self.output.strip().splitlines()[-1:]
            # Its node died, stopped or was paused as it started, or (an entrant) its tournament
            # was not made yet: its host, started a second before, is slower on a busy machine.
            refused = bool(last) and any(why in last[0] for why in REFUSED_AT_ONCE)
            if self.proc.returncode != 1 or not refused or self.reported or self.retries >= 10:
                return self.proc.returncode
            self.retries += 1
            await asyncio.sleep(1.0)
            ports = self._ports()
            if ports:
                pick = random.Random(f"{self.name}/{self.retries}").choice(ports)
                self.command[1] = f"127.0.0.1:{pick}"

    async def finish(self, timeout: float) -> int | None:
        """Its exit code once it exits (within `timeout`: else it is killed, None)."""
        try:
            code = await asyncio.wait_for(asyncio.shield(self._task), timeout)
        except TimeoutError:
            if self.proc is not None and self.proc.returncode is None:
                self.proc.kill()
            with contextlib.suppress(BaseException):
                await self._task
            code = None
        self._log.write_text(self.output)
        return code

    def kill(self) -> None:
        """Stop it now, and start it no more."""
        self._task.cancel()
        if self.proc is not None and self.proc.returncode is None:
            self.proc.kill()

    @property
    def reported(self) -> int:
        """Games it says it played to their end."""
        return sum(line.startswith("game ") for line in self.output.splitlines())


@dataclass
class Crowd:
    """Every player process sent, by wave."""

    folder: Path
    ports: Callable[[], list[int]]
    """The nodes up now (`Cluster.live_ports`): where a bot refused at once starts again."""
    bots: list[Bot] = field(default_factory=list)
    waves: int = 0
    fillers: int = 0
    """Tables given partners after the run (`fill`)."""

    async def wave(self, rng: random.Random, ports: list[int]) -> str:
        """A wave of quick-match bots (or, one time in five, a tournament); what it is."""
        self.waves += 1
        kind = rng.choice(GAMES)
        if rng.random() < 0.2:
            return await self._tournament(rng, ports, kind)
        players = rng.randint(2, 5)
        count = players * rng.randint(1, 2)
        games = rng.randint(1, 2)
        for i in range(count):
            name = f"w{self.waves}b{i}"
            strategy = rng.choice(STRATEGIES)
            await self._start(
                Bot(name, games, self._bot(rng, ports, name, strategy, kind, players, games))
            )
        return f"wave {self.waves}: {count} bots, {kind} for {players}, {games} game(s) each"

    def _bot(
        self,
        rng: random.Random,
        ports: list[int],
        name: str,
        strategy: str,
        kind: str,
        players: int,
        games: int,
    ) -> list[str]:
        return [
            str(BIN / "sushigo-bot"),
            f"127.0.0.1:{_pick(rng, ports)}",
            *("--strategy", strategy, "--game", kind, "--players", str(players)),
            *("--games", str(games), "--name", name, "--seed", str(rng.randrange(1 << 30))),
        ]

    async def fill(self, rng: random.Random, waiting: Callable[[], dict[Key, list[int]]]) -> None:
        """Once the run is over: players left waiting at a quick-match table whose others went
        on without them (a fault moved them apart from their wave, the others filled tables
        among themselves) get partners, as newcomers would come: every `FILL_AFTER` seconds a
        table still short, seen at both looks, gets fresh bots (one game each) for its free
        seats. Until cancelled."""
        before: dict[Key, list[int]] = {}
        while True:
            await asyncio.sleep(FILL_AFTER)
            now = waiting()
            for (kind, players), tables in now.items():
                if before.get((kind, players)) != tables or not self.ports():
                    continue
                self.fillers += 1
                for i in range(players - max(tables)):
                    name = f"fill{self.fillers}b{i}"
                    strategy = STRATEGIES[0]
                    command = self._bot(rng, self.ports(), name, strategy, kind, players, 1)
                    await self._start(Bot(name, 1, command))
            before = now

    async def _tournament(self, rng: random.Random, ports: list[int], kind: str) -> str:
        name = f"cup{self.waves}"
        players = rng.randint(2, 4)
        games = rng.randint(1, 3)
        host = Bot(
            f"{name}-host",
            None,
            [
                str(BIN / "sushigo-tournament"),
                f"127.0.0.1:{_pick(rng, ports)}",
                *("--name", f"{name}-host", "--key", str(self.folder / f"{name}-host.key")),
                *("create", name, "--players", str(players), "--games", str(games)),
                *("--game", kind, "--entrants", str(players), "--turn-seconds", "30"),
            ],
            tournament=name,
            host=True,
        )
        await self._start(host)
        await asyncio.sleep(1.0)  # made before its entrants ask for it
        for i in range(players):
            bot = f"{name}-e{i}"
            await self._start(
                Bot(
                    bot,
                    None,
                    [
                        str(BIN / "sushigo-bot"),
                        f"127.0.0.1:{_pick(rng, ports)}",
                        *("--strategy", rng.choice(STRATEGIES), "--tournament", name),
                        *("--name", bot, "--key", str(self.folder / f"{bot}.key")),
                        *("--seed", str(rng.randrange(1 << 30))),
                    ],
                    tournament=name,
                )
            )
        return f"wave {self.waves}: tournament {name}, {kind}, {players} entrants, {games} games"

    async def _start(self, bot: Bot) -> None:
        self.bots.append(bot)
        await bot.start(self.folder / f"{bot.name}.out", self.ports)


# -- a person at the terminal client ------------------------------------------------------------


@dataclass
class Seen:
    """What the terminal player saw: each frame of a game (when, which node, which table), the
    games it finished (verified or not), its waits in quick match, and what went wrong."""

    frames: list[tuple[float, str | None, str]] = field(default_factory=list)
    games: int = 0
    unverified: int = 0
    waits: list[float] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    quits: int = 0
    requeued: int = 0
    gave_up: int = 0
    """Times it left the queue after waiting long for its game (nobody else wanted it)."""
    left_begun: int = 0
    """Times its leave crossed its game's start (the table filled as it left): the game went on
    with a bot in its seat, so the records hold it though it finished none."""
    """Times it found itself back in the lobby before its game began, and asked again."""


class TerminalPlayer:
    """A person at `sushigo-client`, driven through the TUI's own state and calls: it quick-
    matches into a game and size it picks, now and then leaves the queue before its table
    fills, plays a random legal action when it may, leaves at the game's end, and goes on; the
    TUI's network loop takes the session back after every drop, as on screen."""

    def __init__(self, name: str, rng: random.Random, ports: list[int], where: Any) -> None:
        self.name = name
        self.rng = rng
        self.ports = ports
        self.where = where
        """Which node a port is (`Cluster.by_port`)."""
        self.seen = Seen()
        self.changed = asyncio.Event()
        self.status: list[str] = []
        """Every line its status bar showed, with when."""

    def write(self, path: Path) -> None:
        """What its status bar showed, a line each."""
        path.write_text("".join(f"{line}\n" for line in self.status))

    async def run(self, until: float) -> None:
        """Play until the loop's clock reaches `until`, then finish the game under way."""
        loop = asyncio.get_running_loop()
        client = await self._connect()
        state = AppState(client=client, address="chaos")
        state.listeners.append(self.changed.set)
        said = state.say

        def say(text: str, error: bool = False) -> None:
            self.status.append(f"{time.strftime('%H:%M:%S')} {'! ' if error else ''}{text}")
            said(text, error)

        state.say = say  # type: ignore[method-assign]
        applied = state.apply

        def apply(message: Message) -> None:  # what the screen is shown, noted first
            if isinstance(message, TurnStart | TurnResult) and state.table is not None:
                node = self.where(client.port)
                self.seen.frames.append((time.monotonic(), node, state.table.table_id))
            applied(message)

        state.apply = apply  # type: ignore[method-assign,assignment]
        net = loop.create_task(network_loop(state, _reconnect))  # the TUI's own
        try:
            while loop.time() < until and not net.done():
                await self._one_game(state, client, net, until)
        finally:
            net.cancel()
            with contextlib.suppress(BaseException):
                await net
            await client.close()
        if net.done() and not net.cancelled() and loop.time() < until:
            self.seen.problems.append("the terminal client gave its session up (see its status)")

    async def _connect(self) -> Client:
        for _ in range(100):
            with contextlib.suppress(ConnectError, OSError, ServerError, ConnectionLost):
                port = self.rng.choice(self.ports)
                return await Client.connect("127.0.0.1", port, name=self.name)
            await asyncio.sleep(0.5)
        raise ConnectError("no node took the terminal player")

    async def _one_game(
        self, state: AppState, client: Client, net: asyncio.Task[None], until: float
    ) -> None:
        kind = self.rng.choice(GAMES)
        players = self.rng.randint(2, 4)
        state.quick_kind = kind
        queued = time.monotonic()
        try:
            await ops.quick_match(state, players)
        except (ServerError, ConnectionLost, ConnectError) as exc:
            # As on screen: the status line says it, the person tries again in a moment.
            state.say(f"{exc}", error=True)
            await asyncio.sleep(1.0)
            return
        if self.rng.random() < 0.25 and not state.in_game:  # gives up waiting, for now
            await asyncio.sleep(self.rng.uniform(0, 1.5))
            if not state.in_game:
                with contextlib.suppress(ServerError, ConnectionLost, ConnectError):
                    await self._leave(state, client)
                    self.seen.quits += 1
                    return
        started = False
        patience = self.rng.uniform(15, 30)
        while not net.done():
            board = state.board
            if board is not None and board.observation is not None and not started:
                started = True
                self.seen.waits.append(time.monotonic() - queued)
            if state.final is not None:
                break
            if not started and asyncio.get_running_loop().time() >= until:
                break  # the run is over and its game never began: it leaves the queue
            if not started and time.monotonic() - queued > patience:
                self.seen.gave_up += 1  # nobody else wants this game: it tries another
                break
            if state.table is None and not state.reconnecting:
                # Back in the lobby (a node stopped before the game began: no seat is held for
                # a game not begun): as a person would, it asks for a quick match again.
                self.seen.requeued += 1
                return
            if board is not None and client.pending is None and not state.reconnecting:
                legal = board.legal_actions()
                if legal:
                    board.play(self.rng.choice(legal))
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), 1.0)
        if state.final is not None:
            self.seen.games += 1
            if state.fairness.final != "verified":
                self.seen.unverified += 1
        with contextlib.suppress(ServerError, ConnectionLost, ConnectError):
            await self._leave(state, client, finished=state.final is not None)

    async def _leave(self, state: AppState, client: Client, finished: bool = False) -> None:
        """Leave the table, as `l` does. A game that began as it left (its start comes before the
        leave's answer) goes on without it, a bot in its seat: counted (`Seen.left_begun`)."""
        table = state.table
        await ops.leave(state)
        # The library's checks of the game begun last, set as its start arrives (before the
        # leave's answer), name its table.
        checks = client._checks
        if (
            not finished
            and table is not None
            and checks is not None
            and checks.table_id == table.table_id
        ):
            self.seen.left_begun += 1


def _pick(rng: random.Random, ports: list[int]) -> int:
    """One of `ports`, drawing one number of `rng` however many there are (`choice` draws more
    or fewer by their count), so that which nodes are up does not change the seed's later
    choices."""
    return ports[int(rng.random() * len(ports))]
