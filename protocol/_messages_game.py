"""Game messages (seeding, turns, commit-reveal, scores, game over) and reconnect messages."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, ClassVar

import msgpack

from sushigo.engine import Action, Event, GameOptions, Observation, RoundPoints, RoundScored

from . import gamewire as _gamewire  # (registers the engine types' codecs)
from ._codec import PACKED_BOOL, PACKED_SMALL, Range, Size, packed_bin, packed_int
from ._codec import array_header as _array_header
from ._messages_lobby import GameKind, PlayerId, TableInfo
from ._registry import (
    U32,
    Bytes32,
    ClientMessage,
    DeadlineMs,
    Name,
    Ref,
    Round,
    Seat,
    ServerMessage,
    TableId,
    Turn,
    register,
    register_packer,
)
from ._state import Phase
from .commitment import Opening
from .records import SignedRecord

Seats = Size(2, 5)
Tableaus = Size(2, 6)
Score = Annotated[int, Range(-10_000, 10_000)]
Token = Annotated[bytes, Size(16, 64)]


# -- seeding -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class GameStarting(ServerMessage):
    """A game begins at the table: the server's seed commitment, before any client seed exists."""

    TYPE: ClassVar[str] = "game_starting"

    table_id: TableId
    """The table."""
    kind: GameKind = GameKind.SUSHI_GO
    """The game."""
    options: GameOptions
    """Players and variants."""
    seat: Seat | None = None
    """The receiver's seat; nil for a spectator."""
    players: Annotated[tuple[Name, ...], Seats]
    """Display names in seat order."""
    server_seed_hash: Bytes32
    """H(server_seed) (see `protocol.fairness`); the seed itself comes in GAME_OVER."""
    deadline_ms: DeadlineMs = 0
    """Time to send SEED before the server draws one for the seat."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Seed(ClientMessage):
    """The seat's contribution to the game seed: 32 fresh random bytes."""

    TYPE: ClassVar[str] = "seed"

    seed: Bytes32
    """Fresh random bytes (never reused)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class GameStarted(ServerMessage):
    """Every seat's seed is in (in seat order); the game seed is now fixed."""

    TYPE: ClassVar[str] = "game_started"

    table_id: TableId
    """The table."""
    server_seed_hash: Bytes32
    """As in GAME_STARTING (a client checks it did not change)."""
    client_seeds: Annotated[tuple[Bytes32, ...], Seats]
    """Each seat's seed in seat order (the server's for a bot or a silent seat)."""


# -- turns -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnStart(ServerMessage):
    """A turn begins: the receiver's observation (a spectator's: no hand) and the commit timer."""

    TYPE: ClassVar[str] = "turn_start"

    round: Round
    """1-3."""
    turn: Turn
    """1 to the hand size."""
    observation: Observation
    """Exactly `engine.Game.observation(seat)` for the receiver (see `protocol.gamewire`)."""
    deadline_ms: DeadlineMs = 0
    """Time to COMMIT before the server auto-picks; 0: no timer."""


_pack = msgpack.Packer(use_bin_type=True, autoreset=True).pack
_SMALL, _BOOL = PACKED_SMALL, PACKED_BOOL
"""Rounds and turns (1-11), and bools, packed by lookup (see `protocol._codec.PACKED_SMALL`)."""
_TURN_START_KEYS = tuple(_pack(name) for name in ("round", "turn", "observation", "deadline_ms"))


def _pack_turn_start(message: TurnStart) -> tuple[int, bytes]:
    """TURN_START's fields packed (see `register_packer`): the seats' observations of a turn share
    their packed tableaus (`gamewire.packed_observation`)."""
    k_round, k_turn, k_observation, k_deadline = _TURN_START_KEYS
    return 4, b"".join(
        (
            k_round,
            _SMALL[message.round],
            k_turn,
            _SMALL[message.turn],
            k_observation,
            _gamewire.packed_observation(message.observation),
            k_deadline,
            packed_int(message.deadline_ms),
        )
    )


register_packer(TurnStart, _pack_turn_start)


@dataclass(frozen=True, slots=True, kw_only=True)
class Commit(ClientMessage):
    """The seat's commitment to its pick for this turn (see `protocol.commitment`)."""

    TYPE: ClassVar[str] = "commit"

    round: Round
    """The current round (else WRONG_TURN)."""
    turn: Turn
    """The current turn (else WRONG_TURN)."""
    commitment: Bytes32
    """SHA-256 of the canonical preimage of (table, round, turn, seat, action, nonce)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Commitments(ServerMessage):
    """Every seat has committed (or was auto-picked): reveal now."""

    TYPE: ClassVar[str] = "commitments"

    round: Round
    """The round."""
    turn: Turn
    """The turn."""
    commitments: Annotated[tuple[Bytes32 | None, ...], Seats]
    """Per seat; nil for a seat the server auto-picked (it does not reveal)."""
    deadline_ms: DeadlineMs = 0
    """Time to REVEAL before the seat is auto-picked."""


_COMMITMENTS_KEYS = tuple(_pack(name) for name in ("round", "turn", "commitments", "deadline_ms"))


def _pack_commitments(message: Commitments) -> tuple[int, bytes]:
    """COMMITMENTS' fields packed (see `register_packer`): every seat's, once a turn."""
    k_round, k_turn, k_commitments, k_deadline = _COMMITMENTS_KEYS
    commitments = message.commitments
    return 4, b"".join(
        (
            k_round,
            _SMALL[message.round],
            k_turn,
            _SMALL[message.turn],
            k_commitments,
            _array_header(len(commitments)),
            *map(packed_bin, commitments),
            k_deadline,
            packed_int(message.deadline_ms),
        )
    )


register_packer(Commitments, _pack_commitments)


@dataclass(frozen=True, slots=True, kw_only=True)
class Reveal(ClientMessage):
    """Open the seat's commitment. Final: a bad opening or an illegal action is not retried."""

    TYPE: ClassVar[str] = "reveal"

    round: Round
    """The current round (else WRONG_TURN)."""
    turn: Turn
    """The current turn (else WRONG_TURN)."""
    action: Action
    """The committed action."""
    nonce: Bytes32
    """The committed nonce."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnResult(ServerMessage):
    """Every pick of the turn, with the openings every client checks against COMMITMENTS."""

    TYPE: ClassVar[str] = "turn_result"

    round: Round
    """The round played."""
    turn: Turn
    """The turn played."""
    openings: Annotated[tuple[Opening, ...], Seats]
    """Per seat: the action applied, its nonce, and whether the server chose it."""
    events: Annotated[tuple[Event, ...], Size(0, 64)] = ()
    """The engine's events of the turn other than the reveal itself and the scoring (wasabi_used,
    chopsticks_returned, round_started), in the engine's order."""


_TURN_RESULT_KEYS = tuple(_pack(name) for name in ("round", "turn", "openings", "events"))
_OPENING_KEYS = tuple(_pack(name) for name in ("action", "nonce", "auto"))


def _pack_turn_result(message: TurnResult) -> tuple[int, bytes]:
    """TURN_RESULT's fields packed (see `register_packer`): each opening from its action's bytes,
    packed once per action (`gamewire.packed_action`)."""
    k_round, k_turn, k_openings, k_events = _TURN_RESULT_KEYS
    k_action, k_nonce, k_auto = _OPENING_KEYS
    openings = message.openings
    parts = [k_round, _SMALL[message.round], k_turn, _SMALL[message.turn], k_openings]
    parts.append(_array_header(len(openings)))
    for opening in openings:
        parts += (
            b"\x83",
            k_action,
            _gamewire.packed_action(opening.action),
            k_nonce,
            packed_bin(opening.nonce),
            k_auto,
            _BOOL[opening.auto],
        )
    events = message.events
    parts += (
        k_events,
        _pack([_gamewire.encode_event(event) for event in events]) if events else b"\x90",
    )
    return 4, b"".join(parts)


register_packer(TurnResult, _pack_turn_result)


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundScores(ServerMessage):
    """A round was scored (the engine's RoundScored), after its last TURN_RESULT."""

    TYPE: ClassVar[str] = "round_scores"

    round: Round
    """The round scored."""
    points: Annotated[tuple[RoundPoints, ...], Tableaus]
    """Per tableau (seats, then the dummy), the round's points by category."""
    totals: Annotated[tuple[Score, ...], Tableaus]
    """Running totals per tableau (puddings not yet counted)."""
    puddings: Annotated[tuple[Annotated[int, Range(0, 64)], ...], Tableaus]
    """Pudding cards kept per tableau so far."""

    @classmethod
    def of(cls, event: RoundScored) -> RoundScores:
        """The message for an engine RoundScored event."""
        return cls(
            round=event.round, points=event.points, totals=event.totals, puddings=event.puddings
        )

    def event(self) -> RoundScored:
        """The engine event."""
        return RoundScored(self.round, self.points, self.totals, self.puddings)


@dataclass(frozen=True, slots=True, kw_only=True)
class GameEnded(ServerMessage):
    """The game is over (wire type ``game_over``): final scores, the server seed and the record."""

    TYPE: ClassVar[str] = "game_over"

    pudding_points: Annotated[tuple[Score, ...], Tableaus]
    """Per tableau, the end-of-game pudding points."""
    totals: Annotated[tuple[Score, ...], Tableaus]
    """Final scores per tableau."""
    places: Annotated[tuple[Annotated[int, Range(1, 5)], ...], Seats]
    """Per seat, 1 for first; tied seats share a place."""
    winners: Annotated[tuple[Seat, ...], Size(1, 5)]
    """Seats in first place (several: a shared win)."""
    server_seed: Bytes32
    """The server seed, opening GAME_STARTING's server_seed_hash."""
    record: SignedRecord
    """The signed record: verify it, then check it with `protocol.fairness.verify_record`."""


# -- reconnect ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Resume(ClientMessage):
    """Take over a session after a lost connection, instead of logging in."""

    TYPE: ClassVar[str] = "resume"

    token: Token
    """The resume token from LOGGED_IN (or the last RESUMED)."""
    last_seq: Annotated[int, Range(0, 2**63 - 1)]
    """The last ``seq`` the client processed on its previous connection (0: none)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Snapshot:
    """Everything a client needs to pick up where it was, when missed events cannot be replayed."""

    table: TableInfo | None = None
    """The client's table; nil in the lobby."""
    seat: Seat | None = None
    """The client's seat; nil in the lobby or as a spectator."""
    observation: Observation | None = None
    """The current observation during a game."""
    server_seed_hash: Bytes32 | None = None
    """The game's seed commitment during a game."""
    client_seeds: Annotated[tuple[Bytes32, ...], Size(0, 5)] = ()
    """The game's client seeds once GAME_STARTED was sent."""
    commitments: Annotated[tuple[Bytes32 | None, ...], Size(0, 5)] = ()
    """This turn's commitments once COMMITMENTS was sent (empty before)."""
    deadline_ms: DeadlineMs = 0
    """Time left for the seat's pending COMMIT, REVEAL or SEED."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Resumed(ServerMessage):
    """The session is back. Either `replayed` missed messages follow (with new sequence numbers,
    in their original order), or `snapshot` gives the current state and nothing is replayed."""

    TYPE: ClassVar[str] = "resumed"

    ref: Ref | None = None
    """The RESUME ref."""
    player_id: PlayerId
    """The session's player."""
    name: Name
    """Their display name."""
    resume_token: Token
    """The token for the next RESUME (tokens are single-use)."""
    phase: Phase
    """The phase to continue from: the phase after the client's last seen message when replaying,
    the current phase with a snapshot. Always a logged-in phase."""
    round: Round | None = None
    """In a game phase: the round of `phase`."""
    turn: Turn | None = None
    """In a game phase: the turn of `phase`."""
    replayed: U32 = 0
    """How many missed messages follow."""
    snapshot: Snapshot | None = None
    """The current state, when the missed messages are no longer kept."""


register(
    GameStarting,
    Seed,
    GameStarted,
    TurnStart,
    Commit,
    Commitments,
    Reveal,
    TurnResult,
    RoundScores,
    GameEnded,
    Resume,
    Resumed,
)
