"""How a table plays its game's steps: secret steps through commit-reveal, open steps move by move.

`server.tables.table.Table` is made of these (with `server.tables.seating.Seating`); they are split
from it only to keep each module readable (STYLE.md item 9). Which kind a step is comes from the
game (`engine.api.Rules.secret`); a game could mix both.

Secret step (Sushi Go!: every seat picks a card at once): TURN_START to every seat and spectator;
each acting seat sends COMMIT; when all have (or the timer auto-picked the rest), COMMITMENTS goes
to all; each sends REVEAL, checked against its commitment and the game's legal actions; when all
are in, the game applies every action in one step, the table is saved, and TURN_RESULT carries
every opening so each client can check every other seat's commitment.

Open step (Sushi Roll: the mover's re-rolls and swaps, then its take): TURN_START to everyone;
the acting seat sends ACT, each applied, saved and answered by ACTED to everyone, until its turn
is over (the game names another seat, or a new position). The mover has `turn_seconds` for the
whole turn; then the server finishes it for the seat, marked auto. A bot playing for a connected
player waits `BOT_GRACE_SECONDS` first, in which an action of the player's own takes the seat back.
"""

from __future__ import annotations

import logging
from typing import Any, cast

from sushigo.engine import EngineError
from sushigo.engine.api import GameState
from sushigo.protocol import (
    Acted,
    Commitments,
    ErrorCode,
    Opening,
    StepRecord,
    TableSettings,
    TurnResult,
    TurnStart,
    make_commitment,
    maker,
    new_nonce,
    verify_commitment,
)
from sushigo.server.errors import TableError

from .games import GameAdapter
from .phases import COMMITTING, IN_GAME, MOVING, REVEALING, TablePhase
from .seating import Player, Seat, TableHost

log = logging.getLogger("sushigo.server")

BOT_GRACE_SECONDS = 3.0
"""How long a bot waits before playing an open turn for a connected player who missed too many:
an action of the player's own in that time takes the seat back."""
MAX_BOT_ACTIONS = 24
"""Actions a server-chosen open turn may take before the server picks only actions that end it
(a game's costs bound them anyway; this bounds a strategy that misbehaves)."""

_turn_start = maker(TurnStart)
_commitments = maker(Commitments)
_turn_result = maker(TurnResult)
_step_record = maker(StepRecord)
_opening = maker(Opening)
_acted = maker(Acted)
"""The messages and records of every step, made positionally through their slots (`maker`)."""


def _all_open(openings: list[Opening | None]) -> bool:
    """Every acting seat's action is settled. (``None in openings`` would call `Opening.__eq__`
    per pick, and ``all`` over a generator costs twice this loop.)"""
    for opening in openings:  # noqa: SIM110
        if opening is None:
            return False
    return True


class StepState:
    """The state of the step being played, and what both kinds of step share."""

    # Set by the table (`server.tables.table.Table`):
    table_id: str
    settings: TableSettings
    adapter: GameAdapter
    host: TableHost
    seats: list[Seat]
    spectators: list[Player]
    game: GameState | None
    """The game being played (None between games): every game is an `engine.api.GameState`."""
    steps: list[StepRecord]
    deadline: float | None
    phase: TablePhase
    tournament: str | None
    _now_hint: float

    def init_steps(self) -> None:
        """No step yet."""
        self.acting: tuple[int, ...] = ()
        """The seats that act in the current step."""
        self.slots: list[int] = [-1] * len(self.seats)
        """Per seat, its place in `acting` (-1: it does not act in this step)."""
        self.position = (0, 0)
        """(round, turn) of the current step (set as it begins: see `begin_step`)."""
        self.commitments: list[bytes | None] = []
        self.openings: list[Opening | None] = []
        self.committed: list[bool] = []
        """Per acting seat, in a secret step."""
        self.turn_deadline: float | None = None
        """When the mover's whole turn runs out, in an open step (None: no timer)."""
        self.grace_over = False
        """The current mover's bot grace has passed: the bot plays even if the player is here."""
        self.server_actions = 0
        """Actions the server chose in the current open turn (see `MAX_BOT_ACTIONS`)."""
        self.committed_at: float | None = None
        """When the current secret step's last commitment came in (its latency's start)."""

    def played(self) -> GameState:
        """The game being played (only while one is: a step's code runs only then)."""
        game = self.game
        assert game is not None, "no game is being played"
        return game

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
        people = [seat for seat in self.seats if seat.person]
        return (
            bool(people)
            and all(seat.away for seat in people)
            and any(seat.session is not None for seat in people)
        )

    def play_resumes(self, seat: Seat, now: float) -> None:
        """`seat`'s player, away, acts: whatever else is away at the table gets a bot now, since
        someone plays again (a paused game waited for every away person's move); they hear
        it."""
        seat.misses = 0
        for other in self.seats:
            if other.person and other.away and not other.bot_control:
                other.bot_control = True
        self._changed()
        self.act_for_bots(now)

    def step_seconds(self) -> int:
        """The time a step starting now gives the seats that act (0: no timer): the table's
        turn time, none while the game is paused."""
        return 0 if self.paused else self.settings.turn_seconds

    # Provided by the table:
    def _move(self, event: str) -> None:
        raise NotImplementedError

    def people(self) -> list[Player]:
        raise NotImplementedError

    def choose(self, seat: Seat, legal: Any = None) -> Any:
        raise NotImplementedError

    def missed(self, seat: Seat) -> None:
        raise NotImplementedError

    def _check_move(self, round_: int, turn: int, phase: TablePhase, not_now: str) -> None:
        """A move naming step (`round_`, `turn`) is met in `phase` of that step; TableError
        OUT_OF_PHASE (saying `not_now`) or WRONG_TURN otherwise."""
        if self.phase is not phase:
            raise TableError(ErrorCode.OUT_OF_PHASE, not_now)
        if (round_, turn) != self.position:
            raise TableError(
                ErrorCode.WRONG_TURN, f"this is round {self.position[0]}, turn {self.position[1]}"
            )

    def _slot(
        self, seat_index: int, round_: int, turn: int, phase: TablePhase, not_now: str
    ) -> int:
        """`_check_move`, and the slot of the seat among those that act in the step (TableError
        OUT_OF_PHASE for a seat that does not act)."""
        self._check_move(round_, turn, phase, not_now)
        slot = self.slots[seat_index]
        if slot < 0:
            raise TableError(ErrorCode.OUT_OF_PHASE, "this seat does not act in this step")
        return slot

    def finish(self) -> None:
        raise NotImplementedError

    def _changed(self) -> None:
        raise NotImplementedError

    def begin_step(self, now: float) -> None:
        """The game's next step begins: tell everyone, and let the bots act."""
        game = self.played()
        acting = self.acting = game.to_act()
        slots = self.slots = [-1] * len(self.seats)
        for i, seat in enumerate(acting):
            slots[seat] = i
        self.position = game.position
        if self.adapter.rules.secret:
            self.begin_secret(now)
        else:
            self.begin_open(now)

    def slot_of(self, seat: int) -> int:
        """`seat`'s place among the seats acting now (-1: it does not act)."""
        return self.slots[seat] if 0 <= seat < len(self.slots) else -1

    def step_message(self, seat: int | None, now: float) -> TurnStart:
        """The current step's TURN_START for `seat` (None: a spectator), with the time left: sent
        when a step begins, and to whoever resumes or starts watching in the middle of it."""
        left = self.time_left_ms(now)
        round_, turn = self.position
        return _turn_start(
            round_,
            turn,
            self.acting,
            self.adapter.rules.secret,
            len(self.steps),
            self.played().observation(seat),
            left,
        )

    def time_left_ms(self, now: float) -> int:
        """Milliseconds until the server acts in the current step (0: it never does): the turn
        time, or less when a bot is to play for an absent mover after its grace. Rounded, not cut:
        a deadline of now plus 60 s is 60000 ms, whatever the floats make of it."""
        if self.deadline is None:
            return 0
        return max(1, round((self.deadline - now) * 1000))

    def _announce_step(self, now: float) -> None:
        """TURN_START to every seat (its own observation) and spectator (the public one), each
        with the same time left as a seat resuming or a spectator arriving now would be told."""
        game = self.played()
        round_, turn = self.position
        deadline_ms = self.time_left_ms(now)
        secret = self.adapter.rules.secret
        acting = self.acting
        step = len(self.steps)
        observation = game.observation
        for seat in self.seats:
            session = seat.session
            if session is not None:
                session.send(
                    _turn_start(
                        round_, turn, acting, secret, step, observation(seat.index), deadline_ms
                    )
                )
        if self.spectators:
            public = _turn_start(round_, turn, acting, secret, step, observation(None), deadline_ms)
            for watcher in self.spectators:
                watcher.send(public)

    def act_for_bots(self, now: float) -> None:
        """Let server bots (and bots playing for absent players) act in the current step."""
        if self.adapter.rules.secret:
            self.secret_bots(now)
        else:
            self.run_bots(now)

    def begin_secret(self, now: float) -> None:
        raise NotImplementedError

    def begin_open(self, now: float) -> None:
        raise NotImplementedError

    def secret_bots(self, now: float) -> None:
        raise NotImplementedError

    def run_bots(self, now: float) -> None:
        raise NotImplementedError

    def _after_step(self, now: float) -> None:
        """A step was applied: the game goes on to its next step, or ends."""
        if self.played().is_terminal():
            self.finish()
        else:
            self.begin_step(now)


class SecretSteps(StepState):
    """Commit-reveal: every acting seat chooses at once, in secret."""

    def begin_secret(self, now: float) -> None:
        """TURN_START of a secret step; bots commit at once."""
        self._move("secret_step")
        n = len(self.acting)
        self.commitments = [None] * n
        self.openings = [None] * n
        self.committed = [False] * n
        seconds = self.step_seconds()
        self.deadline = now + seconds if seconds else None
        self._announce_step(now)
        self.secret_bots(now)

    def secret_bots(self, now: float) -> None:
        """Bots commit at once; so do seats a bot plays for an absent player (auto-picks)."""
        phase = self.phase
        if phase is COMMITTING:
            for slot, index in enumerate(self.acting):
                seat = self.seats[index]
                if not self.committed[slot] and (seat.bot or seat.bot_control):
                    self._bot_commit(seat, slot)
            if all(self.committed):
                self._all_committed(now)
        elif phase is REVEALING:
            for slot, index in enumerate(self.acting):
                seat = self.seats[index]
                if self.openings[slot] is None and (seat.bot or seat.bot_control):
                    self.openings[slot] = Opening(action=self.choose(seat), auto=True)
            if _all_open(self.openings):
                self._all_revealed(now)

    def _bot_commit(self, seat: Seat, slot: int) -> None:
        """A server bot is a player like any other: a real commitment, opened later. A seat a bot
        plays for an absent player gets an auto-pick instead (no commitment, marked auto)."""
        action = self.choose(seat)
        if seat.bot:
            round_, turn = self.position
            nonce = new_nonce()
            self.commitments[slot] = make_commitment(
                self.table_id,
                round_,
                turn,
                seat.index,
                self.adapter.wire.commit_bytes(action),
                nonce,
            )
            self.openings[slot] = _opening(action, nonce, False)
        else:
            self.openings[slot] = Opening(action=action, auto=True)
        self.committed[slot] = True

    def commit(
        self, seat_index: int, round_: int, turn: int, commitment: bytes, now: float
    ) -> None:
        """A seat's COMMIT."""
        self._now_hint = now
        seat = self.seats[seat_index]
        was_bot, was_away = seat.bot_control, seat.away
        seat.misses = 0  # the player acted: no misses, and no bot playing for them
        seat.bot_control = False
        if was_away and not was_bot:
            self.play_resumes(seat, now)
        slot = self._slot(
            seat_index, round_, turn, COMMITTING, "commitments are not being collected"
        )
        if self.committed[slot]:
            if was_bot or was_away:
                self._changed()
            if was_bot:
                raise TableError(
                    ErrorCode.ALREADY_DONE,
                    "a bot picked for you this turn: the seat is yours again from the next one",
                )
            raise TableError(ErrorCode.ALREADY_DONE, "this seat has already committed this turn")
        if commitment in self.commitments:
            # Commitments bind the seat, so a copy could never be opened; refuse it outright and
            # pick for the seat, so a copier cannot hold the table up.
            self.openings[slot] = Opening(action=self.choose(seat), auto=True)
            self.committed[slot] = True
            if all(self.committed):
                self._all_committed(now)
            raise TableError(ErrorCode.FAIRNESS_VIOLATION, "that commitment is another seat's")
        self.commitments[slot] = commitment
        self.committed[slot] = True
        if was_bot or was_away:
            self._changed()
        if all(self.committed):
            self._all_committed(now)

    def _all_committed(self, now: float) -> None:
        self._move("committed")
        self.committed_at = now
        seconds = self.settings.turn_seconds
        self.deadline = now + seconds if seconds else None
        round_, turn = self.position
        message = _commitments(round_, turn, tuple(self.commitments), seconds * 1000)
        for person in self.people():
            person.send(message)
        if _all_open(self.openings):
            self._all_revealed(now)

    def reveal(
        self, seat_index: int, round_: int, turn: int, action: Any, nonce: bytes, now: float
    ) -> None:
        """A seat's REVEAL: it must open the seat's commitment and be a legal action."""
        self._now_hint = now
        seat = self.seats[seat_index]
        seat.misses = 0  # the player acted: no misses, and no bot playing for them
        seat.bot_control = False
        slot = self._slot(seat_index, round_, turn, REVEALING, "reveals are not being collected")
        if self.openings[slot] is not None:
            raise TableError(ErrorCode.ALREADY_DONE, "this seat's pick is already settled")
        commitment = self.commitments[slot]
        error: TableError | None = None
        legal = self.played().legal_actions(seat_index)
        if commitment is None or not verify_commitment(
            commitment,
            self.table_id,
            round_,
            turn,
            seat_index,
            self.adapter.wire.commit_bytes(action),
            nonce,
        ):
            error = TableError(
                ErrorCode.COMMITMENT_MISMATCH, "the reveal does not open this seat's commitment"
            )
        elif action not in legal:
            error = TableError(
                ErrorCode.ILLEGAL_ACTION,
                f"{self.adapter.rules.describe(action)} is not a legal action now",
            )
        if error is not None:
            # The seat cannot reveal twice: pick for it now, so the table does not wait.
            self.openings[slot] = Opening(action=self.choose(seat), auto=True)
        else:
            # The game's own equal action, which lives on anyway: the decoded one can go now,
            # rather than stay with the game's record until it ends (less for the collector).
            action = legal[legal.index(action)]
            self.openings[slot] = _opening(action, nonce, False)
        if _all_open(self.openings):
            self._all_revealed(now)
        if error is not None:
            raise error

    def _all_revealed(self, now: float) -> None:
        openings = cast(tuple[Opening, ...], tuple(self.openings))  # every one is in
        round_, turn = self.position
        record = _step_record(round_, turn, self.acting, tuple(self.commitments), openings)
        events = self.played().step([o.action for o in openings])
        self.steps.append(record)
        # Saved before anyone hears the result: after a crash the game resumes from here.
        self.host.save_table(self)
        result = _turn_result(round_, turn, openings, tuple(events))
        for person in self.people():
            person.send(result)
        since, self.committed_at = self.committed_at, None
        self.host.stats.turn_done(self.settings.kind, None if since is None else now - since)
        self._after_step(now)

    def secret_timer(self, now: float) -> None:
        """The step's deadline passed: auto-pick for every acting seat that did not act."""
        if self.phase is COMMITTING:
            for slot, index in enumerate(self.acting):
                if not self.committed[slot]:
                    seat = self.seats[index]
                    self.missed(seat)
                    self.openings[slot] = Opening(action=self.choose(seat), auto=True)
                    self.committed[slot] = True
            self._all_committed(now)
        else:
            for slot, index in enumerate(self.acting):
                if self.openings[slot] is None:
                    seat = self.seats[index]
                    self.missed(seat)
                    self.openings[slot] = Opening(action=self.choose(seat), auto=True)
            self._all_revealed(now)


class OpenSteps(StepState):
    """One seat acts at a time, in the open, any number of actions until its turn is over."""

    def begin_open(self, now: float) -> None:
        """TURN_START of an open step: the mover's timer starts."""
        self._move("open_step")
        mover = self.seats[self.acting[0]]
        self.grace_over = False
        self.server_actions = 0
        seconds = self.step_seconds()
        self.turn_deadline = now + seconds if seconds else None
        if mover.bot_control:
            grace = min(BOT_GRACE_SECONDS, seconds) if seconds else BOT_GRACE_SECONDS
            self.deadline = now + grace
        else:
            self.deadline = self.turn_deadline
        self._announce_step(now)
        self.run_bots(now)

    def resume_turn(self, now: float) -> None:
        """After a restart: the open turn goes on where it was, with its timer started afresh."""
        self._now_hint = now
        self.begin_step(now)

    @property
    def in_turn(self) -> bool:
        """An open step is being played (its TURN_START is current)."""
        return self.phase is MOVING

    def run_bots(self, now: float) -> None:
        """Play for server bots, and for seats a bot plays for their player, until a person is to
        move or the game ends. A loop, not recursion: a table of bots plays a whole game here."""
        while self.phase is MOVING:
            seat = self.seats[self.acting[0]]
            if seat.bot is not None:
                auto = False  # a server bot is a player like any other
            elif seat.bot_control and (
                self.grace_over or seat.session is None or not seat.session.attached
            ):
                auto = True
            else:
                return
            self._play(seat, self._server_choice(seat, ends_turn=False), auto, now)

    def _ending(self, seat: Seat) -> list[Any]:
        """The legal actions that end `seat`'s turn (Sushi Roll: its takes), found by trying each
        on a copy of the game: a timeout must end the turn, whatever the game."""
        game = self.played()
        here = (game.position, game.to_act())
        ending = []
        for action in game.legal_actions(seat.index):
            trial = game.clone()
            trial.step([action])
            if (trial.position, trial.to_act()) != here or trial.is_terminal():
                ending.append(action)
        return ending

    def _server_choice(self, seat: Seat, *, ends_turn: bool) -> Any:
        """The server's action for `seat`: its strategy's, or one that ends the turn when only
        such will do (a timeout, or too many server-chosen actions in this turn)."""
        if ends_turn or self.server_actions >= MAX_BOT_ACTIONS:
            return self.choose(seat, self._ending(seat))
        return self.choose(seat)

    def _play(self, seat: Seat, action: Any, auto: bool, now: float) -> None:
        """Apply a legal action of the seat to move, save, and tell everyone what it did."""
        game = self.played()
        round_, turn = self.position
        events = game.step([action])
        opening = Opening(action=action, auto=auto)
        self.steps.append(_step_record(round_, turn, self.acting, (), (opening,)))
        more = (
            not game.is_terminal()
            and game.to_act() == self.acting
            and (game.position == self.position)
        )
        if more and (auto or seat.bot is not None):
            self.server_actions += 1
        # Saved before anyone hears of it: after a crash the game goes on from exactly here.
        self.host.save_table(self)
        step, told = len(self.steps) - 1, tuple(events)
        for other in self.seats:
            if other.session is not None:
                other.session.send(
                    _acted(
                        round_,
                        turn,
                        step,
                        seat.index,
                        action,
                        auto,
                        told,
                        game.observation(other.index),
                        more,
                    )
                )
        if self.spectators:
            public = _acted(
                round_, turn, step, seat.index, action, auto, told, game.observation(None), more
            )
            for watcher in self.spectators:
                watcher.send(public)
        if not more:
            self.host.stats.turn_done(self.settings.kind, None)
            self._after_step(now)

    def act(self, seat_index: int, round_: int, turn: int, action: Any, now: float) -> None:
        """A seat's ACT: only the seat that acts, in the current step, with an action the game
        accepts (else ILLEGAL_ACTION naming why, nothing changes, and it may try again)."""
        self._now_hint = now
        self._check_move(round_, turn, MOVING, "no open step is being played")
        if seat_index not in self.acting:
            raise TableError(ErrorCode.OUT_OF_PHASE, f"it is seat {self.acting[0]}'s turn")
        seat = self.seats[seat_index]
        if seat.bot_control:
            # The player is back: the seat is theirs again, with the rest of the turn's time.
            seat.bot_control = False
            self.deadline = self.turn_deadline
            self._changed()
        elif seat.away:
            # Back to a paused game: the turn's timer starts now, and everyone hears of it.
            seconds = self.settings.turn_seconds
            self.turn_deadline = self.deadline = now + seconds if seconds else None
            self.play_resumes(seat, now)
        seat.misses = 0
        legal = self.played().legal_actions(seat_index)
        if action not in legal:
            reason = "not a legal action now"
            try:
                self.played().clone().step([action])  # raises the specific error naming the problem
            except EngineError as exc:
                reason = f"not legal now: {exc}"
            raise TableError(
                ErrorCode.ILLEGAL_ACTION, f"{self.adapter.rules.describe(action)} is {reason}"
            )
        self._play(seat, legal[legal.index(action)], False, now)
        self.run_bots(now)

    def open_timer(self, now: float) -> None:
        """The deadline passed: a bot's grace is over, or the mover's turn ran out."""
        seat = self.seats[self.acting[0]]
        if seat.bot_control:
            self.grace_over = True
        elif self.turn_deadline is not None and now >= self.turn_deadline:
            self.missed(seat)
            # The turn ends now: the server ends it for the seat, marked auto.
            self._play(seat, self._server_choice(seat, ends_turn=True), True, now)
        else:
            # A bot's grace ran out, but the player took the seat back (resumed): the turn's
            # own deadline stands.
            self.deadline = self.turn_deadline
            return
        self.run_bots(now)

    def open_player_back(self, seat_index: int) -> None:
        """The seat's player resumed during an open step: if it is the mover, the rest of the
        turn's time is theirs."""
        if self.phase is MOVING and self.acting == (seat_index,):
            self.deadline = self.turn_deadline
