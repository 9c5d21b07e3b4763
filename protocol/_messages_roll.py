"""Sushi Roll's game messages: sequential turns, round scores and game over.

The seed chain is the card game's (GAME_STARTING with ``kind = "sushi-roll"``, SEED,
GAME_STARTED); then, turn by turn: ROLL_TURN to everyone (whose move, the public observation),
any number of ROLL_ACTION from the seat to move (re-rolls and swaps), each answered by ROLL_UPDATE
to everyone, until its take. There is no commit-reveal: nothing in Sushi Roll is chosen at the same
time, and every die comes from the game seed (`protocol.roll`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, ClassVar

from sushigo.engine.roll import GameOver as RollGameOverEvent
from sushigo.engine.roll import RollAction, RollEvent, RollObservation, Take
from sushigo.engine.roll import RoundPoints as RollRoundPoints
from sushigo.engine.roll import RoundScored as RollRoundScored

from . import gamewire as _gamewire  # noqa: F401  (registers the engine types' codecs)
from ._codec import Range, Size
from ._registry import Bytes32, ClientMessage, DeadlineMs, Round, Seat, ServerMessage, register
from .gamewire import Cycle
from .records import SignedRecord

Seats = Size(2, 5)
Score = Annotated[int, Range(-10_000, 10_000)]
Puddings = Annotated[int, Range(0, 90)]


@dataclass(frozen=True, slots=True, kw_only=True)
class RollTurn(ServerMessage):
    """A seat's turn begins: to every seat and spectator. The mover may now send ROLL_ACTION."""

    TYPE: ClassVar[str] = "roll_turn"

    round: Round
    """1-3."""
    cycle: Cycle
    """Within the round, 1 to the dice per player (every seat takes one die per cycle)."""
    seat: Seat
    """The seat to move; equals ``observation.to_move`` (else OUT_OF_RANGE)."""
    observation: RollObservation
    """Exactly `engine.roll.RollGame.observation(receiver's seat)` (nil seat for a spectator)."""
    deadline_ms: DeadlineMs = 0
    """Time the mover has for its whole turn (up to its take) before the server takes for it."""

    def __post_init__(self) -> None:
        obs = self.observation
        if (obs.round, obs.cycle, obs.to_move) != (self.round, self.cycle, self.seat):
            raise ValueError("round, cycle and seat must match the observation's")

    @property
    def moving(self) -> bool:
        """True for the receiver whose turn it is (its observation's seat is the seat to move)."""
        return self.observation.seat == self.seat


@dataclass(frozen=True, slots=True, kw_only=True)
class RollPlay(ClientMessage):
    """One action of the seat to move (wire type ``roll_action``): any number of re-rolls and swaps
    while its tokens last, then one take, which ends its turn."""

    TYPE: ClassVar[str] = "roll_action"

    round: Round
    """The current round (else WRONG_TURN)."""
    cycle: Cycle
    """The current cycle (else WRONG_TURN)."""
    action: RollAction
    """``{"type": "reroll", "dice"}``, ``{"type": "swap", "mine", "other_seat", "theirs"}`` or
    ``{"type": "take", "position"}``; an illegal one is answered by ILLEGAL_ACTION and may be
    replaced."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RollUpdate(ServerMessage):
    """An action was played: to every seat and spectator, with the dice it rolled."""

    TYPE: ClassVar[str] = "roll_update"

    round: Round
    """The round it was played in."""
    cycle: Cycle
    """The cycle it was played in."""
    seat: Seat
    """The seat that acted (the seat to move)."""
    action: RollAction
    """The action applied."""
    auto: bool = False
    """The server chose it (the turn timer ran out, or the seat left)."""
    events: Annotated[tuple[RollEvent, ...], Size(0, 64)] = ()
    """The engine's events of the action in the engine's order, except ``round_scored`` and
    ``game_over`` (ROLL_ROUND_SCORES and ROLL_GAME_OVER follow). Dice faces are public."""
    observation: RollObservation
    """The public state after the action (a spectator's view: nil seat)."""

    def __post_init__(self) -> None:
        if self.observation.seat is not None:
            raise ValueError("a ROLL_UPDATE carries the spectators' observation (nil seat)")

    @property
    def ends_turn(self) -> bool:
        """True when the action is a take: the mover's turn is over."""
        return type(self.action) is Take


@dataclass(frozen=True, slots=True, kw_only=True)
class RollRoundScores(ServerMessage):
    """A round was scored (the engine's RoundScored), after the ROLL_UPDATE of its last take."""

    TYPE: ClassVar[str] = "roll_round_scores"

    round: Round
    """The round scored."""
    points: Annotated[tuple[RollRoundPoints, ...], Seats]
    """Per seat, the round's points by category."""
    totals: Annotated[tuple[Score, ...], Seats]
    """Running totals per seat (end-of-game points not yet counted)."""
    puddings: Annotated[tuple[Puddings, ...], Seats]
    """Pudding tokens per seat so far."""

    @classmethod
    def of(cls, event: RollRoundScored) -> RollRoundScores:
        """The message for an engine RoundScored event."""
        return cls(
            round=event.round, points=event.points, totals=event.totals, puddings=event.puddings
        )

    def event(self) -> RollRoundScored:
        """The engine event."""
        return RollRoundScored(self.round, self.points, self.totals, self.puddings)


@dataclass(frozen=True, slots=True, kw_only=True)
class RollGameOver(ServerMessage):
    """The game is over: final scores, the server seed and the signed roll record."""

    TYPE: ClassVar[str] = "roll_game_over"

    pudding_points: Annotated[tuple[Score, ...], Seats]
    """Per seat, the end-of-game pudding points."""
    token_bonus: Annotated[tuple[Score, ...], Seats]
    """Per seat, 1 point per 2 unused menu and/or chopsticks tokens."""
    totals: Annotated[tuple[Score, ...], Seats]
    """Final scores per seat."""
    places: Annotated[tuple[Annotated[int, Range(1, 5)], ...], Seats]
    """Per seat, 1 for first; tied seats share a place."""
    winners: Annotated[tuple[Seat, ...], Size(1, 5)]
    """Seats in first place (several: a shared win)."""
    server_seed: Bytes32
    """The server seed, opening GAME_STARTING's server_seed_hash."""
    record: SignedRecord
    """The signed roll record: check it with `protocol.roll.verify_signed_roll_record`, then
    `protocol.roll.verify_roll_record`."""

    @classmethod
    def of(cls, event: RollGameOverEvent, server_seed: bytes, record: SignedRecord) -> RollGameOver:
        """The message for an engine GameOver event."""
        return cls(
            pudding_points=event.pudding_points,
            token_bonus=event.token_bonus,
            totals=event.totals,
            places=event.places,
            winners=event.winners,
            server_seed=server_seed,
            record=record,
        )


register(RollTurn, RollPlay, RollUpdate, RollRoundScores, RollGameOver)
