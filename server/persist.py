"""Tables as bytes and back: what the server saves at every turn boundary to survive a crash.

A game is saved as its seeds and every turn's commitments and openings: the engine replays it to
the exact same hands, tableaus and scores, so nothing derived is stored. A game that was mid-turn
when the server died resumes at the start of that turn.

A Sushi Roll table (``settings.kind == "sushi-roll"``) is saved the same way with its actions
(steps) in place of turns, after every action: the engine replays them to the exact same dice, so
a game resumes at the very action it was at, re-rolls and swaps of the turn included. Card tables'
states are unchanged (still loaded from versions 1 and 2).

The storage keeps a state in parts (`changes`): the header, rewritten only when it changes, and
one value per turn, appended as it is played, so a save writes only the new turn's bytes. What
it loads back is the header and the turns joined, which is exactly the stream `dump` makes.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any, NamedTuple

import msgpack

from sushigo.engine import Action, EngineError, Game
from sushigo.engine.roll import RollGame, action_from_data
from sushigo.protocol import (
    GameKind,
    Opening,
    RollStep,
    TableSettings,
    TurnRecord,
    derive_game_seed,
)
from sushigo.protocol.records import turn_record_bytes

from .roll_table import RollPhase, RollTable
from .table import SEED_SECONDS, Table, TablePhase

if TYPE_CHECKING:
    from .hub import Hub
    from .tables import AnyTable

STATE_VERSION = 2
"""2: a msgpack stream (header, then one value per turn); 1: one map with every turn."""


class StateError(ValueError):
    """A saved table that cannot be read back."""


def _header(table: AnyTable) -> dict[str, Any]:
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


def _step(step: RollStep) -> dict[str, Any]:
    return {"seat": step.seat, "action": step.action.to_data(), "auto": step.auto}


def table_state(table: AnyTable) -> dict[str, Any]:
    """The table as plain data."""
    if isinstance(table, RollTable):
        return {**_header(table), "steps": [_step(s) for s in table.steps]}
    return {**_header(table), "turns": [_turn(t) for t in table.turns]}


def dump(table: AnyTable) -> bytes:
    """The table's saved bytes: a msgpack stream of the header, then one value per turn (per
    action for Sushi Roll)."""
    return _pack(_header(table)) + b"".join(_packed(table))


def _head(table: AnyTable) -> bytes:
    """The header's bytes (`_header` packed), packed again only when something in it changed:
    a table saves at every turn, and its header changes a few times a game."""
    key = (
        table.host_player,
        table.quick,
        table.phase,
        table.server_seed,
        tuple(table.client_seeds),
        tuple([(seat.player_id, seat.name, seat.bot) for seat in table.seats]),
    )
    cached = table.packed_head
    if cached[0] != key:
        cached = table.packed_head = (key, _pack(_header(table)))
    return cached[1]


def _packed(table: AnyTable) -> list[bytes]:
    """This game's turns (Sushi Roll: actions) as saved: each packed once, kept on the table
    (per game), so the cost of a save does not grow with the game."""
    if isinstance(table, RollTable):
        cache = table.packed_steps
        if cache[0] != table.server_seed or len(cache[1]) > len(table.steps):
            cache = table.packed_steps = (table.server_seed, [])
        steps = cache[1]
        steps.extend(_pack(_step(s)) for s in table.steps[len(steps) :])
        return steps
    packed = table.packed_turns
    if packed[0] != table.server_seed or len(packed[1]) > len(table.turns):
        packed = table.packed_turns = (table.server_seed, [])
    turns = packed[1]
    # A turn is saved as the record's canonical bytes of it (the same map as `_turn`, its keys
    # sorted), so the signed record at the game's end is put together from these.
    turns.extend(map(turn_record_bytes, table.turns[len(turns) :]))
    return turns


class Save(NamedTuple):
    """What a save must write to bring the stored state of a table up to date (`changes`)."""

    whole: bool
    """The storage holds nothing of this game (a new game, or a table never saved by this
    process): write `head` and every turn, replacing whatever is stored."""
    head: bytes
    """The header's bytes."""
    head_changed: bool
    """`head` differs from the stored one (always true when `whole`)."""
    first: int
    """The number of the first turn in `turns` (0 when `whole`)."""
    turns: list[bytes]
    """The turns the storage does not hold yet, packed."""


def changes(table: AnyTable) -> Save:
    """What saving the table now writes: with `whole`, its head and every turn; else its new
    turns, and its head only if that changed (seats, phase). Pure: `saved` records the write."""
    turns = _packed(table)
    head = _head(table)
    seed, stored_head, count = table.stored
    if not stored_head or seed != table.server_seed or count > len(turns):
        return Save(whole=True, head=head, head_changed=True, first=0, turns=list(turns))
    return Save(
        whole=False,
        head=head,
        head_changed=head != stored_head,
        first=count,
        turns=turns[count:],
    )


def saved(table: AnyTable, save: Save) -> None:
    """`save` (from `changes`) is written: later saves append to it."""
    table.stored = (table.server_seed, save.head, save.first + len(save.turns))


def forget(table: AnyTable) -> None:
    """The storage no longer holds the table's state (its game was stored, or it was deleted):
    the next save writes it whole."""
    table.stored = (b"", b"", 0)


def _pack(value: Any) -> bytes:
    data: bytes = msgpack.packb(value, use_bin_type=True)
    return data


def load(blob: bytes, host: Hub, now: float) -> AnyTable:
    """Rebuild a saved table. Its players are away until they resume; a game in progress
    continues at the start of the turn it was in (Sushi Roll: at the action it was at).
    `StateError` if the bytes make no table."""
    try:
        values = list(msgpack.Unpacker(io.BytesIO(blob), raw=False))
        data = values[0]
        if data.get("v") not in (1, STATE_VERSION):
            raise StateError(f"unknown table state version {data.get('v')!r}")
        saved = dict(data["settings"])
        saved["kind"] = GameKind(saved["kind"])  # msgpack gives back the plain str
        settings = TableSettings(**saved)
    except StateError:
        raise
    except Exception as exc:  # whatever is wrong with the bytes, say so in one line
        raise StateError(f"unreadable table state: {exc!r}") from None
    if settings.kind == GameKind.SUSHI_ROLL:
        return _load_roll(data, values[1:], settings, host, now)
    return _load_card(data, values[1:], settings, host, now)


def _load_card(
    data: dict[str, Any], rest: list[Any], settings: TableSettings, host: Hub, now: float
) -> Table:
    try:
        if "turns" not in data:
            data["turns"] = rest
        table = Table(data["table_id"], settings, host, data.get("host"))
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


def _load_roll(
    data: dict[str, Any], rest: list[Any], settings: TableSettings, host: Hub, now: float
) -> RollTable:
    try:
        table = RollTable(data["table_id"], settings, host, data.get("host"))
        table.quick = bool(data.get("quick"))
        for seat, held in zip(table.seats, data["seats"], strict=True):
            seat.player_id, seat.name = held["player_id"], held["name"]
            if held["bot"]:
                seat.bot = held["bot"]
                table.strategies[seat.index] = host.make_roll_bot(held["bot"])
        phase = RollPhase(data["phase"])
        table.server_seed = data["server_seed"]
        table.client_seeds = list(data["client_seeds"])
        steps = [
            RollStep(seat=s["seat"], action=action_from_data(s["action"]), auto=bool(s["auto"]))
            for s in data.get("steps", rest)
        ]
    except Exception as exc:  # whatever is wrong with the bytes, say so in one line
        raise StateError(f"unreadable table state: {exc!r}") from None
    if phase in (RollPhase.OPEN, RollPhase.OVER):
        table.phase = RollPhase.OPEN
        return table
    table._now_hint = now
    if phase is RollPhase.SEEDING:
        table.phase = RollPhase.SEEDING
        table.deadline = now + SEED_SECONDS
        return table
    seeds = tuple(s for s in table.client_seeds if s is not None)
    game = RollGame(table.options, derive_game_seed(table.table_id, table.server_seed, seeds))
    for i, step in enumerate(steps, 1):
        try:
            game.apply(step.seat, step.action)
        except EngineError as exc:
            raise StateError(f"saved action {i} does not replay: {exc}") from None
    table.game, table.steps = game, steps
    table.phase = RollPhase.MOVING
    if game.is_terminal():
        table.finish()  # the server died between saving the last action and storing the record
    else:
        table.resume_turn(now)
    return table
