"""What every game keeps, checked on any installed game by its kind: `check_game("sushi-go")`.

A game reaches the server, the clients, the bots, the arena and the replay viewer through its rules
(`engine.api.Rules`) and its wire (`Wire`) alone, and each of them relies on the same invariants.
`check_game` plays the game at random to its end under many seeds, at every player count and with
each variant on by itself, through those two interfaces only, and checks at every step:

- the seats that act, and the legal sets: a seat has legal actions exactly when it acts, its
  observation offers the same ones, a spectator is offered none, an open game (not `secret`)
  moves one seat at a time, and a step the rules refuse changes nothing;
- what observations hide: the game's seed is in no observation's wire form, and what one seat
  alone sees (its observation's wire form less the spectator's: a hand) never shows up in another
  seat's observation;
- determinism: the same seed and actions give the same observations and events, byte for byte, and
  so does a clone played on from the middle (without touching the game it was cloned from);
- the record: every step's actions as plain data, read back and replayed on a new game, reach the
  same scores, places and winners;
- the wire: every option, observation (each seat's and the spectator's), event and a sample of
  each step's legal actions decodes to itself, `packed` and `canonical` are the encoder's bytes, and distinct legal actions bind
  distinct commitment bytes;
- the end: nobody acts, the places and winners agree.

The first broken invariant raises `ConformanceError`, naming the game, its table size and variants,
the seed and the step. Pure, like the rest of the protocol: its chance is a `random.Random` seeded
from the kind, so a failure repeats.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator, Sequence
from typing import Any

import msgpack

from sushigo.engine.api import GameState, Rules, play_steps
from sushigo.engine.errors import EngineError, OptionsError
from sushigo.engine.games import rules as find_rules

from . import Wire, wire

__all__ = ["ConformanceError", "check_game"]

MAX_STEPS = 20_000
"""A game that has not ended after this many steps fails: it may never end."""

SAMPLE = 6
"""The legal actions of a seat at a step that round-trip (all of them commit, distinctly)."""

LEAK_STEPS = 3
"""Another seat's private part must show up in an observation at this many steps, and at every
step it could, before it counts as a leak (a hand may equal another by chance, never game-long)."""


class ConformanceError(AssertionError):
    """An invariant the game breaks; the message names the game, the table, the seed and the step."""


class _Table:
    """A table's options being checked, for the messages."""

    def __init__(self, where: str) -> None:
        self.where = where

    def fail(self, what: str) -> ConformanceError:
        return ConformanceError(f"{self.where}: {what}")


class _Play:
    """One game being checked: where it is, for the messages."""

    def __init__(self, rules: Rules, codec: Wire, options: Any, seed: bytes) -> None:
        self.rules, self.codec, self.options, self.seed = rules, codec, options, seed
        players, variants = rules.describe_options(options)
        self.where = f"{rules.kind}, {players} players{''.join(f', {v}' for v in variants)}"
        self.step = 0

    def fail(self, what: str) -> ConformanceError:
        return ConformanceError(
            f"{self.where}, seed {self.seed.hex()[:16]}, step {self.step}: {what}"
        )

    def check(self, ok: bool, what: str) -> None:
        if not ok:
            raise self.fail(what)


def check_game(kind: str, *, seeds: int = 8) -> int:
    """Check the game `kind` (see the module docstring) under `seeds` seeds for each table;
    `ConformanceError` naming the first broken invariant. Returns the number of steps played."""
    game_rules = find_rules(kind)
    codec = wire(kind)
    if codec is None:
        raise ConformanceError(f"{kind}: no wire is installed")
    if game_rules.kind != kind or codec.kind != kind:
        raise ConformanceError(f"{kind}: its rules or wire name another kind")
    played = 0
    for options in _tables(game_rules, codec):
        for n in range(seeds):
            seed = hashlib.sha256(f"{kind} {options!r} {n}".encode()).digest()
            played += _check_one(_Play(game_rules, codec, options, seed))
    if not played:
        raise ConformanceError(f"{kind}: no table size makes a game")
    return played


def _tables(game_rules: Rules, codec: Wire) -> Iterator[Any]:
    """Options of every player count, with no variant and with each variant on by itself (those
    that make a game), after checking they round-trip."""
    for players in game_rules.players:
        for variants in [(), *((v,) for v in game_rules.variants)]:
            try:
                options = game_rules.options(players, variants)
            except OptionsError:
                if not variants:
                    raise ConformanceError(
                        f"{game_rules.kind}: {players} players is in its range but makes no game"
                    ) from None
                continue
            where = f"{game_rules.kind}, {players} players {variants}"
            if game_rules.describe_options(options) != (players, variants):
                raise ConformanceError(f"{where}: describe_options is not options' inverse")
            data = game_rules.options_to_data(options)
            if game_rules.options_from_data(data) != options:
                raise ConformanceError(f"{where}: options do not round-trip through plain data")
            _round_trip(codec, "options", options, _Table(where).fail)
            yield options
    try:
        game_rules.options(max(game_rules.players) + 1)
    except OptionsError:
        pass
    else:
        raise ConformanceError(f"{game_rules.kind}: a table past its player range makes a game")


def _check_one(play: _Play) -> int:
    """Play one game at random with every check; then replay it, from a clone and from its
    record's data. The number of steps."""
    game_rules = play.rules
    rng = random.Random(play.seed)
    game = game_rules.new_game(play.options, play.seed)
    play.check(isinstance(game, GameState), "the game is not an engine.api.GameState")
    _refused_step_changes_nothing(play, game)
    trace = [_view(play, game, game.initial_events())]
    steps: list[tuple[Any, ...]] = []
    leaks: dict[tuple[int, int], list[int]] = {}
    middle: tuple[GameState, int] | None = None
    while not game.is_terminal():
        play.step = len(steps) + 1
        play.check(play.step <= MAX_STEPS, f"the game has not ended after {MAX_STEPS} steps")
        actions = _choose(play, game, rng)
        if middle is None and rng.random() < 0.05:
            middle = (game.clone(), len(steps))
        _watch_leaks(play, game, leaks)
        trace.append(_view(play, game, game.step(actions)))
        steps.append(actions)
    _check_end(play, game)
    for (t, s), (could, seen) in leaks.items():
        play.check(
            could < LEAK_STEPS or seen < could,
            f"seat {s}'s observation holds what only seat {t} may see, at every one of "
            f"{could} steps",
        )
    _check_replays(play, game, steps, trace, middle)
    return len(steps)


def _choose(play: _Play, game: GameState, rng: random.Random) -> tuple[Any, ...]:
    """The acting seats' random actions, after checking the step's seats and legal sets."""
    acting = game.to_act()
    play.check(bool(acting), "the game is not over, yet no seat acts")
    play.check(list(acting) == sorted(set(acting)), f"to_act() is not in seat order: {acting}")
    play.check(all(0 <= s < game.players for s in acting), f"to_act() names no seat: {acting}")
    play.check(play.rules.secret or len(acting) == 1, "an open game moves two seats at once")
    actions = []
    for seat in range(game.players):
        legal = list(game.legal_actions(seat))
        play.check(bool(legal) == (seat in acting), f"seat {seat}'s legal set and to_act() differ")
        offered = list(game.observation(seat).legal_actions())
        play.check(offered == legal, f"seat {seat}'s observation offers other actions")
        if not legal:
            continue
        # Every legal action commits differently; a sample of them (a Sushi Roll belt's
        # re-rolls run to hundreds) round-trips as data and on the wire.
        commits = {play.codec.commit_bytes(action) for action in legal}
        for action in rng.sample(legal, min(len(legal), SAMPLE)):
            data = play.rules.action_to_data(action)
            play.check(
                play.rules.action_from_data(data) == action,
                f"the action {action!r} does not round-trip through plain data",
            )
            text = play.rules.describe(action)
            play.check(isinstance(text, str) and bool(text), f"{action!r} has no description")
            _round_trip(play.codec, "action", action, play.fail)
        play.check(len(commits) == len(legal), f"two legal actions of seat {seat} commit alike")
        actions.append(rng.choice(legal))
    return tuple(actions)


def _view(play: _Play, game: GameState, events: Sequence[Any]) -> bytes:
    """Every seat's and the spectator's observation and the step's events, on the wire, after
    checking each round-trips and that no observation holds the seed."""
    out = []
    for seat in (*range(game.players), None):
        obs = game.observation(seat)
        play.check(obs.seat == seat, f"the observation of seat {seat} says seat {obs.seat}")
        if seat is None:
            play.check(not obs.legal_actions(), "a spectator is offered actions")
        packed = _round_trip(play.codec, "observation", obs, play.fail)
        play.check(
            play.seed not in packed and play.seed.hex().encode() not in packed,
            f"the observation of seat {seat} holds the game's seed",
        )
        out.append(packed)
    for event in events:
        out.append(_round_trip(play.codec, "event", event, play.fail))
    return b"".join(out)


def _packed_view(play: _Play, game: GameState, events: Sequence[Any]) -> bytes:
    """`_view`'s bytes without its checks (a replay, compared with them)."""
    packed = play.codec.packed
    out = [packed("observation", game.observation(seat)) for seat in (*range(game.players), None)]
    return b"".join([*out, *(packed("event", event) for event in events)])


def _round_trip(codec: Wire, part: str, value: Any, fail: Any) -> bytes:
    """The value's packed bytes, after checking it decodes to itself and that `packed` and
    `canonical` are the encoder's."""
    encode, decode = codec.codec(part)
    data = encode(value)
    packed: bytes = msgpack.packb(data, use_bin_type=True)
    try:
        again = decode(msgpack.unpackb(packed, raw=False, strict_map_key=False))
    except Exception as exc:
        raise fail(f"the {part} {value!r} does not decode: {exc}") from None
    if again != value:
        raise fail(f"the {part} {value!r} decodes to {again!r}")
    if codec.packed(part, value) != packed:
        raise fail(f"the wire's packed {part} is not its encoder's bytes")
    if codec.canonical(part, again) != codec.canonical(part, value):
        raise fail(f"the canonical bytes of the {part} {value!r} change on a round trip")
    return packed


def _refused_step_changes_nothing(play: _Play, game: GameState) -> None:
    before = _observations(game)
    for bad in ((), tuple(None for _ in game.to_act())):
        try:
            game.step(bad)
        except EngineError:
            pass
        else:
            raise play.fail(f"the step {bad!r} is not refused")
        play.check(_observations(game) == before, f"the refused step {bad!r} changed the game")


def _observations(game: GameState) -> list[Any]:
    return [game.observation(seat) for seat in (*range(game.players), None)]


def _private(data: Any, public: Any) -> list[Any]:
    """The parts of an observation's plain data that the spectator's lacks: every container of two
    or more items where the two differ (a hand, not a seat number)."""
    if data == public:
        return []
    if isinstance(data, dict) and isinstance(public, dict):
        return [p for k, v in data.items() for p in _private(v, public.get(k))]
    if isinstance(data, list) and isinstance(public, list) and len(data) == len(public):
        return [p for v, w in zip(data, public, strict=True) for p in _private(v, w)]
    return [data] if isinstance(data, list | dict) and len(data) >= 2 else []


def _holds(data: Any, part: Any) -> bool:
    """`part` is `data` or anywhere inside it."""
    if data == part:
        return True
    if isinstance(data, dict):
        return any(_holds(v, part) for v in data.values())
    if isinstance(data, list):
        return any(_holds(v, part) for v in data)
    return False


def _watch_leaks(play: _Play, game: GameState, leaks: dict[tuple[int, int], list[int]]) -> None:
    """Count, per pair of seats (t, s), the steps where t has a private part and those where one
    of its private parts is in s's observation (`LEAK_STEPS`)."""
    encode = play.codec.codec("observation")[0]
    plain = [_plain(encode(obs)) for obs in _observations(game)]
    public = plain[-1]
    for t in range(game.players):
        private = _private(_without_seat(plain[t]), _without_seat(public))
        if not private:
            continue
        for s in range(game.players):
            if s != t:
                count = leaks.setdefault((t, s), [0, 0])
                count[0] += 1
                count[1] += any(_holds(plain[s], part) for part in private)


def _plain(data: Any) -> Any:
    """Plain data as msgpack reads it back (tuples as lists)."""
    return msgpack.unpackb(msgpack.packb(data, use_bin_type=True), raw=False, strict_map_key=False)


def _without_seat(data: Any) -> Any:
    return {k: v for k, v in data.items() if k != "seat"} if isinstance(data, dict) else data


def _check_end(play: _Play, game: GameState) -> None:
    play.step += 1
    play.check(game.to_act() == (), "the game is over, yet seats act")
    for seat in range(game.players):
        play.check(not game.legal_actions(seat), f"the game is over, yet seat {seat} may act")
    places, scores = game.places(), game.scores()
    play.check(len(scores) >= game.players, "fewer scores than seats")
    play.check(len(places) == game.players and min(places) == 1, f"places {places}")
    winners = tuple(s for s, p in enumerate(places) if p == 1)
    play.check(game.winners() == winners, f"winners {game.winners()} with places {places}")


def _check_replays(
    play: _Play,
    game: GameState,
    steps: list[tuple[Any, ...]],
    trace: list[bytes],
    middle: tuple[GameState, int] | None,
) -> None:
    """The same seed and actions again, a clone from the middle, and the record's data."""
    again = play.rules.new_game(play.options, play.seed)
    replayed = [_packed_view(play, again, again.initial_events())]
    for number, actions in enumerate(steps, 1):
        play.step = number
        replayed.append(_packed_view(play, again, again.step(actions)))
        play.check(replayed[-1] == trace[number], "the same seed and actions play differently")
    if middle is not None:
        clone, at = middle
        end = _observations(game)
        for number, actions in enumerate(steps[at:], at + 1):
            play.step = number
            play.check(
                _packed_view(play, clone, clone.step(actions)) == trace[number],
                "a clone plays differently from its game",
            )
        play.check(clone.scores() == game.scores(), "a clone ends with other scores")
        play.check(_observations(game) == end, "playing a clone changed its game")
    data = [[play.rules.action_to_data(a) for a in actions] for actions in steps]
    record = [tuple(play.rules.action_from_data(a) for a in actions) for actions in data]
    try:
        replay = play_steps(play.rules.new_game(play.options, play.seed), record)
    except EngineError as exc:
        raise play.fail(f"the record does not replay: {exc}") from None
    play.check(replay.is_terminal(), "the record's replay does not end")
    play.check(
        (replay.scores(), replay.places(), replay.winners())
        == (game.scores(), game.places(), game.winners()),
        "the record's replay ends with other scores",
    )
