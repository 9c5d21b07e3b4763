"""Everything a client checks of a game it plays or watches, for any game. Failures are never
silent: each is kept, in words, in the game's `Fairness`.

As the game goes (docs/PROTOCOL.md section 6):

- GAME_STARTED keeps the seed commitment of GAME_STARTING and holds our own seed (unless the
  server says it drew it: ours came too late);
- every opening of a secret step opens the commitment COMMITMENTS showed for that seat, and ours
  is the action we committed to;
- every action of an open step is by a seat that acts in it, and one of ours only if we sent it.

At GAME_OVER: the server's signature on the record, the revealed server seed opens its commitment,
the record holds the seeds and commitments we were shown, the record replays with the game's
rules to its scores (`protocol.verify_record`), and every observation we were shown is the
replay's observation for our seat after the same number of steps: so every card dealt and every
die rolled that we saw is the one the seeds give.
"""

from __future__ import annotations

import hmac
import logging
from dataclasses import dataclass, field
from typing import Any

from sushigo.engine import EngineError, rules
from sushigo.protocol import (
    Acted,
    Commitments,
    FairRecord,
    GameEnded,
    GameStarted,
    ProtocolError,
    StepRecord,
    TurnResult,
    TurnStart,
    Wire,
    server_seed_hash,
    verify_record,
    verify_signed_record,
    wire,
)
from sushigo.protocol.fairness import opens

log = logging.getLogger("sushigo.client")


@dataclass(slots=True)
class Fairness:
    """What this client has verified of the current game. Failures are never silent."""

    kind: str = ""
    """The game these checks are of."""
    openings_verified: int = 0
    """Openings checked against their commitments this game (secret steps)."""
    auto_picks: int = 0
    """Actions the server chose for a seat (shown, not failures)."""
    actions_seen: int = 0
    """Open steps' actions shown (ACTED), each checked to be by a seat that acts."""
    observations_verified: int = 0
    """Observations shown, found equal to the replay of the record at GAME_OVER."""
    seed_drawn: bool = False
    """The server drew our seed (ours came after its deadline): shown, not a failure."""
    failures: list[str] = field(default_factory=list)
    """Every check that failed, in words."""
    final: str = "pending"
    """"pending" until GAME_OVER, then "verified" or "FAILED"."""

    @property
    def ok(self) -> bool:
        """No check has failed."""
        return not self.failures


@dataclass(slots=True)
class GameChecks:
    """One game as this client saw it, checked as it goes and at its end."""

    table_id: str
    seat: int | None
    kind: str
    server_seed_hash: bytes
    """As GAME_STARTING published it; empty when we came in after it."""
    client_seeds: tuple[bytes, ...] = ()
    my_seed: bytes | None = None
    commitments: dict[tuple[int, int], tuple[bytes | None, ...]] = field(default_factory=dict)
    """The commitments shown per (round, turn)."""
    acting: tuple[int, ...] = ()
    """The seats acting in the current step (from its TURN_START)."""
    shown: list[tuple[int, Any]] = field(default_factory=list)
    """Every observation shown, with the steps played before it."""
    results: dict[tuple[int, int], tuple[tuple[int, ...], tuple[Any, ...]]] = field(
        default_factory=dict
    )
    """The actions each secret step's TURN_RESULT showed, by (round, turn): (seats, actions)."""
    moves: list[tuple[int, int, Any, bool]] = field(default_factory=list)
    """Every open step's ACTED: (steps before it, seat, action, auto)."""
    my_pick: tuple[int, int, Any] | None = None
    """(round, turn, action) we committed to in the current secret step."""
    sent: list[Any] = field(default_factory=list)
    """Our actions of the current open turn, sent and not yet seen applied."""
    fairness: Fairness = field(default_factory=Fairness)

    def __post_init__(self) -> None:
        self.fairness.kind = self.kind

    @property
    def wire(self) -> Wire | None:
        """The game's wire (None: a game this program does not know)."""
        return wire(self.kind)

    def fail(self, text: str) -> None:
        """A check failed: keep it, loudly."""
        log.error("FAIRNESS CHECK FAILED: %s", text)
        self.fairness.failures.append(text)

    # -- as the game goes --------------------------------------------------------------------

    def started(self, msg: GameStarted) -> None:
        """GAME_STARTED: the seeds are fixed."""
        self.client_seeds = msg.client_seeds
        if self.server_seed_hash and msg.server_seed_hash != self.server_seed_hash:
            self.fail("the server changed its seed commitment after the game started")
        if self.seat is None or self.my_seed is None or self.seat >= len(msg.client_seeds):
            return
        if msg.client_seeds[self.seat] != self.my_seed:
            if self.seat in msg.drawn:
                self.fairness.seed_drawn = True
            else:
                self.fail("our seed is not the one the server used")

    def step(self, msg: TurnStart) -> None:
        """TURN_START: a step begins; keep what we were shown."""
        self.acting = msg.seats
        self.sent = []
        self.shown.append((msg.step, msg.observation))

    def committed(self, msg: Commitments) -> None:
        """COMMITMENTS: keep them, to check the openings against."""
        self.commitments[msg.round, msg.turn] = msg.commitments

    def result(self, msg: TurnResult) -> None:
        """TURN_RESULT: every opening opens its commitment; ours is what we committed to."""
        shown = self.commitments.get((msg.round, msg.turn))
        codec = self.wire
        if shown is None or codec is None:
            return  # we came in after the commitments: nothing to check against
        where = f"round {msg.round} turn {msg.turn}"
        for slot, opening in enumerate(msg.openings):
            seat = self.acting[slot] if slot < len(self.acting) else slot
            if opening.auto:
                self.fairness.auto_picks += 1
                continue
            commitment = shown[slot] if slot < len(shown) else None
            opened = opens(codec, self.table_id, (msg.round, msg.turn, seat), commitment, opening)
            if opened is None:
                self.fail(f"{where}: seat {seat}'s pick has no commitment")
            elif not opened:
                self.fail(f"{where}: seat {seat}'s pick does not open its commitment")
            else:
                self.fairness.openings_verified += 1
        self.results[msg.round, msg.turn] = (
            self.acting,
            tuple(o.action for o in msg.openings),
        )
        pick = self.my_pick
        if pick is not None and (pick[0], pick[1]) == (msg.round, msg.turn):
            slot = self.acting.index(self.seat) if self.seat in self.acting else -1
            mine = msg.openings[slot] if 0 <= slot < len(msg.openings) else None
            if mine is not None and not mine.auto and mine.action != pick[2]:
                self.fail(f"{where}: the server played another action for us")

    def acted(self, msg: Acted) -> None:
        """ACTED: by a seat that acts in this step; ours only if we sent it."""
        self.fairness.actions_seen += 1
        where = f"round {msg.round} turn {msg.turn}"
        if msg.auto:
            self.fairness.auto_picks += 1
        if self.acting and msg.seat not in self.acting:
            self.fail(f"{where}: seat {msg.seat} acted, but it does not act in this step")
        if msg.seat == self.seat and not msg.auto:
            if msg.action in self.sent:
                self.sent.remove(msg.action)
            else:
                self.fail(f"{where}: the server played an action for us that we did not send")
        self.moves.append((msg.step, msg.seat, msg.action, msg.auto))
        self.shown.append((msg.step + 1, msg.observation))

    # -- at the end ---------------------------------------------------------------------------

    def finished(self, msg: GameEnded, server_key: bytes | None) -> None:
        """GAME_OVER: check the record and everything shown against its replay."""
        checks = self.fairness
        try:
            record = verify_signed_record(msg.record, server_key)
        except ProtocolError as exc:
            self.fail(f"the game record's signature does not check out: {exc}")
            checks.final = "FAILED"
            return
        self._seed_chain(msg.server_seed, record)
        for step in record.steps:
            seen = self.commitments.get((step.round, step.turn))
            if step.commitments and seen is not None and not self._shown_as_recorded(step, seen):
                self.fail(
                    f"round {step.round} turn {step.turn}: the record's commitments differ"
                    " from those shown"
                )
        report = verify_record(record)
        for problem in report.problems:
            self.fail(problem)
        if report.ok and report.game is not None:
            self._actions(record)
            self._observations(record)
            game = report.game
            if (msg.totals, msg.places, msg.winners) != (
                game.scores(),
                game.places(),
                game.winners(),
            ):
                self.fail("the final scores and places shown are not the replay's")
        checks.final = "verified" if checks.ok else "FAILED"

    def _shown_as_recorded(self, step: StepRecord, seen: tuple[bytes | None, ...]) -> bool:
        """The commitments shown for a secret step are the record's. One slot may differ: a
        seat the record has auto-picked with no commitment, in a step whose result we never saw.
        Its server went down after COMMITMENTS (nothing revealed), the step was played again
        from the last stored one, and that seat's player was away past its deadline there. (The
        server may auto-pick a seat at any step; every other slot must be the one shown.)"""
        if len(seen) != len(step.commitments):
            return False
        interrupted = (step.round, step.turn) not in self.results
        return all(
            shown == kept or (kept is None and interrupted and opening.auto)
            for shown, kept, opening in zip(seen, step.commitments, step.openings, strict=True)
        )

    def _seed_chain(self, server_seed: bytes, record: FairRecord) -> None:
        """The revealed server seed opens its commitment, and the record is this game's, with
        the seeds announced in GAME_STARTED."""
        if self.server_seed_hash and not hmac.compare_digest(
            server_seed_hash(server_seed), self.server_seed_hash
        ):
            self.fail("the revealed server seed does not match its commitment")
        if (
            record.server_seed != server_seed
            or record.table_id != self.table_id
            or record.game != self.kind
        ):
            self.fail("the record is not this game's")
        if self.client_seeds and record.client_seeds != self.client_seeds:
            self.fail("the record's seeds differ from the ones announced")

    def _actions(self, record: FairRecord) -> None:
        """Every step's actions we were shown are the record's."""
        steps = record.steps
        for number, seat, action, auto in self.moves:
            step = steps[number] if number < len(steps) else None
            if (
                step is None
                or step.seats != (seat,)
                or (
                    step.openings[0].action,
                    step.openings[0].auto,
                )
                != (action, auto)
            ):
                self.fail(f"step {number + 1}: seat {seat}'s action shown is not the record's")
                return
        by_position = {(s.round, s.turn): s for s in steps if s.secret}
        for position, (seats, actions) in self.results.items():
            step = by_position.get(position)
            if (
                step is None
                or step.seats != seats
                or tuple(o.action for o in step.openings) != actions
            ):
                self.fail(
                    f"round {position[0]} turn {position[1]}: the actions shown are not the"
                    " record's"
                )
                return

    def _observations(self, record: FairRecord) -> None:
        """Replay the record step by step: every observation shown must be the replay's for our
        seat after as many steps."""
        try:
            game = rules(record.game).new_game(record.options, record.game_seed())
        except EngineError as exc:
            self.fail(f"the record's game cannot be replayed here: {exc}")
            return
        wanted = sorted(self.shown, key=lambda item: item[0])
        actions = record.actions()
        played = 0
        for steps, observation in wanted:
            if steps > len(actions):
                self.fail(f"an observation after {steps} steps, but the record has {len(actions)}")
                return
            while played < steps:
                game.step(actions[played])
                played += 1
            if game.observation(self.seat) != observation:
                self.fail(f"what we were shown after {steps} steps is not what the seeds give")
                return
            self.fairness.observations_verified += 1
