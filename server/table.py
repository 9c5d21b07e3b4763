"""A table: its seats, and a game played through commit-reveal with turn timers.

Sans-IO like the rest of the core: every input takes `now` (monotonic seconds), messages go out
through the seats' sessions, and the table exposes `deadline` for the adapter's single timer.
Every move between table phases goes through `TRANSITIONS`, one table (STYLE.md item 4).

A turn: TURN_START to every seat (its own observation) and spectator (no hand); each seat sends
COMMIT; when all have (or the timer runs out and the server auto-picks the rest), COMMITMENTS goes
to all; each seat sends REVEAL, checked against its commitment and the engine's legal actions;
when all are in, the engine applies every action in one step, the table is saved, and TURN_RESULT
carries every opening so each client can check every other seat's commitment.
"""

from __future__ import annotations

import logging
import random
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, ClassVar, Protocol, cast

from sushigo.bots import Strategy
from sushigo.engine import Action, Game, GameOptions, GameOver, Observation, RoundScored
from sushigo.protocol import (
    Commitments,
    ErrorCode,
    FairRecord,
    GameEnded,
    GameKind,
    GameStarted,
    GameStarting,
    Message,
    Opening,
    RoundScores,
    SeatInfo,
    SignedRecord,
    TableInfo,
    TableSettings,
    TableStatus,
    TurnRecord,
    TurnResult,
    TurnStart,
    derive_game_seed,
    make_commitment,
    maker,
    new_nonce,
    new_seed,
    server_seed_hash,
    verify_commitment,
)

from .session import broadcast

if TYPE_CHECKING:
    from .session import Session

log = logging.getLogger("sushigo.server")

SEED_SECONDS = 10.0
"""Time for every seat to send its SEED before the server draws the missing ones."""
MISSES_BEFORE_BOT = 2
"""Timeouts in a row after which a bot plays the seat until its player acts again."""


class TablePhase(StrEnum):
    """Where a table's game is."""

    OPEN = "open"
    """No game yet: seats are being taken."""
    SEEDING = "seeding"
    """GAME_STARTING sent; collecting every seat's seed."""
    COMMITTING = "committing"
    """TURN_START sent; collecting commitments."""
    REVEALING = "revealing"
    """COMMITMENTS sent; collecting reveals."""
    OVER = "over"
    """The game ended; the host may start another."""


TRANSITIONS: dict[tuple[TablePhase, str], TablePhase] = {
    (TablePhase.OPEN, "start"): TablePhase.SEEDING,
    (TablePhase.OVER, "start"): TablePhase.SEEDING,
    (TablePhase.SEEDING, "seeded"): TablePhase.COMMITTING,
    (TablePhase.COMMITTING, "committed"): TablePhase.REVEALING,
    (TablePhase.REVEALING, "next_turn"): TablePhase.COMMITTING,
    (TablePhase.REVEALING, "game_over"): TablePhase.OVER,
}
"""Every legal (phase, event) -> phase of a table."""
_COMMITTING, _REVEALING = TablePhase.COMMITTING, TablePhase.REVEALING
"""As module constants, for the hot path (an enum's class attribute is slow in Python 3.11)."""
_SCORING = (RoundScored, GameOver)
"""The engine's events that TURN_RESULT leaves to ROUND_SCORES and GAME_OVER."""
_turn_start = maker(TurnStart)
_commitments = maker(Commitments)
_turn_result = maker(TurnResult)
_turn_record = maker(TurnRecord)
_opening = maker(Opening)
_seat_info = maker(SeatInfo)
_table_info = maker(TableInfo)
"""The messages and records of every turn, made positionally through their slots (`maker`)."""


def _all_open(openings: list[Opening | None]) -> bool:
    """Every seat's pick is settled. (``None in openings`` would call `Opening.__eq__` per pick,
    and ``all`` over a generator costs twice this loop.)"""
    for opening in openings:  # noqa: SIM110
        if opening is None:
            return False
    return True


class TableError(Exception):
    """A request the table refuses; carries the wire error code for the reply."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class TableHost(Protocol):
    """What a table needs from the server around it."""

    def save_table(self, table: Table) -> None:
        """Persist the table (called at every turn boundary, before results go out)."""

    def sign(self, record: FairRecord, turns: Sequence[bytes] | None = None) -> SignedRecord:
        """Sign a finished game's record with the server's key (`turns`: its turns packed by
        `protocol.records.turn_record_bytes`, when the table has them)."""

    def game_finished(self, table: Table, signed: SignedRecord) -> None:
        """Store the finished game (record, results, ratings)."""

    def make_bot(self, strategy: str) -> Strategy:
        """A fresh server-side strategy by built-in name (TableError UNKNOWN_BOT otherwise)."""

    def table_changed(self, table: Table) -> None:
        """Seats, status or spectators changed: tell the table's people."""


@dataclass(eq=False, slots=True)
class Seat:
    """One seat: empty, a player's, or a server bot's."""

    index: int
    player_id: str | None = None
    name: str | None = None
    session: Session | None = None
    """The player's session (None for a bot, or while a crashed server waits for the resume)."""
    bot: str | None = None
    """The strategy name when a server bot holds the seat."""
    strategy: Strategy | None = None
    misses: int = 0
    """Turn timeouts in a row."""
    bot_control: bool = False
    """A bot plays for the seat's player, who missed too many turns, until they act again."""

    @property
    def empty(self) -> bool:
        """Nobody holds the seat."""
        return self.player_id is None and self.bot is None

    def info(self) -> SeatInfo:
        """The seat as the lobby shows it."""
        bot = self.bot is not None
        session = self.session
        connected = bot or (session is not None and session.transport is not None)
        empty = self.player_id is None and not bot
        return _seat_info(
            self.index, self.player_id, self.name, bot or self.bot_control, connected or empty
        )


class Seating:
    """What both kinds of table share: seats, spectators, the lobby view and the seed chain. A table
    class sets the attributes below, says by `status` and `playing` where its game is, and fills in
    the seeding hooks (`_new_game`, `_begin_game` and the few below them)."""

    table_id: str
    settings: TableSettings
    host_player: str | None
    seats: list[Seat]
    spectators: list[Session]

    @property
    def status(self) -> TableStatus:
        """Open, playing or finished."""
        raise NotImplementedError

    @property
    def playing(self) -> bool:
        """A game is in progress."""
        raise NotImplementedError

    def info(self) -> TableInfo:
        """The table as the lobby shows it."""
        return _table_info(
            self.table_id,
            self.settings,
            self.status,
            self.host_player,
            tuple([seat.info() for seat in self.seats]),
            len(self.spectators),
        )

    def people(self) -> list[Session]:
        """Everyone to tell about the table: seated players and spectators."""
        seated = [s.session for s in self.seats if s.session is not None]
        return seated + self.spectators

    def free_seat(self, wanted: int | None) -> Seat:
        """The seat a newcomer may take (TableError when there is none)."""
        if self.playing:
            raise TableError(ErrorCode.GAME_IN_PROGRESS, f"table {self.table_id} is playing")
        if wanted is not None:
            if wanted >= len(self.seats):
                raise TableError(
                    ErrorCode.OUT_OF_RANGE, f"table {self.table_id} has no seat {wanted}"
                )
            if not self.seats[wanted].empty:
                raise TableError(ErrorCode.TABLE_FULL, f"seat {wanted} is taken")
            return self.seats[wanted]
        for seat in self.seats:
            if seat.empty:
                return seat
        raise TableError(ErrorCode.TABLE_FULL, f"table {self.table_id} is full")

    def sit(self, session: Session, wanted: int | None = None) -> Seat:
        """Seat a player."""
        seat = self.free_seat(wanted)
        seat.player_id, seat.name, seat.session = session.player_id, session.name, session
        return seat

    def leave(self, session: Session) -> None:
        """A player leaves (a bot takes the seat over during a game) or stops watching."""
        if session in self.spectators:
            self.spectators.remove(session)
            return
        for seat in self.seats:
            if seat.session is session:
                seat.session = None
                if self.playing:
                    # The game goes on: the seat becomes a bot's for the rest of it.
                    seat.bot = "default"
                    self._bot_takes_over(seat)
                else:
                    seat.player_id = seat.name = None
                if self.host_player == session.player_id:
                    self.host_player = next(
                        (s.player_id for s in self.seats if s.session is not None), None
                    )

    def _bot_takes_over(self, seat: Seat) -> None:
        """`seat`'s player left during a game: give the seat the default bot and let it act."""
        raise NotImplementedError

    @property
    def full(self) -> bool:
        """Every seat is taken."""
        return all(not seat.empty for seat in self.seats)

    @property
    def abandoned(self) -> bool:
        """No player is seated or watching: the table can go."""
        return not self.spectators and all(seat.player_id is None for seat in self.seats)

    # -- seeding: the same chain for both games (docs/PROTOCOL.md section 6) --------------------

    KIND: ClassVar[GameKind]
    server_seed: bytes
    client_seeds: list[bytes | None]
    deadline: float | None
    _now_hint: float

    def _move(self, event: str) -> None:
        """Follow the table's transition table."""
        raise NotImplementedError

    @property
    def _seeding(self) -> bool:
        """GAME_STARTING was sent and the seats' seeds are being collected."""
        raise NotImplementedError

    def _new_game(self) -> None:
        """Forget the last game's moves and reset the bots' strategies."""
        raise NotImplementedError

    def _starting_options(self) -> GameOptions:
        """GAME_STARTING's options."""
        raise NotImplementedError

    def _changed(self) -> None:
        """Tell the host the table changed (its lobby view)."""
        raise NotImplementedError

    def _begin_game(self, game_seed: bytes, now: float) -> None:
        """Every seed is in: make the game from `game_seed` and begin its first turn."""
        raise NotImplementedError

    def start(self, now: float) -> None:
        """Begin a game: commit to a server seed, then collect every seat's seed."""
        self._now_hint = now
        if self.playing:
            raise TableError(ErrorCode.GAME_IN_PROGRESS, "a game is already in progress")
        if not self.full:
            raise TableError(ErrorCode.NOT_ENOUGH_PLAYERS, "every seat must be taken first")
        self._move("start")
        self.server_seed = new_seed()
        self.client_seeds = [new_seed() if seat.bot else None for seat in self.seats]
        for seat in self.seats:
            seat.misses, seat.bot_control = 0, False
        self._new_game()
        self.deadline = now + SEED_SECONDS
        names = tuple(seat.name or f"seat {seat.index}" for seat in self.seats)
        digest = server_seed_hash(self.server_seed)
        for seat in self.seats:
            if seat.session is not None:
                seat.session.send(self._starting(names, digest, seat.index))
        for watcher in self.spectators:
            watcher.send(self._starting(names, digest, None))
        self._changed()
        if all(seed is not None for seed in self.client_seeds):
            self._seeded(now)

    def _starting(self, names: tuple[str, ...], digest: bytes, seat: int | None) -> GameStarting:
        return GameStarting(
            table_id=self.table_id,
            kind=self.KIND,
            options=self._starting_options(),
            seat=seat,
            players=names,
            server_seed_hash=digest,
            deadline_ms=int(SEED_SECONDS * 1000),
        )

    def seed(self, seat: int, seed: bytes, now: float) -> None:
        """A seat's SEED."""
        self._now_hint = now
        if not self._seeding:
            raise TableError(ErrorCode.OUT_OF_PHASE, "no game is being seeded")
        if self.client_seeds[seat] is not None:
            raise TableError(ErrorCode.ALREADY_DONE, "this seat's seed is already in")
        if seed in self.client_seeds:
            # A copied seed adds nothing to the mix; demand a seed of the seat's own.
            raise TableError(ErrorCode.FAIRNESS_VIOLATION, "that seed is another seat's")
        self.client_seeds[seat] = seed
        if all(s is not None for s in self.client_seeds):
            self._seeded(now)

    def _seeded(self, now: float) -> None:
        seeds = tuple(s if s is not None else new_seed() for s in self.client_seeds)
        self.client_seeds = list(seeds)
        self._move("seeded")
        started = GameStarted(
            table_id=self.table_id,
            server_seed_hash=server_seed_hash(self.server_seed),
            client_seeds=seeds,
        )
        broadcast(self.people(), started)
        self._begin_game(derive_game_seed(self.table_id, self.server_seed, seeds), now)

    # -- what both games do when seats miss their turns, and at the end ---------------------------

    def _missed(self, seat: Seat) -> None:
        """`seat` let its time run out: after `MISSES_BEFORE_BOT` in a row a bot plays it."""
        seat.misses += 1
        if seat.misses >= MISSES_BEFORE_BOT and not seat.bot_control:
            seat.bot_control = True
            log.info(
                "table %s: a bot plays seat %d until its player is back", self.table_id, seat.index
            )
            self._changed()

    def _announce_end(self, message: Message) -> None:
        """Send the game's last message to everyone; the seats are their players' again."""
        broadcast(self.people(), message)
        for seat in self.seats:
            seat.bot_control = False
        self._changed()


class Table(Seating):
    """One table and the game at it."""

    def __init__(
        self, table_id: str, settings: TableSettings, host: TableHost, host_player: str | None
    ) -> None:
        self.table_id = table_id
        self.settings = settings
        self.options: GameOptions = settings.options()
        self.host = host
        self.host_player = host_player
        self.seats = [Seat(i) for i in range(settings.players)]
        self.spectators: list[Session] = []
        self.phase = TablePhase.OPEN
        self.deadline: float | None = None
        """When the current timer fires (seed, commit or reveal deadline)."""
        self.quick = False
        """Made by quick match: starts by itself when full."""
        self.tournament: str | None = None
        """The tournament this table plays a game of, if any."""
        self.rng = random.Random(secrets.randbits(64))
        """For bots and auto-picks (not for the deal: that comes from the fair seed)."""
        self.game: Game | None = None
        self.server_seed = b""
        self.client_seeds: list[bytes | None] = []
        self.turns: list[TurnRecord] = []
        self.commitments: list[bytes | None] = []
        self.openings: list[Opening | None] = []
        self._committed: list[bool] = []
        self.position = (0, 0)
        """(round, turn) of the turn being played (set as it begins: see `_begin_turn`)."""
        self.packed_head: tuple[tuple[object, ...], bytes] = ((), b"")
        """The saved header's bytes and what they were made from (see `server.persist`)."""
        self.packed_turns: tuple[bytes, list[bytes]] = (b"", [])
        """The saved form of this game's turns, packed once each (see `server.persist.dump`)."""
        self.stored: tuple[bytes, bytes, int] = (b"", b"", 0)
        """What the storage holds of this table: the game's server seed, the header's bytes and
        how many turns (see `server.persist.changes`)."""

    # -- the lobby view ------------------------------------------------------------------------

    @property
    def status(self) -> TableStatus:
        """Open, playing or finished."""
        if self.phase is TablePhase.OPEN:
            return TableStatus.OPEN
        return TableStatus.FINISHED if self.phase is TablePhase.OVER else TableStatus.PLAYING

    @property
    def playing(self) -> bool:
        """A game is in progress."""
        return self.phase not in (TablePhase.OPEN, TablePhase.OVER)

    def add_bot(self, strategy: str, wanted: int | None = None) -> Seat:
        """Seat a server-side bot."""
        seat = self.free_seat(wanted)
        bot = self.host.make_bot(strategy)
        seat.bot, seat.strategy, seat.name = strategy, bot, f"{strategy}-bot-{seat.index}"
        return seat

    def _bot_takes_over(self, seat: Seat) -> None:
        seat.strategy = self.host.make_bot("default")
        seat.strategy.reset()
        self._act_for_bots(self._now_hint)

    # -- phases ---------------------------------------------------------------------------------

    _now_hint = 0.0
    """The `now` of the last input, for moves that have none of their own (a leave)."""

    def _move(self, event: str) -> None:
        target = TRANSITIONS.get((self.phase, event))
        if target is None:
            raise AssertionError(
                f"table {self.table_id}: no transition from {self.phase} on {event}"
            )
        self.phase = target

    KIND = GameKind.SUSHI_GO

    @property
    def _seeding(self) -> bool:
        return self.phase is TablePhase.SEEDING

    def _new_game(self) -> None:
        self.turns = []
        self.game = None
        for seat in self.seats:
            if seat.strategy is not None:
                seat.strategy.reset()

    def _starting_options(self) -> GameOptions:
        return self.options

    def _changed(self) -> None:
        self.host.table_changed(self)

    def _begin_game(self, game_seed: bytes, now: float) -> None:
        self.game = Game(self.options, game_seed)
        self._begin_turn(now, first=True)

    def _begin_turn(self, now: float, first: bool = False) -> None:
        game = self.game
        assert game is not None
        if not first:
            self._move("next_turn")
        n = len(self.seats)
        self.commitments = [None] * n
        self.openings = [None] * n
        self._committed = [False] * n
        self.deadline = now + self.settings.turn_seconds if self.settings.turn_seconds else None
        deadline_ms = self.settings.turn_seconds * 1000
        round_, turn = game.round, game.turn
        self.position = (round_, turn)
        observation = game.observation
        for seat in self.seats:
            session = seat.session
            if session is not None:
                session.send(_turn_start(round_, turn, observation(seat.index), deadline_ms))
        if self.spectators:
            public = TurnStart(round=round_, turn=turn, observation=game.observation(None))
            broadcast(self.spectators, public)
        self._act_for_bots(now)

    def _act_for_bots(self, now: float) -> None:
        """Bots commit at once; so do seats a bot plays for an absent player (auto-picks)."""
        if self.phase is _COMMITTING:
            for seat in self.seats:
                if not self._committed[seat.index] and (seat.bot or seat.bot_control):
                    self._bot_commit(seat)
            if all(self._committed):
                self._all_committed(now)
        elif self.phase is _REVEALING:
            for seat in self.seats:
                if self.openings[seat.index] is None and (seat.bot or seat.bot_control):
                    self._auto_pick(seat)
            if _all_open(self.openings):
                self._all_revealed(now)

    def _choose(self, seat: Seat) -> Action:
        game = self.game
        assert game is not None
        legal = game.legal_actions(seat.index)
        strategy = seat.strategy
        if strategy is None:
            strategy = seat.strategy = self.host.make_bot("default")
            strategy.reset()
        try:
            action = strategy.choose(game.observation(seat.index), legal, self.rng)
        except Exception:  # a bot's bug must not stall the table
            log.exception(
                "table %s: bot at seat %d failed; playing at random", self.table_id, seat.index
            )
            action = self.rng.choice(legal)
        return action if action in legal else self.rng.choice(legal)

    def _bot_commit(self, seat: Seat) -> None:
        """A server bot is a player like any other: a real commitment, opened later. A seat a bot
        plays for an absent player gets an auto-pick instead (no commitment, marked auto)."""
        action = self._choose(seat)
        if seat.bot:
            game = self.game
            assert game is not None
            nonce = new_nonce()
            self.commitments[seat.index] = make_commitment(
                self.table_id, game.round, game.turn, seat.index, action, nonce
            )
            self.openings[seat.index] = Opening(action=action, nonce=nonce)
        else:
            self.openings[seat.index] = Opening(action=action, auto=True)
        self._committed[seat.index] = True

    def _auto_pick(self, seat: Seat) -> None:
        self.openings[seat.index] = Opening(action=self._choose(seat), auto=True)

    # -- a seat's messages ----------------------------------------------------------------------

    def commit(
        self, seat_index: int, round_: int, turn: int, commitment: bytes, now: float
    ) -> None:
        """A seat's COMMIT."""
        self._now_hint = now
        seat = self.seats[seat_index]
        was_bot = seat.bot_control
        seat.misses = 0  # the player acted: no misses, and no bot playing for them
        seat.bot_control = False
        game = self.game
        if self.phase is not _COMMITTING or game is None:
            raise TableError(ErrorCode.OUT_OF_PHASE, "commitments are not being collected")
        if (round_, turn) != self.position:
            raise TableError(ErrorCode.WRONG_TURN, f"this is round {game.round}, turn {game.turn}")
        if self._committed[seat_index]:
            if was_bot:
                self.host.table_changed(self)
            raise TableError(ErrorCode.ALREADY_DONE, "this seat has already committed this turn")
        if commitment in self.commitments:
            # Commitments bind the seat, so a copy could never be opened; refuse it outright and
            # pick for the seat, so a copier cannot hold the table up.
            self._auto_pick(seat)
            self._committed[seat_index] = True
            self._check_committed(now)
            raise TableError(ErrorCode.FAIRNESS_VIOLATION, "that commitment is another seat's")
        self.commitments[seat_index] = commitment
        self._committed[seat_index] = True
        if was_bot:
            self.host.table_changed(self)
        self._check_committed(now)

    def _check_committed(self, now: float) -> None:
        if all(self._committed):
            self._all_committed(now)

    def _all_committed(self, now: float) -> None:
        game = self.game
        assert game is not None
        self._move("committed")
        self.deadline = now + self.settings.turn_seconds if self.settings.turn_seconds else None
        round_, turn = self.position
        message = _commitments(
            round_, turn, tuple(self.commitments), self.settings.turn_seconds * 1000
        )
        broadcast(self.people(), message)
        if _all_open(self.openings):
            self._all_revealed(now)

    def reveal(
        self, seat_index: int, round_: int, turn: int, action: Action, nonce: bytes, now: float
    ) -> None:
        """A seat's REVEAL: it must open the seat's commitment and be a legal action."""
        self._now_hint = now
        seat = self.seats[seat_index]
        seat.misses = 0  # the player acted: no misses, and no bot playing for them
        seat.bot_control = False
        game = self.game
        if self.phase is not _REVEALING or game is None:
            raise TableError(ErrorCode.OUT_OF_PHASE, "reveals are not being collected")
        if (round_, turn) != self.position:
            raise TableError(ErrorCode.WRONG_TURN, f"this is round {game.round}, turn {game.turn}")
        if self.openings[seat_index] is not None:
            raise TableError(ErrorCode.ALREADY_DONE, "this seat's pick is already settled")
        commitment = self.commitments[seat_index]
        error: TableError | None = None
        legal = game.legal_actions(seat_index)
        if commitment is None or not verify_commitment(
            commitment, self.table_id, round_, turn, seat_index, action, nonce
        ):
            error = TableError(
                ErrorCode.COMMITMENT_MISMATCH, "the reveal does not open this seat's commitment"
            )
        elif action not in legal:
            error = TableError(
                ErrorCode.ILLEGAL_ACTION, f"{action.describe()} is not a legal action now"
            )
        if error is not None:
            # The seat cannot reveal twice: pick for it now, so the table does not wait.
            self._auto_pick(seat)
        else:
            # The engine's own equal action, which lives on anyway: the decoded one can go now,
            # rather than stay with the game's record until it ends (less for the collector).
            action = legal[legal.index(action)]
            self.openings[seat_index] = _opening(action, nonce, False)
        if _all_open(self.openings):
            self._all_revealed(now)
        if error is not None:
            raise error

    def _all_revealed(self, now: float) -> None:
        game = self.game
        assert game is not None
        openings = cast(tuple[Opening, ...], tuple(self.openings))  # every one is in
        round_, turn = self.position
        record = _turn_record(round_, turn, tuple(self.commitments), openings)
        events = game.apply([o.action for o in openings])
        self.turns.append(record)
        over = game.is_terminal()
        # Saved before anyone hears the result: after a crash the game resumes from here.
        self.host.save_table(self)
        scored = [e for e in events if isinstance(e, _SCORING)]
        turn_events = tuple(
            [e for e in events if not isinstance(e, _SCORING)] if scored else events
        )
        result = _turn_result(round_, turn, openings, turn_events)
        people = self.people()
        broadcast(people, result)
        for event in scored:
            if isinstance(event, RoundScored):
                broadcast(people, RoundScores.of(event))
        if over:
            self.finish()
        else:
            self._begin_turn(now)

    def finish(self) -> None:
        """The engine's game is over: sign and store the record, tell everyone."""
        game = self.game
        assert game is not None and game.is_terminal()
        self._move("game_over")
        self.deadline = None
        record = FairRecord(
            table_id=self.table_id,
            options=self.options,
            server_seed=self.server_seed,
            server_seed_hash=server_seed_hash(self.server_seed),
            client_seeds=tuple(s for s in self.client_seeds if s is not None),
            turns=tuple(self.turns),
            scores=game.scores(),
        )
        packed = self.packed_turns  # the saved turns are the record's bytes of them
        turns = packed[1] if packed[0] == self.server_seed else None
        signed = self.host.sign(record, turns if turns and len(turns) == len(self.turns) else None)
        self.host.game_finished(self, signed)
        message = GameEnded(
            pudding_points=game.pudding_points(),
            totals=game.scores(),
            places=game.places(),
            winners=game.winners(),
            server_seed=self.server_seed,
            record=signed,
        )
        self._announce_end(message)

    # -- timers ---------------------------------------------------------------------------------

    def on_timer(self, now: float) -> None:
        """The deadline passed: draw missing seeds, or auto-pick for seats that did not act."""
        self._now_hint = now
        if self.deadline is None or now < self.deadline:
            return
        self.deadline = None
        if self.phase is TablePhase.SEEDING:
            self._seeded(now)
        elif self.phase is TablePhase.COMMITTING:
            for seat in self.seats:
                if not self._committed[seat.index]:
                    self._missed(seat)
                    self._auto_pick(seat)
                    self._committed[seat.index] = True
            self._all_committed(now)
        elif self.phase is TablePhase.REVEALING:
            for seat in self.seats:
                if self.openings[seat.index] is None:
                    self._missed(seat)
                    self._auto_pick(seat)
            self._all_revealed(now)

    # -- what a resuming player needs -------------------------------------------------------------

    def observation(self, seat: int | None) -> Observation | None:
        """The current observation for a seat (None: spectator), during a game."""
        return self.game.observation(seat) if self.game is not None and self.playing else None
