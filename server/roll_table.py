"""A Sushi Roll table: its seats, and a dice game played in sequential turns with a turn timer.

Sans-IO like the card table (`server.table`): every input takes `now`, messages go out through the
seats' sessions, and `deadline` is the one timer the hub follows. Seats, seeding and the lobby view
are the card table's (the same `Seat`, the same seed chain: GAME_STARTING with ``kind =
"sushi-roll"``, SEED from every seat, GAME_STARTED); what differs is the game (docs/PROTOCOL.md
section 2.7):

A turn: ROLL_TURN to every seat (its own observation) and spectator (the nil-seat one). Only the
seat to move may send ROLL_ACTION: any number of re-rolls and swaps while its usable tokens last,
then one take, which ends the turn. Each accepted action is saved, then answered by ROLL_UPDATE to
everyone, with the dice it rolled; a round's last take is followed by ROLL_ROUND_SCORES, the game's
by ROLL_GAME_OVER with the server seed and the signed roll record. There is no commit-reveal:
nothing is chosen at the same time, and every die comes from the fair game seed.

The mover has `turn_seconds` for its whole turn; then the server takes a die for it (marked auto).
After `MISSES_BEFORE_BOT` timeouts in a row a bot plays the seat's turns until its player acts
again: at once while the player is away, after `BOT_GRACE_SECONDS` while it is connected (the
window in which an action of its own takes the seat back, as a card player's COMMIT does).
"""

from __future__ import annotations

import logging
import random
import secrets
from enum import StrEnum
from typing import TYPE_CHECKING, Protocol

from sushigo.bots.roll import RollStrategy
from sushigo.engine import EngineError, GameOptions
from sushigo.engine.roll import GameOver, RollAction, RollGame, RollObservation, RoundScored, Take
from sushigo.protocol import (
    ErrorCode,
    GameKind,
    RollFairRecord,
    RollGameOver,
    RollRoundScores,
    RollStep,
    RollTurn,
    RollUpdate,
    SignedRecord,
    TableSettings,
    TableStatus,
    server_seed_hash,
)

from .session import broadcast
from .table import Seat, Seating, TableError

if TYPE_CHECKING:
    from .session import Session

log = logging.getLogger("sushigo.server")

BOT_GRACE_SECONDS = 3.0
"""How long a bot waits before playing the turn of a connected player who missed too many: an
action of the player's own in that time takes the seat back."""
MAX_BOT_ACTIONS = 24
"""Re-rolls and swaps a server-chosen turn may make before the server takes a die regardless
(tokens bound them anyway; this bounds a strategy that misbehaves)."""


class RollPhase(StrEnum):
    """Where a Sushi Roll table's game is."""

    OPEN = "open"
    """No game yet: seats are being taken."""
    SEEDING = "seeding"
    """GAME_STARTING sent; collecting every seat's seed."""
    MOVING = "moving"
    """The game is on: one seat is to move (a ROLL_TURN went out for its turn)."""
    OVER = "over"
    """The game ended; the host may start another."""


TRANSITIONS: dict[tuple[RollPhase, str], RollPhase] = {
    (RollPhase.OPEN, "start"): RollPhase.SEEDING,
    (RollPhase.OVER, "start"): RollPhase.SEEDING,
    (RollPhase.SEEDING, "seeded"): RollPhase.MOVING,
    # Turns follow each other inside MOVING: who moves is the engine's `to_move`, not a phase.
    (RollPhase.MOVING, "game_over"): RollPhase.OVER,
}
"""Every legal (phase, event) -> phase of a Sushi Roll table."""


class RollTableHost(Protocol):
    """What a Sushi Roll table needs from the server around it (the hub)."""

    def save_table(self, table: RollTable) -> None:
        """Persist the table (called after every action, before anyone hears of it)."""

    def sign_roll(self, record: RollFairRecord) -> SignedRecord:
        """Sign a finished game's roll record with the server's key."""

    def game_finished(self, table: RollTable, signed: SignedRecord) -> None:
        """Store the finished game (record, results, ratings)."""

    def make_roll_bot(self, strategy: str) -> RollStrategy:
        """A fresh Sushi Roll strategy by built-in name (TableError UNKNOWN_BOT otherwise)."""

    def table_changed(self, table: RollTable) -> None:
        """Seats, status or spectators changed: tell the table's people."""


class RollTable(Seating):
    """One Sushi Roll table and the game at it."""

    def __init__(
        self, table_id: str, settings: TableSettings, host: RollTableHost, host_player: str | None
    ) -> None:
        self.table_id = table_id
        self.settings = settings
        self.options = settings.roll_options()
        """The engine's options (OptionsError, before anything else, for card variants)."""
        self.wire_options = GameOptions(players=settings.players)
        """GAME_STARTING's options: the player count, every card variant false (section 2.7)."""
        self.host = host
        self.host_player = host_player
        self.seats = [Seat(i) for i in range(settings.players)]
        self.strategies: list[RollStrategy | None] = [None] * settings.players
        """Per seat, the Sushi Roll strategy of a server bot or of a bot playing for a player."""
        self.spectators: list[Session] = []
        self.phase = RollPhase.OPEN
        self.deadline: float | None = None
        """When the current timer fires (the seed deadline, the turn's, or a bot's grace)."""
        self.turn_deadline: float | None = None
        """When the mover's whole turn runs out (None: no timer)."""
        self.quick = False
        """Made by quick match: starts by itself when full."""
        self.tournament: str | None = None
        """The tournament this table plays a game of, if any."""
        self.rng = random.Random(secrets.randbits(64))
        """For bots and auto-takes (never for dice: those come from the fair seed)."""
        self.game: RollGame | None = None
        self.server_seed = b""
        self.client_seeds: list[bytes | None] = []
        self.steps: list[RollStep] = []
        """Every action of this game, in order: the record, and what a save replays."""
        self.packed_head: tuple[tuple[object, ...], bytes] = ((), b"")
        """The saved header's bytes and what they were made from (see `server.persist`)."""
        self.packed_steps: tuple[bytes, list[bytes]] = (b"", [])
        """The saved form of this game's steps, packed once each (see `server.persist.dump`)."""
        self.stored: tuple[bytes, bytes, int] = (b"", b"", 0)
        """What the storage holds of this table: the game's server seed, the header's bytes and
        how many steps (see `server.persist.changes`)."""
        self._grace_over = False
        """The current mover's bot grace has passed: the bot plays even if the player is here."""
        self._server_actions = 0
        """Re-rolls and swaps the server chose in the current turn (see `MAX_BOT_ACTIONS`)."""
        self._now_hint = 0.0
        """The `now` of the last input, for moves that have none of their own (a leave)."""

    # -- the lobby view (the rest is `Seating`) -----------------------------------------------------

    @property
    def status(self) -> TableStatus:
        """Open, playing or finished."""
        if self.phase is RollPhase.OPEN:
            return TableStatus.OPEN
        return TableStatus.FINISHED if self.phase is RollPhase.OVER else TableStatus.PLAYING

    @property
    def playing(self) -> bool:
        """A game is in progress."""
        return self.phase in (RollPhase.SEEDING, RollPhase.MOVING)

    def add_bot(self, strategy: str, wanted: int | None = None) -> Seat:
        """Seat a server-side bot (the Sushi Roll implementation of the strategy name)."""
        seat = self.free_seat(wanted)
        bot = self.host.make_roll_bot(strategy)
        seat.bot, seat.name = strategy, f"{strategy}-bot-{seat.index}"
        self.strategies[seat.index] = bot
        return seat

    def _bot_takes_over(self, seat: Seat) -> None:
        seat.bot_control = False
        strategy = self.strategies[seat.index] = self.host.make_roll_bot("default")
        strategy.reset()
        self._run_bots(self._now_hint)

    # -- phases and seeding ---------------------------------------------------------------------

    def _move(self, event: str) -> None:
        target = TRANSITIONS.get((self.phase, event))
        if target is None:
            raise AssertionError(
                f"table {self.table_id}: no transition from {self.phase} on {event}"
            )
        self.phase = target

    KIND = GameKind.SUSHI_ROLL

    @property
    def _seeding(self) -> bool:
        return self.phase is RollPhase.SEEDING

    def _new_game(self) -> None:
        self.steps = []
        self.game = None
        for strategy in self.strategies:
            if strategy is not None:
                strategy.reset()

    def _starting_options(self) -> GameOptions:
        return self.wire_options

    def _changed(self) -> None:
        self.host.table_changed(self)

    def _begin_game(self, game_seed: bytes, now: float) -> None:
        self.game = RollGame(self.options, game_seed)
        self._begin_turn(now)
        self._run_bots(now)

    # -- turns ------------------------------------------------------------------------------------

    def _begin_turn(self, now: float) -> None:
        """The next seat is to move: set its timer and tell everyone (ROLL_TURN)."""
        game = self.game
        assert game is not None and game.to_move is not None
        mover = self.seats[game.to_move]
        self._grace_over = False
        self._server_actions = 0
        seconds = self.settings.turn_seconds
        self.turn_deadline = now + seconds if seconds else None
        if mover.bot_control:
            grace = min(BOT_GRACE_SECONDS, seconds) if seconds else BOT_GRACE_SECONDS
            self.deadline = now + grace
        else:
            self.deadline = self.turn_deadline
        for seat in self.seats:
            if seat.session is not None:
                seat.session.send(self.turn_message(seat.index, now))
        if self.spectators:
            public = self.turn_message(None, now)
            for watcher in self.spectators:
                watcher.send(public)

    def resume_turn(self, now: float) -> None:
        """After a restart: the turn goes on where it was, with its timer started afresh."""
        self._now_hint = now
        self._begin_turn(now)
        self._run_bots(now)

    def turn_message(self, seat: int | None, now: float) -> RollTurn:
        """The current turn's ROLL_TURN for `seat` (None: a spectator), with the time left: sent
        when a turn begins, and again to whoever resumes or starts watching in the middle of it."""
        game = self.game
        assert game is not None and game.to_move is not None
        left = 0 if self.deadline is None else max(1, int((self.deadline - now) * 1000))
        return RollTurn(
            round=game.round,
            cycle=game.cycle,
            seat=game.to_move,
            observation=game.observation(seat),
            deadline_ms=left,
        )

    @property
    def in_turn(self) -> bool:
        """A turn is being played (a ROLL_TURN is current)."""
        return self.phase is RollPhase.MOVING and self.game is not None

    def _run_bots(self, now: float) -> None:
        """Play for server bots, and for seats a bot plays for their player, until a person is to
        move or the game ends. A loop, not recursion: a table of bots plays a whole game here."""
        game = self.game
        while self.phase is RollPhase.MOVING and game is not None and game.to_move is not None:
            seat = self.seats[game.to_move]
            if seat.bot is not None:
                auto = False  # a server bot is a player like any other
            elif seat.bot_control and (
                self._grace_over or seat.session is None or not seat.session.attached
            ):
                auto = True
            else:
                return
            self._play(seat, self._choose(seat, takes_only=False), auto, now)

    def _strategy(self, seat: Seat) -> RollStrategy:
        strategy = self.strategies[seat.index]
        if strategy is None:
            strategy = self.strategies[seat.index] = self.host.make_roll_bot("default")
            strategy.reset()
        return strategy

    def _choose(self, seat: Seat, *, takes_only: bool) -> RollAction:
        """The server's action for `seat`: its strategy's, or a take when only takes will do."""
        game = self.game
        assert game is not None
        legal = game.legal_actions(seat.index)
        takes = tuple(a for a in legal if type(a) is Take)
        if takes_only or self._server_actions >= MAX_BOT_ACTIONS:
            legal = takes
        try:
            action = self._strategy(seat).choose(game.observation(seat.index), legal, self.rng)
        except Exception:  # a bot's bug must not stall the table
            log.exception(
                "table %s: bot at seat %d failed; taking at random", self.table_id, seat.index
            )
            return self.rng.choice(takes)
        return action if action in legal else self.rng.choice(takes)

    def _play(self, seat: Seat, action: RollAction, auto: bool, now: float) -> None:
        """Apply a legal action of the seat to move, save, and tell everyone what it did."""
        game = self.game
        assert game is not None
        round_, cycle = game.round, game.cycle
        events = game.apply(seat.index, action)
        self.steps.append(RollStep(seat=seat.index, action=action, auto=auto))
        took = type(action) is Take
        if not took and (auto or seat.bot is not None):
            self._server_actions += 1
        # Saved before anyone hears of it: after a crash the game goes on from exactly here.
        self.host.save_table(self)
        update = RollUpdate(
            round=round_,
            cycle=cycle,
            seat=seat.index,
            action=action,
            auto=auto,
            events=tuple(e for e in events if not isinstance(e, RoundScored | GameOver)),
            observation=game.observation(None),
        )
        people = self.people()
        broadcast(people, update)
        for event in events:
            if isinstance(event, RoundScored):
                scores = RollRoundScores.of(event)
                broadcast(people, scores)
        if game.is_terminal():
            self.finish()
        elif took:
            self._begin_turn(now)

    # -- a seat's messages ------------------------------------------------------------------------

    def act(self, seat_index: int, round_: int, cycle: int, action: RollAction, now: float) -> None:
        """A seat's ROLL_ACTION: only the seat to move, in the current round and cycle, with an
        action the engine accepts (else ILLEGAL_ACTION, nothing changes, and it may try again)."""
        self._now_hint = now
        game = self.game
        if self.phase is not RollPhase.MOVING or game is None or game.to_move is None:
            raise TableError(ErrorCode.OUT_OF_PHASE, "no Sushi Roll turn is being played")
        if (round_, cycle) != (game.round, game.cycle):
            raise TableError(
                ErrorCode.WRONG_TURN, f"this is round {game.round}, cycle {game.cycle}"
            )
        if seat_index != game.to_move:
            raise TableError(ErrorCode.OUT_OF_PHASE, f"it is seat {game.to_move}'s turn")
        seat = self.seats[seat_index]
        if seat.bot_control:
            # The player is back: the seat is theirs again, with the rest of the turn's time.
            seat.bot_control = False
            self.deadline = self.turn_deadline
            self.host.table_changed(self)
        seat.misses = 0
        try:
            self._check(seat_index, action)
        except EngineError as exc:
            raise TableError(
                ErrorCode.ILLEGAL_ACTION, f"{action.describe()} is not legal now: {exc}"
            ) from None
        self._play(seat, action, False, now)
        self._run_bots(now)

    def _check(self, seat: int, action: RollAction) -> None:
        """Raise the engine's error for an action it would refuse, changing nothing."""
        game = self.game
        assert game is not None
        if action not in game.legal_actions(seat):
            game.clone().apply(seat, action)  # raises the specific error naming the problem
            raise AssertionError(f"the engine accepts {action} but does not list it as legal")

    # -- the end ----------------------------------------------------------------------------------

    def finish(self) -> None:
        """The engine's game is over: sign and store the record, tell everyone."""
        game = self.game
        assert game is not None and game.is_terminal()
        self._move("game_over")
        self.deadline = self.turn_deadline = None
        record = RollFairRecord(
            table_id=self.table_id,
            options=self.options,
            server_seed=self.server_seed,
            server_seed_hash=server_seed_hash(self.server_seed),
            client_seeds=tuple(s for s in self.client_seeds if s is not None),
            steps=tuple(self.steps),
            scores=game.scores(),
        )
        signed = self.host.sign_roll(record)
        self.host.game_finished(self, signed)
        message = RollGameOver(
            pudding_points=game.pudding_points(),
            token_bonus=game.token_bonus(),
            totals=game.scores(),
            places=game.places(),
            winners=game.winners(),
            server_seed=self.server_seed,
            record=signed,
        )
        self._announce_end(message)

    # -- timers -----------------------------------------------------------------------------------

    def on_timer(self, now: float) -> None:
        """The deadline passed: draw missing seeds, let a bot play, or take for the mover."""
        self._now_hint = now
        if self.deadline is None or now < self.deadline:
            return
        self.deadline = None
        if self.phase is RollPhase.SEEDING:
            self._seeded(now)
            return
        game = self.game
        if self.phase is not RollPhase.MOVING or game is None or game.to_move is None:
            return
        seat = self.seats[game.to_move]
        if seat.bot_control:
            self._grace_over = True
        elif self.turn_deadline is not None and now >= self.turn_deadline:
            self._missed(seat)
            self._play(seat, self._choose(seat, takes_only=True), True, now)
        else:
            # A bot's grace ran out, but the player took the seat back (resumed): the turn's
            # own deadline stands.
            self.deadline = self.turn_deadline
            return
        self._run_bots(now)

    def player_back(self, seat_index: int) -> None:
        """The seat's player resumed: the seat is theirs again (no bot, no misses)."""
        seat = self.seats[seat_index]
        seat.misses = 0
        if seat.bot_control:
            seat.bot_control = False
            game = self.game
            if self.in_turn and game is not None and game.to_move == seat_index:
                self.deadline = self.turn_deadline

    # -- what a resuming player needs ---------------------------------------------------------------

    def observation(self, seat: int | None) -> RollObservation | None:
        """The current observation for a seat (None: spectator), during a game."""
        return self.game.observation(seat) if self.game is not None and self.playing else None
