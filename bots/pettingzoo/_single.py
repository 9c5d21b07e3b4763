"""One seat as a gymnasium environment, the other seats played by the project's strategies.

    from sushigo.bots.pettingzoo import SingleAgentEnv
    env = SingleAgentEnv("sushi-go", opponents="heuristic", players=4)
    env = SingleAgentEnv("sushi-roll", opponents=["greedy", "ismcts@iterations=50"], players=3)

Common RL libraries train on it as on any gymnasium environment with a discrete action space and
an action mask (``obs["action_mask"]``, the same encoding as `sushi_go_v0` and `sushi_roll_v0`).
Opponents are specs of the strategy registry (`bots.strategy_factory`, with ``game=`` picking the
Sushi Roll implementations): one spec for every other seat, or one per other seat in seat order.
`seat` is the learner's seat, or None to draw it anew at every reset. Each opponent gets a
`random.Random` seeded from the environment's generator, so `reset(seed=s)` replays exactly
(strategies with an iteration budget; a time budget needs a clock, which this pure package never
reads).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np

from sushigo.bots import StrategyError, StrategyFactory, strategy_factory
from sushigo.bots._door import DOOR, part
from sushigo.bots._lazy import load
from sushigo.engine import EngineError
from sushigo.engine.games import rules

from ._envs import ActionSpace, Obs, _Rewards, observation_space
from ._table import RENDER_MODES, Array, Table, check_max_cycles, check_render_mode, rendered


def table_for(game: str, players: int, variants: dict[str, bool]) -> Table:
    """A PettingZoo table of the game `game` (its ``PETTINGZOO``, `bots._door`) for `players`
    with the variants set to true on; `ValueError` naming what does not make one."""
    try:
        where = getattr(part(game), "PETTINGZOO", None)
    except StrategyError as exc:
        raise ValueError(str(exc)) from None
    if not isinstance(where, str):
        with_tables = [k for k in DOOR.built_in if getattr(part(k), "PETTINGZOO", None)]
        raise ValueError(f"game must be one of {', '.join(with_tables)}, got {game!r}")
    game_rules = rules(game)
    unknown = [name for name in variants if name not in game_rules.variants]
    if unknown:
        have = ", ".join(game_rules.variants) or "none"
        raise ValueError(f"{game_rules.title} has no variants {', '.join(unknown)} (its: {have})")
    try:
        options = game_rules.options(players, [name for name, on in variants.items() if on])
    except EngineError as exc:
        raise ValueError(str(exc)) from None
    table: Table = load(where)(options)
    return table


class SingleAgentEnv(gymnasium.Env[Obs, np.int64]):
    """The learner at one seat, strategies at the others (see the module docstring)."""

    metadata = {"render_modes": RENDER_MODES, "render_fps": 1}  # noqa: RUF012 (gymnasium's way)

    def __init__(
        self,
        game: str = "sushi-go",
        *,
        opponents: str | Sequence[str] = "heuristic",
        players: int = 4,
        seat: int | None = 0,
        reward: str = "win",
        max_steps: int = 1000,
        render_mode: str | None = None,
        **variants: bool,
    ) -> None:
        table = table_for(game, players, variants)
        check_render_mode(render_mode)
        if seat is not None and (type(seat) is not int or not 0 <= seat < players):
            raise ValueError(f"seat must be None or 0 to {players - 1}, got {seat!r}")
        specs = [opponents] * (players - 1) if isinstance(opponents, str) else list(opponents)
        if len(specs) != players - 1:
            raise ValueError(f"expected {players - 1} opponent specs, got {len(specs)}")
        factories = {spec: strategy_factory(spec, game=game) for spec in set(specs)}
        self.game_kind = game
        self.table = table
        self.render_mode = render_mode
        self.max_steps = check_max_cycles(max_steps)
        self.observation_space = observation_space(table)  # type: ignore[assignment]
        self.action_space = ActionSpace(table.action_size)
        self._fixed_seat = seat
        self.seat = seat if seat is not None else 0
        """The learner's seat in the current game."""
        self._factories: list[StrategyFactory] = [factories[spec] for spec in specs]
        self._bots: list[Any] = []
        """The opponent at every seat (None at the learner's)."""
        self._rngs: list[random.Random] = []
        self._rewards = _Rewards(table, reward)
        self._steps = 0

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Obs, dict[str, Any]]:
        """A new game, played by the opponents up to the learner's first move."""
        super().reset(seed=seed)
        rng = self.np_random
        n = self.table.players
        if self._fixed_seat is None:
            self.seat = int(rng.integers(n))
        self.table.reset(rng.bytes(32))
        bots = [factory() for factory in self._factories]
        for bot in bots:
            reset = getattr(bot, "reset", None)
            if callable(reset):
                reset()
        self._bots = [*bots[: self.seat], None, *bots[self.seat :]]
        self._rngs = [random.Random(int(rng.integers(1 << 62))) for _ in range(n)]
        self._rewards.reset()
        self._steps = 0
        self._opponents_move()
        return self._observe(), {}

    def _observe(self) -> Obs:
        table, seat = self.table, self.seat
        return {"observation": table.observation(seat), "action_mask": table.action_mask(seat)}

    def _choose(self, seat: int) -> int:
        """An opponent's action, as an index."""
        table = self.table
        game = table.game
        legal = game.legal_actions(seat)
        action = self._bots[seat].choose(game.observation(seat), legal, self._rngs[seat])
        if action not in legal:
            raise ValueError(f"opponent at seat {seat} chose an illegal action {action!r}")
        return table.index_of(action, seat)

    def _opponents_move(self) -> None:
        """Sushi Roll: play the opponents' actions until the learner is to move or the game ends."""
        table = self.table
        while not table.simultaneous and not table.is_over():
            (mover,) = table.acting()
            if mover == self.seat:
                return
            table.play({mover: self._choose(mover)})

    def step(self, action: Any) -> tuple[Obs, float, bool, bool, dict[str, Any]]:
        """The learner's action (an index; outside the mask, its lowest legal index is played
        and the info says ``{"illegal_action": True}``), then the opponents' up to its next move."""
        table, seat = self.table, self.seat
        if table.is_over():
            raise ValueError("the game is over: call reset() first")
        info: dict[str, Any] = {}
        index = int(action)
        if not table.is_legal(seat, index):
            index = table.default_action(seat)
            info["illegal_action"] = True
        if table.simultaneous:
            picks = {s: self._choose(s) for s in table.acting() if s != seat}
            picks[seat] = index
            table.play(picks)
        else:
            table.play({seat: index})
            self._opponents_move()
        self._steps += 1
        reward = self._rewards.step()[seat]
        over = table.is_over()
        return self._observe(), reward, over, not over and self._steps >= self.max_steps, info

    def action_masks(self) -> Array:
        """The learner's legal indexes now, as booleans: where sb3-contrib's MaskablePPO (its
        `get_action_masks`) and other maskable learners look for them."""
        return self.table.action_mask(self.seat).astype(bool)

    def render(self) -> str | None:
        """The table as text: returned in render mode "ansi", printed in "human"; None, with a
        warning, without a render mode."""
        return rendered(self.table, self.render_mode)
