"""A table: its seats, and a game of any kind played step by step with turn timers.

Sans-IO like the rest of the core: every input takes `now` (monotonic seconds), messages go out
through the players' sessions, and the table exposes `deadline` for the adapter's single timer.
Every move between table phases goes through `TRANSITIONS`, one table (STYLE.md item 4).

A game begins with the seed chain (docs/PROTOCOL.md section 6): GAME_STARTING with the hash of the
server's seed, a SEED from every seat, GAME_STARTED. Then the game is played in steps
(`engine.api`): TURN_START to every seat (its own observation) and spectator (the public one)
names the seats that act, and

- a *secret* step (the table's `secret`, a `steps.SecretSteps`) runs commit-reveal: COMMIT from every acting seat,
  COMMITMENTS, REVEAL, and TURN_RESULT with every opening;
- an *open* step (the table's `open`, a `steps.OpenSteps`) takes ACTs from its one acting seat, each applied, saved and
  told to everyone (ACTED), until the seat's turn is over.

Every step is saved before anyone hears its result. A seat that lets its time run out is acted for
(an auto-pick); after `MISSES_BEFORE_BOT` in a row a bot plays it until its player acts again, or,
the end the record is signed and stored and GAME_OVER goes to everyone. Server bots are players
like any other: they commit, reveal and act through the same code.

The table is a composition: its `seating` (`seating.Seating`: seats, spectators, host) and one part
per kind of step (`secret`, `open`), each owning its own state. The table owns the phase, the
timer, the game and its seeds, and the current step (its acting seats and position), which both
kinds of step read through `steps.StepTable`.
"""

from __future__ import annotations

import logging
import random
import secrets
from typing import Any

from sushigo.engine.api import GameState
from sushigo.protocol import (
    ErrorCode,
    FairRecord,
    GameEnded,
    GameStarted,
    GameStarting,
    Message,
    Opening,
    StepRecord,
    TableInfo,
    TableSettings,
    TableStatus,
    TurnStart,
    derive_game_seed,
    maker,
    new_seed,
    server_seed_hash,
)
from sushigo.server.errors import TableError

from .games import GameAdapter
from .phases import IN_GAME, TRANSITIONS, TablePhase
from .seating import MISSES_BEFORE_BOT, Player, Seat, Seating, TableHost
from .steps import OpenSteps, SecretSteps, turn_start

log = logging.getLogger("sushigo.server")

SEED_SECONDS = 10.0
"""Time for every seat to send its SEED before the server draws the missing ones."""

__all__ = ["MISSES_BEFORE_BOT", "SEED_SECONDS", "Table"]

_table_info = maker(TableInfo)
"""Made positionally through its slots (`maker`): a table's view goes out at every change."""


class Table:
    """One table and the game at it."""

    def __init__(
        self,
        table_id: str,
        settings: TableSettings,
        game: GameAdapter,
        host: TableHost,
        host_player: str | None,
    ) -> None:
        self.table_id = table_id
        self.settings = settings
        self.adapter = game
        """The table's game: rules, wire and bots (`server.tables.games`)."""
        self.wire = game.wire
        self.options: Any = game.options(settings)
        """The game's options (TableError BAD_SETTINGS, before anything else, for none)."""
        self.host = host
        self.seating = Seating(table_id, settings.players, host_player)
        """Who is at the table: seats, spectators, host."""
        self.phase = TablePhase.OPEN
        self.deadline: float | None = None
        """When the current timer fires (the seed deadline, a step's, or a bot's grace)."""
        self.quick = False
        """Made by quick match: starts by itself when full."""
        self.origin = ""
        """The address of the player who made it (empty for a tournament's)."""
        self.maker = ""
        """The player who made it (empty for a tournament's)."""
        self.abandon_at: float | None = None
        """When the table closes if none of its people is connected by then (None: someone
        is, or the clock has not started: see `server.lobby.lobby.Lobby.check_abandoned`)."""
        self.tournament: str | None = None
        """The tournament this table plays a game of, if any."""
        self.rng = random.Random(secrets.randbits(64))
        """For bots and auto-picks (never for chance in the game: that comes from the seeds)."""
        self.game: GameState | None = None
        """The game in progress (`engine.api.GameState`), None before the first."""
        self.server_seed = b""
        self.client_seeds: list[bytes | None] = []
        self.drawn: list[bool] = []
        """Per seat: the server drew its seed (none came in time)."""
        self.steps: list[StepRecord] = []
        """Every step of this game as played: the record, and what a save replays."""
        self.packed_head: tuple[tuple[object, ...], bytes] = ((), b"")
        """The saved header's bytes and what they were made from (see `server.tables.persist`)."""
        self.packed_steps: tuple[bytes, list[bytes]] = (b"", [])
        """The saved form of this game's steps, packed once each (see `server.tables.persist`)."""
        self.stored: tuple[bytes, bytes, int] = (b"", b"", 0)
        """What the storage holds of this table: the game's server seed, the header's bytes and
        how many steps (see `server.tables.persist.changes`)."""
        self.now_hint = 0.0
        """The `now` of the last input, for moves that have none of their own (a leave)."""
        self.acting: tuple[int, ...] = ()
        """The seats that act in the current step."""
        self.slots: list[int] = [-1] * settings.players
        """Per seat, its place in `acting` (-1: it does not act in this step)."""
        self.position = (0, 0)
        """(round, turn) of the current step (set as it begins: see `begin_step`)."""
        self.secret = SecretSteps(self)
        """Plays the game's secret steps (commit-reveal)."""
        self.open = OpenSteps(self)
        """Plays the game's open steps (one mover at a time)."""

    # -- the lobby view --------------------------------------------------------------------------

    @property
    def status(self) -> TableStatus:
        """Open, playing or finished."""
        if self.phase is TablePhase.OPEN:
            return TableStatus.OPEN
        return TableStatus.FINISHED if self.phase is TablePhase.OVER else TableStatus.PLAYING

    @property
    def playing(self) -> bool:
        """A game is in progress."""
        return self.phase in IN_GAME

    def info(self) -> TableInfo:
        """The table as the lobby shows it."""
        seating = self.seating
        return _table_info(
            self.table_id,
            self.settings,
            self.status,
            seating.host_player,
            seating.infos(),
            len(seating.spectators),
        )

    # -- seats ------------------------------------------------------------------------------------

    def _free_seat(self, wanted: int | None) -> Seat:
        """The seat a newcomer may take: none during a game (TableError)."""
        if self.playing:
            raise TableError(ErrorCode.GAME_IN_PROGRESS, f"table {self.table_id} is playing")
        return self.seating.free_seat(wanted)

    def sit(self, session: Player, wanted: int | None = None) -> Seat:
        """Seat a player (one seat per player: NOT_ALLOWED for a second one), between games."""
        self.seating.check_newcomer(session.player_id)
        seat = self._free_seat(wanted)
        seat.player_id, seat.name, seat.session = session.player_id, session.name, session
        return seat

    def add_bot(self, strategy: str, wanted: int | None = None) -> Seat:
        """Seat a server-side bot."""
        seat = self._free_seat(wanted)
        bot = self.adapter.bot(strategy)
        seat.bot, seat.strategy, seat.name = strategy, bot, f"{strategy}-bot-{seat.index}"
        return seat

    def leave(self, session: Player) -> None:
        """A player leaves (a bot takes the seat over during a game) or stops watching."""
        seat = self.seating.unseat(session)
        if seat is None:
            return
        if not self.playing:
            seat.player_id = seat.name = None
            return
        # The game goes on: the seat becomes a bot's for the rest of it.
        seat.bot = "default"
        self.host.stats.takeover(self.settings.kind, "left")
        seat.bot_control = False
        seat.strategy = self.adapter.bot("default")
        _reset(seat.strategy)
        self._pause_if_alone()
        self.act_for_bots(self.now_hint)

    # -- phases ----------------------------------------------------------------------------------

    def move(self, event: str) -> None:
        """Follow the table's transition table."""
        target = TRANSITIONS.get((self.phase, event))
        if target is None:
            raise AssertionError(
                f"table {self.table_id}: no transition from {self.phase} on {event}"
            )
        self.phase = target

    def changed(self) -> None:
        """Seats, status or spectators changed: the host tells the table's people."""
        self.host.table_changed(self)

    # -- seeding: the same chain for every game (docs/PROTOCOL.md section 6) ----------------------

    def start(self, now: float) -> None:
        """Begin a game: commit to a server seed, then collect every seat's seed."""
        self.now_hint = now
        if self.playing:
            raise TableError(ErrorCode.GAME_IN_PROGRESS, "a game is already in progress")
        if not self.seating.full:
            raise TableError(ErrorCode.NOT_ENOUGH_PLAYERS, "every seat must be taken first")
        self.move("start")
        log.info(
            "table %s: a game of %s starts: %s",
            self.table_id,
            self.settings.kind,
            ", ".join(seat.player_id or f"bot {seat.bot}" for seat in self.seating.seats),
        )
        self.server_seed = new_seed()
        self.client_seeds = [new_seed() if seat.bot else None for seat in self.seating.seats]
        self.drawn = [False] * len(self.seating.seats)
        for seat in self.seating.seats:
            seat.misses, seat.bot_control = 0, False
            if seat.strategy is not None:
                _reset(seat.strategy)
        self.steps = []
        self.game = None
        self.deadline = now + SEED_SECONDS
        names = tuple(seat.name or f"seat {seat.index}" for seat in self.seating.seats)
        digest = server_seed_hash(self.server_seed)
        for seat in self.seating.seats:
            if seat.session is not None:
                seat.session.send(self.starting_message(names, digest, seat.index))
        for watcher in self.seating.spectators:
            watcher.send(self.starting_message(names, digest, None))
        self.changed()
        if all(seed is not None for seed in self.client_seeds):
            self._seeded(now)
        else:
            # Saved from its start (before anyone hears of it), so a restart in the seeding
            # resumes the game instead of losing it: the seats owe their seeds again.
            self.host.save_table(self)

    def starting_message(
        self, names: tuple[str, ...], digest: bytes, seat: int | None
    ) -> GameStarting:
        """GAME_STARTING for `seat` (None: a spectator)."""
        return GameStarting(
            table_id=self.table_id,
            kind=self.adapter.kind,
            options=self.options,
            seat=seat,
            players=names,
            server_seed_hash=digest,
            deadline_ms=int(SEED_SECONDS * 1000),
        )

    def seed(self, seat: int, seed: bytes, now: float) -> None:
        """A seat's SEED."""
        self.now_hint = now
        if self.phase is not TablePhase.SEEDING:
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
        self.drawn = [s is None for s in self.client_seeds]
        seeds = tuple(s if s is not None else new_seed() for s in self.client_seeds)
        self.client_seeds = list(seeds)
        started = GameStarted(
            table_id=self.table_id,
            server_seed_hash=server_seed_hash(self.server_seed),
            client_seeds=seeds,
            drawn=tuple(i for i, drawn in enumerate(self.drawn) if drawn),
        )
        _broadcast(self.seating.people(), started)
        self.game = self.adapter.rules.new_game(
            self.options, derive_game_seed(self.table_id, self.server_seed, seeds)
        )
        self.begin_step(now)
        # The seeds are fixed now, and heard: a restart before the first step's end must resume
        # this very game.
        self.host.save_table(self)

    # -- the current step: what both kinds of step share ----------------------------------------

    def played(self) -> GameState:
        """The game being played (only while one is: a step's code runs only then)."""
        game = self.game
        assert game is not None, "no game is being played"
        return game

    def begin_step(self, now: float) -> None:
        """The game's next step begins: tell everyone, and let the bots act."""
        game = self.played()
        acting = self.acting = game.to_act()
        slots = self.slots = [-1] * len(self.seating.seats)
        for i, seat in enumerate(acting):
            slots[seat] = i
        self.position = game.position
        if self.adapter.rules.secret:
            self.secret.begin(now)
        else:
            self.open.begin(now)

    def act_for_bots(self, now: float) -> None:
        """Let server bots (and bots playing for absent players) act in the current step."""
        if self.adapter.rules.secret:
            self.secret.bots(now)
        else:
            self.open.run_bots(now)

    def after_step(self, now: float) -> None:
        """A step was applied: the game goes on to its next step, or ends."""
        if self.played().is_terminal():
            self.finish()
        else:
            self.begin_step(now)

    def check_move(self, round_: int, turn: int, phase: TablePhase, not_now: str) -> None:
        """A move naming step (`round_`, `turn`) is met in `phase` of that step; TableError
        OUT_OF_PHASE (saying `not_now`) or WRONG_TURN otherwise."""
        if self.phase is not phase:
            raise TableError(ErrorCode.OUT_OF_PHASE, not_now)
        if (round_, turn) != self.position:
            raise TableError(
                ErrorCode.WRONG_TURN, f"this is round {self.position[0]}, turn {self.position[1]}"
            )

    def slot(self, seat_index: int, round_: int, turn: int, phase: TablePhase, not_now: str) -> int:
        """`check_move`, and the slot of the seat among those that act in the step (TableError
        OUT_OF_PHASE for a seat that does not act)."""
        self.check_move(round_, turn, phase, not_now)
        slot = self.slots[seat_index]
        if slot < 0:
            raise TableError(ErrorCode.OUT_OF_PHASE, "this seat does not act in this step")
        return slot

    def slot_of(self, seat: int) -> int:
        """`seat`'s place among the seats acting now (-1: it does not act)."""
        return self.slots[seat] if 0 <= seat < len(self.slots) else -1

    def time_left_ms(self, now: float) -> int:
        """Milliseconds until the server acts in the current step (0: it never does): the turn
        time, or less when a bot is to play for an absent mover after its grace. Rounded, not cut:
        a deadline of now plus 60 s is 60000 ms, whatever the floats make of it."""
        if self.deadline is None:
            return 0
        return max(1, round((self.deadline - now) * 1000))

    def step_message(self, seat: int | None, now: float) -> TurnStart:
        """The current step's TURN_START for `seat` (None: a spectator), with the time left: sent
        when a step begins, and to whoever resumes or starts watching in the middle of it."""
        round_, turn = self.position
        return turn_start(
            round_,
            turn,
            self.acting,
            self.adapter.rules.secret,
            len(self.steps),
            self.played().observation(seat),
            self.time_left_ms(now),
        )

    def announce_step(self, now: float) -> None:
        """TURN_START to every seat (its own observation) and spectator (the public one), each
        with the same time left as a seat resuming or a spectator arriving now would be told."""
        game = self.played()
        round_, turn = self.position
        deadline_ms = self.time_left_ms(now)
        secret = self.adapter.rules.secret
        acting = self.acting
        step = len(self.steps)
        observation = game.observation
        for seat in self.seating.seats:
            session = seat.session
            if session is not None:
                session.send(
                    turn_start(
                        round_, turn, acting, secret, step, observation(seat.index), deadline_ms
                    )
                )
        spectators = self.seating.spectators
        if spectators:
            public = turn_start(round_, turn, acting, secret, step, observation(None), deadline_ms)
            for watcher in spectators:
                watcher.send(public)

    # -- what every step's end leads to -------------------------------------------------------------

    def missed(self, seat: Seat) -> None:
        """`seat` let its time run out: after `MISSES_BEFORE_BOT` in a row its player is away, and
        a bot plays it until they act again; or, if nobody else at the table plays, the game
        pauses for them (`paused`: no timer until they act)."""
        seat.misses += 1
        if not seat.away or seat.bot_control:
            return
        if self._pause_if_alone():
            return
        seat.bot_control = True
        self.host.stats.takeover(self.settings.kind, "missed")
        log.info(
            "table %s: a bot plays seat %d until its player is back", self.table_id, seat.index
        )
        self.changed()

    # -- pausing for a person alone with bots -------------------------------------------------------

    @property
    def paused(self) -> bool:
        """The game waits, with no timer, for a player who let two deadlines pass: every person
        at the table is away (the others are bots), one of them has a session (connected, or
        within its resume window), and no tournament's schedule waits on it. Played to its end
        by bots meanwhile, the game would be over before they looked back; where another person
        plays, a bot plays the away seat instead, so nobody waits. A seat with no session (after
        a restart, until its player resumes) holds nothing up: bots play it."""
        if self.tournament is not None or self.phase not in IN_GAME:
            return False
        people = [seat for seat in self.seating.seats if seat.person]
        return (
            bool(people)
            and all(seat.away for seat in people)
            and any(seat.session is not None for seat in people)
        )

    def _pause_if_alone(self) -> bool:
        """Pause the game if every person at the table is away (see `paused`): no bot plays for
        them any more, and no timer runs until one of them acts. Whether it is paused."""
        if not self.paused:
            return False
        # (The step under way keeps its timer: it ends as any would. The next one has none.)
        for seat in self.seating.seats:
            seat.bot_control = False
        away = ", ".join(str(seat.index) for seat in self.seating.seats if seat.person)
        log.info("table %s: paused until a player at seat %s acts", self.table_id, away)
        self.changed()
        return True

    def play_resumes(self, seat: Seat, now: float) -> None:
        """`seat`'s player, away, acts: whatever else is away at the table gets a bot now, since
        someone plays again (a paused game waited for every away person's move); they hear
        it."""
        seat.misses = 0
        for other in self.seating.seats:
            if other.person and other.away and not other.bot_control:
                other.bot_control = True
        self.changed()
        self.act_for_bots(now)

    def step_seconds(self) -> int:
        """The time a step starting now gives the seats that act (0: no timer): the table's
        turn time, none while the game is paused."""
        return 0 if self.paused else self.settings.turn_seconds

    def strategy(self, seat: Seat) -> Any:
        """The strategy that acts for `seat` (its bot's, or the default one for a player)."""
        strategy = seat.strategy
        if strategy is None:
            strategy = seat.strategy = self.adapter.bot("default")
            _reset(strategy)
        return strategy

    def choose(self, seat: Seat, legal: Any = None) -> Any:
        """The server's action for `seat`: its strategy's choice among `legal` (default: every
        legal action), or a random one of them when the strategy fails or goes astray."""
        game = self.played()
        if legal is None:
            legal = game.legal_actions(seat.index)
        try:
            action = self.strategy(seat).choose(game.observation(seat.index), legal, self.rng)
        except Exception:  # a bot's bug must not stall the table
            log.exception(
                "table %s: bot at seat %d failed; playing at random", self.table_id, seat.index
            )
            return self.rng.choice(legal)
        return action if action in legal else self.rng.choice(legal)

    def record(self) -> FairRecord:
        """The game's record as it stands: every step played, the seeds, the scores so far (the
        final ones once it is over; an aborted game's record ends before the game does)."""
        return FairRecord(
            game=self.adapter.kind,
            table_id=self.table_id,
            options=self.options,
            server_seed=self.server_seed,
            server_seed_hash=server_seed_hash(self.server_seed),
            client_seeds=tuple(s for s in self.client_seeds if s is not None),
            steps=tuple(self.steps),
            scores=self.played().scores(),
        )

    def finish(self) -> None:
        """The game is over: sign and store the record, tell everyone."""
        game = self.played()
        assert game is not None and game.is_terminal()
        self.move("game_over")
        self.deadline = None
        record = self.record()
        packed = self.packed_steps  # the saved steps are the record's bytes of them
        steps = packed[1] if packed[0] == self.server_seed else None
        signed = self.host.sign(record, steps if steps and len(steps) == len(self.steps) else None)
        self.host.game_finished(self, signed)
        message = GameEnded(
            totals=game.scores(),
            places=game.places(),
            winners=game.winners(),
            server_seed=self.server_seed,
            record=signed,
        )
        _broadcast(self.seating.people(), message)
        for seat in self.seating.seats:
            seat.misses, seat.bot_control = 0, False
        self.changed()

    # -- timers ----------------------------------------------------------------------------------

    def on_timer(self, now: float) -> None:
        """The deadline passed: draw missing seeds, or act for seats that did not."""
        self.now_hint = now
        if self.deadline is None or now < self.deadline:
            return
        self.deadline = None
        phase = self.phase
        if phase is TablePhase.SEEDING:
            self._seeded(now)
        elif phase is TablePhase.MOVING:
            self.open.timer(now)
        elif phase in (TablePhase.COMMITTING, TablePhase.REVEALING):
            self.secret.timer(now)

    def player_back(self, seat_index: int, now: float) -> None:
        """The seat's player resumed: the seat is theirs again (no bot, no misses). A paused game
        goes on waiting for their move: coming back is not playing."""
        if self.paused:
            return
        seat = self.seating.seats[seat_index]
        seat.misses = 0
        if seat.bot_control:
            seat.bot_control = False
            self.open.player_back(seat_index)

    # -- what a resuming or arriving player needs -----------------------------------------------------

    def observation(self, seat: int | None) -> Any:
        """The current observation for a seat (None: spectator), during a game."""
        game = self.game
        return game.observation(seat) if game is not None and self.playing else None

    def opening(self, seat: int) -> Opening | None:
        """`seat`'s settled opening in the current secret step (None: not settled, or none)."""
        slot = self.slot_of(seat)
        return None if slot < 0 else self.secret.openings[slot]


def _broadcast(people: list[Player], message: Message) -> None:
    """Send one message to each of `people` (it is packed once for all: the protocol keeps the
    last message's packed fields)."""
    for person in people:
        person.send(message)


def _reset(strategy: Any) -> None:
    reset = getattr(strategy, "reset", None)
    if reset is not None:
        reset()
