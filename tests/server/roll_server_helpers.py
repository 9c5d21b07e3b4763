"""Helpers for the Sushi Roll server tests: a witness that checks a whole game from one client's
side (the signed roll record, the seed chain, and every update against a replay), scripted players
on the sans-IO hub and on real loopback sockets, and how they choose their actions."""

from __future__ import annotations

import asyncio
import dataclasses
import random
from collections.abc import Callable

from server_helpers import Clock, Peer, RawPeer, hello, raw_frame

from sushigo.engine.roll import GameOver, RollAction, RollGame, RollObservation, RoundScored, Take
from sushigo.protocol import (
    ClientMessage,
    Error,
    GameKind,
    GameStarted,
    GameStarting,
    JoinTable,
    LoggedIn,
    LoginGuest,
    Message,
    Phase,
    RollFairRecord,
    RollGameOver,
    RollPlay,
    RollRoundScores,
    RollTurn,
    RollUpdate,
    Seed,
    TableJoined,
    TableSettings,
    Welcome,
    new_seed,
    server_seed_hash,
    verify_roll_record,
    verify_signed_roll_record,
)
from sushigo.server.hub import Hub

Chooser = Callable[[RollObservation, int, random.Random], RollAction]
"""How a scripted player picks its action: (the latest observation, its seat, rng)."""


def roll_settings(players: int, turn_seconds: int = 60) -> TableSettings:
    return TableSettings(kind=GameKind.SUSHI_ROLL, players=players, turn_seconds=turn_seconds)


def take_only(observation: RollObservation, seat: int, rng: random.Random) -> RollAction:
    """A random take: the seat keeps every token."""
    belt = observation.players[seat].belt
    return Take(rng.randrange(len(belt)))


def choose(observation: RollObservation, seat: int, rng: random.Random) -> RollAction:
    """A random legal action of `seat` (to move), a take two times in three."""
    legal = dataclasses.replace(observation, seat=seat).legal_actions()
    assert legal, f"seat {seat} is not to move"
    takes = [a for a in legal if type(a) is Take]
    if len(takes) < len(legal) and rng.random() < 1 / 3:
        return rng.choice([a for a in legal if type(a) is not Take])
    return rng.choice(takes)


@dataclasses.dataclass
class RollWitness:
    """Everything one client saw of a Sushi Roll game, and the checks a careful client makes."""

    server_key: bytes
    seat: int | None = None
    seed_hash: bytes | None = None
    client_seeds: tuple[bytes, ...] = ()
    turns: list[RollTurn] = dataclasses.field(default_factory=list)
    updates: list[RollUpdate] = dataclasses.field(default_factory=list)
    round_scores: list[RollRoundScores] = dataclasses.field(default_factory=list)
    errors: list[Error] = dataclasses.field(default_factory=list)
    over: RollGameOver | None = None

    def see(self, message: Message) -> None:
        if isinstance(message, GameStarting):
            assert message.kind == "sushi-roll"
            assert not message.options.variants()
            self.seat, self.seed_hash = message.seat, message.server_seed_hash
        elif isinstance(message, GameStarted):
            assert message.server_seed_hash == self.seed_hash
            self.client_seeds = message.client_seeds
        elif isinstance(message, RollTurn):
            assert message.observation.seat == self.seat, "each receiver gets its own view"
            self.turns.append(message)
        elif isinstance(message, RollUpdate):
            self.updates.append(message)
        elif isinstance(message, RollRoundScores):
            self.round_scores.append(message)
        elif isinstance(message, RollGameOver):
            self.over = message
        elif isinstance(message, Error):
            self.errors.append(message)

    def verify(self) -> RollFairRecord:
        """The signed record checks out and everything shown during the game follows from it."""
        over = self.over
        assert over is not None, "the game did not finish"
        record = verify_signed_roll_record(over.record, self.server_key)
        assert server_seed_hash(over.server_seed) == self.seed_hash == record.server_seed_hash
        assert record.server_seed == over.server_seed
        assert record.client_seeds == self.client_seeds
        report = verify_roll_record(record)
        assert report.ok, report.problems
        # Replay from the now-known game seed: every update shown was exactly the engine's.
        game = RollGame(record.options, record.game_seed())
        assert len(self.updates) == len(record.steps)
        scored = []
        for update, step in zip(self.updates, record.steps, strict=True):
            assert (update.seat, update.action, update.auto) == (step.seat, step.action, step.auto)
            assert (update.round, update.cycle) == (game.round, game.cycle)
            events = game.apply(step.seat, step.action)
            assert update.events == tuple(
                e for e in events if not isinstance(e, RoundScored | GameOver)
            )
            assert update.observation == game.observation(None)
            scored += [RollRoundScores.of(e) for e in events if isinstance(e, RoundScored)]
        assert game.is_terminal()
        assert self.round_scores == scored and len(scored) == 3
        assert record.scores == over.totals == game.scores()
        assert over.places == game.places() and over.winners == game.winners()
        assert over.pudding_points == game.pudding_points()
        assert over.token_bonus == game.token_bonus()
        return record


# -- on the sans-IO hub ----------------------------------------------------------------------


class RollPeer(Peer):
    """A scripted player of the hub tests that can play Sushi Roll."""

    def __init__(self, hub: Hub, clock: Clock, address: str = "10.0.0.1") -> None:
        super().__init__(hub, clock, address)
        self.witness = RollWitness(hub.server_key)
        self.games: list[RollWitness] = []
        """Witnesses of this peer's earlier games."""
        self.owed = False
        """This seat is to move and has not acted on the latest state."""
        self.last: RollObservation | None = None

    def next(self) -> Message | None:
        message = super().next()
        if isinstance(message, TableJoined):  # also unasked: a tournament seats its entrants
            self.joined(message)
        elif isinstance(message, GameStarting) and self.witness.seed_hash is not None:
            self.games.append(self.witness)  # a new game: a new witness
            self.witness = RollWitness(self.hub.server_key)
        if message is not None:
            self.witness.see(message)
            if isinstance(message, RollTurn | RollUpdate):
                self.last = message.observation
                self.owed = self.moving
        return message

    @property
    def moving(self) -> bool:
        return self.proto.phase is Phase.ROLL_MOVING

    def act(self, action: RollAction) -> int:
        """Send the action for the current round and cycle; its ref."""
        position = self.proto.position
        assert position is not None
        self.owed = False
        ref = self.ref()
        self.send(RollPlay(ref=ref, round=position[0], cycle=position[1], action=action))
        return ref

    def act_raw(self, message: ClientMessage) -> None:
        """Send without the client's phase and turn checks (what a client must not do)."""
        self.send_bytes(raw_frame(message))

    def play(self, rng: random.Random, *, seed: bool = True) -> bool:
        """Handle every buffered message, acting when this seat is to move (and sending its seed
        when asked); True once the game is over for it."""
        over = False
        while True:
            message = self.next()
            if message is None:
                if not (self.owed and self.moving):
                    return over
                assert self.seat is not None and self.last is not None
                self.act(choose(self.last, self.seat, rng))
            elif isinstance(message, Error):
                raise AssertionError(f"unexpected error: {message}")
            elif isinstance(message, GameStarting) and message.seat is not None and seed:
                self.send(Seed(ref=self.ref(), seed=new_seed()))
            elif isinstance(message, RollGameOver):
                over = True


def play_out(peers: list[RollPeer], rng: random.Random, rounds: int = 10_000) -> None:
    """Let every peer play until the game is over for all of them."""
    for _ in range(rounds):
        for peer in peers:
            peer.play(rng)
        if all(peer.witness.over is not None for peer in peers):
            return
    raise AssertionError("the game did not finish")


def seated(hub: Hub, clock: Clock, players: int, turn_seconds: int = 60) -> list[RollPeer]:
    """`players` scripted players at a new Sushi Roll table, the game started and seeded."""
    peers = [RollPeer(hub, clock, address=f"10.0.1.{i}") for i in range(players)]
    for i, peer in enumerate(peers):
        peer.login(f"p{i}")
    peers[0].create(roll_settings(players, turn_seconds))
    for peer in peers[1:]:
        peer.send(JoinTable(ref=peer.ref(), table_id=peers[0].table_id))
        peer.joined(peer.expect(TableJoined))
    peers[0].start()
    for peer in peers:
        peer.expect(GameStarting)
        peer.send(Seed(ref=peer.ref(), seed=new_seed()))
    for peer in peers:
        peer.expect(RollTurn)
    return peers


def mover_of(peers: list[RollPeer]) -> RollPeer:
    (mover,) = [p for p in peers if p.moving]
    return mover


# -- on real sockets --------------------------------------------------------------------------


class RollClient(RawPeer):
    """A scripted protocol client on a real socket (`protocol.ClientConnection`), with a witness."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        super().__init__(reader, writer)
        self.witness = RollWitness(b"")
        self.last: RollObservation | None = None

    @classmethod
    async def connect(cls, host: str, port: int) -> RollClient:
        reader, writer = await asyncio.open_connection(host, port)
        return cls(reader, writer)

    async def login(self, name: str) -> LoggedIn:
        self.send(hello(self.ref()))
        welcome = await self.expect(Welcome)
        self.witness = RollWitness(welcome.server_key)
        self.send(LoginGuest(ref=self.ref(), name=name))
        reply = await self.expect(LoggedIn)
        self.token = reply.resume_token
        return reply

    async def recv(self, timeout: float = 5.0) -> Message | None:
        message = await super().recv(timeout)
        if message is not None:
            self.witness.see(message)
            if isinstance(message, RollTurn | RollUpdate):
                self.last = message.observation
        return message

    def act(self, action: RollAction) -> int:
        """Send the action for the current round and cycle; its ref."""
        position = self.proto.position
        assert position is not None
        ref = self.ref()
        self.send(RollPlay(ref=ref, round=position[0], cycle=position[1], action=action))
        return ref

    async def play(
        self,
        rng: random.Random,
        timeout: float = 10.0,
        *,
        act_first: bool = False,
        chooser: Chooser = choose,
        until: Callable[[Message], bool] = lambda message: False,
    ) -> RollWitness:
        """Play (or watch) until ROLL_GAME_OVER, or until a message `until` accepts (not acted
        on): send the seed, act whenever this seat is to move (with `act_first`, at once: the
        turn is ours and its last update was read already). Errors are kept in the witness."""
        if act_first:
            assert self.proto.phase is Phase.ROLL_MOVING
            assert self.seat is not None and self.last is not None
            self.act(chooser(self.last, self.seat, rng))
        while True:
            message = await self.recv(timeout)
            assert message is not None, "the server closed the connection"
            if until(message):
                return self.witness
            if isinstance(message, GameStarting) and message.seat is not None:
                self.send(Seed(ref=self.ref(), seed=new_seed()))
            elif isinstance(message, RollTurn | RollUpdate):
                if self.proto.phase is Phase.ROLL_MOVING:
                    assert self.seat is not None and self.last is not None
                    self.act(chooser(self.last, self.seat, rng))
            elif isinstance(message, RollGameOver):
                return self.witness
