"""Seeded games played by the Python engine, for the web client's ports of the rules to agree
with bit for bit (tests/web/page/games.test.js).

Each game is a kind, its options, a seed and every step's actions (random legal ones, from a
generator seeded by the game's number), and, before the first step and after each, the SHA-256 of
what the server would send: every seat's observation and the spectators', each packed as the
game's wire packs it, then the step's events packed one by one. The page replays the same
actions with its own rules and must find the same digests. Some of the games also come as signed
records (every opening committed to with a nonce, a few auto-picked), whole and tampered with, for
the page's verification of records.
"""

from __future__ import annotations

import hashlib
import random
import tempfile
from itertools import product
from pathlib import Path
from typing import Any

import msgpack
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from fair_records import fair_record

from sushigo.engine import rules
from sushigo.protocol import (
    FairRecord,
    Opening,
    StepRecord,
    derive_game_seed,
    encode,
    make_commitment,
    sign_record,
    wire,
)
from sushigo.protocol.records import SignedRecord, export_bytes, sign_bytes

SIGNING_KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
"""The key the records here are signed with (the vectors' key: its private bytes are 00 ... 1f)."""

SUSHI_GO_VARIANTS = [
    (players, variants)
    for players in (2, 3, 4, 5)
    for variants in (
        (),
        ("pass_both_ways",),
        ("soy_sauce",),
        ("pass_both_ways", "soy_sauce"),
    )
] + [
    (2, ("dummy", *extra))
    for extra in ((), ("pass_both_ways",), ("soy_sauce",), ("pass_both_ways", "soy_sauce"))
]
"""Every table size and variant of Sushi Go!: 16 plain ones and the 2-player dummy's 4."""

SUSHI_ROLL_SIZES = (2, 3, 4, 5)


def _choose(kind: str, actions: Any, rng: random.Random) -> Any:
    """A random legal action; Sushi Roll takes (ending the turn) more often than it spends tokens,
    so that turns are a few actions long, as people play them."""
    if kind == "sushi-roll" and rng.random() < 0.6:
        takes = [a for a in actions if type(a).__name__ == "Take"]
        return rng.choice(takes)
    return rng.choice(list(actions))


def _digest(game: Any, codec: Any, events: list[Any]) -> str:
    digest = hashlib.sha256()
    for seat in [*range(game.players), None]:
        digest.update(codec.packed("observation", game.observation(seat)))
    for event in events:
        digest.update(msgpack.packb(encode(codec, "event", event), use_bin_type=True))
    return digest.hexdigest()


def play(kind: str, players: int, variants: tuple[str, ...], number: int) -> dict[str, Any]:
    """Game `number` of that table: its seed, every step's actions and the digests."""
    game_rules = rules(kind)
    codec = wire(kind)
    assert codec is not None
    options = game_rules.options(players, variants)
    seed = hashlib.sha256(f"web-crosscheck/{kind}/{players}/{variants}/{number}".encode()).digest()
    rng = random.Random(f"{kind}/{players}/{variants}/{number}")
    game = game_rules.new_game(options, seed)
    steps: list[list[Any]] = []
    digests = [_digest(game, codec, [])]
    while not game.is_terminal():
        actions = [_choose(kind, game.legal_actions(seat), rng) for seat in game.to_act()]
        events = game.step(actions)
        steps.append([encode(codec, "action", a) for a in actions])
        digests.append(_digest(game, codec, events))
    return {
        "kind": kind,
        "options": game_rules.options_to_data(options),
        "seed": seed.hex(),
        "steps": steps,
        "digests": digests,
    }


def games(per_table: int, per_roll_size: int) -> list[dict[str, Any]]:
    """`per_table` games of every Sushi Go! table size and variant, `per_roll_size` of every
    Sushi Roll table size."""
    out = [
        play("sushi-go", players, variants, n)
        for (players, variants), n in product(SUSHI_GO_VARIANTS, range(per_table))
    ]
    out += [
        play("sushi-roll", players, (), n)
        for players, n in product(SUSHI_ROLL_SIZES, range(per_roll_size))
    ]
    return out


# -- records -----------------------------------------------------------------------------------


def record(kind: str, players: int, variants: tuple[str, ...], number: int) -> FairRecord:
    """A whole game as the server records it: every secret step's openings committed to with
    nonces (one seat in eight auto-picked: no commitment, no nonce)."""
    game_rules = rules(kind)
    codec = wire(kind)
    assert codec is not None
    rng = random.Random(f"record/{kind}/{players}/{variants}/{number}")
    table_id = f"t-{number}"
    server_seed = rng.randbytes(32)
    client_seeds = tuple(rng.randbytes(32) for _ in range(players))
    options = game_rules.options(players, variants)
    game = game_rules.new_game(options, derive_game_seed(table_id, server_seed, client_seeds))
    steps = []
    while not game.is_terminal():
        round_, turn = game.position
        seats = game.to_act()
        actions = [_choose(kind, game.legal_actions(seat), rng) for seat in seats]
        commitments: list[bytes | None] = []
        openings = []
        for seat, action in zip(seats, actions, strict=True):
            if not game_rules.secret:
                openings.append(Opening(action=action))
            elif rng.random() < 1 / 8:
                commitments.append(None)
                openings.append(Opening(action=action, auto=True))
            else:
                nonce = rng.randbytes(32)
                part = codec.commit_bytes(action)
                commitments.append(make_commitment(table_id, round_, turn, seat, part, nonce))
                openings.append(Opening(action=action, nonce=nonce))
        steps.append(
            StepRecord(
                round=round_,
                turn=turn,
                seats=seats,
                commitments=tuple(commitments),
                openings=tuple(openings),
            )
        )
        game.step(actions)
    return fair_record(kind, table_id, options, server_seed, client_seeds, steps, game.scores())


def _signed(signed: SignedRecord) -> dict[str, str]:
    return {
        "record": signed.record.hex(),
        "signature": signed.signature.hex(),
        "server_key": signed.server_key.hex(),
    }


def records() -> list[dict[str, Any]]:
    """Signed records of a game of every table, each with what verifying it must find: nothing
    wrong; and tampered copies: a byte of the record changed (the signature fails), an opening
    changed and signed again (it no longer opens its commitment), the scores changed and signed
    again (the replay gives others)."""
    out: list[dict[str, Any]] = []
    tables = [("sushi-go", p, v) for p, v in SUSHI_GO_VARIANTS[::3]] + [
        ("sushi-roll", p, ()) for p in SUSHI_ROLL_SIZES
    ]
    for number, (kind, players, variants) in enumerate(tables):
        fair = record(kind, players, variants, number)
        signed = sign_record(fair, SIGNING_KEY)
        names = [f"player {seat}" for seat in range(players)]
        out.append(
            {
                "name": f"{kind} {players} {'+'.join(variants)}",
                **_signed(signed),
                "problem": "",
                "exported": export_bytes(signed, names).hex(),
                "names": names,
            }
        )
        flipped = bytearray(signed.record)
        flipped[len(flipped) // 2] ^= 1
        out.append(
            {
                "name": f"{kind} {players}: a byte changed",
                **_signed(
                    SignedRecord(
                        record=bytes(flipped),
                        signature=signed.signature,
                        server_key=signed.server_key,
                    )
                ),
                "problem": "the record's signature does not verify",
            }
        )
        rescored = FairRecord(**{**_fields(fair), "scores": tuple(s + 1 for s in fair.scores)})
        out.append(
            {
                "name": f"{kind} {players}: the scores changed",
                **_signed(sign_record(rescored, SIGNING_KEY)),
                "problem": "recorded scores",
            }
        )
    # An opening changed after its commitment (a Sushi Go! game: its steps are secret).
    fair = record("sushi-go", 3, (), 99)
    step = fair.steps[0]
    slot = next(i for i, o in enumerate(step.openings) if not o.auto)
    others = [
        a
        for a in rules("sushi-go")
        .new_game(fair.options, fair.game_seed())
        .legal_actions(step.seats[slot])
        if a != step.openings[slot].action
    ]
    opening = Opening(action=others[0], nonce=step.openings[slot].nonce)
    openings = (*step.openings[:slot], opening, *step.openings[slot + 1 :])
    changed = StepRecord(
        round=step.round,
        turn=step.turn,
        seats=step.seats,
        commitments=step.commitments,
        openings=openings,
    )
    tampered = FairRecord(**{**_fields(fair), "steps": (changed, *fair.steps[1:])})
    out.append(
        {
            "name": "sushi-go 3: an opening changed",
            **_signed(sign_record(tampered, SIGNING_KEY)),
            "problem": "the opening does not match the commitment",
        }
    )
    other_key = Ed25519PrivateKey.from_private_bytes(bytes(32))
    out.append(
        {
            "name": "sushi-go 3: signed by another key",
            **_signed(sign_bytes(sign_record(fair, SIGNING_KEY).record, other_key)),
            "problem": "signed by another key",
            "pinned": sign_record(fair, SIGNING_KEY).server_key.hex(),
        }
    )
    return out


def _fields(record: FairRecord) -> dict[str, Any]:
    return {name: getattr(record, name) for name in FairRecord.__dataclass_fields__}


def key_files() -> dict[str, Any]:
    """A key file as the terminal client makes it (`client.identity`), its player id and its
    signature of a login's payload (with the server's key 01 x 32 and the challenge 02 x 32), and
    files that are no such key: an encrypted one, an Ed448 one."""
    from cryptography.hazmat.primitives.asymmetric.ed448 import Ed448PrivateKey  # noqa: PLC0415
    from cryptography.hazmat.primitives.serialization import (  # noqa: PLC0415
        BestAvailableEncryption,
        Encoding,
        NoEncryption,
        PrivateFormat,
    )

    from sushigo.client.identity import load_or_create_key  # noqa: PLC0415
    from sushigo.protocol import auth_payload  # noqa: PLC0415
    from sushigo.protocol.identity import player_id_for_key  # noqa: PLC0415
    from sushigo.protocol.records import public_key_bytes  # noqa: PLC0415

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "key.pem"
        key = load_or_create_key(path)
        pem = path.read_text()
    public = public_key_bytes(key)
    pkcs8 = PrivateFormat.PKCS8
    return {
        "terminal": {
            "pem": pem,
            "player_id": player_id_for_key(public),
            "signature": list(key.sign(auth_payload(bytes([1]) * 32, bytes([2]) * 32, public))),
        },
        "encrypted": key.private_bytes(
            Encoding.PEM, pkcs8, BestAvailableEncryption(b"secret")
        ).decode(),
        "ed448": Ed448PrivateKey.generate()
        .private_bytes(Encoding.PEM, pkcs8, NoEncryption())
        .decode(),
    }
