"""Game messages, the same for every game: seeding, steps, commit-reveal, open moves, game over,
and reconnecting.

A game is played in steps (`engine.api`). TURN_START opens each step to every seat and spectator
with the receiver's observation and the seats that act. In a *secret* step (Sushi Go!: every seat
picks at once) each acting seat sends COMMIT; COMMITMENTS goes out once all have (or the timer
auto-picked them); each sends REVEAL; TURN_RESULT carries every opening. In an *open* step one seat
acts in the open (Sushi Roll's mover): it sends ACT, and ACTED tells everyone what it did, with
the public observation after it, until its turn is over. The game's own values (options, actions,
observations, events) are encoded by the game's wire (`protocol.games`), chosen by the kind of the
table the connection is at.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

import msgpack

from ._codec import PACKED_BOOL, PACKED_SMALL, Range, Size, packed_bin, packed_int
from ._codec import array_header as _array_header
from ._messages_lobby import TableInfo
from ._registry import (
    U32,
    Addresses,
    Bytes32,
    ClientMessage,
    DeadlineMs,
    GameAction,
    GameEvent,
    GameKindName,
    GameObservation,
    GameOptionsValue,
    Name,
    PlayerId,
    Reply,
    Round,
    Seat,
    Seats,
    ServerMessage,
    TableId,
    Token,
    Turn,
    message,
    register_packer,
)
from ._state import Phase
from .commitment import Opening
from .records import SignedRecord

Tableaus = Size(1, 9)
"""One item per tableau: the seats, then any tableau that is no seat's (Sushi Go!'s dummy)."""
Score = Annotated[int, Range(-10_000, 10_000)]
Events = Annotated[tuple[GameEvent, ...], Size(0, 64)]
SeatList = Annotated[tuple[Seat, ...], Seats]


# -- seeding -----------------------------------------------------------------------------------


@message("game_starting")
class GameStarting(ServerMessage):
    """A game begins at the table: the server's seed commitment, before any client seed exists."""

    table_id: TableId
    """The table."""
    kind: GameKindName
    """The game (the table's kind)."""
    options: GameOptionsValue
    """The game's options (its wire's encoding)."""
    seat: Seat | None = None
    """The receiver's seat; nil for a spectator."""
    players: Annotated[tuple[Name, ...], Seats]
    """Display names in seat order."""
    server_seed_hash: Bytes32
    """H(server_seed) (see `protocol.fairness`); the seed itself comes in GAME_OVER."""
    deadline_ms: DeadlineMs = 0
    """Time to send SEED before the server draws one for the seat."""


@message("seed")
class Seed(ClientMessage):
    """The seat's contribution to the game seed: 32 fresh random bytes."""

    seed: Bytes32
    """Fresh random bytes (never reused)."""


@message("game_started")
class GameStarted(ServerMessage):
    """Every seat's seed is in (in seat order); the game seed is now fixed."""

    table_id: TableId
    """The table."""
    server_seed_hash: Bytes32
    """As in GAME_STARTING (a client checks it did not change)."""
    client_seeds: Annotated[tuple[Bytes32, ...], Seats]
    """Each seat's seed in seat order (the server's for a bot or a silent seat)."""
    drawn: Annotated[tuple[Seat, ...], Size(0, 8)] = ()
    """The seats whose seed the server drew because none came before the deadline: such a
    seat's client sees another seed than its own, and is not to take that for cheating."""


# -- steps -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class _StepRequest(ClientMessage):
    """Base of a seat's message in a step: it names the step it is for, and one for any other
    step is refused with WRONG_TURN."""

    round: Round
    """The current round."""
    turn: Turn
    """The current turn."""


@dataclass(frozen=True, slots=True, kw_only=True)
class _StepMessage(ServerMessage):
    """Base of the server's messages about one step: they name it first."""

    round: Round
    """The step's round."""
    turn: Turn
    """The step's turn within its round (Sushi Roll: the cycle)."""


@message("turn_start")
class TurnStart(_StepMessage):
    """A step begins: the receiver's observation (a spectator's: public only), who acts, and the
    timer. Secret: each acting seat now owes COMMIT; open: the one acting seat may ACT."""

    seats: SeatList
    """The seats that act in this step, in seat order."""
    secret: bool = True
    """The acting seats choose at once, in secret (commit-reveal); false: one seat acts openly."""
    step: U32 = 0
    """Steps of the game played before this one (what a client's checks replay to)."""
    observation: GameObservation
    """Exactly the game's observation for the receiver (its wire's encoding)."""
    deadline_ms: DeadlineMs = 0
    """Time to COMMIT (or, in an open step, for the mover's whole turn) before the server acts
    for the seat; 0: no timer."""


_pack = msgpack.Packer(use_bin_type=True, autoreset=True).pack
_SMALL, _BOOL = PACKED_SMALL, PACKED_BOOL
"""Small ints and bools packed by lookup (see `protocol._codec.PACKED_SMALL`)."""


def _small(n: int) -> bytes:
    return _SMALL[n] if n < 256 else packed_int(n)


_TURN_START_KEYS = tuple(
    _pack(name)
    for name in ("round", "turn", "seats", "secret", "step", "observation", "deadline_ms")
)
_packed_seats: dict[tuple[int, ...], bytes] = {}


def _seats_bytes(seats: tuple[int, ...]) -> bytes:
    packed = _packed_seats.get(seats)
    if packed is None:
        if len(_packed_seats) >= 1024:  # pragma: no cover - a few dozen sets of seats exist
            _packed_seats.clear()
        packed = _packed_seats[seats] = _pack(seats)
    return packed


def _pack_turn_start(message: TurnStart, game: object) -> tuple[int, bytes]:
    """TURN_START's fields packed (see `register_packer`): the observation by the game's wire,
    which may share what the seats' observations of a step have in common."""
    k_round, k_turn, k_seats, k_secret, k_step, k_observation, k_deadline = _TURN_START_KEYS
    return 7, b"".join(
        (
            k_round,
            _SMALL[message.round],
            k_turn,
            _small(message.turn),
            k_seats,
            _seats_bytes(message.seats),
            k_secret,
            _BOOL[message.secret],
            k_step,
            _small(message.step),
            k_observation,
            game.packed("observation", message.observation),  # type: ignore[attr-defined]
            k_deadline,
            packed_int(message.deadline_ms),
        )
    )


register_packer(TurnStart, _pack_turn_start)


@message("commit")
class Commit(_StepRequest):
    """The seat's commitment to its action in this secret step (see `protocol.commitment`)."""

    commitment: Bytes32
    """SHA-256 of the canonical preimage of (table, round, turn, seat, action, nonce)."""


@message("commitments")
class Commitments(_StepMessage):
    """Every acting seat has committed (or was auto-picked): reveal now."""

    commitments: Annotated[tuple[Bytes32 | None, ...], Seats]
    """Per acting seat (TURN_START's seats, in order); nil for a seat the server auto-picked (it
    does not reveal)."""
    deadline_ms: DeadlineMs = 0
    """Time to REVEAL before the seat is auto-picked."""


_COMMITMENTS_KEYS = tuple(_pack(name) for name in ("round", "turn", "commitments", "deadline_ms"))


def _pack_commitments(message: Commitments, game: object) -> tuple[int, bytes]:
    """COMMITMENTS' fields packed (see `register_packer`): every seat's, once a step."""
    k_round, k_turn, k_commitments, k_deadline = _COMMITMENTS_KEYS
    commitments = message.commitments
    return 4, b"".join(
        (
            k_round,
            _SMALL[message.round],
            k_turn,
            _small(message.turn),
            k_commitments,
            _array_header(len(commitments)),
            *map(packed_bin, commitments),
            k_deadline,
            packed_int(message.deadline_ms),
        )
    )


register_packer(Commitments, _pack_commitments)


@message("reveal")
class Reveal(_StepRequest):
    """Open the seat's commitment. Final: a bad opening or an illegal action is not retried."""

    action: GameAction
    """The committed action."""
    nonce: Bytes32
    """The committed nonce."""


@message("turn_result")
class TurnResult(_StepMessage):
    """A secret step's every action, with the openings every client checks against COMMITMENTS."""

    openings: Annotated[tuple[Opening, ...], Seats]
    """Per acting seat: the action applied, its nonce, and whether the server chose it."""
    events: Events = ()
    """Every event of the step, in the game's order: a round's scoring and the game's end among
    them, and also the one that repeats the openings (Sushi Go!'s picks_revealed), since the table
    driver knows no game's events to leave one out."""


_TURN_RESULT_KEYS = tuple(_pack(name) for name in ("round", "turn", "openings", "events"))
_OPENING_KEYS = tuple(_pack(name) for name in ("action", "nonce", "auto"))


def _pack_turn_result(message: TurnResult, game: object) -> tuple[int, bytes]:
    """TURN_RESULT's fields packed (see `register_packer`): each opening from its action's bytes,
    which the game's wire may keep per action."""
    k_round, k_turn, k_openings, k_events = _TURN_RESULT_KEYS
    k_action, k_nonce, k_auto = _OPENING_KEYS
    packed = game.packed  # type: ignore[attr-defined]
    openings = message.openings
    parts = [k_round, _SMALL[message.round], k_turn, _small(message.turn), k_openings]
    parts.append(_array_header(len(openings)))
    for opening in openings:
        parts += (
            b"\x83",
            k_action,
            packed("action", opening.action),
            k_nonce,
            packed_bin(opening.nonce),
            k_auto,
            _BOOL[opening.auto],
        )
    events = message.events
    parts.append(k_events)
    if events:
        parts.append(_array_header(len(events)))
        parts += [packed("event", event) for event in events]
    else:
        parts.append(b"\x90")
    return 4, b"".join(parts)


register_packer(TurnResult, _pack_turn_result)


@message("act")
class Act(_StepRequest):
    """One action of the seat that acts in an open step (Sushi Roll: a re-roll, a swap or the
    take). An illegal one is answered by ILLEGAL_ACTION and may be replaced."""

    action: GameAction
    """The action."""


@message("acted")
class Acted(_StepMessage):
    """An open step's action was played: to every seat and spectator, with the public state after
    it (the dice it rolled, say)."""

    step: U32
    """Steps of the game played before this one."""
    seat: Seat
    """The seat that acted."""
    action: GameAction
    """The action applied."""
    auto: bool = False
    """The server chose it (the seat's timer ran out, or a bot plays for it)."""
    events: Events = ()
    """The game's events of the action, in the game's order."""
    observation: GameObservation
    """The receiver's observation after the action (a spectator's: public)."""
    more: bool = False
    """The same seat acts again in this turn (its turn is not over: no TURN_START comes first)."""


@message("game_over")
class GameEnded(ServerMessage):
    """The game is over (wire type ``game_over``): final scores, the server seed and the record.
    The game's own account of its end is the last step's events."""

    totals: Annotated[tuple[Score, ...], Tableaus]
    """Final scores per tableau."""
    places: Annotated[tuple[Annotated[int, Range(1, 8)], ...], Seats]
    """Per seat, 1 for first; tied seats share a place."""
    winners: Annotated[tuple[Seat, ...], Seats]
    """Seats in first place (several: a shared win)."""
    server_seed: Bytes32
    """The server seed, opening GAME_STARTING's server_seed_hash."""
    record: SignedRecord
    """The signed record: verify it, then check it with `protocol.fairness.verify_record`."""


# -- reconnect ---------------------------------------------------------------------------------


@message("resume")
class Resume(ClientMessage):
    """Take over a session after a lost connection, instead of logging in."""

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
    observation: GameObservation | None = None
    """The current observation during a game."""
    server_seed_hash: Bytes32 | None = None
    """The game's seed commitment during a game."""
    client_seeds: Annotated[tuple[Bytes32, ...], Size(0, 8)] = ()
    """The game's client seeds once GAME_STARTED was sent."""
    seats: Annotated[tuple[Seat, ...], Size(0, 8)] = ()
    """The seats that act in the current step (empty between steps)."""
    secret: bool = True
    """The current step is secret (see TURN_START)."""
    commitments: Annotated[tuple[Bytes32 | None, ...], Size(0, 8)] = ()
    """This step's commitments once COMMITMENTS was sent (empty before)."""
    steps: U32 = 0
    """Steps of the game played so far (where the client's checks of what follows begin)."""
    deadline_ms: DeadlineMs = 0
    """Time left for what the seat owes: its SEED, COMMIT, REVEAL or (the mover) its turn."""


@message("resumed")
class Resumed(Reply):
    """The session is back. Either `replayed` missed messages follow (with new sequence numbers,
    in their original order), or `snapshot` gives the current state and nothing is replayed."""

    player_id: PlayerId
    """The session's player."""
    name: Name
    """Their display name."""
    resume_token: Token
    """The token for the next RESUME (tokens are single-use)."""
    phase: Phase
    """The phase to continue from: the phase after the client's last seen message when replaying,
    the current phase with a snapshot. Always a logged-in phase."""
    kind: GameKindName | None = None
    """The game of the session's table (nil: at no table): the game values of the snapshot and of
    every message that follows are that game's."""
    seat: Seat | None = None
    """The session's seat at its table (nil: none, or watching)."""
    round: Round | None = None
    """In a game phase: the round of `phase`."""
    turn: Turn | None = None
    """In a game phase: the turn of `phase`."""
    replayed: U32 = 0
    """How many missed messages follow."""
    snapshot: Snapshot | None = None
    """The current state, when the missed messages are no longer kept."""
    nodes: Addresses = ()
    """A cluster's live nodes, this one first (2.4), as LOGGED_IN gives them."""
