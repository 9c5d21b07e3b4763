"""Chaos: the real server is killed (SIGKILL) at five moments of play under real players and started
again on the same database and port, and nobody's choice is taken from them.

Three `sushigo-bot` processes and one player of our own, the client library as the terminal client
uses it (`client.connection.reconnect` after every drop), quick-match into four-seat games. The
server dies: while the seats commit; after every commitment is in but before our reveal (we hold
it back, as a slow player would); between two rounds; as a game ends; and while the next game's
seats send their seeds (ours held back). After each restart the
next step must come within a few seconds, and in the end: every game finished, every record
verifies, no seat was ever auto-picked (all four were connected throughout), each client checked
its games' fairness, and the bots exit cleanly."""

from __future__ import annotations

import asyncio
import random
import time

from processes import (
    ServerProcess,
    assert_records_verify,
    play_beside_bots,
    start_bots,
    stored_records,
)

from sushigo.client.connection import Client, ConnectionLost, reconnect
from sushigo.protocol import (
    ClientMessage,
    GameEnded,
    GameStarted,
    Message,
    Seed,
    TurnResult,
    TurnStart,
)

GAMES = 2
"""Games each player plays: the first is killed three times and at its end; the second in its
seeding."""
STALL = 5.0
"""The longest a restarted server may take to show our player the next step."""
TURNS = 8
"""A round of four players: eight cards each, eight turns."""


class SlowRevealer(Client):
    """Our player. While `hold` is set it keeps its reveal and its seed back (the moments
    between the last commitment and the reveals, and of the seeding, are otherwise too short to
    hit); `held` is set when it would have sent one. A resume sends whatever the seat owes
    again, the seed and the reveal included."""

    hold = False

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.held = asyncio.Event()

    def _send_reveal(self) -> None:
        if self.hold:
            self.held.set()
            return
        super()._send_reveal()

    def send(self, message: ClientMessage) -> None:
        if self.hold and isinstance(message, Seed):
            self.held.set()
            return
        super().send(message)


class Player:
    """Our player's loop: quick match, play at random, reconnect after every drop."""

    def __init__(self, client: SlowRevealer, server: ServerProcess) -> None:
        self.client = client
        self.server = server
        self.rng = random.Random(5)
        self.stalls: list[tuple[str, float]] = []
        """(moment, seconds from the restart to the next step we were shown)."""
        self.verdicts: list[str] = []

    async def next(self) -> Message:
        """The next event, taking the session back (or logging in again) after a drop."""
        while True:
            try:
                return await self.client.next_event(30)
            except ConnectionLost:
                await reconnect(self.client, attempts=60, delay=0.1)
                if self.client.awaiting:
                    self.pick()

    def pick(self) -> None:
        self.client.pick(self.rng.choice(list(self.client.legal_actions())))

    async def restart(self, moment: str) -> None:
        """Kill the server now, start it again, and play on until a turn is played after it."""
        await self.server.restart()
        restarted = time.monotonic()
        self.client.hold = False
        while True:
            event = await self.next()
            if isinstance(event, TurnStart) and self.client.awaiting:
                self.pick()
            elif isinstance(event, TurnResult):
                # Ours was not in before the kill (held back, or not yet chosen), so this turn
                # was played after the restart.
                break
        self.stalls.append((moment, time.monotonic() - restarted))


async def quick_match(client: Client) -> None:
    """Queue for a four-player game, reconnecting as often as the server is down meanwhile."""
    while True:
        try:
            await client.quick_match(4, "sushi-go")
            return
        except ConnectionLost:
            await reconnect(client, attempts=60, delay=0.1)


async def play(player: Player) -> None:
    """Our two games, with the four kills in the first."""
    client = player.client
    kills = {
        (1, 3): "during commits",
        (2, 4): "between commitments and reveals",
        (2, TURNS): "between rounds",
    }
    for game in range(1, GAMES + 1):
        await quick_match(client)
        while True:
            event = await player.next()
            if isinstance(event, TurnStart) and client.awaiting:
                moment = kills.pop((event.round, event.turn), None) if game == 1 else None
                if moment == "during commits":
                    # The bots commit at once; we have not yet. Everyone owes it again.
                    await player.restart(moment)
                    continue
                if moment == "between commitments and reveals":
                    client.hold = True
                    player.pick()
                    await asyncio.wait_for(client.held.wait(), 10)
                    await player.restart(moment)
                    continue
                player.pick()
                if moment == "between rounds":
                    event = await player.next()
                    while not (isinstance(event, TurnResult) and event.turn == TURNS):
                        event = await player.next()
                    await player.restart(moment)
            elif isinstance(event, GameEnded):
                player.verdicts.append(client.fairness.final)
                if game == 1:
                    # Killed as the game ends: the sessions go with it (the game is stored);
                    # everyone logs in again and quick-matches into the second game.
                    await player.server.restart()
                    restarted = time.monotonic()
                    await reconnect(client, attempts=60, delay=0.1)
                    # We keep our seed back this time: the next kill comes in the seeding.
                    client.hold, client.held = True, asyncio.Event()
                    await quick_match(client)
                    await asyncio.wait_for(client.held.wait(), 10)
                    player.stalls.append(("at game over", time.monotonic() - restarted))
                    # Killed while the seats send their seeds: the game was saved as it began,
                    # and every seat sends its own seed again.
                    await player.server.restart()
                    restarted = time.monotonic()
                    client.hold = False
                    while not isinstance(started := await player.next(), GameStarted):
                        pass
                    assert not started.drawn, "the server drew a seed that was sent again"
                    player.stalls.append(("during seeding", time.monotonic() - restarted))
                    await finish(player)
                    return
                break


async def finish(player: Player) -> None:
    """Play the game under way to its end."""
    while True:
        event = await player.next()
        if isinstance(event, TurnStart) and player.client.awaiting:
            player.pick()
        elif isinstance(event, GameEnded):
            player.verdicts.append(player.client.fairness.final)
            return


async def test_sigkill_at_five_moments_takes_no_ones_choice(server_db: tuple[str, ...]) -> None:
    """On each storage backend: an SQLite file, and a real PostgreSQL."""
    server = ServerProcess(server_db)
    await server.start()
    bots = await start_bots(server.port, GAMES)
    client = await SlowRevealer.connect("127.0.0.1", server.port, name="chaos")
    player = Player(client, server)
    # A bot killed as its game ended may not have seen the end (the server kept it).
    await play_beside_bots(
        bots,
        GAMES,
        play(player),
        client,
        server,
        fair=lambda line: "fairness verified" in line or "was not seen" in line,
    )

    # Each restart was followed by the next step within a few seconds.
    assert [moment for moment, _ in player.stalls] == [
        "during commits",
        "between commitments and reveals",
        "between rounds",
        "at game over",
        "during seeding",
    ]
    assert all(seconds < STALL for _, seconds in player.stalls), player.stalls
    assert player.verdicts == ["verified"] * GAMES

    records, key = stored_records(server_db)
    assert len(records) == GAMES
    assert_records_verify(records, key)
