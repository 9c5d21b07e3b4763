"""Tables as bytes and back: what the server saves at every turn boundary to survive a crash.

A game is saved as its seeds and every turn's commitments and openings: the engine replays it to
the exact same hands, tableaus and scores, so nothing derived is stored. A game that was mid-turn
when the server died resumes at the start of that turn.
"""

from __future__ import annotations

import io
from typing import Any

import msgpack

from engine import Action, Game
from protocol import GameKind, Opening, TableSettings, TurnRecord, derive_game_seed

from .table import SEED_SECONDS, Table, TableHost, TablePhase

STATE_VERSION = 2
"""2: a msgpack stream (header, then one value per turn); 1: one map with every turn."""


class StateError(ValueError):
    """A saved table that cannot be read back."""


def _header(table: Table) -> dict[str, Any]:
    """Everything but the turns."""
    settings = table.settings
    return {
        "v": STATE_VERSION,
        "table_id": table.table_id,
        "settings": {
            "kind": str(settings.kind),
            "players": settings.players,
            "pass_both_ways": settings.pass_both_ways,
            "dummy": settings.dummy,
            "soy_sauce": settings.soy_sauce,
            "turn_seconds": settings.turn_seconds,
        },
        "host": table.host_player,
        "quick": table.quick,
        "seats": [
            {"player_id": seat.player_id, "name": seat.name, "bot": seat.bot}
            for seat in table.seats
        ],
        "phase": str(table.phase),
        "server_seed": table.server_seed,
        "client_seeds": list(table.client_seeds),
    }


def _turn(t: TurnRecord) -> dict[str, Any]:
    return {
        "round": t.round,
        "turn": t.turn,
        "commitments": list(t.commitments),
        "openings": [
            {"action": o.action.to_data(), "nonce": o.nonce, "auto": o.auto} for o in t.openings
        ],
    }


def table_state(table: Table) -> dict[str, Any]:
    """The table as plain data."""
    return {**_header(table), "turns": [_turn(t) for t in table.turns]}


def dump(table: Table) -> bytes:
    """The table's saved bytes: a msgpack stream of the header, then one value per turn.

    Saved at every turn boundary, so each turn is packed once (kept on the table, per game) and
    only the small header is packed again: the cost of a save does not grow with the game.
    """
    packed = table.packed_turns
    if packed[0] != table.server_seed or len(packed[1]) > len(table.turns):
        packed = table.packed_turns = (table.server_seed, [])
    turns = packed[1]
    turns.extend(_pack(_turn(t)) for t in table.turns[len(turns) :])
    return _pack(_header(table)) + b"".join(turns)


def _pack(value: Any) -> bytes:
    data: bytes = msgpack.packb(value, use_bin_type=True)
    return data


def load(blob: bytes, host: TableHost, now: float) -> Table:
    """Rebuild a saved table. Its players are away until they resume; a game in progress
    continues at the start of the turn it was in. `StateError` if the bytes make no table."""
    try:
        values = list(msgpack.Unpacker(io.BytesIO(blob), raw=False))
        data = values[0]
        if "turns" not in data:
            data["turns"] = values[1:]
        if data.get("v") not in (1, STATE_VERSION):
            raise StateError(f"unknown table state version {data.get('v')!r}")
        saved = dict(data["settings"])
        saved["kind"] = GameKind(saved["kind"])  # msgpack gives back the plain str
        table = Table(data["table_id"], TableSettings(**saved), host, data.get("host"))
        table.quick = bool(data.get("quick"))
        for seat, held in zip(table.seats, data["seats"], strict=True):
            seat.player_id, seat.name = held["player_id"], held["name"]
            if held["bot"]:
                seat.bot, seat.strategy = held["bot"], host.make_bot(held["bot"])
        phase = TablePhase(data["phase"])
        table.server_seed = data["server_seed"]
        table.client_seeds = list(data["client_seeds"])
        table.turns = [
            TurnRecord(
                round=t["round"],
                turn=t["turn"],
                commitments=tuple(t["commitments"]),
                openings=tuple(
                    Opening(action=Action.from_data(o["action"]), nonce=o["nonce"], auto=o["auto"])
                    for o in t["openings"]
                ),
            )
            for t in data["turns"]
        ]
    except StateError:
        raise
    except Exception as exc:  # whatever is wrong with the bytes, say so in one line
        raise StateError(f"unreadable table state: {exc!r}") from None
    if phase in (TablePhase.OPEN, TablePhase.OVER):
        table.phase = TablePhase.OPEN
        return table
    table._now_hint = now
    if phase is TablePhase.SEEDING:
        table.phase = TablePhase.SEEDING
        table.deadline = now + SEED_SECONDS
        return table
    seeds = tuple(s for s in table.client_seeds if s is not None)
    game = Game(table.options, derive_game_seed(table.table_id, table.server_seed, seeds))
    for t in table.turns:
        game.apply([o.action for o in t.openings])
    table.game = game
    table.phase = TablePhase.REVEALING  # as if the last turn had just been revealed
    if game.is_terminal():
        table.finish()  # the server died between saving the last turn and storing the record
    else:
        table._begin_turn(now)
    return table
