"""The Sushi Roll table behind `sushi_roll_v0`: an engine `RollGame`, one seat to move at a time."""

from __future__ import annotations

from typing import Any

from sushigo.bots.pettingzoo._table import Array, Table
from sushigo.engine.games.sushi_roll import RollGame, RollObservation, RollOptions

from ._pz_encoding import WAIT, SushiRollEncoding


class SushiRollTable(Table):
    """Sushi Roll for the environments."""

    simultaneous = False

    def __init__(self, options: RollOptions) -> None:
        self.options = options
        self.players = options.players
        self.encoding = SushiRollEncoding(options.players)
        self.action_size = self.encoding.action_size
        self.observation_size = self.encoding.size
        self._game = RollGame(options, b"")
        self._obs: RollObservation | None = None
        self._parts: list[list[int]] | None = None
        self._masks: dict[int, Array] = {}
        """This state's public observation, its per-seat numbers and masks, once worked out."""

    @property
    def game(self) -> RollGame:
        """The engine game being played."""
        return self._game

    def index_of(self, action: Any, seat: int) -> int:
        """The encoding's index of `seat`'s action."""
        return int(self.encoding.action_index(action, seat))

    def reset(self, seed: bytes) -> None:
        self._game = RollGame(self.options, seed)
        self._changed()

    def resume(self, game: RollGame) -> None:
        """Continue from `game` (say, `RollGame.from_observation`)."""
        if game.options != self.options:
            raise ValueError("the game's options differ from the table's")
        self._game = game
        self._changed()

    def _changed(self) -> None:
        self._obs = None
        self._parts = None
        self._masks = {}

    def _public(self) -> RollObservation:
        obs = self._obs
        if obs is None:
            obs = self._obs = self._game.observation(None)
        return obs

    def acting(self) -> tuple[int, ...]:
        mover = self._game.to_move
        return () if mover is None else (mover,)

    def observation(self, seat: int) -> Array:
        obs = self._public()
        parts = self._parts
        if parts is None:
            view = self.encoding.view_part
            parts = self._parts = [view(player) for player in obs.players]
        return self.encoding.encode(obs, seat, parts)

    def action_mask(self, seat: int) -> Array:
        mask = self._masks.get(seat)
        if mask is None:
            mask = self._masks[seat] = self.encoding.mask(self._public(), seat)
        return mask.copy()

    def is_legal(self, seat: int, index: int) -> bool:
        if not 0 <= index < self.action_size:
            return False
        mask = self._masks.get(seat)
        if mask is None:
            mask = self._masks[seat] = self.encoding.mask(self._public(), seat)
        return bool(mask[index])

    def default_action(self, seat: int) -> int:
        return 1 if seat == self._game.to_move else WAIT

    def play(self, picks: dict[int, int]) -> None:
        game = self._game
        mover = game.to_move
        if mover is None or set(picks) != {mover}:
            raise ValueError(f"expected an action of seat {mover} alone, got {sorted(picks)}")
        action = self.encoding.action_of(picks[mover], mover)
        if action is None:
            raise ValueError("the seat to move cannot wait")
        game.apply(mover, action)
        self._changed()

    def is_over(self) -> bool:
        return self._game.is_terminal()

    def scores(self) -> tuple[int, ...]:
        return self._game.scores()

    def winners(self) -> tuple[int, ...]:
        return self._game.winners()

    def render(self) -> str:
        game = self._game
        obs = self._public()
        head = f"Sushi Roll {self.players} players"
        if game.is_terminal():
            head += " - game over"
        else:
            head += f" - round {obs.round}, cycle {obs.cycle}, player_{obs.to_move} to move"
        lines = [
            head + f" (bag {obs.bag}, supply menu {obs.menu_supply}, "
            f"chopsticks {obs.chopsticks_supply})"
        ]
        for seat, view in enumerate(obs.players):
            belt = " ".join(die.face.label for die in view.belt) or "-"
            tray = " ".join(die.face.label for die in view.tray) or "-"
            red = " (red belt)" if view.has_red_belt else ""
            lines.append(
                f"player_{seat}: score {view.score:>3}  menu {view.menu}  chopsticks "
                f"{view.chopsticks}  puddings {view.puddings}{red}"
            )
            lines.append(f"          belt: {belt}")
            lines.append(f"          tray: {tray}")
        return "\n".join(lines) + "\n"
