"""Provable fairness, for every game: the seed commitment, the game seed, and re-deriving a whole
game from its record.

Before any client seed exists the server publishes H(server_seed); each seat then contributes a
32-byte seed; the game seed mixes them all, in seat order, so neither the server nor any player
can choose the deal or the dice. At game over the server reveals server_seed, and `verify_record`
re-derives everything. Byte by byte (``lp16(x) = u16be(len(x)) || x``)::

    server_seed_hash = SHA-256(lp16("sushigo/server-seed/v1") || server_seed)
    game_seed        = SHA-256(lp16("sushigo/game-seed/v1") || lp16(UTF-8 table id)
                               || lp16(server_seed) || u8(number of client seeds)
                               || lp16(client_seed[0]) || ... || lp16(client_seed[n-1]))

The game seed goes to the game's rules (`engine.api.Rules.new_game`), whose deterministic
generator (engine/rng.py) makes every shuffle and roll. The record (`FairRecord`) holds every step
as the table played it: the seats that acted, their commitments (a secret step) and their
openings; `verify_record` checks each opening against its commitment and replays every step with
the game's rules to the recorded scores.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass, field
from typing import Annotated, Any

from sushigo.engine import EngineError, rules
from sushigo.engine.api import GameState

from ._codec import Range, Size
from ._registry import GameKindName, GameOptionsValue, Round, Seat, Seats, TableId, Turn
from .commitment import Opening, verify_commitment
from .games import Wire, wire

SEED_SIZE = 32
SERVER_SEED_TAG = b"sushigo/server-seed/v1"
GAME_SEED_TAG = b"sushigo/game-seed/v1"
MAX_STEPS = 4096
"""The most steps a record holds: far above any real game (a Sushi Roll game's re-rolls and swaps
are paid for by tokens)."""

Bytes32 = Annotated[bytes, Size(32, 32)]
Score = Annotated[int, Range(-10_000, 10_000)]


def _lp16(data: bytes) -> bytes:
    if len(data) > 0xFFFF:
        raise ValueError("a length-prefixed field is at most 65535 bytes")
    return len(data).to_bytes(2, "big") + data


def new_seed() -> bytes:
    """A fresh 32-byte seed from the OS's cryptographic generator (server seed or client seed)."""
    return secrets.token_bytes(SEED_SIZE)


def server_seed_hash(server_seed: bytes) -> bytes:
    """The server's published commitment to its seed."""
    return hashlib.sha256(_lp16(SERVER_SEED_TAG) + server_seed).digest()


def derive_game_seed(table_id: str, server_seed: bytes, client_seeds: tuple[bytes, ...]) -> bytes:
    """The game seed from the server seed and every seat's seed in seat order."""
    if len(client_seeds) > 255:
        raise ValueError("at most 255 client seeds")
    parts = [
        _lp16(GAME_SEED_TAG),
        _lp16(table_id.encode("utf-8")),
        _lp16(server_seed),
        bytes([len(client_seeds)]),
    ]
    parts.extend(_lp16(seed) for seed in client_seeds)
    return hashlib.sha256(b"".join(parts)).digest()


@dataclass(frozen=True, slots=True, kw_only=True)
class StepRecord:
    """One step of a game as the server played it: who acted, what they committed to (a secret
    step), and what they played."""

    round: Round
    """The step's round."""
    turn: Turn
    """The step's turn (Sushi Roll: the cycle)."""
    seats: Annotated[tuple[Seat, ...], Seats]
    """The seats that acted, in seat order."""
    commitments: Annotated[tuple[Bytes32 | None, ...], Size(0, 8)] = ()
    """A secret step: per acting seat, the commitment shown in COMMITMENTS (nil for a seat the
    server auto-picked at commit time). An open step: empty."""
    openings: Annotated[tuple[Opening, ...], Seats]
    """Per acting seat: the action applied, its nonce (a secret step) and whether the server
    chose it."""

    @property
    def secret(self) -> bool:
        """The step was played through commit-reveal."""
        return bool(self.commitments)


@dataclass(frozen=True, slots=True, kw_only=True)
class FairRecord:
    """Everything needed to re-derive and check a finished game (the record the server signs)."""

    game: GameKindName
    """The game's kind."""
    table_id: TableId
    """The table the game was played at (bound into the game seed and every commitment)."""
    options: GameOptionsValue
    """The game's options."""
    server_seed: Bytes32
    """The server's seed, revealed at game over."""
    server_seed_hash: Bytes32
    """H(server_seed) as published in GAME_STARTING."""
    client_seeds: Annotated[tuple[Bytes32, ...], Seats]
    """Each seat's seed, in seat order (the server's own for a bot's or a silent seat)."""
    steps: Annotated[tuple[StepRecord, ...], Size(0, MAX_STEPS)]
    """Every step, in order."""
    scores: Annotated[tuple[Score, ...], Size(1, 9)]
    """Final totals per tableau."""

    def game_seed(self) -> bytes:
        """The seed this record's parts derive."""
        return derive_game_seed(self.table_id, self.server_seed, self.client_seeds)

    def actions(self) -> list[tuple[object, ...]]:
        """Every step's actions, as the game's rules replay them (`engine.play_steps`)."""
        return [tuple(o.action for o in step.openings) for step in self.steps]


@dataclass(frozen=True, slots=True)
class FairnessReport:
    """What `verify_record` found."""

    game_seed: bytes
    """The re-derived game seed."""
    problems: tuple[str, ...] = ()
    """Each check that failed, in words; empty when everything checks out."""
    auto_picks: tuple[tuple[int, int, int], ...] = field(default=())
    """(round, turn, seat) of every action the server chose for a seat (shown, not a failure)."""
    game: GameState | None = None
    """The replayed game (None when the record names a game that is not installed)."""

    @property
    def ok(self) -> bool:
        """True when every check passed."""
        return not self.problems


def verify_record(record: FairRecord) -> FairnessReport:
    """Re-derive the game from `record` and check every claim in it.

    Checks: the server seed matches its published hash; there is one client seed per seat; each
    step is the game's next (its position and acting seats), a secret step's every opening that
    the server did not choose opens its seat's commitment for that table, step and seat, an open
    step has no commitments; every action is legal; the game ends exactly after the last step,
    with the recorded scores.
    """
    seed = record.game_seed()
    codec = wire(record.game)
    try:
        game_rules = rules(record.game)
    except EngineError as exc:
        return FairnessReport(seed, (str(exc),))
    if codec is None:
        return FairnessReport(seed, (f"this program cannot read {record.game!r} actions",))
    problems: list[str] = []
    auto: list[tuple[int, int, int]] = []
    if not hmac.compare_digest(server_seed_hash(record.server_seed), record.server_seed_hash):
        problems.append("the server seed does not match the hash published before the game")
    try:
        game = game_rules.new_game(record.options, seed)
    except (EngineError, TypeError) as exc:
        return FairnessReport(seed, (f"the record's options make no {record.game} game: {exc}",))
    if len(record.client_seeds) != game.players:
        problems.append(f"{len(record.client_seeds)} client seeds for {game.players} seats")
    for i, step in enumerate(record.steps, 1):
        where = f"step {i} (round {step.round}, turn {step.turn})"
        if game.is_terminal():
            problems.append(f"{where}: recorded after the game ended")
            break
        if (step.round, step.turn) != game.position:
            problems.append(
                f"{where}: the game is at round {game.position[0]}, turn {game.position[1]}"
            )
        if step.seats != game.to_act() or len(step.openings) != len(step.seats):
            problems.append(f"{where}: the seats that act are {list(game.to_act())}")
            break
        problems += _check_openings(record, step, where, codec, game_rules.secret, auto)
        try:
            game.step([o.action for o in step.openings])
        except EngineError as exc:
            problems.append(f"{where}: the game refuses the actions: {exc}")
            break
    else:
        if not game.is_terminal():
            problems.append("the record ends before the game does")
        elif game.scores() != record.scores:
            problems.append(
                f"recorded scores {list(record.scores)} but the replay gives {list(game.scores())}"
            )
    return FairnessReport(seed, tuple(problems), tuple(auto), game)


def _check_openings(
    record: FairRecord,
    step: StepRecord,
    where: str,
    codec: Wire,
    secret: bool,
    auto: list[tuple[int, int, int]],
) -> list[str]:
    """What is wrong with one step's openings (and the auto-picks noted in `auto`)."""
    if not secret:
        if step.commitments or any(o.nonce is not None for o in step.openings):
            return [f"{where}: an open step with commitments"]
        auto += [
            (step.round, step.turn, s)
            for s, o in zip(step.seats, step.openings, strict=True)
            if o.auto
        ]
        return []
    if len(step.commitments) != len(step.seats):
        return [f"{where}: needs one commitment per acting seat"]
    problems = []
    for seat, commitment, opening in zip(step.seats, step.commitments, step.openings, strict=True):
        if opening.auto:
            auto.append((step.round, step.turn, seat))
            continue
        opened = opens(codec, record.table_id, (step.round, step.turn, seat), commitment, opening)
        if opened is None:
            problems.append(f"{where}, seat {seat}: a player's pick without commitment/nonce")
        elif not opened:
            problems.append(f"{where}, seat {seat}: the opening does not match the commitment")
    return problems


def legacy_record(kind: str, old: Any, steps: tuple[StepRecord, ...]) -> FairRecord:
    """The record of a protocol 1.0 server, `old` (one layout per game, each with the table, the
    options, the seeds and the scores as they are here), as a `FairRecord` of game `kind` with
    its `steps` as the game's wire read them."""
    return FairRecord(
        game=kind,
        table_id=old.table_id,
        options=old.options,
        server_seed=old.server_seed,
        server_seed_hash=old.server_seed_hash,
        client_seeds=old.client_seeds,
        steps=steps,
        scores=old.scores,
    )


def opens(
    codec: Wire,
    table_id: str,
    where: tuple[int, int, int],
    commitment: bytes | None,
    opening: Opening,
) -> bool | None:
    """Whether a player's `opening` opens its `commitment` (the game's actions written by `codec`)
    of (round, turn, seat) `where` at table `table_id`; None when there is no commitment or no
    nonce to check. The one check of an opening, for the verifier and for the client."""
    if commitment is None or opening.nonce is None:
        return None
    round_, turn, seat = where
    action = codec.commit_bytes(opening.action)
    return verify_commitment(commitment, table_id, round_, turn, seat, action, opening.nonce)
