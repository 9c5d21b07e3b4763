"""Shared helpers for the server tests: a fake clock and transport to drive `Hub` directly (no
sockets, no sleeping) and scripted peers speaking the protocol by hand. The tests on real
sockets have theirs in socket_helpers.py."""

from __future__ import annotations

import random
from collections import deque
from typing import Any, TypeVar

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from sushigo.engine import Action, Game, GameOptions
from sushigo.protocol import (
    CARD_WIRE,
    CLIENT_LIMITS,
    PROTOCOL_NAME,
    SUPPORTED_VERSIONS,
    AddBot,
    ClientConnection,
    ClientMessage,
    Commit,
    Commitments,
    CreateTable,
    CreateTournament,
    Error,
    FairRecord,
    GameEnded,
    GameStarted,
    GameStarting,
    Hello,
    JoinTable,
    LoggedIn,
    LoginGuest,
    Message,
    Pong,
    RegisterTournament,
    Reveal,
    Seed,
    ServerPing,
    StartGame,
    StartTournament,
    TableJoined,
    TableSettings,
    TournamentSettings,
    TurnResult,
    TurnStart,
    Welcome,
    encode_frame,
    encode_message,
    login_key_message,
    make_commitment,
    new_nonce,
    new_seed,
    verify_commitment,
    verify_record,
    verify_signed_record,
)
from sushigo.server.config import HubConfig
from sushigo.server.hub.core import Hub
from sushigo.server.sessions.session import Conn
from sushigo.server.storage.contract import Storage, StorageError
from sushigo.server.storage.sqlite.storage import SqliteStorage

T = TypeVar("T")


def expected_turns(options: GameOptions) -> int:
    """Turns in a whole game (hand sizes shrink by one a turn whatever is picked)."""
    game = Game(options, bytes(32))
    turns = 0
    while not game.is_terminal():
        game.apply([game.legal_actions(s)[0] for s in range(options.players)])
        turns += 1
    return turns


def replay_scores(record: FairRecord) -> tuple[int, ...]:
    """The final scores the engine alone gives for a record's picks."""
    game = Game(record.options, record.game_seed())
    for turn in record.steps:
        game.apply([o.action for o in turn.openings])
    assert game.is_terminal()
    return game.scores()


def raw_frame(message: ClientMessage, game: Any = CARD_WIRE) -> bytes:
    """A client frame without the phase check (to send what a client must not); game values are
    `game`'s (Sushi Go!'s by default)."""
    return encode_frame(encode_message(message, None, game), CLIENT_LIMITS)


def card_settings(players: int, **changes: Any) -> TableSettings:
    """A Sushi Go! table's settings."""
    return TableSettings(kind="sushi-go", players=players, **changes)


def hello(ref: int = 1) -> Hello:
    return Hello(ref=ref, protocol=PROTOCOL_NAME, version=SUPPORTED_VERSIONS[-1])


# -- driving the hub directly, with an injected clock ----------------------------------------------


class FakeTransport:
    """What the hub writes to, kept for the test to read."""

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.closed = False

    def write(self, data: bytes) -> None:
        assert not self.closed, "the hub wrote to a transport it closed"
        self.buffer += data

    def close(self) -> None:
        self.closed = True


class Clock:
    """The hub's time, moved by hand; every move fires the timers that are due."""

    def __init__(self, hub: Hub, now: float = 1000.0) -> None:
        self.hub, self.now = hub, now
        self.alive: list[Peer] = []
        """Peers that answer the server's pings while time passes (the rest stay silent)."""

    def advance(self, seconds: float, step: float = 5.0) -> None:
        end = self.now + seconds
        while self.now < end:
            self.now = min(end, self.now + step)
            deadline = self.hub.next_deadline()
            while deadline is not None and deadline <= self.now:
                self.hub.on_timer(self.now)
                deadline = self.hub.next_deadline()
            for peer in self.alive:
                peer.keep_alive()


def run_reads(hub: Hub, now: float) -> None:
    """Run the database reads the requests asked for, as the adapter would in a worker thread,
    and hand their results back (`Hub.read`)."""
    while hub.reads:
        reads, hub.reads = hub.reads, []
        for read in reads:
            try:
                result = read.job()
            except StorageError as exc:
                result = exc
            hub.read_done(read, result, now)


WALL_MS = 1_700_000_000_000
"""The tests' hubs' wall clock (what records and tokens are stamped with), fixed."""


def hub_on(storage: Storage, key: Ed25519PrivateKey | None = None, **options: Any) -> Hub:
    """A hub on `storage` signing with `key` (a new one by default), its wall clock at
    `WALL_MS`; `options`: the rest of `Hub`'s."""
    return Hub(
        storage=storage, key=key or Ed25519PrivateKey.generate(), wall_ms=lambda: WALL_MS, **options
    )


def make_hub(config: HubConfig | None = None) -> tuple[Hub, Clock]:
    hub = hub_on(SqliteStorage(":memory:"), config=config)
    return hub, Clock(hub)


_ports = iter(range(40000, 60000))


class Peer:
    """A scripted client on a fake transport, speaking through a `ClientConnection`."""

    def __init__(self, hub: Hub, clock: Clock, address: str = "10.0.0.1") -> None:
        self.hub, self.clock = hub, clock
        self.transport = FakeTransport()
        self.proto = ClientConnection()
        conn = hub.open(self.transport, address, next(_ports), clock.now)
        assert conn is not None
        self.conn: Conn = conn
        self.table_id = ""
        self.seat: int | None = None
        self.token = b""
        self.pick: tuple[int, int, Action, bytes] | None = None
        self.shown: dict[tuple[int, int], tuple[bytes | None, ...]] = {}
        self.verified = 0
        self.eof = False
        self.inbox: deque[Message] = deque()

    # sending

    def send(self, message: ClientMessage) -> None:
        self.send_bytes(self.proto.send(message))

    def send_bytes(self, data: bytes) -> None:
        self.hub.data(self.conn, data, self.clock.now)
        if self.conn.logging_in:  # a login reads the names stored: as the adapter would
            run_reads(self.hub, self.clock.now)

    def ref(self) -> int:
        return self.proto.next_ref()

    # receiving

    def keep_alive(self) -> None:
        """Answer the server's pings now; keep every other message for `next`."""
        while (message := self._read()) is not None:
            if isinstance(message, ServerPing):
                if not self.transport.closed:
                    self.send(Pong(ref=self.ref(), nonce=message.nonce))
            else:
                self.inbox.append(message)

    def next(self) -> Message | None:
        """The next message from the server, or None when nothing more is buffered."""
        if self.inbox:
            return self.inbox.popleft()
        return self._read()

    def _read(self) -> Message | None:
        if self.transport.buffer:
            data = bytes(self.transport.buffer)
            self.transport.buffer.clear()
            self.proto.receive_data(data)
        if self.transport.closed and not self.eof and not self.transport.buffer:
            self.eof = True
            self.proto.receive_data(b"")
        event = self.proto.next_event()
        if event is None or not isinstance(event, Message):
            return None
        self._check(event)
        return event

    def drain(self) -> list[Message]:
        out = []
        while (message := self.next()) is not None:
            out.append(message)
        return out

    def expect(self, kind: type[T]) -> T:
        """Skip messages until one of `kind` (failing when none is buffered)."""
        seen = []
        while (message := self.next()) is not None:
            if isinstance(message, kind):
                return message
            seen.append(message.TYPE)
        raise AssertionError(f"no {kind.__name__} from the server; got {seen}")

    def _check(self, message: Message) -> None:
        """Verify every opening against the commitments shown, as a client must."""
        if isinstance(message, Commitments):
            self.shown[message.round, message.turn] = message.commitments
        elif isinstance(message, TurnResult):
            shown = self.shown[message.round, message.turn]
            for seat, opening in enumerate(message.openings):
                if opening.auto:
                    continue
                commitment = shown[seat]
                assert commitment is not None and opening.nonce is not None
                assert verify_commitment(
                    commitment,
                    self.table_id,
                    message.round,
                    message.turn,
                    seat,
                    CARD_WIRE.commit_bytes(opening.action),
                    opening.nonce,
                )
                self.verified += 1

    # the protocol's steps

    def login(self, name: str = "peer") -> LoggedIn:
        self.send(hello(self.ref()))
        self.expect(Welcome)
        self.send(LoginGuest(ref=self.ref(), name=name))
        reply = self.expect(LoggedIn)
        self.token = reply.resume_token
        return reply

    def login_key(
        self,
        key: Ed25519PrivateKey,
        name: str,
        expect: type[T] = LoggedIn,  # type: ignore[assignment]
    ) -> T:
        """Log in with `key`; the reply of type `expect` (LOGGED_IN, or ERROR to see a refusal)."""
        self.send(hello(self.ref()))
        welcome = self.expect(Welcome)
        self.send(login_key_message(key, name, welcome.server_key, welcome.challenge, self.ref()))
        reply = self.expect(expect)
        if isinstance(reply, LoggedIn):
            self.token = reply.resume_token
        return reply

    def create(self, settings: TableSettings) -> TableJoined:
        self.send(CreateTable(ref=self.ref(), settings=settings))
        return self.joined(self.expect(TableJoined))

    def joined(self, reply: TableJoined) -> TableJoined:
        self.table_id, self.seat = reply.table.table_id, reply.seat
        return reply

    def add_bot(self, strategy: str = "random") -> None:
        self.send(AddBot(ref=self.ref(), strategy=strategy))

    def start(self) -> None:
        self.send(StartGame(ref=self.ref()))

    def seed(self) -> None:
        self.expect(GameStarting)
        self.send(Seed(ref=self.ref(), seed=new_seed()))

    def commit(self, action: Action, round_: int, turn: int) -> bytes:
        assert self.seat is not None
        nonce = new_nonce()
        self.pick = (round_, turn, action, nonce)
        commitment = make_commitment(
            self.table_id, round_, turn, self.seat, CARD_WIRE.commit_bytes(action), nonce
        )
        self.send(Commit(ref=self.ref(), round=round_, turn=turn, commitment=commitment))
        return commitment

    def reveal(self) -> None:
        assert self.pick is not None
        round_, turn, action, nonce = self.pick
        self.send(Reveal(ref=self.ref(), round=round_, turn=turn, action=action, nonce=nonce))

    def play_turn(self, rng: random.Random) -> GameEnded | None:
        """Handle buffered messages until this seat has revealed once or the game ended."""
        while (message := self.next()) is not None:
            if isinstance(message, Error):
                raise AssertionError(f"unexpected error: {message}")
            if isinstance(message, TurnStart):
                self.commit(
                    rng.choice(message.observation.legal_actions()), message.round, message.turn
                )
            elif isinstance(message, Commitments):
                self.reveal()
                return None
            elif isinstance(message, GameEnded):
                return message
        return None


def logged_in(hub: Hub, clock: Clock, name: str = "peer", address: str = "10.0.0.1") -> Peer:
    """A guest `name` connected from `address`, logged in."""
    peer = Peer(hub, clock, address=address)
    peer.login(name)
    return peer


def table_with_bots(
    hub: Hub,
    clock: Clock,
    name: str,
    settings: TableSettings,
    *bots: str,
    address: str = "10.0.0.1",
    start: bool = True,
) -> Peer:
    """A scripted player `name` at a new table of `settings`, with server `bots` (strategies) in
    the next seats; its game started unless `start` is false (the seed is the caller's)."""
    peer = logged_in(hub, clock, name, address=address)
    peer.create(settings)
    for bot in bots:
        peer.add_bot(bot)
    if start:
        peer.start()
    return peer


def three_seats(hub: Hub, clock: Clock, turn_seconds: int = 30) -> tuple[Peer, Peer]:
    """Two scripted players (absent and present) and a random bot, at the first turn, both
    answering pings."""
    a, b = Peer(hub, clock), Peer(hub, clock)
    a.login("absent")
    b.login("present")
    a.create(TableSettings(kind="sushi-go", players=3, turn_seconds=turn_seconds))
    b.send(JoinTable(ref=b.ref(), table_id=a.table_id))
    b.joined(b.expect(TableJoined))
    a.add_bot("random")
    a.start()
    a.seed()
    b.seed()
    for p in (a, b):
        p.expect(GameStarted)
    clock.alive += [a, b]
    return a, b


def two_player_cup(hub: Hub, clock: Clock, *watchers: Peer) -> tuple[Peer, Peer, str]:
    """A tournament of one 2-player game with 1-second turns, made and started by a host, its
    two entrants ann and bob seated (all of them, and `watchers`, answering pings): the two
    entrants and the game's table."""
    host, ann, bob = (Peer(hub, clock) for _ in range(3))
    for peer, name in ((host, "host"), (ann, "ann"), (bob, "bob")):
        peer.login(name)
    clock.alive = [host, ann, bob, *watchers]
    settings = TournamentSettings(name="cup", kind="sushi-go", players=2, games=1, turn_seconds=1)
    host.send(CreateTournament(ref=host.ref(), settings=settings))
    for peer in (ann, bob):
        peer.send(RegisterTournament(ref=peer.ref(), name="cup"))
    host.send(StartTournament(ref=host.ref(), name="cup"))
    return ann, bob, ann.expect(TableJoined).table.table_id


def hub_game(hub: Hub, clock: Clock, players: int = 2) -> Peer:
    """A game at its own table: one scripted player and server bots, started and seeded."""
    bots = ["random"] * (players - 1)
    host = table_with_bots(
        hub, clock, "steady", card_settings(players, turn_seconds=60), *bots, address="10.9.9.9"
    )
    host.seed()
    host.expect(GameStarted)
    return host


def check_ended(peer: Peer, ended: GameEnded | None, options: GameOptions) -> None:
    """The game finished, every opening checked out, and the record verifies."""
    assert ended is not None, "the game did not finish"
    record = verify_signed_record(ended.record, peer.hub.server_key)
    assert verify_record(record).ok
    assert record.scores == ended.totals == replay_scores(record)
    assert peer.verified == expected_turns(options) * options.players
