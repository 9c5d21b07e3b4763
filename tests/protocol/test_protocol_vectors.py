"""The test vectors of docs/PROTOCOL.md (section 10), checked against the code.

Every ```vector block of the document must be one this file knows, with exactly the keys it
checks, and every vector this file knows must be in the document: the two cannot drift apart. The
messages of the vectors are those of the worked examples (section 9), built here from the same
seeds and choices, so the examples' bytes are pinned down too.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from sample_helpers import fair_record

from sushigo.engine import Action, Card, Game, GameOptions
from sushigo.engine.games.sushi_roll import Reroll, RollGame, RollOptions, Take
from sushigo.protocol import (
    CARD_WIRE,
    CLIENT_LIMITS,
    ROLL_WIRE,
    SERVER_LIMITS,
    ErrorCode,
    FairRecord,
    FrameDecoder,
    Opening,
    SignedRecord,
    StepRecord,
    Version,
    Wire,
    commitment_preimage,
    derive_game_seed,
    encode_frame,
    make_commitment,
    messages,
    record_bytes,
    server_seed_hash,
    verify_commitment,
    verify_record,
    verify_signed_record,
)
from sushigo.protocol._registry import Role
from sushigo.protocol.games import PARTS, CodecWire
from sushigo.protocol.records import public_key_bytes

DOC = Path(__file__).resolve().parents[2] / "docs" / "PROTOCOL.md"
NONCE = bytes(range(32))
SIGNING_KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
"""The server key of the record vectors (its private bytes are 00 01 ... 1f)."""


def vectors() -> dict[str, dict[str, str]]:
    """Every ```vector block of the document, as name -> {key: value}. A line that begins with
    a space goes on with the value of the line before it, after a space (long values are wrapped
    so; `_hex` takes the spaces out of hex)."""
    out = {}
    for block in re.findall(r"```vector\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S):
        fields: dict[str, str] = {}
        key = ""
        for line in block.rstrip().splitlines():
            if line.startswith(" "):
                fields[key] += " " + line.strip()
            else:
                key, value = line.split(": ", 1)
                assert key not in fields, f"{key} twice in a vector"
                fields[key] = value
        out[fields["name"]] = fields
    return out


VECTORS = vectors()


def _hex(value: str) -> str:
    """A hex value of a vector, wrapped or not."""
    return "".join(value.split())


# -- the worked examples (section 9) --------------------------------------------------------------

SERVER_SEED = b"\x11" * 32
CARD_TABLE = "t-42"
CARD_SEEDS = (b"\x22" * 32, b"\x33" * 32, b"\x44" * 32)
ROLL_TABLE = "t-43"
ROLL_SEEDS = (b"\x22" * 32, b"\x33" * 32)

CARD_PICKS = (Action(Card.SASHIMI), Action(Card.TEMPURA), Action(Card.DUMPLING))
"""Round 1, turn 1 of the 3-player Sushi Go! game: seats 0 and 1 pick these; seat 2 sends no
commitment in time and the server picks its dumpling (an auto-pick: no nonce)."""
CARD_NONCES: tuple[bytes | None, ...] = (b"\xa0" * 32, b"\xa1" * 32, None)
ROLL_ACTIONS = (Reroll((1, 3)), Take(1))
"""Round 1, cycle 1 of the 2-player Sushi Roll game: seat 0 (the red belt) re-rolls the dice at
positions 1 and 3, then takes the die at position 1."""


def card_game() -> Game:
    """The Sushi Go! game of the worked example, before its first step."""
    seed = derive_game_seed(CARD_TABLE, SERVER_SEED, CARD_SEEDS)
    return Game(GameOptions(players=3), seed)


def roll_game() -> RollGame:
    """The Sushi Roll game of the worked example, before its first step."""
    return RollGame(RollOptions(players=2), derive_game_seed(ROLL_TABLE, SERVER_SEED, ROLL_SEEDS))


def card_commitments() -> tuple[bytes | None, ...]:
    """The example turn's COMMITMENTS: seat 2's is nil (the server picked for it)."""
    return tuple(
        None
        if nonce is None
        else make_commitment(CARD_TABLE, 1, 1, seat, CARD_WIRE.commit_bytes(action), nonce)
        for seat, (action, nonce) in enumerate(zip(CARD_PICKS, CARD_NONCES, strict=True))
    )


def card_openings() -> tuple[Opening, ...]:
    """The example turn's openings, as TURN_RESULT carries them."""
    return tuple(
        Opening(action=action, nonce=nonce, auto=nonce is None)
        for action, nonce in zip(CARD_PICKS, CARD_NONCES, strict=True)
    )


def card_record() -> FairRecord:
    """A Sushi Go! record of the example game cut short after its first step (a finished game's
    record is thousands of bytes; its layout is the same)."""
    game = card_game()
    game.step(list(CARD_PICKS))
    step = StepRecord(
        round=1,
        turn=1,
        seats=(0, 1, 2),
        commitments=card_commitments(),
        openings=card_openings(),
    )
    options = GameOptions(players=3)
    return fair_record(
        "sushi-go", CARD_TABLE, options, SERVER_SEED, CARD_SEEDS, [step], game.scores()
    )


def roll_record() -> FairRecord:
    """A Sushi Roll record of the example game cut short after seat 0's first turn (two open
    steps: no commitments, no nonces)."""
    game = roll_game()
    steps = []
    for action in ROLL_ACTIONS:
        round_, turn = game.position
        steps.append(
            StepRecord(round=round_, turn=turn, seats=(0,), openings=(Opening(action=action),))
        )
        game.step([action])
    options = RollOptions(players=2)
    return fair_record(
        "sushi-roll", ROLL_TABLE, options, SERVER_SEED, ROLL_SEEDS, steps, game.scores()
    )


def _turn_start(
    game: Game | RollGame, seats: tuple[int, ...], *, secret: bool
) -> messages.TurnStart:
    """The first TURN_START of `game` as seat 0 sees it, `seats` acting."""
    return messages.TurnStart(
        round=1,
        turn=1,
        seats=seats,
        secret=secret,
        step=0,
        observation=game.observation(0),
        deadline_ms=60_000,
    )


def _turn_result() -> messages.TurnResult:
    events = card_game().step(list(CARD_PICKS))
    return messages.TurnResult(round=1, turn=1, openings=card_openings(), events=tuple(events))


def _acted() -> messages.Acted:
    game = roll_game()
    events = game.step([ROLL_ACTIONS[0]])
    return messages.Acted(
        round=1,
        turn=1,
        step=0,
        seat=0,
        action=ROLL_ACTIONS[0],
        events=tuple(events),
        observation=game.observation(0),
        more=True,
    )


# -- the vectors ---------------------------------------------------------------------------------

FRAMES: dict[str, tuple[messages.Message, int | None, Wire | None]] = {
    "frame-hello": (
        messages.Hello(ref=1, protocol="sushigo", version=Version(2, 1), capabilities=("chat",)),
        None,
        None,
    ),
    "frame-commit": (messages.Commit(ref=6, round=1, turn=2, commitment=NONCE), None, CARD_WIRE),
    "frame-reveal": (
        messages.Reveal(
            ref=7, round=1, turn=2, action=Action(Card.WASABI, Card.SQUID), nonce=NONCE
        ),
        None,
        CARD_WIRE,
    ),
    "frame-error": (messages.Error(ref=6, code=ErrorCode.WRONG_TURN, message="late"), 3, None),
    "frame-act": (messages.Act(ref=8, round=2, turn=3, action=Reroll((0, 2))), None, ROLL_WIRE),
    "frame-turn-start-secret": (_turn_start(card_game(), (0, 1, 2), secret=True), 11, CARD_WIRE),
    "frame-commitments": (
        messages.Commitments(round=1, turn=1, commitments=card_commitments(), deadline_ms=60_000),
        12,
        CARD_WIRE,
    ),
    "frame-turn-result": (_turn_result(), 13, CARD_WIRE),
    "frame-turn-start-open": (_turn_start(roll_game(), (0,), secret=False), 11, ROLL_WIRE),
    "frame-acted": (_acted(), 12, ROLL_WIRE),
}

RECORDS = {"record-sushi-go": card_record, "record-sushi-roll": roll_record}

KEYS: dict[str, set[str]] = {
    **{name: {"name", "hex"} for name in FRAMES},
    **{
        name: {"name", "commitment", "nonce", "preimage", "round", "seat", "table", "turn"} | extra
        for name, extra in (
            ("commitment-chopsticks", {"cards", "dummy"}),
            ("commitment-dummy", {"cards", "dummy"}),
            ("commitment-generic", {"action"}),
        )
    },
    "seed-and-deal": {
        "name",
        "table",
        "players",
        "server_seed",
        "client_seeds",
        "server_seed_hash",
        "game_seed",
        "hand0",
        "hand1",
    },
    "seed-and-roll": {
        "name",
        "table",
        "players",
        "server_seed",
        "client_seeds",
        "game_seed",
        "red_belt",
        "belt0",
        "belt1",
    },
    **{name: {"name", "public_key", "record", "sha256", "signature"} for name in RECORDS},
}
"""Every vector of the document and the keys each one has (all of them checked below)."""


def test_the_document_has_every_vector_and_no_other() -> None:
    assert {name: set(v) for name, v in VECTORS.items()} == KEYS


@pytest.mark.parametrize("name", sorted(FRAMES))
def test_frame_vectors(name: str) -> None:
    message, seq, game = FRAMES[name]
    limits = CLIENT_LIMITS if message.SENDER is Role.CLIENT else SERVER_LIMITS
    expected = bytes.fromhex(_hex(VECTORS[name]["hex"]))
    assert encode_frame(messages.encode_message(message, seq, game), limits).hex() == expected.hex()
    decoder = FrameDecoder(limits)
    decoder.receive_data(expected)
    assert messages.decode_message(decoder.next_value(), message.SENDER, game) == (message, seq)


def _position(v: dict[str, str]) -> tuple[str, int, int, int]:
    return v["table"], int(v["round"]), int(v["turn"]), int(v["seat"])


@pytest.mark.parametrize("name", ["commitment-chopsticks", "commitment-dummy"])
def test_commitment_vectors(name: str) -> None:
    v = VECTORS[name]
    cards = [Card.from_label(c) for c in v["cards"].split()]
    dummy = None if v["dummy"] == "-" else Card.from_label(v["dummy"])
    action = Action(cards[0], cards[1] if len(cards) > 1 else None, dummy)
    args = (*_position(v), CARD_WIRE.commit_bytes(action))
    nonce = bytes.fromhex(v["nonce"])
    assert commitment_preimage(*args, nonce).hex() == _hex(v["preimage"])
    assert make_commitment(*args, nonce).hex() == _hex(v["commitment"])
    assert verify_commitment(bytes.fromhex(_hex(v["commitment"])), *args, nonce)


def _plain(value: Any) -> Any:
    return value


def test_generic_commitment_vector() -> None:
    """A game whose wire has no commitment encoding of its own (`CodecWire`, as a plug-in's):
    the action's part is lp16 of the canonical msgpack of its plain data."""
    v = VECTORS["commitment-generic"]
    game = CodecWire("example", dict.fromkeys(PARTS, (_plain, _plain)))
    action = {"type": "throw", "hand": "rock"}  # keys out of order: canonical bytes sort them
    part = game.commit_bytes(action)
    assert part.hex() == _hex(v["action"])
    args = (*_position(v), part)
    nonce = bytes.fromhex(v["nonce"])
    assert commitment_preimage(*args, nonce).hex() == _hex(v["preimage"])
    assert make_commitment(*args, nonce).hex() == _hex(v["commitment"])


def _seeds(v: dict[str, str]) -> tuple[bytes, tuple[bytes, ...], bytes]:
    server_seed = bytes.fromhex(v["server_seed"])
    seeds = tuple(bytes.fromhex(s) for s in v["client_seeds"].split())
    game_seed = derive_game_seed(v["table"], server_seed, seeds)
    assert game_seed.hex() == _hex(v["game_seed"])
    return server_seed, seeds, game_seed


def test_seed_and_deal_vector() -> None:
    v = VECTORS["seed-and-deal"]
    server_seed, seeds, game_seed = _seeds(v)
    assert (v["table"], server_seed, seeds) == (CARD_TABLE, SERVER_SEED, CARD_SEEDS)
    assert server_seed_hash(server_seed).hex() == _hex(v["server_seed_hash"])
    game = Game(GameOptions(players=int(v["players"])), game_seed)
    for seat in (0, 1):
        assert " ".join(c.label for c in game.hand(seat)) == v[f"hand{seat}"]


def test_seed_and_roll_vector() -> None:
    v = VECTORS["seed-and-roll"]
    server_seed, seeds, game_seed = _seeds(v)
    assert (v["table"], server_seed, seeds) == (ROLL_TABLE, SERVER_SEED, ROLL_SEEDS)
    game = RollGame(RollOptions(players=int(v["players"])), game_seed)
    view = game.observation(None)
    assert view.red_belt == int(v["red_belt"])
    for seat in (0, 1):
        belt = " ".join(f"{d.kind.label}:{d.face.label}" for d in view.players[seat].belt)
        assert belt == v[f"belt{seat}"]


@pytest.mark.parametrize("name", sorted(RECORDS))
def test_record_vectors(name: str) -> None:
    v = VECTORS[name]
    record = RECORDS[name]()
    data = record_bytes(record)
    assert data.hex() == _hex(v["record"])
    assert hashlib.sha256(data).hexdigest() == _hex(v["sha256"])
    assert public_key_bytes(SIGNING_KEY).hex() == _hex(v["public_key"])
    tag = b"sushigo/record/v1"
    signature = SIGNING_KEY.sign(len(tag).to_bytes(2, "big") + tag + data)
    assert signature.hex() == _hex(v["signature"])
    signed = SignedRecord(
        record=data, signature=signature, server_key=bytes.fromhex(_hex(v["public_key"]))
    )
    assert verify_signed_record(signed, bytes.fromhex(_hex(v["public_key"]))) == record
    # Cut short: every check passes but the last, that the game ended.
    assert verify_record(record).problems == ("the record ends before the game does",)
