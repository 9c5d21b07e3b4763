"""A scripted Sushi Roll server for the client's tests: a real `engine.games.sushi_roll.RollGame`
played over a real `protocol.ServerConnection`, linked in memory to a real `Client` (no socket).

`Dealer` is the server's side of one client's connection: it says WELCOME and LOGGED_IN, seats the
client at a table, starts a game whose other seats are played by a Sushi Roll strategy, and answers
every ACT the client sends exactly as docs/PROTOCOL.md says for an open step (ACTED, and GAME_OVER
with a record signed by its key). Its `lie_*` hooks make it cheat in one precise way, for the
fairness tests. Bytes written by the client are handed to the
dealer on the next loop iteration (never inside `Client.send`), as a socket would.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
from collections.abc import Callable
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from scripted import logged_in, welcome

from sushigo.bots import get_strategy
from sushigo.client.connection import Client
from sushigo.engine.games.sushi_roll import (
    DIE_FACES,
    Die,
    GameOver,
    RollAction,
    RollGame,
    RollObservation,
    RollOptions,
    Swap,
    Take,
)
from sushigo.protocol import (
    ROLL_WIRE,
    SUPPORTED_VERSIONS,
    Act,
    Acted,
    ClientConnection,
    ClientMessage,
    Error,
    ErrorCode,
    FairRecord,
    GameEnded,
    GameStarted,
    GameStarting,
    Hello,
    LoginGuest,
    Opening,
    Phase,
    Resume,
    Resumed,
    SeatInfo,
    Seed,
    ServerConnection,
    ServerMessage,
    Snapshot,
    Spectating,
    StepRecord,
    TableInfo,
    TableJoined,
    TableSettings,
    TableStatus,
    TurnStart,
    Version,
    derive_game_seed,
    server_seed_hash,
    sign_record,
)
from sushigo.protocol.records import public_key_bytes

TABLE = "t-roll"


class Dealer:
    """The server side of one client's connection, dealing a Sushi Roll game (see the module)."""

    def __init__(
        self,
        players: int = 3,
        seat: int | None = 0,
        *,
        seed: int = 1,
        strategy: str = "greedy",
        turn_ms: int = 0,
    ) -> None:
        self.players, self.seat, self.turn_ms = players, seat, turn_ms
        self.rng = random.Random(seed)
        self.key = Ed25519PrivateKey.generate()
        self.server_seed = self.rng.randbytes(32)
        self.bot_seeds = [self.rng.randbytes(32) for _ in range(players)]
        self.bot = get_strategy(strategy, game="sushi-roll")
        self.conn = ServerConnection()
        self.client: Client | None = None
        self.received: list[ClientMessage] = []
        self.game: RollGame | None = None
        self.steps: list[StepRecord] = []
        self.names = tuple(f"bot-{i}" if i != seat else "tester" for i in range(players))
        # Lies, each off by default.
        self.lie_server_seed = False
        """Reveal another server seed than the one committed to."""
        self.lie_die_at: int | None = None
        """Show a different face for a die in the update of this step (0-based)."""
        self.lie_key = False
        """Sign the record with a key that is not the server's."""
        self.lie_action_for_client = False
        """Apply a take for the client it never sent (not marked auto)."""
        self.lie_illegal_at: int | None = None
        """Announce, at this step, an action the mover could not legally make."""
        self.refuse_next = False
        """Answer the client's next ACT with ILLEGAL_ACTION."""
        self.online = True
        """False while the client's connection is down: what the server sends is lost."""

    # -- the link -----------------------------------------------------------------------------

    def attach(self, client: Client) -> None:
        """Link `client` to this dealer (as if it had connected) and do the handshake."""
        self.client = client
        client.proto = ClientConnection()
        client.connected = True
        client._writer = self  # type: ignore[assignment]
        client.server_key = public_key_bytes(self.key)  # as `Client._open` takes it from WELCOME
        hello = Hello(ref=client.proto.next_ref(), protocol="sushigo", version=_version())
        self._from_client(client.proto.send(hello))

    def write(self, data: bytes) -> None:
        asyncio.get_running_loop().call_soon(self._from_client, data)

    def close(self) -> None:
        pass

    def _from_client(self, data: bytes) -> None:
        self.conn.receive_data(data)
        while (message := self.conn.next_event()) is not None:
            assert isinstance(message, ClientMessage)
            self.received.append(message)
            self._handle(message)

    async def reopen(self) -> None:
        """A new connection of the same client (stands in for `Client._open`): handshake only."""
        client = self.client
        assert client is not None
        self.conn, self.online = ServerConnection(), True
        client.proto = ClientConnection()
        client._writer = self  # type: ignore[assignment]
        client.connected = True
        client._lost = asyncio.Event()
        hello = Hello(ref=client.proto.next_ref(), protocol="sushigo", version=_version())
        await client._request(hello)

    def send(self, message: ServerMessage) -> None:
        """Deliver `message` to the client, as its reader task would (lost while offline)."""
        assert self.client is not None
        if not self.online:
            return
        self.client.proto.receive_data(self.conn.send(message))
        while (event := self.client.proto.next_event()) is not None:
            self.client._on_message(event)  # type: ignore[arg-type]

    # -- the server's part ------------------------------------------------------------------------

    def _handle(self, message: ClientMessage) -> None:
        if isinstance(message, Hello):
            self.send(welcome(message, self.key))
        elif isinstance(message, LoginGuest):
            self.send(logged_in(message))
            assert self.client is not None
            self.client.token = bytes(16)  # as `Client._login` takes it from LOGGED_IN
        elif isinstance(message, Seed):
            assert self.seat is not None
            self.bot_seeds[self.seat] = message.seed
            self._start()
        elif isinstance(message, Act):
            self._client_action(message)
        elif isinstance(message, Resume):
            self._resume(message)

    def _resume(self, message: Resume) -> None:
        """Answer with a snapshot (the server kept nothing to replay): where the game stands."""
        game = self.game
        assert game is not None
        mover = game.to_move
        self.conn.game, self.conn.seat = ROLL_WIRE, self.seat  # the session's table, as a server's
        self.send(
            Resumed(
                ref=message.ref,
                player_id="g:tester",
                name="tester",
                resume_token=bytes(16),
                phase=Phase.MOVING if mover == self.seat else Phase.WAITING,
                kind="sushi-roll",
                seat=self.seat,
                round=game.round,
                turn=game.cycle,
                snapshot=Snapshot(
                    table=self.table_info(),
                    seat=self.seat,
                    observation=game.observation(self.seat),
                    server_seed_hash=server_seed_hash(self.server_seed),
                    client_seeds=tuple(self.bot_seeds),
                    seats=(mover,) if mover is not None else (),
                    secret=False,
                    steps=len(self.steps),
                ),
            )
        )

    def watch_late(self, steps: int) -> int:
        """The client comes to watch after `steps` actions of a game under way (SPECTATING with
        the table playing, then the current turn's TURN_START); the bots play on to the end.
        Returns how many actions the client did not see."""
        assert self.seat is None
        self.online = False
        self._start()  # the whole game, unseen: then replay it up to `steps` for the client
        steps_done = self.steps[:steps]
        self.game = RollGame(RollOptions(self.players), self.game.seed)  # type: ignore[union-attr]
        self.steps = []
        for step in steps_done:
            self.game.apply(step.seats[0], step.openings[0].action)
            self.steps.append(step)
        while True:  # finish the mover's turn, so that the client arrives between two turns
            last = self.steps[-1].openings[0].action if self.steps else Take(0)
            if isinstance(last, Take):
                break
            mover = self.game.to_move
            assert mover is not None
            action = self.game.legal_actions(mover)[0]  # a take
            r, c = self.game.round, self.game.cycle
            self.game.apply(mover, action)
            self.steps.append(_step(r, c, mover, action, False))
        self.online = True
        unseen = len(self.steps)
        table = dataclasses.replace(self.table_info(), status=TableStatus.PLAYING)
        self.send(Spectating(table=table))
        self._turn()
        return unseen

    def seat_client(self) -> None:
        """Seat the client at the table (TABLE_JOINED, unprompted) and announce the game."""
        if self.seat is not None:
            self.send(TableJoined(table=self.table_info(), seat=self.seat))
        else:
            self.send(Spectating(table=self.table_info()))
        self.send(
            GameStarting(
                table_id=TABLE,
                kind="sushi-roll",
                options=RollOptions(self.players),
                seat=self.seat,
                players=self.names,
                server_seed_hash=server_seed_hash(self.server_seed),
            )
        )
        if self.seat is None:
            self._start()

    def table_info(self) -> TableInfo:
        seats = tuple(
            SeatInfo(seat=i, player_id=f"p{i}", name=self.names[i], bot=i != self.seat)
            for i in range(self.players)
        )
        return TableInfo(
            table_id=TABLE,
            settings=TableSettings(kind="sushi-roll", players=self.players, turn_seconds=0),
            status=TableStatus.PLAYING,
            host="p0",
            seats=seats,
        )

    def _start(self) -> None:
        seeds = tuple(self.bot_seeds)
        self.send(
            GameStarted(
                table_id=TABLE,
                server_seed_hash=server_seed_hash(self.server_seed),
                client_seeds=seeds,
            )
        )
        seed = derive_game_seed(TABLE, self.server_seed, seeds)
        self.game = RollGame(RollOptions(self.players), seed)
        self._turn()

    def _turn(self) -> None:
        """Send TURN_START, then play the bots' turns until the client is to move or it is over."""
        game = self.game
        assert game is not None
        while not game.is_terminal():
            mover = game.to_move
            assert mover is not None
            obs = game.observation(self.seat)
            self.send(
                TurnStart(
                    round=obs.round,
                    turn=obs.cycle,
                    seats=(mover,),
                    secret=False,
                    step=len(self.steps),
                    observation=obs,
                    deadline_ms=self.turn_ms,
                )
            )
            if mover == self.seat:
                if not self.lie_action_for_client:
                    return
                self.lie_action_for_client = False
                self._apply(mover, game.legal_actions(mover)[0], auto=False)
                continue
            action: RollAction | None = None
            while not isinstance(action, Take):  # a turn ends with its take
                view = game.observation(mover)
                action = self.bot.choose(view, view.legal_actions(), self.rng)
                self._apply(mover, action, auto=False)

    def _client_action(self, message: Act) -> None:
        game = self.game
        assert game is not None and self.seat is not None
        if self.refuse_next:
            self.refuse_next = False
            self.send(Error(ref=message.ref, code=ErrorCode.ILLEGAL_ACTION, message="no"))
            return
        if message.action not in game.legal_actions(self.seat):
            self.send(Error(ref=message.ref, code=ErrorCode.ILLEGAL_ACTION, message="illegal"))
            return
        self._apply(self.seat, message.action, auto=False)
        if isinstance(message.action, Take):
            self._turn()

    def take_for_client(self) -> None:
        """The client's turn timer ran out: take its first die for it (auto)."""
        game = self.game
        assert game is not None and self.seat is not None and game.to_move == self.seat
        self._apply(self.seat, game.legal_actions(self.seat)[0], auto=True)
        self._turn()

    def _apply(self, seat: int, action: RollAction, auto: bool) -> None:
        game = self.game
        assert game is not None
        r, c = game.round, game.cycle
        shown = action
        if (
            self.lie_illegal_at is not None
            and len(self.steps) >= self.lie_illegal_at
            and seat != self.seat  # a bot's action (faking the client's would break its turn)
        ):
            self.lie_illegal_at = None
            # The real action is applied; only what the update says differs.
            shown = _impossible(seat)
        events = game.apply(seat, action)
        self.steps.append(_step(r, c, seat, action, auto))
        obs = game.observation(self.seat)
        if self.lie_die_at == len(self.steps) - 1:
            obs = _other_face(obs)
        more = (
            not game.is_terminal() and game.to_move == seat and (game.round, game.cycle) == (r, c)
        )
        self.send(
            Acted(
                round=r,
                turn=c,
                step=len(self.steps) - 1,
                seat=seat,
                action=shown,
                auto=auto,
                events=tuple(events),
                observation=obs,
                more=more,
            )
        )
        for event in events:
            if isinstance(event, GameOver):
                self._game_over(event)

    def _game_over(self, event: GameOver) -> None:
        game = self.game
        assert game is not None
        record = FairRecord(
            game="sushi-roll",
            table_id=TABLE,
            options=RollOptions(self.players),
            server_seed=self.server_seed,
            server_seed_hash=server_seed_hash(self.server_seed),
            client_seeds=tuple(self.bot_seeds),
            steps=tuple(self.steps),
            scores=game.scores(),
        )
        if self.lie_server_seed:
            other = bytes(b ^ 1 for b in self.server_seed)
            record = dataclasses.replace(
                record, server_seed=other, server_seed_hash=server_seed_hash(other)
            )
        key = Ed25519PrivateKey.generate() if self.lie_key else self.key
        self.send(
            GameEnded(
                totals=event.totals,
                places=event.places,
                winners=event.winners,
                server_seed=record.server_seed,
                record=sign_record(record, key),
            )
        )


def _step(round_: int, cycle: int, seat: int, action: RollAction, auto: bool) -> StepRecord:
    return StepRecord(
        round=round_, turn=cycle, seats=(seat,), openings=(Opening(action=action, auto=auto),)
    )


def _version() -> Version:
    return SUPPORTED_VERSIONS[-1]


def _other_face(obs: RollObservation) -> RollObservation:
    """The same table with one die on the first non-empty belt showing another face."""
    players = list(obs.players)
    for s, view in enumerate(players):
        if view.belt:
            die = view.belt[0]
            faces = [f for f in DIE_FACES[die.kind] if f != die.face]
            belt = (Die(die.kind, faces[0]), *view.belt[1:])
            players[s] = dataclasses.replace(view, belt=belt)
            return dataclasses.replace(obs, players=tuple(players))
    return obs


def _impossible(seat: int) -> RollAction:
    """A swap with the mover's own belt: never legal."""
    return Swap(0, seat, 0)


async def drain(client: Client) -> list[Any]:
    """Read every event queued so far (the caller's view moves as it does)."""
    out = []
    while not client._events.empty():
        out.append(await client.next_event(1.0))
    return out


async def settle() -> None:
    """Let the link deliver what was written (a few loop iterations)."""
    for _ in range(5):
        await asyncio.sleep(0)


async def play_through(
    client: Client,
    dealer: Dealer,
    choose: Callable[[RollObservation], RollAction],
    limit: int = 2000,
) -> list[Any]:
    """Play the client's seat to the end of the game with `choose`; every event read, in order."""
    events: list[Any] = []
    for _ in range(limit):
        await settle()
        events += await drain(client)
        if any(isinstance(e, GameEnded) for e in events):
            return events
        obs = client.state
        if client.awaiting and obs is not None:
            client.act(choose(obs))
    raise AssertionError("the game did not end")
