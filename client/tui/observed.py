"""`ObservedBoard`: a game's board drawn from its observation, as both built-in boards are.

A board written on it draws its header, players and own panel from the game's typed observation
(`draw_header`, `draw_players`, `draw_panel`), and shows nothing in them before the first one
arrives; everything else is `Board`'s.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from typing import Generic, TypeVar

from sushigo.engine.api import SeatView

from .board import Board, Fragments

__all__ = ["ObservedBoard"]

ObsT = TypeVar("ObsT", bound=SeatView)
"""The game's observation."""
ViewT = TypeVar("ViewT")
"""What the observation shows of one seat (its tableau, or its tray and belt)."""


class ObservedBoard(Board, Generic[ObsT, ViewT]):
    """A board that draws from its game's observation (see the module)."""

    @property
    def obs(self) -> ObsT | None:
        """Our latest observation, as the game's type (None before the first)."""
        obs: ObsT | None = self.observation
        return obs

    @property
    def me(self) -> ViewT | None:
        """What the observation shows of our own seat, when we are seated in a game."""
        obs = self.obs
        if obs is None or obs.seat is None:
            return None
        return self.seat_views(obs)[obs.seat]

    def header(self) -> Fragments:
        obs = self.obs
        return [] if obs is None else self.draw_header(obs)

    def players(self) -> Fragments:
        obs = self.obs
        return [] if obs is None else self.draw_players(obs)

    def panel(self) -> Fragments:
        obs = self.obs
        return [] if obs is None else self.draw_panel(obs)

    def default_status(self) -> str:
        """What to do now, when the status line has nothing else to say: the game over, nothing
        to say before the first observation, watching; in a game of ours, the game's own words."""
        obs = self.obs
        if self.final is not None:
            return "the game is over"
        if obs is None:
            return ""
        if obs.seat is None:
            return "watching the game"
        return self.playing_status(obs)

    @abstractmethod
    def seat_views(self, obs: ObsT) -> Sequence[ViewT]:
        """What `obs` shows of each seat, indexed by seat."""

    @abstractmethod
    def draw_header(self, obs: ObsT) -> Fragments:
        """The header's game part: where the game stands."""

    @abstractmethod
    def draw_players(self, obs: ObsT) -> Fragments:
        """The players, their scores and what each is doing."""

    @abstractmethod
    def draw_panel(self, obs: ObsT) -> Fragments:
        """Our own panel: what we may do."""

    @abstractmethod
    def playing_status(self, obs: ObsT) -> str:
        """What to do now, seated in a game not over (`default_status` for the rest)."""
