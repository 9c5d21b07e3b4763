"""How a table plays its game's steps: secret steps through commit-reveal, open steps move by move.

A table (`server.tables.table.Table`) holds one of each part here and hands every step to the one
its game's kind of step needs (`engine.api.Rules.secret`; a game could mix both). Each part owns
the state of its kind of step and sees the table through `StepTable`: the current step (its seats
and position), the game, the seats, and what a step's end leads to.

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
from typing import Any, Protocol, cast

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
from .phases import COMMITTING, MOVING, REVEALING, TablePhase
from .seating import Seat, Seating, TableHost

log = logging.getLogger("sushigo.server")

BOT_GRACE_SECONDS = 3.0
"""How long a bot waits before playing an open turn for a connected player who missed too many:
an action of the player's own in that time takes the seat back."""
MAX_BOT_ACTIONS = 24
"""Actions a server-chosen open turn may take before the server picks only actions that end it
(a game's costs bound them anyway; this bounds a strategy that misbehaves)."""

turn_start = maker(TurnStart)
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


class StepTable(Protocol):
    """The table a step part plays at, as the part sees it (`server.tables.table.Table`): its
    settings, seats and game, the current step, and what every step's end leads to."""

    table_id: str
    settings: TableSettings
    adapter: GameAdapter
    host: TableHost
    seating: Seating
    phase: TablePhase
    deadline: float | None
    steps: list[StepRecord]
    """Every step of the game as played."""
    acting: tuple[int, ...]
    """The seats that act in the current step."""
    position: tuple[int, int]
    """(round, turn) of the current step."""
    now_hint: float

    def played(self) -> GameState:
        """The game being played."""

    def move(self, event: str) -> None:
        """Follow the table's transition table."""

    def announce_step(self, now: float) -> None:
        """TURN_START of the current step to everyone."""

    def check_move(self, round_: int, turn: int, phase: TablePhase, not_now: str) -> None:
        """A move naming (`round_`, `turn`) is met in `phase` of that step (else TableError)."""

    def slot(self, seat_index: int, round_: int, turn: int, phase: TablePhase, not_now: str) -> int:
        """`check_move`, and the seat's place among those that act (else TableError)."""

    def choose(self, seat: Seat, legal: Any = None) -> Any:
        """The server's action for `seat`."""

    def missed(self, seat: Seat) -> None:
        """`seat` let its time run out."""

    def changed(self) -> None:
        """Seats or status changed: tell the table's people."""

    def after_step(self, now: float) -> None:
        """A step was applied: the next one begins, or the game ends."""

    def step_seconds(self) -> int:
        """The time a step starting now gives the seats that act (0: no timer)."""

    def play_resumes(self, seat: Seat, now: float) -> None:
        """`seat`'s player, away, acts: the table's other away people get a bot now."""


class SecretSteps:
    """Commit-reveal: every acting seat chooses at once, in secret. Owns the current secret
    step's commitments and openings."""

    def __init__(self, table: StepTable) -> None:
        self.table = table
        self.commitments: list[bytes | None] = []
        self.openings: list[Opening | None] = []
        self.committed: list[bool] = []
        """Per acting seat."""
        self.committed_at: float | None = None
        """When the current step's last commitment came in (its latency's start)."""

    def begin(self, now: float) -> None:
        """TURN_START of a secret step; bots commit at once."""
        table = self.table
        table.move("secret_step")
        n = len(table.acting)
        self.commitments = [None] * n
        self.openings = [None] * n
        self.committed = [False] * n
        seconds = table.step_seconds()
        table.deadline = now + seconds if seconds else None
        table.announce_step(now)
        self.bots(now)

    def bots(self, now: float) -> None:
        """Bots commit at once; so do seats a bot plays for an absent player (auto-picks)."""
        table = self.table
        phase = table.phase
        if phase is COMMITTING:
            for slot, index in enumerate(table.acting):
                seat = table.seating.seats[index]
                if not self.committed[slot] and (seat.bot or seat.bot_control):
                    self._bot_commit(seat, slot)
            if all(self.committed):
                self._all_committed(now)
        elif phase is REVEALING:
            for slot, index in enumerate(table.acting):
                seat = table.seating.seats[index]
                if self.openings[slot] is None and (seat.bot or seat.bot_control):
                    self.openings[slot] = Opening(action=table.choose(seat), auto=True)
            if _all_open(self.openings):
                self._all_revealed(now)

    def _bot_commit(self, seat: Seat, slot: int) -> None:
        """A server bot is a player like any other: a real commitment, opened later. A seat a bot
        plays for an absent player gets an auto-pick instead (no commitment, marked auto)."""
        table = self.table
        action = table.choose(seat)
        if seat.bot:
            round_, turn = table.position
            nonce = new_nonce()
            self.commitments[slot] = make_commitment(
                table.table_id,
                round_,
                turn,
                seat.index,
                table.adapter.wire.commit_bytes(action),
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
        table = self.table
        table.now_hint = now
        seat = table.seating.seats[seat_index]
        was_bot, was_away = seat.bot_control, seat.away
        seat.misses = 0  # the player acted: no misses, and no bot playing for them
        seat.bot_control = False
        if was_away and not was_bot:
            table.play_resumes(seat, now)
        slot = table.slot(
            seat_index, round_, turn, COMMITTING, "commitments are not being collected"
        )
        if self.committed[slot]:
            if was_bot or was_away:
                table.changed()
            if was_bot:
                raise TableError(
                    ErrorCode.ALREADY_DONE,
                    "a bot picked for you this turn: the seat is yours again from the next one",
                )
            raise TableError(ErrorCode.ALREADY_DONE, "this seat has already committed this turn")
        if commitment in self.commitments:
            # Commitments bind the seat, so a copy could never be opened; refuse it outright and
            # pick for the seat, so a copier cannot hold the table up.
            self.openings[slot] = Opening(action=table.choose(seat), auto=True)
            self.committed[slot] = True
            if all(self.committed):
                self._all_committed(now)
            raise TableError(ErrorCode.FAIRNESS_VIOLATION, "that commitment is another seat's")
        self.commitments[slot] = commitment
        self.committed[slot] = True
        if was_bot or was_away:
            table.changed()
        if all(self.committed):
            self._all_committed(now)

    def _all_committed(self, now: float) -> None:
        table = self.table
        table.move("committed")
        self.committed_at = now
        seconds = table.settings.turn_seconds
        table.deadline = now + seconds if seconds else None
        round_, turn = table.position
        message = _commitments(round_, turn, tuple(self.commitments), seconds * 1000)
        for person in table.seating.people():
            person.send(message)
        if _all_open(self.openings):
            self._all_revealed(now)

    def reveal(
        self, seat_index: int, round_: int, turn: int, action: Any, nonce: bytes, now: float
    ) -> None:
        """A seat's REVEAL: it must open the seat's commitment and be a legal action."""
        table = self.table
        table.now_hint = now
        seat = table.seating.seats[seat_index]
        seat.misses = 0  # the player acted: no misses, and no bot playing for them
        seat.bot_control = False
        slot = table.slot(seat_index, round_, turn, REVEALING, "reveals are not being collected")
        if self.openings[slot] is not None:
            raise TableError(ErrorCode.ALREADY_DONE, "this seat's pick is already settled")
        commitment = self.commitments[slot]
        error: TableError | None = None
        legal = table.played().legal_actions(seat_index)
        if commitment is None or not verify_commitment(
            commitment,
            table.table_id,
            round_,
            turn,
            seat_index,
            table.adapter.wire.commit_bytes(action),
            nonce,
        ):
            error = TableError(
                ErrorCode.COMMITMENT_MISMATCH, "the reveal does not open this seat's commitment"
            )
        elif action not in legal:
            error = TableError(
                ErrorCode.ILLEGAL_ACTION,
                f"{table.adapter.rules.describe(action)} is not a legal action now",
            )
        if error is not None:
            # The seat cannot reveal twice: pick for it now, so the table does not wait.
            self.openings[slot] = Opening(action=table.choose(seat), auto=True)
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
        table = self.table
        openings = cast(tuple[Opening, ...], tuple(self.openings))  # every one is in
        round_, turn = table.position
        record = _step_record(round_, turn, table.acting, tuple(self.commitments), openings)
        events = table.played().step([o.action for o in openings])
        table.steps.append(record)
        # Saved before anyone hears the result: after a crash the game resumes from here.
        table.host.save_table(self.table)
        result = _turn_result(round_, turn, openings, tuple(events))
        for person in table.seating.people():
            person.send(result)
        since, self.committed_at = self.committed_at, None
        table.host.stats.turn_done(table.settings.kind, None if since is None else now - since)
        table.after_step(now)

    def timer(self, now: float) -> None:
        """The step's deadline passed: auto-pick for every acting seat that did not act."""
        table = self.table
        if table.phase is COMMITTING:
            for slot, index in enumerate(table.acting):
                if not self.committed[slot]:
                    seat = table.seating.seats[index]
                    table.missed(seat)
                    self.openings[slot] = Opening(action=table.choose(seat), auto=True)
                    self.committed[slot] = True
            self._all_committed(now)
        else:
            for slot, index in enumerate(table.acting):
                if self.openings[slot] is None:
                    seat = table.seating.seats[index]
                    table.missed(seat)
                    self.openings[slot] = Opening(action=table.choose(seat), auto=True)
            self._all_revealed(now)


class OpenSteps:
    """One seat acts at a time, in the open, any number of actions until its turn is over. Owns
    the mover's turn timer and what the server played in it."""

    def __init__(self, table: StepTable) -> None:
        self.table = table
        self.turn_deadline: float | None = None
        """When the mover's whole turn runs out (None: no timer)."""
        self.grace_over = False
        """The current mover's bot grace has passed: the bot plays even if the player is here."""
        self.server_actions = 0
        """Actions the server chose in the current turn (see `MAX_BOT_ACTIONS`)."""

    def begin(self, now: float) -> None:
        """TURN_START of an open step: the mover's timer starts."""
        table = self.table
        table.move("open_step")
        mover = table.seating.seats[table.acting[0]]
        self.grace_over = False
        self.server_actions = 0
        seconds = table.step_seconds()
        self.turn_deadline = now + seconds if seconds else None
        if mover.bot_control:
            grace = min(BOT_GRACE_SECONDS, seconds) if seconds else BOT_GRACE_SECONDS
            table.deadline = now + grace
        else:
            table.deadline = self.turn_deadline
        table.announce_step(now)
        self.run_bots(now)

    def run_bots(self, now: float) -> None:
        """Play for server bots, and for seats a bot plays for their player, until a person is to
        move or the game ends. A loop, not recursion: a table of bots plays a whole game here."""
        table = self.table
        while table.phase is MOVING:
            seat = table.seating.seats[table.acting[0]]
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
        game = self.table.played()
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
        table = self.table
        if ends_turn or self.server_actions >= MAX_BOT_ACTIONS:
            return table.choose(seat, self._ending(seat))
        return table.choose(seat)

    def _play(self, seat: Seat, action: Any, auto: bool, now: float) -> None:
        """Apply a legal action of the seat to move, save, and tell everyone what it did."""
        table = self.table
        game = table.played()
        round_, turn = table.position
        events = game.step([action])
        opening = Opening(action=action, auto=auto)
        table.steps.append(_step_record(round_, turn, table.acting, (), (opening,)))
        more = (
            not game.is_terminal()
            and game.to_act() == table.acting
            and (game.position == table.position)
        )
        if more and (auto or seat.bot is not None):
            self.server_actions += 1
        # Saved before anyone hears of it: after a crash the game goes on from exactly here.
        table.host.save_table(self.table)
        step, told = len(table.steps) - 1, tuple(events)
        for other in table.seating.seats:
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
        if table.seating.spectators:
            public = _acted(
                round_, turn, step, seat.index, action, auto, told, game.observation(None), more
            )
            for watcher in table.seating.spectators:
                watcher.send(public)
        if not more:
            table.host.stats.turn_done(table.settings.kind, None)
            table.after_step(now)

    def act(self, seat_index: int, round_: int, turn: int, action: Any, now: float) -> None:
        """A seat's ACT: only the seat that acts, in the current step, with an action the game
        accepts (else ILLEGAL_ACTION naming why, nothing changes, and it may try again)."""
        table = self.table
        table.now_hint = now
        table.check_move(round_, turn, MOVING, "no open step is being played")
        if seat_index not in table.acting:
            raise TableError(ErrorCode.OUT_OF_PHASE, f"it is seat {table.acting[0]}'s turn")
        seat = table.seating.seats[seat_index]
        if seat.bot_control:
            # The player is back: the seat is theirs again, with the rest of the turn's time.
            seat.bot_control = False
            table.deadline = self.turn_deadline
            table.changed()
        elif seat.away:
            # Back to a paused game: the turn's timer starts now, and everyone hears of it.
            seconds = table.settings.turn_seconds
            self.turn_deadline = table.deadline = now + seconds if seconds else None
            table.play_resumes(seat, now)
        seat.misses = 0
        legal = table.played().legal_actions(seat_index)
        if action not in legal:
            reason = "not a legal action now"
            try:
                table.played().clone().step(
                    [action]
                )  # raises the specific error naming the problem
            except EngineError as exc:
                reason = f"not legal now: {exc}"
            raise TableError(
                ErrorCode.ILLEGAL_ACTION, f"{table.adapter.rules.describe(action)} is {reason}"
            )
        self._play(seat, legal[legal.index(action)], False, now)
        self.run_bots(now)

    def timer(self, now: float) -> None:
        """The deadline passed: a bot's grace is over, or the mover's turn ran out."""
        table = self.table
        seat = table.seating.seats[table.acting[0]]
        if seat.bot_control:
            self.grace_over = True
        elif self.turn_deadline is not None and now >= self.turn_deadline:
            table.missed(seat)
            # The turn ends now: the server ends it for the seat, marked auto.
            self._play(seat, self._server_choice(seat, ends_turn=True), True, now)
        else:
            # A bot's grace ran out, but the player took the seat back (resumed): the turn's
            # own deadline stands.
            table.deadline = self.turn_deadline
            return
        self.run_bots(now)

    def player_back(self, seat_index: int) -> None:
        """The seat's player resumed during an open step: if it is the mover, the rest of the
        turn's time is theirs."""
        table = self.table
        if table.phase is MOVING and table.acting == (seat_index,):
            table.deadline = self.turn_deadline
