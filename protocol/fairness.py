"""Provable fairness: the seed commitment, the game seed, and re-deriving a whole game from a record.

Before any client seed exists the server publishes H(server_seed); each seat then contributes a
32-byte seed; the game seed mixes them all, in seat order, so neither the server nor any player
can choose the deal. At game over the server reveals server_seed, and `verify_record` re-derives
everything. Byte by byte (``lp16(x) = u16be(len(x)) || x``)::

    server_seed_hash = SHA-256(lp16("sushigo/server-seed/v1") || server_seed)
    game_seed        = SHA-256(lp16("sushigo/game-seed/v1") || lp16(UTF-8 table id)
                               || lp16(server_seed) || u8(number of client seeds)
                               || lp16(client_seed[0]) || ... || lp16(client_seed[n-1]))

The game seed goes to `engine.Game(options, game_seed)`, which shuffles the deck with the engine's
deterministic generator (engine/rng.py, stream ``b"deck"``).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass, field
from typing import Annotated

from sushigo.engine import EngineError, Game, GameOptions, GameRecord

from ._codec import Range, Size
from ._registry import Round, TableId, Turn
from .commitment import Opening, verify_commitment

SEED_SIZE = 32
SERVER_SEED_TAG = b"sushigo/server-seed/v1"
GAME_SEED_TAG = b"sushigo/game-seed/v1"

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
class TurnRecord:
    """One turn of a game as the server played it: what was committed and how it was opened."""

    round: Round
    """1-3."""
    turn: Turn
    """1 to the hand size."""
    commitments: Annotated[tuple[Bytes32 | None, ...], Size(2, 5)]
    """Per seat, the commitment shown in COMMITMENTS; nil for a seat auto-picked at commit time."""
    openings: Annotated[tuple[Opening, ...], Size(2, 5)]
    """Per seat, the action applied and its nonce (as in TURN_RESULT)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class FairRecord:
    """Everything needed to re-derive and check a finished game (the record the server signs)."""

    table_id: TableId
    """The table the game was played at (bound into the game seed and every commitment)."""
    options: GameOptions
    """Players and variants."""
    server_seed: Bytes32
    """The server's seed, revealed at game over."""
    server_seed_hash: Bytes32
    """H(server_seed) as published in GAME_STARTING."""
    client_seeds: Annotated[tuple[Bytes32, ...], Size(2, 5)]
    """Each seat's seed, in seat order (the server's own for a bot's or a silent seat)."""
    turns: Annotated[tuple[TurnRecord, ...], Size(0, 64)]
    """Every turn, in order."""
    scores: Annotated[tuple[Score, ...], Size(2, 6)]
    """Final totals per tableau (seats, then the dummy)."""

    def game_seed(self) -> bytes:
        """The seed this record's parts derive."""
        return derive_game_seed(self.table_id, self.server_seed, self.client_seeds)

    def game_record(self) -> GameRecord:
        """The engine's record of the same game (options, derived seed, actions)."""
        return GameRecord(
            self.options,
            self.game_seed(),
            tuple(tuple(o.action for o in t.openings) for t in self.turns),
        )


@dataclass(frozen=True, slots=True)
class FairnessReport:
    """What `verify_record` found."""

    game_seed: bytes
    """The re-derived game seed."""
    problems: tuple[str, ...] = ()
    """Each check that failed, in words; empty when everything checks out."""
    auto_picks: tuple[tuple[int, int, int], ...] = field(default=())
    """(round, turn, seat) of every pick the server made for a seat (shown, not a failure)."""

    @property
    def ok(self) -> bool:
        """True when every check passed."""
        return not self.problems


def verify_record(record: FairRecord) -> FairnessReport:
    """Re-derive the game from `record` and check every claim in it.

    Checks: the server seed matches its published hash; there is one client seed per seat; every
    non-auto opening opens its seat's commitment for that table, round, turn and seat; the turns
    are the engine's turns in order and every action is legal; the game ends exactly after the last
    turn, with the recorded scores.
    """
    problems: list[str] = []
    auto: list[tuple[int, int, int]] = []
    if not hmac.compare_digest(server_seed_hash(record.server_seed), record.server_seed_hash):
        problems.append("the server seed does not match the hash published before the game")
    n = record.options.players
    if len(record.client_seeds) != n:
        problems.append(f"{len(record.client_seeds)} client seeds for {n} seats")
    seed = record.game_seed()
    game = Game(record.options, seed)
    for i, t in enumerate(record.turns, 1):
        where = f"turn {i} (round {t.round}, turn {t.turn})"
        if game.is_terminal():
            problems.append(f"{where}: recorded after the game ended")
            break
        if (t.round, t.turn) != (game.round, game.turn):
            problems.append(f"{where}: the engine is at round {game.round}, turn {game.turn}")
        if len(t.commitments) != n or len(t.openings) != n:
            problems.append(f"{where}: needs one commitment and one opening per seat")
            break
        for seat, (commitment, opening) in enumerate(zip(t.commitments, t.openings, strict=True)):
            if opening.auto:
                auto.append((t.round, t.turn, seat))
                continue
            if commitment is None or opening.nonce is None:
                problems.append(f"{where}, seat {seat}: a player's pick without commitment/nonce")
            elif not verify_commitment(
                commitment, record.table_id, t.round, t.turn, seat, opening.action, opening.nonce
            ):
                problems.append(f"{where}, seat {seat}: the opening does not match the commitment")
        try:
            game.apply([o.action for o in t.openings])
        except EngineError as exc:
            problems.append(f"{where}: the engine refuses the actions: {exc}")
            break
    else:
        if not game.is_terminal():
            problems.append("the record ends before the game does")
        elif game.scores() != record.scores:
            problems.append(
                f"recorded scores {list(record.scores)} but the replay gives {list(game.scores())}"
            )
    return FairnessReport(seed, tuple(problems), tuple(auto))
