"""Sushi Roll's fair record: re-deriving a whole dice game from its seeds and its actions.

Sushi Roll has no simultaneous picks, so there is no commit-reveal: every action is public the
moment it is played (ROLL_UPDATE). What must be provable is the dice. The seed chain is the card
game's (`protocol.fairness`): H(server_seed) in GAME_STARTING before any client seed exists, one
seed per seat in GAME_STARTED, the same `derive_game_seed`, and the server seed revealed in
ROLL_GAME_OVER. The game seed goes to `engine.roll.RollGame(options, game_seed)`, which draws the
red belt, every bag and every face in the order docs/RULES.md ("Where every roll comes from")
fixes. `verify_roll_record` replays the recorded actions and checks the recorded scores, so any
die the server showed that the seeds do not give is caught.

The record is signed like the card game's (`protocol.records`), under its own ``format``
(``sushigo-roll-record``), so one kind of record can never be passed off as the other.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from typing import Annotated

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from sushigo.engine import EngineError
from sushigo.engine.roll import RollAction, RollGame, RollOptions, RollRecord

from . import gamewire as _gamewire  # noqa: F401  (registers the engine types' codecs)
from ._codec import Range, Size, codec
from ._registry import Seat, TableId
from .fairness import derive_game_seed, server_seed_hash
from .records import SignedRecord, canonical_bytes, check_signature, parse_signed, sign_bytes

ROLL_RECORD_FORMAT = "sushigo-roll-record"
ROLL_RECORD_VERSION = 1
MAX_ROLL_ACTIONS = 4096
"""Far above any real game (3 rounds x 40 takes, plus re-rolls and swaps paid by tokens)."""

Bytes32 = Annotated[bytes, Size(32, 32)]
Score = Annotated[int, Range(-10_000, 10_000)]


@dataclass(frozen=True, slots=True, kw_only=True)
class RollStep:
    """One action of a Sushi Roll game as the server applied it."""

    seat: Seat
    """The seat that acted (the seat to move)."""
    action: RollAction
    """The action, as in ROLL_UPDATE."""
    auto: bool = False
    """The server chose it for the seat (its turn timer ran out, or it left); not a failure."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RollFairRecord:
    """Everything needed to re-derive and check a finished Sushi Roll game (signed by the server)."""

    table_id: TableId
    """The table the game was played at (bound into the game seed)."""
    options: RollOptions
    """The player count."""
    server_seed: Bytes32
    """The server's seed, revealed at game over."""
    server_seed_hash: Bytes32
    """H(server_seed) as published in GAME_STARTING."""
    client_seeds: Annotated[tuple[Bytes32, ...], Size(2, 5)]
    """Each seat's seed, in seat order (the server's own for a bot's or a silent seat)."""
    steps: Annotated[tuple[RollStep, ...], Size(0, MAX_ROLL_ACTIONS)]
    """Every action of the game, in order."""
    scores: Annotated[tuple[Score, ...], Size(2, 5)]
    """Final scores per seat."""

    def game_seed(self) -> bytes:
        """The seed this record's parts derive (exactly as the card game's)."""
        return derive_game_seed(self.table_id, self.server_seed, self.client_seeds)

    def game_record(self) -> RollRecord:
        """The engine's record of the same game (options, derived seed, actions)."""
        return RollRecord(
            self.options, self.game_seed(), tuple((s.seat, s.action) for s in self.steps)
        )


@dataclass(frozen=True, slots=True)
class RollFairnessReport:
    """What `verify_roll_record` found."""

    game_seed: bytes
    """The re-derived game seed."""
    problems: tuple[str, ...] = ()
    """Each check that failed, in words; empty when everything checks out."""
    auto_steps: tuple[int, ...] = ()
    """Indices (from 0) into the record's steps of every action the server chose for a seat."""

    @property
    def ok(self) -> bool:
        """True when every check passed."""
        return not self.problems


def verify_roll_record(record: RollFairRecord) -> RollFairnessReport:
    """Re-derive the game from `record` and check every claim in it.

    Checks: the server seed matches its published hash; there is one client seed per seat; every
    step is by the seat to move and legal for the engine; the game ends exactly after the last
    step, with the recorded scores.
    """
    problems: list[str] = []
    if not hmac.compare_digest(server_seed_hash(record.server_seed), record.server_seed_hash):
        problems.append("the server seed does not match the hash published before the game")
    n = record.options.players
    if len(record.client_seeds) != n:
        problems.append(f"{len(record.client_seeds)} client seeds for {n} seats")
    seed = record.game_seed()
    game = RollGame(record.options, seed)
    auto = tuple(i for i, step in enumerate(record.steps) if step.auto)
    for i, step in enumerate(record.steps, 1):
        if game.is_terminal():
            problems.append(f"action {i}: recorded after the game ended")
            break
        try:
            game.apply(step.seat, step.action)
        except EngineError as exc:
            problems.append(f"action {i} (seat {step.seat}): the engine refuses it: {exc}")
            break
    else:
        if not game.is_terminal():
            problems.append("the record ends before the game does")
        elif game.scores() != record.scores:
            problems.append(
                f"recorded scores {list(record.scores)} but the replay gives {list(game.scores())}"
            )
    return RollFairnessReport(seed, tuple(problems), auto)


# -- signed roll records ------------------------------------------------------------------------

_encode_roll_record, _decode_roll_record = codec(RollFairRecord)


def roll_record_bytes(record: RollFairRecord) -> bytes:
    """The canonical bytes of `record`: ``{"format": "sushigo-roll-record", "version": 1, ...}``."""
    data: dict[str, object] = {"format": ROLL_RECORD_FORMAT, "version": ROLL_RECORD_VERSION}
    data.update(_encode_roll_record(record))
    return canonical_bytes(data)


def parse_roll_record_bytes(data: bytes) -> RollFairRecord:
    """The roll record in canonical `data`; `RemoteProtocolError` when it is not one."""
    record: RollFairRecord = parse_signed(
        data, ROLL_RECORD_FORMAT, ROLL_RECORD_VERSION, _decode_roll_record, "sushigo roll record"
    )
    return record


def sign_roll_record(record: RollFairRecord, key: Ed25519PrivateKey) -> SignedRecord:
    """Sign `record` with the server's key (the same signature scheme as the card game's)."""
    return sign_bytes(roll_record_bytes(record), key)


def verify_signed_roll_record(
    signed: SignedRecord, server_key: bytes | None = None
) -> RollFairRecord:
    """Check the signature (and, if given, the signer) and return the roll record; raises
    `RemoteProtocolError` with FAIRNESS_VIOLATION like `records.verify_signed_record`."""
    check_signature(signed, server_key)
    return parse_roll_record_bytes(signed.record)
