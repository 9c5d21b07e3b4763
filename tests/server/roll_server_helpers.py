"""Helpers for the Sushi Roll server tests: a witness that checks a whole game from one client's
side (the signed roll record, the seed chain, and every update against a replay), scripted players
on the sans-IO hub and on real loopback sockets, and how they choose their actions."""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import random
from collections.abc import Callable

from server_helpers import Clock, Peer, hello, raw_frame
from socket_helpers import RawPeer

from sushigo.engine.games.sushi_roll import (
    GameOver,
    RollAction,
    RollGame,
    RollObservation,
    RoundScored,
    Take,
)
from sushigo.protocol import (
    ROLL_WIRE,
    Act,
    Acted,
    ClientMessage,
    Error,
    FairRecord,
    GameEnded,
    GameStarted,
    GameStarting,
    JoinTable,
    LoggedIn,
    LoginGuest,
    Message,
    Phase,
    Resume,
    Resumed,
    Seed,
    TableJoined,
    TableSettings,
    TurnStart,
    Welcome,
    new_seed,
    server_seed_hash,
    verify_record,
    verify_signed_record,
)
from sushigo.server.hub.core import Hub

Chooser = Callable[[RollObservation, int, random.Random], RollAction]
"""How a scripted player picks its action: (the latest observation, its seat, rng)."""


def roll_settings(players: int, turn_seconds: int = 60) -> TableSettings:
    return TableSettings(kind="sushi-roll", players=players, turn_seconds=turn_seconds)


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
    turns: list[TurnStart] = dataclasses.field(default_factory=list)
    updates: list[Acted] = dataclasses.field(default_factory=list)
    errors: list[Error] = dataclasses.field(default_factory=list)
    over: GameEnded | None = None

    def see(self, message: Message) -> None:
        if isinstance(message, GameStarting):
            assert message.kind == "sushi-roll"
            self.seat, self.seed_hash = message.seat, message.server_seed_hash
        elif isinstance(message, GameStarted):
            assert message.server_seed_hash == self.seed_hash
            self.client_seeds = message.client_seeds
        elif isinstance(message, TurnStart):
            assert not message.secret and len(message.seats) == 1
            assert message.observation.seat == self.seat, "each receiver gets its own view"
            assert message.observation.to_move == message.seats[0]
            self.turns.append(message)
        elif isinstance(message, Acted):
            assert message.observation.seat == self.seat, "each receiver gets its own view"
            self.updates.append(message)
        elif isinstance(message, GameEnded):
            self.over = message
        elif isinstance(message, Error):
            self.errors.append(message)

    @property
    def round_scores(self) -> list[RoundScored]:
        """The rounds scored, as the updates' events told them."""
        return [e for u in self.updates for e in u.events if isinstance(e, RoundScored)]

    def verify(self) -> FairRecord:
        """The signed record checks out and everything shown during the game follows from it."""
        over = self.over
        assert over is not None, "the game did not finish"
        record = verify_signed_record(over.record, self.server_key)
        assert record.game == "sushi-roll"
        assert server_seed_hash(over.server_seed) == self.seed_hash == record.server_seed_hash
        assert record.server_seed == over.server_seed
        assert record.client_seeds == self.client_seeds
        report = verify_record(record)
        assert report.ok, report.problems
        # Replay from the now-known game seed: every update shown was exactly the engine's.
        game = RollGame(record.options, record.game_seed())
        assert len(self.updates) == len(record.steps)
        ended = None
        for update, step in zip(self.updates, record.steps, strict=True):
            (opening,) = step.openings
            assert (update.seat, update.action, update.auto) == (
                step.seats[0],
                opening.action,
                opening.auto,
            )
            assert (
                (update.round, update.turn) == (game.round, game.cycle) == (step.round, step.turn)
            )
            events = game.apply(step.seats[0], opening.action)
            assert update.events == tuple(events)
            assert update.observation == game.observation(self.seat)
            ended = next((e for e in events if isinstance(e, GameOver)), ended)
        assert game.is_terminal()
        assert len(self.round_scores) == 3
        assert record.scores == over.totals == game.scores()
        assert over.places == game.places() and over.winners == game.winners()
        assert ended is not None
        assert ended.pudding_points == game.pudding_points()
        assert ended.token_bonus == game.token_bonus()
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
            if isinstance(message, TurnStart | Acted):
                self.last = message.observation
                self.owed = self.moving
            elif isinstance(message, Resumed) and message.snapshot is not None:
                # The snapshot says where the game stands: no TURN_START follows it.
                self.last = message.snapshot.observation
                self.owed = self.moving
        return message

    @property
    def moving(self) -> bool:
        return self.proto.phase is Phase.MOVING

    def act(self, action: RollAction) -> int:
        """Send the action for the current round and cycle; its ref."""
        position = self.proto.position
        assert position is not None
        self.owed = False
        ref = self.ref()
        self.send(Act(ref=ref, round=position[0], turn=position[1], action=action))
        return ref

    def act_raw(self, message: ClientMessage) -> None:
        """Send without the client's phase and turn checks (what a client must not do)."""
        self.send_bytes(raw_frame(message, ROLL_WIRE))

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
            elif isinstance(message, GameEnded):
                over = True


def play_out(peers: list[RollPeer], rng: random.Random, rounds: int = 10_000) -> None:
    """Let every peer play until the game is over for all of them."""
    for _ in range(rounds):
        for peer in peers:
            peer.play(rng)
        if all(peer.witness.over is not None for peer in peers):
            return
    raise AssertionError("the game did not finish")


_tables = itertools.count(1)


def seated(hub: Hub, clock: Clock, players: int, turn_seconds: int = 60) -> list[RollPeer]:
    """`players` scripted players at a new Sushi Roll table, the game started and seeded."""
    peers = [RollPeer(hub, clock, address=f"10.0.1.{i}") for i in range(players)]
    table = next(_tables)  # names are unique among the connected: each table's own
    for i, peer in enumerate(peers):
        peer.login(f"t{table}p{i}")
    peers[0].create(roll_settings(players, turn_seconds))
    for peer in peers[1:]:
        peer.send(JoinTable(ref=peer.ref(), table_id=peers[0].table_id))
        peer.joined(peer.expect(TableJoined))
    peers[0].start()
    for peer in peers:
        peer.expect(GameStarting)
        peer.send(Seed(ref=peer.ref(), seed=new_seed()))
    for peer in peers:
        peer.expect(TurnStart)
    return peers


def mover_of(peers: list[RollPeer]) -> RollPeer:
    (mover,) = [p for p in peers if p.moving]
    return mover


def resume(
    hub: Hub, clock: Clock, old: RollPeer, last_seq: int, address: str = "10.0.0.8"
) -> tuple[RollPeer, Resumed]:
    """`old`'s session on a new connection to `hub` from `address`, with `old`'s witness (which
    first reads what reached `old` before its connection went); and the server's RESUMED."""
    old.drain()
    back = RollPeer(hub, clock, address=address)
    back.witness = old.witness
    back.table_id, back.seat = old.table_id, old.seat
    back.send(hello(back.ref()))
    back.expect(Welcome)
    back.send(Resume(ref=back.ref(), token=old.token, last_seq=last_seq))
    return back, back.expect(Resumed)


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
            if isinstance(message, TurnStart | Acted):
                self.last = message.observation
        return message

    def act(self, action: RollAction) -> int:
        """Send the action for the current round and cycle; its ref."""
        position = self.proto.position
        assert position is not None
        ref = self.ref()
        self.send(Act(ref=ref, round=position[0], turn=position[1], action=action))
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
        """Play (or watch) until GAME_OVER, or until a message `until` accepts (not acted on):
        send the seed, act whenever this seat is to move (with `act_first`, at once: the turn is
        ours and its last update was read already). Errors are kept in the witness."""
        if act_first:
            assert self.proto.phase is Phase.MOVING
            assert self.seat is not None and self.last is not None
            self.act(chooser(self.last, self.seat, rng))
        while True:
            message = await self.recv(timeout)
            assert message is not None, "the server closed the connection"
            if until(message):
                return self.witness
            if isinstance(message, GameStarting) and message.seat is not None:
                self.send(Seed(ref=self.ref(), seed=new_seed()))
            elif isinstance(message, TurnStart | Acted):
                if self.proto.phase is Phase.MOVING:
                    assert self.seat is not None and self.last is not None
                    self.act(chooser(self.last, self.seat, rng))
            elif isinstance(message, GameEnded):
                return self.witness
