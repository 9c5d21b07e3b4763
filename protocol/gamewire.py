"""Engine values on the wire: cards, actions, options, observations and events, of both games.

The encodings are plain msgpack data built from the engine's own names (``Card.label``), so a bot
in any language can read them from docs/PROTOCOL.md. The decoders are the client's boundary: they
check every field's type and range and that an observation hangs together (one tableau per seat
plus the dummy's, the hand's size matching its tableau's count, wasabi placements matching the
cards), so the code behind them can trust what it holds. The observation of a seat carries exactly
what `engine.Game.observation(seat)` gives, nothing more.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgpack

from sushigo.engine import (
    Action,
    Card,
    ChopsticksReturned,
    Event,
    GameOptions,
    GameOver,
    Observation,
    PicksRevealed,
    RoundPoints,
    RoundScored,
    RoundStarted,
    TableauView,
    WasabiUsed,
)
from sushigo.engine.cards import HAND_SIZES
from sushigo.engine.observation import wasabi_placements
from sushigo.engine.roll import (
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
    RollObservation,
    RollOptions,
    Swap,
    Swapped,
    Take,
    Taken,
)
from sushigo.engine.roll import GameOver as RollGameOver
from sushigo.engine.roll import RoundPoints as RollRoundPoints
from sushigo.engine.roll import RoundScored as RollRoundScored
from sushigo.engine.roll import RoundStarted as RollRoundStarted

from ._codec import (
    PACKED_BOOL,
    PACKED_SMALL,
    FieldError,
    Range,
    Size,
    codec,
    kind_of,
    packed_int,
    register,
    struct_codec,
)
from ._codec import array_header as _array_header
from .errors import ErrorCode, RemoteProtocolError

__all__ = [
    "decode_action",
    "decode_event",
    "decode_observation",
    "decode_options",
    "decode_roll_action",
    "decode_roll_event",
    "decode_roll_observation",
    "decode_roll_options",
    "encode_action",
    "encode_event",
    "encode_observation",
    "encode_options",
    "encode_roll_action",
    "encode_roll_event",
    "encode_roll_observation",
    "encode_roll_options",
    "packed_action",
]

_pack = msgpack.Packer(use_bin_type=True, autoreset=True).pack
_MAX_HAND = max(HAND_SIZES.values()) + 1  # the dummy's controller holds one drawn card more
Score = Annotated[int, Range(-10_000, 10_000)]
Small = Annotated[int, Range(0, 64)]
SeatIndex = Annotated[int, Range(0, 4)]
TableauIndex = Annotated[int, Range(0, 5)]


# -- cards and actions -------------------------------------------------------------------------

_LABEL = {card: card.label for card in Card}
_BY_LABEL = {label: card for card, label in _LABEL.items()}


def _decode_card(value: Any) -> Card:
    if type(value) is not str:
        raise FieldError(ErrorCode.WRONG_TYPE, f"expected a card name, got {kind_of(value)}")
    try:
        return _BY_LABEL[value]
    except KeyError:
        raise FieldError(ErrorCode.OUT_OF_RANGE, f"unknown card {value!r}") from None


# A card encodes as its label: the dict's own lookup, with no Python call around it.
register(Card, _LABEL.__getitem__, _decode_card)


def encode_action(action: Action) -> dict[str, Any]:
    """``{"cards": [name] or [first, second]}``, plus ``"dummy": name`` for a dummy pick.

    The same shape as `engine.Action.to_data`, so records and messages agree.
    """
    first, second, dummy = action
    out: dict[str, Any] = {
        "cards": [_LABEL[first]] if second is None else [_LABEL[first], _LABEL[second]]
    }
    if dummy is not None:
        out["dummy"] = _LABEL[dummy]
    return out


_packed_actions: dict[Action, bytes] = {}
"""Each action met so far, packed (a few hundred distinct actions at most)."""


def packed_action(action: Action) -> bytes:
    """``msgpack.packb(encode_action(action))``, kept per action (its keys are in sorted order,
    so these are also the canonical bytes a record holds)."""
    packed = _packed_actions.get(action)
    if packed is None:
        if len(_packed_actions) >= 4096:  # pragma: no cover - far more than the cards can make
            _packed_actions.clear()
        packed = _packed_actions[action] = _pack(encode_action(action))
    return packed


_SINGLE = {label: Action(card) for card, label in _LABEL.items()}
"""The action of taking one card, by the card's name: most actions, made once."""


def _decode_action(value: Any) -> Action:
    if type(value) is not dict:
        raise FieldError(ErrorCode.WRONG_TYPE, f"expected a map, got {kind_of(value)}")
    cards = value.get("cards")
    if type(cards) is list and len(cards) == 1 and value.get("dummy") is None:
        single = _SINGLE.get(cards[0]) if type(cards[0]) is str else None
        if single is not None:  # one known card, no dummy pick: the common case
            return single
    if cards is None:
        err = FieldError(ErrorCode.MISSING_FIELD, "required field is missing")
        err.path.append("cards")
        raise err
    try:
        if type(cards) is not list:
            raise FieldError(ErrorCode.WRONG_TYPE, f"expected an array, got {kind_of(cards)}")
        if not 1 <= len(cards) <= 2:
            raise FieldError(ErrorCode.OUT_OF_RANGE, f"{len(cards)} cards: an action takes 1 or 2")
        picks = []
        for i, c in enumerate(cards):
            try:
                picks.append(_decode_card(c))
            except FieldError as exc:
                exc.path.insert(0, f"[{i}]")
                raise
    except FieldError as exc:
        exc.path.insert(0, "cards")
        raise
    dummy = value.get("dummy")
    try:
        dummy_card = None if dummy is None else _decode_card(dummy)
    except FieldError as exc:
        exc.path.insert(0, "dummy")
        raise
    return Action(picks[0], picks[1] if len(picks) == 2 else None, dummy_card)


register(Action, encode_action, _decode_action)


# -- options ------------------------------------------------------------------------------------

_encode_options, _decode_options = struct_codec(
    GameOptions,
    {
        "players": Annotated[int, Range(2, 5)],
        "pass_both_ways": bool,
        "dummy": bool,
        "soy_sauce": bool,
    },
)
register(GameOptions, _encode_options, _decode_options)


# -- observations ------------------------------------------------------------------------------


def _check_tableau(view: TableauView) -> None:
    on, open_wasabi = wasabi_placements(view.cards)
    if on != view.on_wasabi or open_wasabi != view.open_wasabi:
        raise FieldError(ErrorCode.OUT_OF_RANGE, "wasabi placements do not match the cards")


_TABLEAU_HINTS = {
    "cards": Annotated[tuple[Card, ...], Size(0, 40)],
    "on_wasabi": Annotated[tuple[Card, ...], Size(0, 40)],
    "open_wasabi": Small,
    "puddings": Small,
    "score": Score,
    "round_scores": Annotated[tuple[Score, ...], Size(0, 3)],
    "hand_size": Annotated[int, Range(0, _MAX_HAND)],
    "chopsticks_ready": bool,
    "is_dummy": bool,
}
register(TableauView, *struct_codec(TableauView, _TABLEAU_HINTS, _check_tableau))


def _bad(message: str) -> FieldError:
    return FieldError(ErrorCode.OUT_OF_RANGE, message)


def _check_observation(obs: Observation) -> None:
    opts = obs.options
    n = opts.players
    if obs.seat is not None and obs.seat >= n:
        raise _bad(f"seat {obs.seat} in a {n}-player game")
    if len(obs.tableaus) != opts.tableaus:
        raise _bad(f"{len(obs.tableaus)} tableaus, expected {opts.tableaus}")
    for i, view in enumerate(obs.tableaus):
        if view.is_dummy != (i == n):
            raise _bad(f"tableau {i}: is_dummy must be {i == n}")
    if obs.pass_direction not in (1, -1):
        raise _bad("pass_direction must be 1 or -1")
    if obs.turn > opts.hand_size:
        raise _bad(f"turn {obs.turn} beyond the hand size {opts.hand_size}")
    if obs.dummy_controller is not None and (not opts.dummy or obs.dummy_controller >= n):
        raise _bad("a dummy controller without the dummy variant, or not a seat")
    if list(obs.hand) != sorted(obs.hand):
        raise _bad("the hand must be sorted by card value")
    if obs.seat is None:
        if obs.hand:
            raise _bad("a spectator's observation has no hand")
    elif len(obs.hand) != obs.tableaus[obs.seat].hand_size:
        raise _bad("the hand does not hold its tableau's hand_size cards")


_OBS_HINTS = {
    "options": GameOptions,
    "seat": SeatIndex | None,
    "round": Annotated[int, Range(1, 3)],
    "turn": Annotated[int, Range(1, _MAX_HAND)],
    "hand": Annotated[tuple[Card, ...], Size(0, _MAX_HAND)],
    "tableaus": Annotated[tuple[TableauView, ...], Size(2, 6)],
    "pass_direction": Annotated[int, Range(-1, 1)],
    "dummy_controller": SeatIndex | None,
    "is_over": bool,
}
_encode_obs, _decode_obs = struct_codec(Observation, _OBS_HINTS, _check_observation)
register(Observation, _encode_obs, _decode_obs)


def _require_order(hints: dict[str, Any], names: str, writer: str) -> None:
    """Fail at import if a codec's fields are not in the order `writer` packs them by hand."""
    if list(hints) != names.split():  # pragma: no cover - a guard for whoever edits the fields
        raise AssertionError(f"{writer} is out of step with the fields {list(hints)}")


_OBS_KEYS = {name: _pack(name) for name in _OBS_HINTS}
_require_order(
    _OBS_HINTS,
    "options seat round turn hand tableaus pass_direction dummy_controller is_over",
    "packed_observation",
)
_OBS_HEAD = bytes((0x80 | len(_OBS_HINTS),))
_encode_game_options = codec(GameOptions)[0]
_packed_turn: tuple[Any, Any, bytes] = ((), (), b"")
"""The last observation's shared part packed (its tableaus, pass direction, dummy controller and
whether the game is over): every seat's observation of a turn holds the engine's same tableaus."""
_packed_options: dict[GameOptions, bytes] = {}
_last_options: tuple[GameOptions | None, bytes] = (None, b"")
_SMALL, _BOOL, _int = PACKED_SMALL, PACKED_BOOL, packed_int
"""Small ints and bools packed by lookup (see `protocol._codec.PACKED_SMALL`)."""
_CARD_BYTES = {card: _pack(label) for card, label in _LABEL.items()}
"""Each card's label, packed."""
_TABLEAU_KEYS = tuple(_pack(name) for name in _TABLEAU_HINTS)
_require_order(
    _TABLEAU_HINTS,
    "cards on_wasabi open_wasabi puddings score round_scores hand_size chopsticks_ready is_dummy",
    "_packed_tableau",
)


_card_bytes = _CARD_BYTES.__getitem__


def _packed_cards(cards: tuple[Card, ...]) -> bytes:
    """``msgpack.packb([card labels])``, byte for byte, from each card's packed label."""
    return _array_header(len(cards)) + b"".join(map(_card_bytes, cards))


def _packed_tableau(view: TableauView) -> bytes:
    """``msgpack.packb(encode(view))`` of a tableau view, byte for byte, built directly."""
    k_cards, k_wasabi, k_open, k_puddings, k_score, k_rounds, k_hand, k_chop, k_dummy = (
        _TABLEAU_KEYS
    )
    return b"".join(
        (
            b"\x89",
            k_cards,
            _packed_cards(view.cards),
            k_wasabi,
            _packed_cards(view.on_wasabi),
            k_open,
            _SMALL[view.open_wasabi],  # counts of cards: 0-64 (see _TABLEAU_HINTS)
            k_puddings,
            _SMALL[view.puddings],
            k_score,
            _int(view.score),
            k_rounds,
            _pack(view.round_scores),
            k_hand,
            _SMALL[view.hand_size],
            k_chop,
            _BOOL[view.chopsticks_ready],
            k_dummy,
            _BOOL[view.is_dummy],
        )
    )


def packed_observation(obs: Observation) -> bytes:
    """``msgpack.packb(encode_observation(obs))``, byte for byte, built faster.

    The server sends one observation to every seat each turn, and all of them hold the same
    tableaus (the engine builds them once per turn): the part after the hand (tableaus, pass
    direction, dummy controller, over) is packed once and reused while the next observation holds
    the very same tuple and the same values. Observations are immutable, so identity is enough.
    """
    global _packed_turn  # noqa: PLW0603  (a one-entry cache)
    views = obs.tableaus
    shared = (obs.pass_direction, obs.dummy_controller, obs.is_over)
    cached = _packed_turn
    if cached[0] is views and cached[1] == shared:
        tail = cached[2]
    else:
        k = _OBS_KEYS
        tail = b"".join(
            (
                k["tableaus"],
                _array_header(len(views)),
                *map(_packed_tableau, views),
                k["pass_direction"],
                _int(obs.pass_direction),
                k["dummy_controller"],
                b"\xc0" if obs.dummy_controller is None else _int(obs.dummy_controller),
                k["is_over"],
                _BOOL[obs.is_over],
            )
        )
        _packed_turn = (views, shared, tail)
    global _last_options  # noqa: PLW0603  (a one-entry cache, by identity: the seats' in a row)
    last = _last_options
    if last[0] is obs.options:
        options = last[1]
    else:
        known = _packed_options.get(obs.options)  # (a dataclass's hash: a Python call)
        if known is None:
            if len(_packed_options) >= 64:  # pragma: no cover - there are 16 option sets a size
                _packed_options.clear()
            known = _packed_options[obs.options] = _pack(_encode_game_options(obs.options))
        options = known
        _last_options = (obs.options, options)
    return b"".join(
        (
            _OBS_HEAD,
            _K_OPTIONS,
            options,
            _K_SEAT,
            b"\xc0" if obs.seat is None else _SMALL[obs.seat],
            _K_ROUND,
            _SMALL[obs.round],
            _K_TURN,
            _SMALL[obs.turn],
            _K_HAND,
            _packed_cards(obs.hand),
            tail,
        )
    )


_K_OPTIONS, _K_SEAT, _K_ROUND, _K_TURN, _K_HAND = (
    _OBS_KEYS[name] for name in ("options", "seat", "round", "turn", "hand")
)


# -- events -------------------------------------------------------------------------------------

register(
    RoundPoints,
    *struct_codec(
        RoundPoints,
        {
            name: Annotated[int, Range(0, 1000)]
            for name in ("maki", "tempura", "sashimi", "dumpling", "nigiri", "soy_sauce")
        },
    ),
)

_Tableaus = Size(2, 6)
_EVENT_HINTS: dict[type[Any], tuple[str, dict[str, Any]]] = {
    RoundStarted: (
        "round_started",
        {
            "round": Annotated[int, Range(1, 3)],
            "hand_size": Annotated[int, Range(1, _MAX_HAND)],
            "pass_direction": Annotated[int, Range(-1, 1)],
        },
    ),
    PicksRevealed: (
        "picks_revealed",
        {
            "round": Annotated[int, Range(1, 3)],
            "turn": Annotated[int, Range(1, _MAX_HAND)],
            "actions": Annotated[tuple[Action, ...], Size(2, 5)],
            "dummy_controller": SeatIndex | None,
        },
    ),
    WasabiUsed: ("wasabi_used", {"tableau": TableauIndex, "card": Card}),
    ChopsticksReturned: ("chopsticks_returned", {"seat": SeatIndex}),
    RoundScored: (
        "round_scored",
        {
            "round": Annotated[int, Range(1, 3)],
            "points": Annotated[tuple[RoundPoints, ...], _Tableaus],
            "totals": Annotated[tuple[Score, ...], _Tableaus],
            "puddings": Annotated[tuple[Small, ...], _Tableaus],
        },
    ),
    GameOver: (
        "game_over",
        {
            "pudding_points": Annotated[tuple[Score, ...], _Tableaus],
            "totals": Annotated[tuple[Score, ...], _Tableaus],
            "places": Annotated[tuple[Annotated[int, Range(1, 5)], ...], Size(2, 5)],
            "winners": Annotated[tuple[SeatIndex, ...], Size(1, 5)],
        },
    ),
}
_EVENT_CODECS = {
    cls: (tag, *struct_codec(cls, hints)) for cls, (tag, hints) in _EVENT_HINTS.items()
}
_EVENT_BY_TAG = {tag: dec for tag, _, dec in _EVENT_CODECS.values()}


def encode_event(event: Event) -> dict[str, Any]:
    """An engine event as a map: ``{"event": tag, ...its fields}`` (tags: ``round_started``,
    ``picks_revealed``, ``wasabi_used``, ``chopsticks_returned``, ``round_scored``, ``game_over``)."""
    tag, enc, _ = _EVENT_CODECS[type(event)]
    out: dict[str, Any] = {"event": tag}
    out.update(enc(event))
    return out


def _decode_event(value: Any) -> Event:
    if type(value) is not dict:
        raise FieldError(ErrorCode.WRONG_TYPE, f"expected a map, got {kind_of(value)}")
    tag = value.get("event")
    dec = _EVENT_BY_TAG.get(tag) if type(tag) is str else None
    if dec is None:
        err = FieldError(ErrorCode.OUT_OF_RANGE, f"unknown event {tag!r}")
        err.path.append("event")
        raise err
    event: Event = dec(value)
    return event


register(Event, encode_event, _decode_event)


# -- public helpers raising protocol errors ----------------------------------------------------


def _wrap(decoder: Any, value: Any, what: str) -> Any:
    try:
        return decoder(value)
    except FieldError as exc:
        raise RemoteProtocolError(
            exc.code, f"{what}.{exc.where()}: {exc.message}", fatal=False
        ) from None


def encode_observation(observation: Observation) -> dict[str, Any]:
    """An engine observation as plain msgpack data (the field names of `engine.Observation`)."""
    out: dict[str, Any] = _encode_obs(observation)
    return out


def decode_observation(value: Any) -> Observation:
    """Validate plain data into an `engine.Observation`; `RemoteProtocolError` naming the field."""
    obs: Observation = _wrap(_decode_obs, value, "observation")
    return obs


def decode_event(value: Any) -> Event:
    """Validate plain data into an engine event; `RemoteProtocolError` naming the field."""
    event: Event = _wrap(_decode_event, value, "event")
    return event


def decode_action(value: Any) -> Action:
    """Validate plain data into an `engine.Action` (its legality is the engine's business)."""
    action: Action = _wrap(_decode_action, value, "action")
    return action


def encode_options(options: GameOptions) -> dict[str, Any]:
    """Game options as ``{"players", "pass_both_ways", "dummy", "soy_sauce"}``."""
    out: dict[str, Any] = _encode_options(options)
    return out


def decode_options(value: Any) -> GameOptions:
    """Validate plain data into `engine.GameOptions` (all four fields required)."""
    options: GameOptions = _wrap(_decode_options, value, "options")
    return options


# Resolve the tuple-of-card codec eagerly so a schema error shows at import, not mid-game.
codec(Annotated[tuple[Card, ...], Size(0, _MAX_HAND)])


# == Sushi Roll ==================================================================================
#
# The dice game's values, built the same way: a die is ``[kind, face]`` (the engine's labels), an
# action the tagged map of `engine.roll` ``to_data`` (``{"type": "reroll", "dice": [...]}``), an
# event ``{"event": tag, ...fields}``. Decoders check types, ranges and that an observation hangs
# together; whether an action is legal stays the engine's business.

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


def encode_roll_action(action: RollAction) -> dict[str, Any]:
    """``{"type": "reroll", "dice": [positions]}``, ``{"type": "swap", "mine", "other_seat",
    "theirs"}`` or ``{"type": "take", "position"}``: the shape of `engine.roll` ``to_data``."""
    tag, enc, _ = _ROLL_ACTION_CODECS[type(action)]
    out: dict[str, Any] = {"type": tag}
    out.update(enc(action))
    return out


def _tagged(value: Any, key: str, by_tag: dict[str, Any], what: str) -> Any:
    if type(value) is not dict:
        raise FieldError(ErrorCode.WRONG_TYPE, f"expected a map, got {kind_of(value)}")
    tag = value.get(key)
    dec = by_tag.get(tag) if type(tag) is str else None
    if dec is None:
        err = FieldError(
            ErrorCode.MISSING_FIELD if tag is None else ErrorCode.OUT_OF_RANGE,
            "required field is missing" if tag is None else f"unknown {what} {tag!r}",
        )
        err.path.append(key)
        raise err
    return dec(value)


def _decode_roll_action(value: Any) -> RollAction:
    action: RollAction = _tagged(value, "type", _ROLL_ACTION_BY_TAG, "action")
    return action


register(RollAction, encode_roll_action, _decode_roll_action)


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
    RollRoundScored: (
        "round_scored",
        {
            "round": _Round,
            "points": Annotated[tuple[RollRoundPoints, ...], _PerSeat],
            "totals": Annotated[tuple[Score, ...], _PerSeat],
            "puddings": Annotated[tuple[_Puddings, ...], _PerSeat],
        },
    ),
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
_ROLL_EVENT_BY_TAG = {tag: dec for tag, _, dec in _ROLL_EVENT_CODECS.values()}


def encode_roll_event(event: RollEvent) -> dict[str, Any]:
    """A Sushi Roll event as ``{"event": tag, ...its fields}`` (tags: ``round_started``,
    ``dice_rolled``, ``rerolled``, ``swapped``, ``taken``, ``belts_slid``, ``round_scored``,
    ``game_over``). The same tags as the card game's where the meaning matches; a message says
    which game its events belong to."""
    tag, enc, _ = _ROLL_EVENT_CODECS[type(event)]
    out: dict[str, Any] = {"event": tag}
    out.update(enc(event))
    return out


def _decode_roll_event(value: Any) -> RollEvent:
    event: RollEvent = _tagged(value, "event", _ROLL_EVENT_BY_TAG, "event")
    return event


register(RollEvent, encode_roll_event, _decode_roll_event)


def encode_roll_observation(observation: RollObservation) -> dict[str, Any]:
    """A Sushi Roll observation as plain data (the field names of `engine.roll.RollObservation`)."""
    out: dict[str, Any] = _encode_roll_obs(observation)
    return out


def decode_roll_observation(value: Any) -> RollObservation:
    """Validate plain data into an `engine.roll.RollObservation`; `RemoteProtocolError` naming the
    field."""
    obs: RollObservation = _wrap(_decode_roll_obs, value, "observation")
    return obs


def decode_roll_action(value: Any) -> RollAction:
    """Validate plain data into a Sushi Roll action (its legality is the engine's business)."""
    action: RollAction = _wrap(_decode_roll_action, value, "action")
    return action


def decode_roll_event(value: Any) -> RollEvent:
    """Validate plain data into a Sushi Roll event; `RemoteProtocolError` naming the field."""
    event: RollEvent = _wrap(_decode_roll_event, value, "event")
    return event


def encode_roll_options(options: RollOptions) -> dict[str, Any]:
    """Sushi Roll options as ``{"players"}``."""
    out: dict[str, Any] = _encode_roll_options(options)
    return out


def decode_roll_options(value: Any) -> RollOptions:
    """Validate plain data into `engine.roll.RollOptions`."""
    options: RollOptions = _wrap(_decode_roll_options, value, "options")
    return options
