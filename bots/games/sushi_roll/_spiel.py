"""Sushi Roll as an OpenSpiel game: ``python_sushi_roll``, sequential, perfect information.

Parameters: ``players`` (2-5, default 2) and ``utility`` ("win" or "points", see
`_common.UTILITIES`). ``pyspiel.load_game("python_sushi_roll(players=4)")``.

**Actions** are the PettingZoo encoding's indexes (`bots.pettingzoo.SushiRollEncoding`): take the
die at position p is 1 + p, then the re-rolls by bit mask, then the swaps; index 0 (PettingZoo's
"wait") is never legal here, since only the seat to move acts. A turn is several actions, as at
the table: any re-rolls and swaps, then a take.

**Chance** is every draw the engine makes, when it makes it, one outcome at a time: the seat of the
red belt (each seat 1/n), each die drawn from the bag onto the belts (its `DieKind` value, with
probability its share of the dice left in the bag), and each roll (the `Face` value, with
probability its share of the die's six faces). A re-roll, the roll after the belts slide and a
new round's draw follow the action that causes them, in the engine's order (`engine.games.sushi_roll.game`).
Replaying a seed's draws as the outcomes plays that seed's game.

Nothing in Sushi Roll is hidden but the future, and the future is chance nodes still to come, so
the game is one of **perfect information**: every seat's observation holds the same public table
(the PettingZoo encoding's numbers, from that seat's side), and the information state is the
public history. The state drives an engine `RollGame` whose draws come from the chance outcomes
(`RollGame.with_chance`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pyspiel

from sushigo.bots.openspiel._common import (
    Core,
    CoreGame,
    CoreState,
    check_params,
    check_player,
    final_returns,
    game_info,
    game_type,
)
from sushigo.engine.games.sushi_roll import (
    DIE_FACES,
    DieKind,
    Face,
    RollAction,
    RollGame,
    RollObservation,
    RollOptions,
)
from sushigo.engine.games.sushi_roll.dice import DICE_PER_PLAYER, MAX_PLAYERS, ROUNDS

from ._pz_encoding import SushiRollEncoding

SHORT_NAME = "python_sushi_roll"
PARAMS: dict[str, Any] = {"players": 2, "utility": "win"}


def _game_type(utility: str = "win") -> pyspiel.GameType:
    """The game type with `utility` (the one registered is "win"'s)."""
    return game_type(
        SHORT_NAME,
        "Python Sushi Roll",
        simultaneous=False,
        perfect_information=True,
        info_state_tensor=False,
        spec=PARAMS,
        utility=utility,
    )


GAME_TYPE = _game_type()
CHANCE_OUTCOMES = len(Face)
"""17: the most outcomes of one chance node (a roll's faces; seats and die kinds are fewer)."""

Need = tuple[str, Any]
"""What the next chance node draws: ("red", players), ("bag", dice left by kind) or ("face",
the die's kind)."""


class _Undrawn(Exception):
    """A draw the script has no outcome for yet: the next chance node."""

    def __init__(self, need: Need) -> None:
        super().__init__(need)
        self.need = need


class _Script:
    """A `RollChance` that serves chance outcomes chosen outside, and stops the game (raises
    `_Undrawn`) at the first draw it has none for."""

    __slots__ = ("outcomes", "pos")

    def __init__(self, outcomes: list[int]) -> None:
        self.outcomes = outcomes
        self.pos = 0

    def _next(self, need: Need) -> int:
        if self.pos >= len(self.outcomes):
            raise _Undrawn(need)
        self.pos += 1
        return self.outcomes[self.pos - 1]

    def red_belt(self, players: int) -> int:
        return self._next(("red", players))

    def draw(self, round_: int, bag: list[DieKind], count: int) -> None:
        left = list(bag)
        drawn = []
        for _ in range(count):
            kind = DieKind(self._next(("bag", tuple(left.count(k) for k in DieKind))))
            left.remove(kind)
            drawn.append(kind)
        bag[:] = drawn + left

    def roll(self, kind: DieKind) -> Face:
        return Face(self._next(("face", kind)))

    def clone(self) -> _Script:
        other = _Script(self.outcomes)
        other.pos = self.pos
        return other


def outcomes_of(need: Need) -> list[tuple[int, float]]:
    """The outcomes of a chance node and their probabilities, ascending."""
    what, detail = need
    if what == "red":
        return [(seat, 1.0 / detail) for seat in range(detail)]
    if what == "bag":
        total = sum(detail)
        return [(kind, count / total) for kind, count in enumerate(detail) if count]
    faces = DIE_FACES[detail]
    return [(face, faces.count(face) / 6) for face in sorted(set(faces))]


def describe_outcome(need: Need | None, outcome: int) -> str:
    """A chance outcome in words."""
    what = need[0] if need is not None else "face"
    if what == "red":
        return f"red belt to p{outcome}"
    if what == "bag":
        return f"draw {DieKind(outcome).label}"
    return f"roll {Face(outcome).label}"


class SushiRollGame(CoreGame):
    """One set-up of Sushi Roll (player count, utility)."""

    def __init__(
        self, params: Mapping[str, Any] | None = None, root: RollGame | None = None
    ) -> None:
        checked = check_params(params or {}, PARAMS, SHORT_NAME)
        self.root = root
        """Where `new_initial_state` starts (`rooted_at`); None: before the red belt is drawn."""
        players = checked["players"]
        if not 2 <= players <= MAX_PLAYERS:
            raise ValueError(f"{SHORT_NAME} parameter players must be 2 to {MAX_PLAYERS}")
        self.options = RollOptions(players)
        self.utility = checked["utility"]
        self.encoding = SushiRollEncoding(players)
        k = DICE_PER_PLAYER[players]
        takes = ROUNDS * players * k
        super().__init__(
            _game_type(self.utility),
            game_info(
                actions=self.encoding.action_size,
                chance_outcomes=CHANCE_OUTCOMES,
                players=players,
                utility=self.utility,
                # No die scores 13 or more (sashimi's set), maki and unused tokens aside.
                max_points=ROUNDS * (13 * k + 6) + 6 + 15,
                # Every re-roll or swap spends a token: 5 a seat at the start, at most 2 a take.
                length=3 * takes + 5 * players,
            ),
            checked,
        )
        self.params = checked

    def new_state_from(self, game: RollGame) -> SushiRollState:
        """A state that plays on from the engine game `game` (say, `RollGame.from_observation`):
        its history begins there, and its draws from then on are chance nodes."""
        if game.options != self.options:
            raise ValueError("the engine game's options differ from this game's")
        state = SushiRollState(self)
        state.core = _RollCore(self, game)
        return state

    def rooted_at(self, game: RollGame) -> SushiRollGame:
        """This game, but with `new_initial_state` at the engine game `game`: for algorithms
        that start from a game's initial state. Not for serialising."""
        return SushiRollGame(self.params, game)


class _RollCore(Core):
    """Everything a state knows (see `_common`): the engine game, the action (or the start)
    waiting for its draws and the outcomes drawn for it, the public log, the moves."""

    def __init__(self, game: SushiRollGame, origin: RollGame | None) -> None:
        self.game = game
        self.players = game.options.players
        # Its draws from here on are chance nodes: the engine's own source (a seeded one holds a
        # hash, which does not pickle) is never asked again.
        self.origin = None if origin is None else origin.clone(chance=_Script([]))
        self.moves: list[int] = []
        self.log: list[str] = []
        self.start = ""
        self.pending: tuple[int, RollAction] | None = None
        """The action waiting for its draws (None: the game's start, while `engine` is None)."""
        self.drawn: list[int] = []
        self.need: Need | None = None
        self.legal_cache: list[int] | None = None
        self.engine: RollGame | None = None
        if origin is None:
            self._advance()
        else:
            self.engine = origin.clone(chance=_Script([]))
            self.start = "from: " + describe(origin.observation(None)).replace("\n", " / ")

    copied = ("moves", "log", "drawn")

    def copy_engine(self, other: _RollCore) -> None:
        if self.engine is not None:
            other.engine = self.engine.clone()

    @classmethod
    def fresh(cls, params: dict[str, Any], origin: Any) -> _RollCore:
        return cls(SushiRollGame(params), origin)

    # -- the game ----------------------------------------------------------------------------

    def _advance(self) -> None:
        """Play the pending action (or start the game) with the outcomes drawn so far: done, or
        stopped at the draw it needs next."""
        script = _Script(self.drawn)
        try:
            if self.engine is None:
                trial = RollGame.with_chance(self.game.options, script)
            else:
                trial = self.engine.clone(chance=script)
                assert self.pending is not None
                trial.apply(*self.pending)
        except _Undrawn as stop:
            self.need = stop.need
            return
        self.engine = trial
        self.pending = None
        self.drawn = []
        self.need = None
        self.legal_cache = None

    def current_player(self) -> int:
        if self.need is not None:
            return int(pyspiel.PlayerId.CHANCE)
        assert self.engine is not None
        mover = self.engine.to_move
        return int(pyspiel.PlayerId.TERMINAL) if mover is None else mover

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [] if self.need is None else outcomes_of(self.need)

    def draw(self, outcome: int) -> None:
        """One chance outcome."""
        if self.need is None or outcome not in dict(outcomes_of(self.need)):
            raise ValueError(f"cannot draw {outcome} now")
        self.log.append(describe_outcome(self.need, outcome))
        self.drawn.append(outcome)
        self.moves.append(outcome)
        self._advance()

    def legal(self, player: int) -> list[int]:
        if self.legal_cache is None:
            engine = self.engine
            mover = None if self.need is not None or engine is None else engine.to_move
            if mover is None:
                self.legal_cache = []
            else:
                index = self.game.encoding.action_index
                self.legal_cache = sorted(index(a, mover) for a in engine.legal_actions(mover))  # type: ignore[union-attr]
        return self.legal_cache if player == self.current_player() else []

    def play(self, index: int) -> None:
        """The mover's action."""
        engine = self.engine
        if self.need is not None or engine is None or engine.to_move is None:
            raise ValueError("no seat acts now")
        mover = engine.to_move
        if index not in self.legal(mover):
            raise ValueError(f"action {index} is not legal for p{mover} now")
        action = self.game.encoding.action_of(index, mover)
        assert action is not None
        self.log.append(f"p{mover} {action.describe()}")
        self.moves.append(index)
        self.pending = (mover, action)
        self.legal_cache = None
        self._advance()

    def replay(self, move: Any) -> None:
        """A recorded move again (unpickling)."""
        if self.need is not None:
            self.draw(move)
        else:
            self.play(move)

    def returns(self) -> list[float]:
        engine = self.engine
        if engine is None or self.need is not None or not engine.is_terminal():
            return [0.0] * self.players
        return final_returns(self.game.utility, self.players, engine.scores(), engine.winners())

    # -- what a seat sees --------------------------------------------------------------------

    def observation(self, player: int) -> RollObservation | None:
        """`player`'s engine observation (None before the first round is rolled); while an
        action waits for its draws, the table as it was before it."""
        check_player(player, self.players)
        return None if self.engine is None else self.engine.observation(player)

    def tensor(self, player: int, info: bool) -> Any:
        obs = self.observation(player)
        if obs is None:
            return np.zeros(self.game.encoding.size, np.float32)
        return self.game.encoding.encode(obs, player)

    def _rolling(self) -> str:
        if self.need is None:
            return ""
        what = "the start" if self.pending is None else f"p{self.pending[0]} {self.pending[1]}"
        drawn = ", ".join(describe_outcome(None, o) for o in self.drawn) if self.pending else ""
        return f"\ndrawing for {what}{': ' + drawn if drawn else ''}"

    def string(self, player: int, info: bool) -> str:
        obs = self.observation(player)
        if info:
            return "\n".join([f"seat {player}", *([self.start] if self.start else []), *self.log])
        text = f"seat {player}: setting up" if obs is None else describe(obs)
        return text + self._rolling()

    def __str__(self) -> str:
        obs = None if self.engine is None else self.engine.observation(None)
        text = "setting up" if obs is None else describe(obs)
        return text + self._rolling() + (f"\ndrawn: {self.drawn}" if self.drawn else "")


def describe(obs: RollObservation) -> str:
    """A Sushi Roll observation as text (all of it public)."""
    who = "spectator" if obs.seat is None else f"seat {obs.seat}"
    if obs.is_over:
        lines = [f"{who}, game over"]
    else:
        lines = [
            f"{who}, round {obs.round}, cycle {obs.cycle}, p{obs.to_move} to move, bag {obs.bag},"
            f" supply menu {obs.menu_supply} chopsticks {obs.chopsticks_supply}"
        ]
    for seat, view in enumerate(obs.players):
        red = " red belt" if view.has_red_belt else ""
        taken = " taken" if view.taken_this_cycle else ""
        tray = " ".join(die.face.label for die in view.tray) or "-"
        belt = " ".join(die.face.label for die in view.belt) or "-"
        lines.append(
            f"p{seat}: score {view.score} puddings {view.puddings} menu {view.menu}"
            f"(+{view.fresh_menu} fresh) chopsticks {view.chopsticks}(+{view.fresh_chopsticks}"
            f" fresh){red}{taken} | belt: {belt} | tray: {tray}"
            + (f" on wasabi: {list(view.on_wasabi)}" if view.on_wasabi else "")
        )
    return "\n".join(lines)


class SushiRollState(CoreState):
    """A Sushi Roll state (OpenSpiel's API; see the module docstring): the seat to move acts,
    and chance draws what its actions roll."""

    def __init__(self, game: SushiRollGame) -> None:
        super().__init__(game)
        self.core = _RollCore(game, game.root)

    def _apply_action(self, action: int) -> None:
        """A chance outcome, or the mover's action."""
        if self.core.need is not None:
            self.core.draw(action)
        else:
            self.core.play(action)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return describe_outcome(self.core.need, action)
        found = self.core.game.encoding.action_of(action, player)
        return "wait" if found is None else found.describe()

    def engine_game(self) -> RollGame | None:
        """The engine game (None before it starts; the table before a pending action)."""
        engine: RollGame | None = self.core.engine
        return engine


SushiRollGame.state_class = SushiRollState
pyspiel.register_game(GAME_TYPE, SushiRollGame)
