"""What both games' OpenSpiel forms share: parameters, utilities, the game type, the observer and
the state's plumbing (cloning, serialisation).

Each state keeps everything it knows in one "core" object, the only entry of its ``__dict__``:
OpenSpiel clones a Python state by deep-copying every attribute and serialises it by pickling
them, so the core copies itself with the engine's own `clone` (`__deepcopy__`) and pickles as the
recipe that rebuilds it, the moves played from its start (`__reduce__`), never as the engine's
internals.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
import pyspiel

UTILITIES = ("win", "points")
"""`utility="win"` (the default): at the end +1 split among the winners and -1 split among the
others (0 to everyone when all tie), zero-sum as PettingZoo's ``reward="win"``; ``"points"``:
each seat's final score, general-sum."""

MAX_PLAYERS = 5
"""The most seats either game has: the player one-hot of an information state tensor."""


def check_params(params: Mapping[str, Any], spec: Mapping[str, Any], kind: str) -> dict[str, Any]:
    """`params` over the defaults in `spec`, each of its type; `ValueError` naming a bad one."""
    out = dict(spec)
    for key, value in params.items():
        if key not in spec:
            raise ValueError(f"{kind} has no parameter {key!r} (its parameters: {', '.join(spec)})")
        if type(value) is not type(spec[key]):
            raise ValueError(f"{kind} parameter {key} must be {type(spec[key]).__name__}")
        out[key] = value
    if out["utility"] not in UTILITIES:
        raise ValueError(f"{kind} parameter utility must be one of {', '.join(UTILITIES)}")
    return out


def game_type(
    short_name: str,
    long_name: str,
    *,
    simultaneous: bool,
    perfect_information: bool,
    info_state_tensor: bool,
    spec: dict[str, Any],
    utility: str = "win",
) -> pyspiel.GameType:
    """The `pyspiel.GameType` of a game (its utility as `utility` says)."""
    kind = pyspiel.GameType
    return kind(
        short_name=short_name,
        long_name=long_name,
        dynamics=kind.Dynamics.SIMULTANEOUS if simultaneous else kind.Dynamics.SEQUENTIAL,
        chance_mode=kind.ChanceMode.EXPLICIT_STOCHASTIC,
        information=kind.Information.PERFECT_INFORMATION
        if perfect_information
        else kind.Information.IMPERFECT_INFORMATION,
        utility=kind.Utility.ZERO_SUM if utility == "win" else kind.Utility.GENERAL_SUM,
        reward_model=kind.RewardModel.TERMINAL,
        max_num_players=MAX_PLAYERS,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=info_state_tensor,
        provides_observation_string=True,
        provides_observation_tensor=True,
        provides_factored_observation_string=False,
        parameter_specification=spec,
    )


def game_info(
    *,
    actions: int,
    chance_outcomes: int,
    players: int,
    utility: str,
    max_points: int,
    length: int,
) -> pyspiel.GameInfo:
    """The `pyspiel.GameInfo` of one set-up."""
    win = utility == "win"
    return pyspiel.GameInfo(
        num_distinct_actions=actions,
        max_chance_outcomes=chance_outcomes,
        num_players=players,
        min_utility=-1.0 if win else -6.0,
        max_utility=1.0 if win else float(max_points),
        utility_sum=0.0 if win else None,
        max_game_length=length,
    )


def final_returns(
    utility: str, players: int, scores: Sequence[int], winners: Sequence[int]
) -> list[float]:
    """Each seat's return at the end of a game (see `UTILITIES`)."""
    if utility == "points":
        return [float(score) for score in scores[:players]]
    if len(winners) == players:
        return [0.0] * players
    win, lose = 1.0 / len(winners), -1.0 / (players - len(winners))
    return [win if seat in winners else lose for seat in range(players)]


class Observer:
    """OpenSpiel's Python observer (`make_py_observer`): a seat's observation, or with
    ``perfect_recall`` its information state, as a string and a float32 tensor."""

    def __init__(
        self,
        iig_obs_type: pyspiel.IIGObservationType | None,
        params: Mapping[str, Any] | None,
        sizes: tuple[int, int],
    ) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported, got {dict(params)}")
        info = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        if iig_obs_type is not None and (
            not iig_obs_type.public_info
            or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER
        ):
            raise ValueError(
                "only a seat's own view is observed: public_info=True, private_info=SINGLE_PLAYER"
            )
        self.info = info
        size = sizes[1] if info else sizes[0]
        self.tensor: np.ndarray[Any, Any] | None = np.zeros(size, np.float32) if size else None
        self.dict = {} if self.tensor is None else {"info" if info else "observation": self.tensor}

    def set_from(self, state: Any, player: int) -> None:
        """Fill `tensor` with `state` seen by `player`."""
        if self.tensor is not None:
            self.tensor[:] = state.core.tensor(player, self.info)

    def string_from(self, state: Any, player: int) -> str:
        """`state` seen by `player`, as text."""
        text: str = state.core.string(player, self.info)
        return text


class CoreGame(pyspiel.Game):  # type: ignore[misc]
    """What both games' `pyspiel.Game` do alike: a state of `state_class` for
    `new_initial_state`, and the observer of `encoding.size` floats (the information state:
    `info_size`, 0 for a string only)."""

    state_class: ClassVar[type[Any]]
    encoding: Any
    info_size: int = 0

    def new_initial_state(self) -> Any:
        """A game before its first chance node (or, for a game `rooted_at` a position, there)."""
        return self.state_class(self)

    def make_py_observer(
        self,
        iig_obs_type: pyspiel.IIGObservationType | None = None,
        params: Mapping[str, Any] | None = None,
    ) -> Observer:
        """The observation (default) or, with ``perfect_recall``, the information state."""
        return Observer(iig_obs_type, params, (self.encoding.size, self.info_size))


def check_player(player: int, players: int) -> None:
    """`ValueError` unless `player` is a seat (OpenSpiel asks observations of seats only)."""
    if not 0 <= player < players:
        raise ValueError(f"no player {player} in a {players}-player game")


class Core:
    """The copying and pickling both games' cores share (see the module docstring). A core
    keeps its game (`game`, with its checked `params`), where it started (`origin`: None, or
    the engine game it resumed) and every move since (`moves`), and plays a move again with
    `replay`."""

    game: Any
    origin: Any
    moves: list[Any]
    copied: ClassVar[tuple[str, ...]] = ("moves", "log")
    """The lists a copy must not share (a game adds its own)."""

    def copy_engine(self, other: Any) -> None:
        """Give `other`, a copy of this core, its own copy of the engine game."""
        raise NotImplementedError

    @classmethod
    def fresh(cls, params: dict[str, Any], origin: Any) -> Any:
        """A new core of the game of `params`, from `origin`."""
        raise NotImplementedError

    def replay(self, move: Any) -> None:
        """A recorded move again."""
        raise NotImplementedError

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        other = type(self).__new__(type(self))
        other.__dict__.update(self.__dict__)
        for name in self.copied:
            setattr(other, name, getattr(self, name)[:])
        self.copy_engine(other)
        return other

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self).rebuild, (self.game.params, self.origin, self.moves))

    @classmethod
    def rebuild(cls, params: dict[str, Any], origin: Any, moves: list[Any]) -> Any:
        """A pickled core: a new one, its moves played again."""
        core = cls.fresh(params, origin)
        for move in moves:
            core.replay(move)
        return core


class CoreState(pyspiel.State):  # type: ignore[misc]
    """What both games' states answer from their core (see the module docstring): a game's
    state adds how it applies actions and names them."""

    core: Any

    def current_player(self) -> int:
        """The seat to act, or `pyspiel.PlayerId` CHANCE, SIMULTANEOUS or TERMINAL."""
        player: int = self.core.current_player()
        return player

    def _legal_actions(self, player: int) -> list[int]:
        """`player`'s legal action indexes now, ascending."""
        legal: list[int] = self.core.legal(player)
        return legal

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The outcomes of the chance node now, with their probabilities, ascending."""
        outcomes: list[tuple[int, float]] = self.core.chance_outcomes()
        return outcomes

    def is_terminal(self) -> bool:
        """The game is over."""
        return bool(self.core.current_player() == int(pyspiel.PlayerId.TERMINAL))

    def returns(self) -> list[float]:
        """Each seat's return: zeros until the end (see `UTILITIES`)."""
        returns: list[float] = self.core.returns()
        return returns

    def rewards(self) -> list[float]:
        """Rewards come at the end only: they are the returns then."""
        return self.returns()

    def observation_of(self, player: int) -> Any:
        """`player`'s engine observation, as the server would send it (None before the game
        has begun)."""
        return self.core.observation(player)

    def __str__(self) -> str:
        return str(self.core)
