"""Tables as bytes and back: what the server saves after every step to survive a crash.

A game is saved as its seeds and its steps (the seats that acted, their commitments and openings):
the game's rules replay them to the exact same state, so nothing derived is stored. A game that was
in the middle of a step when the server died resumes at the start of that step (a secret step: its
commitments are asked for again; an open step: the mover's turn goes on from its last action).

The storage keeps a state in parts (`changes`): the header, rewritten only when it changes, and
one value per step, appended as it is played, so a save writes only the new step's bytes. A step's
value is the very bytes the signed record holds of it (`protocol.step_record_bytes`), so the record
at a game's end is put together from them. What the storage loads back is the header and the steps
joined, which is exactly the stream `dump` makes.

Version 3 is this layout, for every game. Versions 1 and 2 (protocol 1.0's servers) held Sushi Go!
turns (every seat acting) and Sushi Roll actions (a seat each, no positions) and table settings with
one flag per card variant: they still load, read into the same steps.
"""

from __future__ import annotations

import io
from typing import Any, NamedTuple

import msgpack

from sushigo.engine import EngineError
from sushigo.protocol import (
    Opening,
    StepRecord,
    TableSettings,
    derive_game_seed,
    step_record_bytes,
)
from sushigo.protocol._codec import FieldError, codec
from sushigo.server.errors import TableError

from .games import adapter
from .phases import TablePhase
from .seating import TableHost
from .table import SEED_SECONDS, Table

STATE_VERSION = 3
"""3: a msgpack stream (header, then one record step per step); 1 and 2: protocol 1.0's."""


class StateError(ValueError):
    """A saved table that cannot be read back."""


def _header(table: Table) -> dict[str, Any]:
    """Everything but the steps."""
    settings = table.settings
    return {
        "v": STATE_VERSION,
        "table_id": table.table_id,
        "settings": {
            "kind": settings.kind,
            "players": settings.players,
            "variants": list(settings.variants),
            "turn_seconds": settings.turn_seconds,
        },
        "host": table.seating.host_player,
        "quick": table.quick,
        "seats": [
            {"player_id": seat.player_id, "name": seat.name, "bot": seat.bot}
            for seat in table.seating.seats
        ],
        "phase": str(table.phase),
        "server_seed": table.server_seed,
        "client_seeds": list(table.client_seeds),
        "drawn": list(table.drawn),
        # The tournament whose game it plays, if any (only then: other tables' states stay as
        # they were): a node that takes the table over sends its entrants home at its end.
        **({"tournament": table.tournament} if table.tournament is not None else {}),
    }


def table_state(table: Table) -> dict[str, Any]:
    """The table as plain data: its header and its steps as the record holds them (two tables in
    the same state give the same data)."""
    encode = codec(StepRecord, table.wire)[0]
    return {**_header(table), "steps": [encode(step) for step in table.steps]}


def dump(table: Table) -> bytes:
    """The table's saved bytes: a msgpack stream of the header, then one value per step."""
    return _pack(_header(table)) + b"".join(_packed(table))


def _head(table: Table) -> bytes:
    """The header's bytes (`_header` packed), packed again only when something in it changed:
    a table saves at every step, and its header changes a few times a game."""
    key = (
        table.seating.host_player,
        table.quick,
        table.tournament,
        table.phase,
        table.server_seed,
        tuple(table.client_seeds),
        tuple([(seat.player_id, seat.name, seat.bot) for seat in table.seating.seats]),
    )
    cached = table.packed_head
    if cached[0] != key:
        cached = table.packed_head = (key, _pack(_header(table)))
    return cached[1]


def _packed(table: Table) -> list[bytes]:
    """This game's steps as saved: each packed once, kept on the table (per game), so the cost of
    a save does not grow with the game."""
    packed = table.packed_steps
    if packed[0] != table.server_seed or len(packed[1]) > len(table.steps):
        packed = table.packed_steps = (table.server_seed, [])
    steps = packed[1]
    wire = table.wire
    steps.extend(step_record_bytes(step, wire) for step in table.steps[len(steps) :])
    return steps


class Save(NamedTuple):
    """What a save must write to bring the stored state of a table up to date (`changes`)."""

    whole: bool
    """The storage holds nothing of this game (a new game, or a table never saved by this
    process): write `head` and every step, replacing whatever is stored."""
    head: bytes
    """The header's bytes."""
    head_changed: bool
    """`head` differs from the stored one (always true when `whole`)."""
    first: int
    """The number of the first step in `steps` (0 when `whole`)."""
    steps: list[bytes]
    """The steps the storage does not hold yet, packed."""


def changes(table: Table) -> Save:
    """What saving the table now writes: with `whole`, its head and every step; else its new
    steps, and its head only if that changed (seats, phase). Pure: `saved` records the write."""
    steps = _packed(table)
    head = _head(table)
    seed, stored_head, count = table.stored
    if not stored_head or seed != table.server_seed or count > len(steps):
        return Save(whole=True, head=head, head_changed=True, first=0, steps=list(steps))
    return Save(
        whole=False, head=head, head_changed=head != stored_head, first=count, steps=steps[count:]
    )


def saved(table: Table, save: Save) -> None:
    """`save` (from `changes`) is written: later saves append to it."""
    table.stored = (table.server_seed, save.head, save.first + len(save.steps))


def forget(table: Table) -> None:
    """The storage no longer holds the table's state (its game was stored, or it was deleted):
    the next save writes it whole."""
    table.stored = (b"", b"", 0)


def _pack(value: Any) -> bytes:
    data: bytes = msgpack.packb(value, use_bin_type=True)
    return data


def load(blob: bytes, host: TableHost, now: float) -> Table:
    """Rebuild a saved table. Its players are away until they resume; a game in progress
    continues at the start of the step it was in (an open step: at the action it was at).
    `StateError` if the bytes make no table."""
    try:
        values = list(msgpack.Unpacker(io.BytesIO(blob), raw=False))
        data = values[0]
        version = data.get("v")
        if version not in (1, 2, STATE_VERSION):
            raise StateError(f"unknown table state version {version!r}")
        settings = _settings(data["settings"])
        table = Table(data["table_id"], settings, adapter(settings.kind), host, data.get("host"))
        table.quick = bool(data.get("quick"))
        tournament = data.get("tournament")  # absent before; a node that adopts it must know
        table.tournament = tournament if isinstance(tournament, str) else None
        for seat, held in zip(table.seating.seats, data["seats"], strict=True):
            seat.player_id, seat.name = held["player_id"], held["name"]
            if held["bot"]:
                seat.bot, seat.strategy = held["bot"], table.adapter.bot(held["bot"])
        phase = TablePhase(data["phase"])
        table.server_seed = data["server_seed"]
        table.client_seeds = list(data["client_seeds"])
        table.drawn = list(data.get("drawn", [False] * len(table.seating.seats)))
        raw_steps = data["turns"] if "turns" in data else data.get("steps", values[1:])
    except (StateError, TableError):
        raise
    except Exception as exc:  # whatever is wrong with the bytes, say so in one line
        raise StateError(f"unreadable table state: {exc!r}") from None
    if phase in (TablePhase.OPEN, TablePhase.OVER):
        table.phase = TablePhase.OPEN
        return table
    table.now_hint = now
    if phase is TablePhase.SEEDING:
        table.phase = TablePhase.SEEDING
        table.deadline = now + SEED_SECONDS
        return table
    seeds = tuple(s for s in table.client_seeds if s is not None)
    game = table.adapter.rules.new_game(
        table.options, derive_game_seed(table.table_id, table.server_seed, seeds)
    )
    decode = codec(StepRecord, table.wire)[1]
    decode_action = table.wire.codec("action")[1]
    steps = []
    for i, raw in enumerate(raw_steps, 1):
        try:
            step = decode(raw) if version == STATE_VERSION else _old_step(raw, game, decode_action)
            if step.seats != game.to_act() or (step.round, step.turn) != game.position:
                raise ValueError(
                    f"the game is at {game.position} with seats {list(game.to_act())} acting"
                )
            game.step([o.action for o in step.openings])
        except (FieldError, EngineError, KeyError, TypeError, ValueError) as exc:
            raise StateError(f"saved step {i} does not replay: {exc}") from None
        steps.append(step)
    table.game, table.steps = game, steps
    # As if the last step had just ended (for an open step's mover: the turn goes on).
    table.phase = TablePhase.REVEALING if table.adapter.rules.secret else TablePhase.MOVING
    if game.is_terminal():
        table.finish()  # the server died between saving the last step and storing the record
    else:
        table.begin_step(now)
    return table


def _settings(saved: dict[str, Any]) -> TableSettings:
    """The table's settings; protocol 1.0's servers saved one flag per card variant."""
    variants = saved.get("variants")
    if variants is None:
        variants = [k for k in ("pass_both_ways", "dummy", "soy_sauce") if saved.get(k) is True]
    return TableSettings(
        kind=str(saved["kind"]),
        players=int(saved["players"]),
        variants=tuple(variants),
        turn_seconds=int(saved["turn_seconds"]),
    )


def _old_step(raw: Any, game: Any, decode_action: Any) -> StepRecord:
    """A step saved by a protocol 1.0 server: a Sushi Go! turn (every seat acting, with its
    commitments) or a Sushi Roll action (its seat, no position: the game's position now)."""
    if "commitments" in raw:
        return StepRecord(
            round=raw["round"],
            turn=raw["turn"],
            seats=tuple(range(game.players)),
            commitments=tuple(raw["commitments"]),
            openings=tuple(
                Opening(action=decode_action(o["action"]), nonce=o["nonce"], auto=o["auto"])
                for o in raw["openings"]
            ),
        )
    round_, turn = game.position
    return StepRecord(
        round=round_,
        turn=turn,
        seats=(raw["seat"],),
        openings=(Opening(action=decode_action(raw["action"]), auto=bool(raw["auto"])),),
    )
