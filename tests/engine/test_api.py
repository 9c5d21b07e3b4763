"""The game interface, checked the same way for every installed game: `check_game` (the
conformance suite, `protocol.games.conformance`) over every built-in kind and the test plug-in
rock-paper-scissors, and the suite itself shown to catch a game that breaks an invariant."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any

import pytest
from games.plugins import install_rps

from sushigo.engine import (
    SUSHI_GO,
    OptionsError,
    RecordError,
    Rules,
    UnknownGameError,
    kinds,
    play_steps,
    rules,
)
from sushigo.engine import games as engine_games
from sushigo.engine.games import BUILTIN_KINDS
from sushigo.engine.games.sushi_roll import SUSHI_ROLL
from sushigo.protocol import games as wire_games
from sushigo.protocol.games import CodecWire, Range, Size, struct_codec
from sushigo.protocol.games.conformance import ConformanceError, check_game

KINDS = (*BUILTIN_KINDS, "rps")
"""Every built-in game, whatever it is, and the test plug-in."""


@pytest.fixture
def rps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Rock-paper-scissors installed as a plug-in (tests/games/rps/)."""
    install_rps(tmp_path, monkeypatch)
    yield
    engine_games.refresh()


@pytest.mark.usefixtures("rps")
@pytest.mark.parametrize("kind", KINDS)
def test_every_installed_game_conforms(kind: str) -> None:
    assert kinds() == KINDS
    assert check_game(kind) > 0


def test_the_built_in_games_are_found_by_kind() -> None:
    assert kinds()[:2] == ("sushi-go", "sushi-roll")
    assert rules("sushi-go") is SUSHI_GO and rules("sushi-roll") is SUSHI_ROLL
    for kind in kinds():
        assert isinstance(rules(kind), Rules)
        assert rules(kind).kind == kind


def test_an_unknown_kind_names_the_installed_ones() -> None:
    with pytest.raises(UnknownGameError, match=r"no game .chess. is installed.*sushi-go"):
        rules("chess")
    with pytest.raises(OptionsError, match="no variant 'jelly'"):
        SUSHI_ROLL.options(2, ["jelly"])


def test_card_variants_by_name() -> None:
    options = SUSHI_GO.options(2, ["dummy", "soy_sauce"])
    assert (options.dummy, options.soy_sauce, options.pass_both_ways) == (True, True, False)
    assert SUSHI_GO.describe_options(options) == (2, ("dummy", "soy_sauce"))
    with pytest.raises(OptionsError, match="dummy variant needs exactly 2 players"):
        SUSHI_GO.options(3, ["dummy"])


def test_a_record_that_does_not_play_names_its_step() -> None:
    game = SUSHI_GO.new_game(SUSHI_GO.options(2), b"r" * 32)
    first = tuple(game.legal_actions(s)[0] for s in game.to_act())
    with pytest.raises(RecordError, match="step 2 of the record cannot be played"):
        play_steps(game, [first, first])


# -- the suite catches what it says it checks -----------------------------------------------------
# Broken copies of rock-paper-scissors, each registered by hand under a kind of its own.


@pytest.fixture
def rps_parts(rps: None) -> Iterator[dict[str, Any]]:
    """The test plug-in's modules, and the kinds the tests below register, removed afterwards."""
    import rps.engine  # noqa: PLC0415  (on the path once installed)
    import rps.protocol  # noqa: PLC0415

    yield {"engine": rps.engine, "protocol": rps.protocol}
    for kind in ("rps-leaky", "rps-restless", "rps-lossy"):
        engine_games._known.pop(kind, None)
        engine_games.DOOR._parts.pop(kind, None)
        wire_games._known.pop(kind, None)
        wire_games.DOOR._parts.pop(kind, None)


def _register(
    parts: dict[str, Any], kind: str, game: type, observation: type | None = None
) -> None:
    """A copy of rock-paper-scissors as `kind`, with its own game class and observation codec."""
    eng, wire = parts["engine"], parts["protocol"]

    class Copy(eng.RpsRules):  # type: ignore[misc,name-defined]
        pass

    Copy.kind, Copy.game_type = kind, game
    engine_games.register(Copy())
    codecs = {part: wire.WIRE.codec(part) for part in ("options", "action", "event")}
    obs_type = observation or eng.RpsObservation
    hints = {f: h for f, h in _RPS_OBSERVATION.items() if f in obs_type.__dataclass_fields__}
    hints |= {f: h for f, h in _EXTRA.items() if f in obs_type.__dataclass_fields__}
    codecs["observation"] = struct_codec(obs_type, hints)
    wire_games.register_wire(CodecWire(kind, codecs))


_RPS_OBSERVATION: dict[str, Any] = {
    "seat": Annotated[int, Range(0, 1)] | None,
    "round": Annotated[int, Range(1, 4)],
    "scores": Annotated[tuple[Annotated[int, Range(0, 3)], ...], Size(2, 2)],
    "last": Annotated[tuple[str, ...], Size(0, 2)],
    "is_over": bool,
}
_EXTRA: dict[str, Any] = {
    "plans": Annotated[tuple[Annotated[tuple[str, ...], Size(0, 3)], ...], Size(0, 2)],
}


def test_the_suite_finds_a_seat_that_sees_another_seats_secret(rps_parts: dict[str, Any]) -> None:
    """Each seat has a plan (its next throws, drawn from the seed), which only it may see; this
    game shows every seat both plans."""
    eng = rps_parts["engine"]

    @dataclass(frozen=True, slots=True)
    class PlanView(eng.RpsObservation):  # type: ignore[misc,name-defined]
        plans: tuple[tuple[str, ...], ...] = ()

    class Leaky(eng.RpsGame):  # type: ignore[misc,name-defined]
        def _plan(self, seat: int) -> tuple[str, ...]:
            return tuple(eng.THROWS[(b + seat) % 3] for b in self.seed[self.round : 4])

        def observation(self, seat: int | None) -> Any:
            view = super().observation(seat)
            plans = () if seat is None else tuple(self._plan(s) for s in range(2))
            return PlanView(**{f: getattr(view, f) for f in _RPS_OBSERVATION}, plans=plans)

        def clone(self) -> Any:
            other = Leaky(self.options, self.seed)
            other.round, other.points, other.last = self.round, self.points[:], self.last
            return other

    _register(rps_parts, "rps-leaky", Leaky, PlanView)
    with pytest.raises(ConformanceError, match="seat 1's observation holds what only seat 0"):
        check_game("rps-leaky")


def test_the_suite_finds_a_game_that_plays_differently_twice(rps_parts: dict[str, Any]) -> None:
    """A game whose first round's winner depends on how many games were made before it."""
    eng = rps_parts["engine"]
    made = [0]

    class Restless(eng.RpsGame):  # type: ignore[misc,name-defined]
        def __init__(self, options: Any, seed: bytes) -> None:
            super().__init__(options, seed)
            made[0] += 1
            self.points = [made[0] % 2, 0]

    _register(rps_parts, "rps-restless", Restless)
    with pytest.raises(ConformanceError, match=r"play differently|other scores"):
        check_game("rps-restless")


def test_the_suite_finds_a_value_the_wire_loses(rps_parts: dict[str, Any]) -> None:
    """An observation codec that drops the last round's throws."""
    eng = rps_parts["engine"]

    class Lossy(eng.RpsGame):  # type: ignore[misc,name-defined]
        pass

    _register(rps_parts, "rps-lossy", Lossy)
    encode, decode = wire_games.wire("rps-lossy").codec("observation")  # type: ignore[union-attr]
    codecs = {p: wire_games.wire("rps-lossy").codec(p) for p in ("options", "action", "event")}  # type: ignore[union-attr]
    codecs["observation"] = (encode, lambda v: replace(decode(v), last=()))
    wire_games.register_wire(CodecWire("rps-lossy", codecs))
    with pytest.raises(ConformanceError, match=r"the observation .* decodes to"):
        check_game("rps-lossy")
