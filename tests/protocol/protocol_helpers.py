"""Shared test helpers: hypothesis strategies built from the message schemas, engine-driven
observations and events, and an in-memory link between two connections. Sample messages and
records are in sample_helpers.py."""

from __future__ import annotations

import dataclasses
import random
import types
from collections.abc import Callable, Sequence
from enum import Enum
from typing import Annotated, Any, Union, get_args, get_origin, get_type_hints

import pytest
from hypothesis import strategies as st

from sushigo.engine import (
    Action,
    Card,
    Event,
    Game,
    GameOptions,
    Observation,
    RoundPoints,
)
from sushigo.engine.games import sushi_roll
from sushigo.protocol import (
    ClientConnection,
    Connection,
    ErrorCode,
    RemoteProtocolError,
    ServerConnection,
    StepRecord,
    Version,
    messages,
    new_seed,
)
from sushigo.protocol._codec import GameField, Range, Size

V2 = Version(2, 5)

OPTIONS = [
    GameOptions(players=2),
    GameOptions(players=2, dummy=True),
    GameOptions(players=3, pass_both_ways=True),
    GameOptions(players=4, soy_sauce=True),
    GameOptions(players=5),
]


def random_game(options: GameOptions, seed: int, turns: int) -> tuple[Game, list[Event]]:
    """A game after up to `turns` random legal turns, with every event so far."""
    rnd = random.Random(seed)
    game = Game(options, seed.to_bytes(8, "big"))
    events: list[Event] = list(game.initial_events())
    for _ in range(turns):
        if game.is_terminal():
            break
        picks = [rnd.choice(game.legal_actions(s)) for s in range(options.players)]
        events.extend(game.apply(picks))
    return game, events


@st.composite
def observations(draw: st.DrawFn) -> Observation:
    options = draw(st.sampled_from(OPTIONS))
    game, _ = random_game(options, draw(st.integers(0, 2**32)), draw(st.integers(0, 40)))
    seat = draw(st.none() | st.integers(0, options.players - 1))
    return game.observation(seat)


@st.composite
def events(draw: st.DrawFn) -> Event:
    options = draw(st.sampled_from(OPTIONS))
    _, evs = random_game(options, draw(st.integers(0, 2**16)), 40)
    return draw(st.sampled_from(evs))


cards = st.sampled_from(list(Card))
actions = st.builds(Action, cards, st.none() | cards, st.none() | cards)


def random_roll_game(
    players: int, seed: int, actions: int
) -> tuple[
    sushi_roll.RollGame, list[tuple[int, sushi_roll.RollAction, list[sushi_roll.RollEvent]]]
]:
    """A Sushi Roll game after up to `actions` random legal actions, with each action's events."""
    rnd = random.Random(seed)
    game = sushi_roll.RollGame(sushi_roll.RollOptions(players), seed.to_bytes(8, "big"))
    played: list[tuple[int, sushi_roll.RollAction, list[sushi_roll.RollEvent]]] = []
    for _ in range(actions):
        if game.is_terminal():
            break
        seat = game.to_move
        assert seat is not None
        action = rnd.choice(game.legal_actions(seat))
        played.append((seat, action, game.apply(seat, action)))
    return game, played


@st.composite
def roll_observations(draw: st.DrawFn) -> sushi_roll.RollObservation:
    players = draw(st.integers(2, 5))
    game, _ = random_roll_game(players, draw(st.integers(0, 2**32)), draw(st.integers(0, 200)))
    return game.observation(draw(st.none() | st.integers(0, players - 1)))


@st.composite
def roll_events(draw: st.DrawFn) -> sushi_roll.RollEvent:
    game, played = random_roll_game(draw(st.integers(2, 5)), draw(st.integers(0, 2**16)), 400)
    evs = [*game.initial_events(), *(e for _, _, es in played for e in es)]
    return draw(st.sampled_from(evs))


def roll_turn(game: sushi_roll.RollGame, seat: int | None, step: int = 0) -> messages.TurnStart:
    """The TURN_START of the current open step that `seat` (None: a spectator) receives now."""
    obs = game.observation(seat)
    assert obs.to_move is not None
    return messages.TurnStart(
        round=obs.round,
        turn=obs.cycle,
        seats=(obs.to_move,),
        secret=False,
        step=step,
        observation=obs,
    )


def roll_acted(
    round_: int,
    cycle: int,
    seat: int,
    action: sushi_roll.RollAction,
    events: list[sushi_roll.RollEvent],
    game: sushi_roll.RollGame,
    receiver: int | None = None,
    step: int = 0,
) -> messages.Acted:
    """The ACTED `receiver` (None: a spectator) gets for an action just applied to `game`."""
    more = (
        not game.is_terminal()
        and game.to_move == seat
        and (game.round, game.cycle)
        == (
            round_,
            cycle,
        )
    )
    return messages.Acted(
        round=round_,
        turn=cycle,
        step=step,
        seat=seat,
        action=action,
        events=tuple(events),
        observation=game.observation(receiver),
        more=more,
    )


@st.composite
def roll_turns(draw: st.DrawFn) -> messages.TurnStart:
    players = draw(st.integers(2, 5))
    game, _ = random_roll_game(players, draw(st.integers(0, 2**16)), draw(st.integers(0, 60)))
    return roll_turn(game, draw(st.none() | st.integers(0, players - 1)))


@st.composite
def roll_updates(draw: st.DrawFn) -> messages.Acted:
    game, _ = random_roll_game(draw(st.integers(2, 5)), draw(st.integers(0, 2**16)), 0)
    for _ in range(draw(st.integers(1, 60))):
        seat = game.to_move
        if seat is None:
            break
        r, c = game.round, game.cycle
        action = draw(st.sampled_from(game.legal_actions(seat)))
        update = roll_acted(r, c, seat, action, game.apply(seat, action), game)
    return update


positions = st.integers(0, 7)
roll_actions: st.SearchStrategy[sushi_roll.RollAction] = st.one_of(
    st.lists(positions, min_size=1, max_size=8).map(lambda d: sushi_roll.Reroll(tuple(d))),
    st.builds(sushi_roll.Swap, positions, st.integers(0, 4), positions),
    st.builds(sushi_roll.Take, positions),
)

_GAME_VALUES: dict[str, dict[str, st.SearchStrategy[Any]]] = {
    "sushi-go": {
        "action": actions,
        "options": st.sampled_from(OPTIONS),
        "observation": observations(),
        "event": events(),
    },
    "sushi-roll": {
        "action": roll_actions,
        "options": st.builds(sushi_roll.RollOptions, st.integers(2, 5)),
        "observation": roll_observations(),
        "event": roll_events(),
    },
}
"""Valid game values of each built-in game, by part (see `protocol._codec.GameField`)."""
_CUSTOM: dict[Any, st.SearchStrategy[Any]] = {
    sushi_roll.Die: st.sampled_from(  # type: ignore[misc]
        [sushi_roll.Die(sushi_roll.DieKind.NIGIRI, f) for f in (6, 7, 8)]
    ),
    sushi_roll.RoundPoints: st.builds(sushi_roll.RoundPoints, *[st.integers(0, 30)] * 5),
    Card: cards,
    RoundPoints: st.builds(RoundPoints, *[st.integers(0, 30)] * 6),
}


def strategy_for(tp: Any, kind: str = "sushi-go") -> st.SearchStrategy[Any]:
    """A strategy of valid values for a schema type hint (lists kept short); game values are of
    the game `kind`."""
    meta: tuple[Any, ...] = ()
    if get_origin(tp) is Annotated:
        tp, *rest = get_args(tp)
        meta = tuple(rest)
    part = next((m for m in meta if isinstance(m, GameField)), None)
    if part is not None:
        return _GAME_VALUES[kind][part.part]
    if tp in _CUSTOM:
        return _CUSTOM[tp]
    rng = next((m for m in meta if isinstance(m, Range)), None)
    size = next((m for m in meta if isinstance(m, Size)), None)
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        (inner,) = [a for a in get_args(tp) if a is not type(None)]
        return st.none() | strategy_for(inner, kind)
    if origin is tuple:
        lo, hi = (size.lo, size.hi) if size else (0, 64)
        return st.lists(
            strategy_for(get_args(tp)[0], kind), min_size=lo, max_size=min(hi, lo + 3)
        ).map(tuple)
    if tp is bool:
        return st.booleans()
    if tp is int:
        assert rng is not None
        return st.integers(rng.lo, rng.hi)
    if tp is str:
        lo, hi = (size.lo, size.hi) if size else (0, 256)
        return st.text(min_size=lo, max_size=min(hi, lo + 12))
    if tp is bytes:
        lo, hi = (size.lo, size.hi) if size else (0, 256)
        return st.binary(min_size=lo, max_size=min(hi, lo + 16))
    if isinstance(tp, type) and issubclass(tp, Enum):
        return st.sampled_from(list(tp))
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        hints = get_type_hints(tp, include_extras=True)
        return st.builds(
            tp, **{f.name: strategy_for(hints[f.name], kind) for f in dataclasses.fields(tp)}
        )
    raise TypeError(f"no strategy for {tp!r}")


# -- an in-memory link -------------------------------------------------------------------------


def pump(sender: Connection, receiver: Connection, message: messages.Message) -> Any:
    """Send `message` from one end and return what the other end reads."""
    receiver.receive_data(sender.send(message))
    event = receiver.next_event()
    assert receiver.next_event() is None
    return event


def connected_pair() -> tuple[ClientConnection, ServerConnection]:
    """A client and a server connection after HELLO/WELCOME and a guest login."""
    client, server = ClientConnection(), ServerConnection()
    pump(client, server, messages.Hello(ref=1, protocol="sushigo", version=V2))
    pump(
        server,
        client,
        messages.Welcome(ref=1, version=V2, server_key=b"k" * 32, challenge=new_seed()),
    )
    pump(client, server, messages.LoginGuest(ref=2, name="ann"))
    pump(
        server,
        client,
        messages.LoggedIn(ref=2, player_id="p0", name="ann", guest=True, resume_token=b"r" * 16),
    )
    return client, server


def v1_turns(steps: Sequence[StepRecord]) -> list[dict[str, Any]]:
    """Sushi Go!'s steps as protocol 1.0 wrote its turns (in a signed record, and in a saved
    table), every seat acting in each."""
    return [
        {
            "round": t.round,
            "turn": t.turn,
            "commitments": list(t.commitments),
            "openings": [
                {"action": o.action.to_data(), "nonce": o.nonce, "auto": o.auto} for o in t.openings
            ],
        }
        for t in steps
    ]


def refused_once_changed(
    decode: Callable[[Any], Any], data: Any, change: Callable[[Any], object]
) -> None:
    """`data` decodes, and once `change` has broken it (in place) it is refused as out of range
    or of the wrong type: a decoder checks that an observation hangs together."""
    decode(data)
    change(data)
    with pytest.raises(RemoteProtocolError) as info:
        decode(data)
    assert info.value.code in (ErrorCode.OUT_OF_RANGE, ErrorCode.WRONG_TYPE)
