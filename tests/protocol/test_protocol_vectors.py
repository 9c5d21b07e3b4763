"""The test vectors printed in docs/PROTOCOL.md, checked against the code."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sushigo.engine import Action, Card, Game, GameOptions
from sushigo.engine.roll import Reroll
from sushigo.protocol import (
    CARD_WIRE,
    CLIENT_LIMITS,
    ROLL_WIRE,
    SERVER_LIMITS,
    ErrorCode,
    FrameDecoder,
    Version,
    commitment_preimage,
    derive_game_seed,
    encode_frame,
    make_commitment,
    messages,
    server_seed_hash,
    verify_commitment,
)
from sushigo.protocol._registry import Role

DOC = Path(__file__).resolve().parents[2] / "docs" / "PROTOCOL.md"
NONCE = bytes(range(32))


def vectors() -> dict[str, dict[str, str]]:
    """Every ```vector block of the document, as name -> {key: value}."""
    out = {}
    for block in re.findall(r"```vector\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S):
        fields = dict(line.split(": ", 1) for line in block.strip().splitlines())
        out[fields["name"]] = fields
    return out


VECTORS = vectors()

FRAMES: dict[str, tuple[messages.Message, int | None]] = {
    "frame-hello": (
        messages.Hello(ref=1, protocol="sushigo", version=Version(2, 0), capabilities=("chat",)),
        None,
    ),
    "frame-commit": (messages.Commit(ref=6, round=1, turn=2, commitment=NONCE), None),
    "frame-reveal": (
        messages.Reveal(
            ref=7, round=1, turn=2, action=Action(Card.WASABI, Card.SQUID), nonce=NONCE
        ),
        None,
    ),
    "frame-error": (messages.Error(ref=6, code=ErrorCode.WRONG_TURN, message="late"), 3),
    "frame-act": (
        messages.Act(ref=8, round=2, turn=3, action=Reroll((0, 2))),
        None,
    ),
}


def test_the_document_has_every_vector() -> None:
    assert set(FRAMES) | {"commitment-chopsticks", "commitment-dummy", "seed-and-deal"} == set(
        VECTORS
    )


@pytest.mark.parametrize("name", sorted(FRAMES))
def test_frame_vectors(name: str) -> None:
    message, seq = FRAMES[name]
    limits = CLIENT_LIMITS if message.SENDER is Role.CLIENT else SERVER_LIMITS
    expected = bytes.fromhex(VECTORS[name]["hex"])
    game = ROLL_WIRE if name == "frame-act" else CARD_WIRE
    assert encode_frame(messages.encode_message(message, seq, game), limits) == expected
    decoder = FrameDecoder(limits)
    decoder.receive_data(expected)
    assert messages.decode_message(decoder.next_value(), message.SENDER, game) == (message, seq)


@pytest.mark.parametrize("name", ["commitment-chopsticks", "commitment-dummy"])
def test_commitment_vectors(name: str) -> None:
    v = VECTORS[name]
    cards = [Card.from_label(c) for c in v["cards"].split()]
    dummy = None if v["dummy"] == "-" else Card.from_label(v["dummy"])
    action = Action(cards[0], cards[1] if len(cards) > 1 else None, dummy)
    part = CARD_WIRE.commit_bytes(action)
    args = (v["table"], int(v["round"]), int(v["turn"]), int(v["seat"]), part)
    nonce = bytes.fromhex(v["nonce"])
    assert commitment_preimage(*args, nonce).hex() == v["preimage"]
    assert make_commitment(*args, nonce).hex() == v["commitment"]
    assert verify_commitment(bytes.fromhex(v["commitment"]), *args, nonce)


def test_seed_and_deal_vector() -> None:
    v = VECTORS["seed-and-deal"]
    server_seed = bytes.fromhex(v["server_seed"])
    seeds = tuple(bytes.fromhex(s) for s in v["client_seeds"].split())
    assert server_seed_hash(server_seed).hex() == v["server_seed_hash"]
    game_seed = derive_game_seed(v["table"], server_seed, seeds)
    assert game_seed.hex() == v["game_seed"]
    game = Game(GameOptions(players=int(v["players"])), game_seed)
    for seat in (0, 1):
        assert " ".join(c.label for c in game.hand(seat)) == v[f"hand{seat}"]
