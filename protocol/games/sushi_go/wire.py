"""Sushi Go!'s values on the wire (its `protocol.games.Wire`): cards, actions, options,
observations and events.

The encodings are plain msgpack data built from the engine's own names (``Card.label``), so a bot
in any language can read them from docs/PROTOCOL.md. The decoders are the client's boundary: they
check every field's type and range and that an observation hangs together (one tableau per seat
plus the dummy's, the hand's size matching its tableau's count, wasabi placements matching the
cards), so the code behind them can trust what it holds. The observation of a seat carries exactly
what `engine.Game.observation(seat)` gives, nothing more.

The server sends an observation to every seat at every turn and an opening per seat in every
result, so observations and actions have fast packers of their own (`packed_observation`,
`packed_action`), each checked against the plain encoding by tests.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
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
from sushigo.engine.games.sushi_go.cards import HAND_SIZES
from sushigo.engine.games.sushi_go.observation import wasabi_placements
from sushigo.engine.games.sushi_go.rules import KIND
from sushigo.protocol._codec import (
    PACKED_BOOL,
    PACKED_SMALL,
    canonical_bytes,
    codec,
    decode_items,
    packed_int,
    register,
)
from sushigo.protocol._codec import array_header as _array_header
from sushigo.protocol._registry import Bytes32, Round, TableId, Turn
from sushigo.protocol.commitment import Opening
from sushigo.protocol.errors import ErrorCode
from sushigo.protocol.fairness import FairRecord, StepRecord, legacy_record
from sushigo.protocol.games import (
    Decoder,
    Encoder,
    FieldError,
    Range,
    Score,
    Size,
    kind_of,
    round_scored,
    struct_codec,
    tagged_codec,
)

_pack = msgpack.Packer(use_bin_type=True, autoreset=True).pack
_MAX_HAND = max(HAND_SIZES.values()) + 1  # the dummy's controller holds one drawn card more
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
        picks = decode_items(_decode_card, cards)
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
    RoundScored: round_scored(RoundPoints, _Tableaus, Small),
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
encode_event, decode_event = tagged_codec("event", _EVENT_CODECS, "event")
"""An event as ``{"event": tag, ...its fields}`` (tags: ``round_started``, ``picks_revealed``,
``wasabi_used``, ``chopsticks_returned``, ``round_scored``, ``game_over``)."""
register(Event, encode_event, decode_event)


# Resolve the tuple-of-card codec eagerly so a schema error shows at import, not mid-game.
codec(Annotated[tuple[Card, ...], Size(0, _MAX_HAND)])


# -- the wire -----------------------------------------------------------------------------------

_ACTION_PART = {c: bytes([len(c.label)]) + c.label.encode("ascii") for c in Card}
_commit_parts: dict[Action, bytes] = {}


def commit_bytes(action: Action) -> bytes:
    """An action's part of a commitment's preimage (docs/PROTOCOL.md section 6): ``u8(number of
    cards) || lp8(first) [|| lp8(second)]``, then ``u8(0)``, or ``u8(1) || lp8(dummy card)``.
    Kept per action (a few hundred exist), since the server checks every reveal."""
    found = _commit_parts.get(action)
    if found is None:
        first, second, dummy = action
        part = _ACTION_PART
        found = b"\x01" + part[first] if second is None else b"\x02" + part[first] + part[second]
        found += b"\x00" if dummy is None else b"\x01" + part[dummy]
        if len(_commit_parts) >= 4096:  # pragma: no cover - far more than the cards can make
            _commit_parts.clear()
        _commit_parts[action] = found
    return found


class CardWire:
    """Sushi Go!'s `protocol.games.Wire`."""

    kind = KIND

    def __init__(self) -> None:
        self._codecs: dict[str, tuple[Encoder, Decoder]] = {
            "options": codec(GameOptions),
            "action": codec(Action),
            "observation": codec(Observation),
            "event": codec(Event),
        }
        self._packers: dict[str, Callable[[Any], bytes]] = {
            "observation": packed_observation,
            "action": packed_action,
            "event": lambda event: _pack(encode_event(event)),
            "options": lambda options: _pack(_encode_options(options)),
        }

    def codec(self, part: str) -> tuple[Encoder, Decoder]:
        """The codec of `part`."""
        return self._codecs[part]

    def packed(self, part: str, value: Any) -> bytes:
        """The packed encoding of `value`, by the fast packers."""
        packed: bytes = self._packers[part](value)
        return packed

    def canonical(self, part: str, value: Any) -> bytes:
        """The canonical bytes of `value`: an action's packed form is canonical already."""
        if part == "action":
            return packed_action(value)
        return canonical_bytes(self._codecs[part][0](value))

    def commit_bytes(self, action: Action) -> bytes:
        """`commit_bytes`."""
        return commit_bytes(action)


CARD_WIRE = CardWire()
"""Sushi Go!'s wire."""


# -- records of protocol 1.0 ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class _TurnV1:
    round: Round
    turn: Turn
    commitments: Annotated[tuple[Bytes32 | None, ...], Size(2, 5)]
    openings: Annotated[tuple[Opening, ...], Size(2, 5)]


@dataclass(frozen=True, slots=True, kw_only=True)
class _RecordV1:
    table_id: TableId
    options: GameOptions
    server_seed: Bytes32
    server_seed_hash: Bytes32
    client_seeds: Annotated[tuple[Bytes32, ...], Size(2, 5)]
    turns: Annotated[tuple[_TurnV1, ...], Size(0, 64)]
    scores: Annotated[tuple[Score, ...], Size(2, 6)]


def read_v1_record(value: dict[str, Any]) -> FairRecord:
    """A Sushi Go! record signed by a protocol 1.0 server (``"format": "sushigo-fair-record"``,
    version 1: its turns, every seat acting in each) as a `FairRecord`; `FieldError` naming what is
    wrong."""
    old: _RecordV1 = codec(_RecordV1, CARD_WIRE)[1](value)
    seats = tuple(range(old.options.players))
    steps = tuple(
        StepRecord(
            round=t.round, turn=t.turn, seats=seats, commitments=t.commitments, openings=t.openings
        )
        for t in old.turns
    )
    return legacy_record(KIND, old, steps)
