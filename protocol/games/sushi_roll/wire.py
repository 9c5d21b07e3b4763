"""Sushi Roll's values on the wire (its `protocol.games.Wire`): dice, actions, options,
observations and events.

Built as Sushi Go!'s are (`protocol.games.sushi_go.wire`): a die is ``[kind, face]`` (the engine's
labels), an action the tagged map of `engine.games.sushi_roll` ``to_data`` (``{"type": "reroll",
"dice": [...]}``), an event ``{"event": tag, ...fields}``. Decoders check types, ranges and that an
observation hangs together; whether an action is legal stays the engine's business. Sushi Roll's
steps are open (no commit-reveal), so its actions need no commitment encoding of their own.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Annotated, Any

from sushigo.engine import EngineError
from sushigo.engine.games.sushi_roll import (
    CHOPSTICKS_SUPPLY,
    DICE_PER_PLAYER,
    DIE_FACES,
    MENU_SUPPLY,
    TOTAL_DICE,
    BeltsSlid,
    DiceRolled,
    Die,
    DieKind,
    Face,
    PlayerView,
    Reroll,
    Rerolled,
    RollAction,
    RollEvent,
    RollGame,
    RollObservation,
    RollOptions,
    Swap,
    Swapped,
    Take,
    Taken,
)
from sushigo.engine.games.sushi_roll import GameOver as RollGameOver
from sushigo.engine.games.sushi_roll import RoundPoints as RollRoundPoints
from sushigo.engine.games.sushi_roll import RoundScored as RollRoundScored
from sushigo.engine.games.sushi_roll import RoundStarted as RollRoundStarted
from sushigo.engine.games.sushi_roll.rules import KIND
from sushigo.protocol._codec import FieldError, Range, Size, codec, kind_of, register, struct_codec
from sushigo.protocol._registry import Bytes32, TableId
from sushigo.protocol.commitment import Opening
from sushigo.protocol.errors import ErrorCode
from sushigo.protocol.fairness import (
    MAX_STEPS,
    FairRecord,
    StepRecord,
    derive_game_seed,
    legacy_record,
)
from sushigo.protocol.games import CodecWire, Score, round_scored, tagged_codec

SeatIndex = Annotated[int, Range(0, 4)]


def _bad(message: str) -> FieldError:
    return FieldError(ErrorCode.OUT_OF_RANGE, message)


_MAX_BELT = max(DICE_PER_PLAYER.values())
"""The most dice a belt or a round's tray ever holds (8, in a 2-player game)."""
BeltPosition = Annotated[int, Range(0, _MAX_BELT - 1)]
Cycle = Annotated[int, Range(1, _MAX_BELT)]
_RollSeats = Size(2, 5)
_Dice = Annotated[tuple[Die, ...], Size(0, _MAX_BELT)]
_Tokens = Annotated[int, Range(0, max(MENU_SUPPLY, CHOPSTICKS_SUPPLY))]
_Puddings = Annotated[int, Range(0, 3 * TOTAL_DICE)]
_KIND_BY_LABEL = {kind.label: kind for kind in DieKind}
_FACE_BY_LABEL = {face.label: face for face in Face}


def _encode_die(die: Die) -> list[str]:
    return [die.kind.label, die.face.label]


def _decode_die(value: Any) -> Die:
    if type(value) is not list and type(value) is not tuple:
        raise FieldError(ErrorCode.WRONG_TYPE, f"expected [kind, face], got {kind_of(value)}")
    if len(value) != 2 or type(value[0]) is not str or type(value[1]) is not str:
        raise FieldError(ErrorCode.WRONG_TYPE, "a die is [kind, face], two names")
    kind, face = _KIND_BY_LABEL.get(value[0]), _FACE_BY_LABEL.get(value[1])
    if kind is None or face is None:
        raise FieldError(ErrorCode.OUT_OF_RANGE, f"unknown die kind or face {list(value)!r}")
    if face not in DIE_FACES[kind]:
        raise FieldError(ErrorCode.OUT_OF_RANGE, f"a {kind.label} die has no {face.label} face")
    return Die(kind, face)


register(Die, _encode_die, _decode_die)

_encode_roll_options, _decode_roll_options = struct_codec(
    RollOptions, {"players": Annotated[int, Range(2, 5)]}
)
register(RollOptions, _encode_roll_options, _decode_roll_options)

_ROLL_ACTION_CODECS: dict[type[Any], tuple[str, Any, Any]] = {
    cls: (tag, *struct_codec(cls, hints))
    for cls, tag, hints in (
        (Reroll, "reroll", {"dice": Annotated[tuple[BeltPosition, ...], Size(1, _MAX_BELT)]}),
        (Swap, "swap", {"mine": BeltPosition, "other_seat": SeatIndex, "theirs": BeltPosition}),
        (Take, "take", {"position": BeltPosition}),
    )
}
_ROLL_ACTION_BY_TAG = {tag: dec for tag, _, dec in _ROLL_ACTION_CODECS.values()}


encode_roll_action, decode_roll_action = tagged_codec("type", _ROLL_ACTION_CODECS, "action")
"""``{"type": "reroll", "dice": [positions]}``, ``{"type": "swap", "mine", "other_seat",
"theirs"}`` or ``{"type": "take", "position"}``: the shape of `engine.games.sushi_roll`
``to_data``."""
register(RollAction, encode_roll_action, decode_roll_action)


def _check_player_view(view: PlayerView) -> None:
    if len(set(view.on_wasabi)) != len(view.on_wasabi) or any(
        i >= len(view.tray) or view.tray[i].kind is not DieKind.NIGIRI for i in view.on_wasabi
    ):
        raise _bad("on_wasabi must name distinct nigiri on the tray")
    if view.fresh_menu > view.menu or view.fresh_chopsticks > view.chopsticks:
        raise _bad("more fresh tokens than tokens held")


register(
    PlayerView,
    *struct_codec(
        PlayerView,
        {
            "belt": _Dice,
            "has_red_belt": bool,
            "tray": _Dice,
            "on_wasabi": Annotated[tuple[BeltPosition, ...], Size(0, _MAX_BELT)],
            "open_wasabi": Annotated[int, Range(0, _MAX_BELT)],
            "menu": _Tokens,
            "chopsticks": _Tokens,
            "fresh_menu": _Tokens,
            "fresh_chopsticks": _Tokens,
            "puddings": _Puddings,
            "score": Score,
            "round_scores": Annotated[tuple[Score, ...], Size(0, 3)],
            "taken_this_cycle": bool,
        },
        _check_player_view,
    ),
)


def _check_roll_observation(obs: RollObservation) -> None:
    n = obs.options.players
    k = obs.options.dice_per_player
    if obs.seat is not None and obs.seat >= n:
        raise _bad(f"seat {obs.seat} in a {n}-player game")
    if len(obs.players) != n:
        raise _bad(f"{len(obs.players)} players, expected {n}")
    if obs.red_belt >= n:
        raise _bad(f"red_belt {obs.red_belt} in a {n}-player game")
    if [p.has_red_belt for p in obs.players] != [s == obs.red_belt for s in range(n)]:
        raise _bad("exactly the red_belt seat must have has_red_belt")
    if obs.cycle > k:
        raise _bad(f"cycle {obs.cycle} beyond the {k} dice per player")
    if any(len(p.belt) > k or len(p.tray) > k for p in obs.players):
        raise _bad(f"a belt or tray holds more than {k} dice")
    if not obs.is_over and obs.bag > TOTAL_DICE - n * k:
        raise _bad(f"{obs.bag} dice in the bag")
    if obs.is_over != (obs.to_move is None):
        raise _bad("to_move is nil exactly when the game is over")
    if obs.to_move is not None and obs.to_move >= n:
        raise _bad(f"to_move {obs.to_move} in a {n}-player game")
    ends = n if obs.is_over else 0
    if len(obs.pudding_points) != ends or len(obs.token_bonus) != ends:
        raise _bad("pudding_points and token_bonus are per seat once the game is over, else empty")
    if sum(p.menu for p in obs.players) + obs.menu_supply != MENU_SUPPLY:
        raise _bad("menu tokens held and in the supply do not add up")
    if sum(p.chopsticks for p in obs.players) + obs.chopsticks_supply != CHOPSTICKS_SUPPLY:
        raise _bad("chopsticks tokens held and in the supply do not add up")


_ROLL_OBS_HINTS = {
    "options": RollOptions,
    "seat": SeatIndex | None,
    "round": Annotated[int, Range(1, 3)],
    "cycle": Cycle,
    "to_move": SeatIndex | None,
    "red_belt": SeatIndex,
    "players": Annotated[tuple[PlayerView, ...], _RollSeats],
    "bag": Annotated[int, Range(0, TOTAL_DICE)],
    "menu_supply": _Tokens,
    "chopsticks_supply": _Tokens,
    "is_over": bool,
    "pudding_points": Annotated[tuple[Score, ...], Size(0, 5)],
    "token_bonus": Annotated[tuple[Score, ...], Size(0, 5)],
}
_encode_roll_obs, _decode_roll_obs = struct_codec(
    RollObservation, _ROLL_OBS_HINTS, _check_roll_observation
)
register(RollObservation, _encode_roll_obs, _decode_roll_obs)

register(
    RollRoundPoints,
    *struct_codec(
        RollRoundPoints,
        {
            name: Annotated[int, Range(0, 1000)]
            for name in ("maki", "dumpling", "tempura", "sashimi", "nigiri")
        },
    ),
)

_Round = Annotated[int, Range(1, 3)]
_PerSeat = Size(2, 5)
_ROLL_EVENT_HINTS: dict[type[Any], tuple[str, dict[str, Any]]] = {
    RollRoundStarted: (
        "round_started",
        {"round": _Round, "first_seat": SeatIndex, "dice_per_player": Cycle},
    ),
    DiceRolled: (
        "dice_rolled",
        {"seat": SeatIndex, "dice": _Dice, "cause": Annotated[str, Size(1, 16)]},
    ),
    Rerolled: (
        "rerolled",
        {
            "seat": SeatIndex,
            "positions": Annotated[tuple[BeltPosition, ...], Size(1, _MAX_BELT)],
            "dice": Annotated[tuple[Die, ...], Size(1, _MAX_BELT)],
        },
    ),
    Swapped: (
        "swapped",
        {
            "seat": SeatIndex,
            "mine": BeltPosition,
            "other_seat": SeatIndex,
            "theirs": BeltPosition,
            "received": Die,
            "given": Die,
        },
    ),
    Taken: (
        "taken",
        {
            "seat": SeatIndex,
            "position": BeltPosition,
            "die": Die,
            "on_wasabi": bool,
            "puddings": Annotated[int, Range(0, 3)],
            "menu": Annotated[int, Range(0, 2)],
            "chopsticks": Annotated[int, Range(0, 2)],
        },
    ),
    BeltsSlid: ("belts_slid", {"red_belt": SeatIndex, "between_rounds": bool}),
    RollRoundScored: round_scored(RollRoundPoints, _PerSeat, _Puddings),
    RollGameOver: (
        "game_over",
        {
            "pudding_points": Annotated[tuple[Score, ...], _PerSeat],
            "token_bonus": Annotated[tuple[Score, ...], _PerSeat],
            "totals": Annotated[tuple[Score, ...], _PerSeat],
            "places": Annotated[tuple[Annotated[int, Range(1, 5)], ...], _PerSeat],
            "winners": Annotated[tuple[SeatIndex, ...], Size(1, 5)],
        },
    ),
}


def _check_roll_event(event: Any) -> None:
    if isinstance(event, DiceRolled) and event.cause not in ("round", "slide"):
        raise _bad(f"unknown cause {event.cause!r}")
    if isinstance(event, Rerolled) and len(event.positions) != len(event.dice):
        raise _bad("a re-roll shows one die per position")


_ROLL_EVENT_CODECS = {
    cls: (tag, *struct_codec(cls, hints, _check_roll_event))
    for cls, (tag, hints) in _ROLL_EVENT_HINTS.items()
}
encode_roll_event, decode_roll_event = tagged_codec("event", _ROLL_EVENT_CODECS, "event")
"""A Sushi Roll event as ``{"event": tag, ...its fields}`` (tags: ``round_started``,
``dice_rolled``, ``rerolled``, ``swapped``, ``taken``, ``belts_slid``, ``round_scored``,
``game_over``)."""
register(RollEvent, encode_roll_event, decode_roll_event)


ROLL_WIRE = CodecWire(
    KIND,
    {
        "options": codec(RollOptions),
        "action": codec(RollAction),
        "observation": codec(RollObservation),
        "event": codec(RollEvent),
    },
)
"""Sushi Roll's wire."""


# -- records of protocol 1.0 ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class _StepV1:
    seat: SeatIndex
    action: RollAction
    auto: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class _RecordV1:
    table_id: TableId
    options: RollOptions
    server_seed: Bytes32
    server_seed_hash: Bytes32
    client_seeds: Annotated[tuple[Bytes32, ...], Size(2, 5)]
    steps: Annotated[tuple[_StepV1, ...], Size(0, MAX_STEPS)]
    scores: Annotated[tuple[Score, ...], Size(2, 5)]


def read_v1_record(value: dict[str, Any]) -> FairRecord:
    """A Sushi Roll record signed by a protocol 1.0 server (``"format": "sushigo-roll-record"``,
    version 1: each action with its seat, no positions) as a `FairRecord`; `FieldError` naming what
    is wrong. Each step's round and cycle are the replay's as far as the actions replay (a step
    that does not keeps the last position, and `verify_record` names it)."""
    old: _RecordV1 = codec(_RecordV1, ROLL_WIRE)[1](value)
    game = RollGame(old.options, derive_game_seed(old.table_id, old.server_seed, old.client_seeds))
    steps = []
    for step in old.steps:
        round_, turn = game.position
        steps.append(
            StepRecord(
                round=round_,
                turn=turn,
                seats=(step.seat,),
                openings=(Opening(action=step.action, auto=step.auto),),
            )
        )
        if not game.is_terminal():
            with contextlib.suppress(EngineError):
                game.apply(step.seat, step.action)
    return legacy_record(KIND, old, tuple(steps))
