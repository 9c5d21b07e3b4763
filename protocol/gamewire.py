"""Engine values on the wire: cards, actions, options, observations and the game's events.

The encodings are plain msgpack data built from the engine's own names (``Card.label``), so a bot
in any language can read them from docs/PROTOCOL.md. The decoders are the client's boundary: they
check every field's type and range and that an observation hangs together (one tableau per seat
plus the dummy's, the hand's size matching its tableau's count, wasabi placements matching the
cards), so the code behind them can trust what it holds. The observation of a seat carries exactly
what `engine.Game.observation(seat)` gives, nothing more.
"""

from __future__ import annotations

from typing import Annotated, Any

from engine import (
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
from engine.cards import HAND_SIZES
from engine.observation import wasabi_placements

from ._codec import FieldError, Range, Size, codec, kind_of, register, struct_codec
from .errors import ErrorCode, RemoteProtocolError

__all__ = [
    "decode_action",
    "decode_event",
    "decode_observation",
    "decode_options",
    "encode_action",
    "encode_event",
    "encode_observation",
    "encode_options",
]

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


def _decode_action(value: Any) -> Action:
    if type(value) is not dict:
        raise FieldError(ErrorCode.WRONG_TYPE, f"expected a map, got {kind_of(value)}")
    cards = value.get("cards")
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


register(
    TableauView,
    *struct_codec(
        TableauView,
        {
            "cards": Annotated[tuple[Card, ...], Size(0, 40)],
            "on_wasabi": Annotated[tuple[Card, ...], Size(0, 40)],
            "open_wasabi": Small,
            "puddings": Small,
            "score": Score,
            "round_scores": Annotated[tuple[Score, ...], Size(0, 3)],
            "hand_size": Annotated[int, Range(0, _MAX_HAND)],
            "chopsticks_ready": bool,
            "is_dummy": bool,
        },
        _check_tableau,
    ),
)


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
