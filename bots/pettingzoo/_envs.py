"""The AEC and parallel environments around a `Table`, shaped like PettingZoo's classic games.

Agents are ``player_0`` to ``player_{n-1}`` (agent i is seat i). An observation is a dict of
``"observation"`` (float32) and ``"action_mask"`` (int8), both from the table. An action outside
the mask is replaced by the seat's lowest legal index and the agent's info says
``{"illegal_action": True}``: the environments never crash on a bad action, and PettingZoo's own
tests (which step some environments with unmasked samples) play whole games.

Secrecy in the AEC form of a simultaneous game: every live agent picks in seat order, the picks
are held by the environment, and the table plays them all at once after the last one, as
PettingZoo's simultaneous classics do; nothing an agent observes depends on a pick not yet
played. In a sequential game (`Table.simultaneous` false) the selected agent is the seat to move,
which may act several times in a row.

`max_cycles`: the parallel form truncates every agent after that many steps. The AEC form
truncates each agent after that many of its own actions; in a sequential game a truncated seat's
later moves are then played for it (its lowest legal index), so the others play on to their own
limit. Every agent thus acts exactly `max_cycles` times unless the game ends first, in both forms.

Seeds: `reset(seed=s)` seeds the environment's generator (numpy, as gymnasium does), and every
game's engine seed (32 bytes) is drawn from it, so a seed gives the same games on every machine.
A first `reset()` without a seed takes fresh entropy, as every gymnasium environment does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium.spaces import Box, Dict, Discrete
from gymnasium.utils import seeding
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import wrappers

from ._table import (
    RENDER_MODES,
    Array,
    Table,
    check_max_cycles,
    check_render_mode,
    check_reward,
    final_rewards,
    rendered,
)

Obs = dict[str, Array]

_ILLEGAL: dict[str, Any] = {"illegal_action": True}


def agent_names(players: int) -> list[str]:
    """``player_0`` ... in seat order."""
    return [f"player_{seat}" for seat in range(players)]


class ActionSpace(Discrete):
    """`Discrete` with a faster masked `sample`: the legal indexes of each mask seen are kept (by
    its bytes, so any array of the same values finds them), and the draw is the one gymnasium
    makes, ``np_random.choice(legal indexes)``, taken as ``np_random.integers(len(legal))``, which
    draws the same number from the generator at a third of the cost: a seed samples exactly what it
    would. A mask gymnasium would refuse (wrong type, shape or values) goes to gymnasium, which says
    why. `contains` (asked for every action by PettingZoo's wrapper) answers plain ints at once."""

    def __init__(self, n: int, seed: int | None = None) -> None:
        super().__init__(n, seed=seed)
        self._legal: dict[bytes, Array] = {}
        self._mask_shape = (int(n),)
        self._low, self._high = int(self.start), int(self.start + self.n)

    def contains(self, x: Any) -> bool:
        """`x` is an index of the space (gymnasium's `Discrete.contains`)."""
        if type(x) is int or type(x) is np.int64:
            return bool(self._low <= x < self._high)
        return bool(super().contains(x))

    def sample(self, mask: Array | None = None, probability: Array | None = None) -> np.int64:
        """A uniform index among those `mask` allows (gymnasium's `Discrete.sample`)."""
        if (
            probability is not None
            or type(mask) is not np.ndarray
            or mask.dtype != np.int8
            or mask.shape != self._mask_shape
        ):
            return super().sample(mask, probability)
        key = mask.tobytes()
        legal = self._legal.get(key)
        if legal is None:
            if ((mask != 0) & (mask != 1)).any():
                return super().sample(mask)  # (it refuses)
            if len(self._legal) > 50_000:
                self._legal.clear()
            legal = self._legal[key] = np.flatnonzero(mask)
        if not len(legal):
            return self.start
        return self.start + legal[self.np_random.integers(len(legal))]  # type: ignore[no-any-return]


def observation_space(table: Table) -> Dict:
    """One agent's observation space (a new object: each agent seeds its own)."""
    return Dict(
        {
            "observation": Box(0.0, 255.0, (table.observation_size,), np.float32),
            "action_mask": Box(0, 1, (table.action_size,), np.int8),
        }
    )


class _TableEnv:
    """What both forms share: the table, the agents' spaces, the generator of engine seeds,
    rendering."""

    metadata: dict[str, Any]
    """The game's (its name, its render modes): a game's AEC class sets it, and its parallel
    environment takes it from there (`makers`)."""
    _np_random: np.random.Generator | None = None

    def _setup(self, table: Table, max_cycles: int, reward: str, render_mode: str | None) -> None:
        self.table = table
        self.max_cycles = check_max_cycles(max_cycles)
        self.render_mode = check_render_mode(render_mode)
        self.reward = reward
        self._rewards = _Rewards(table, reward)
        self.possible_agents = agent_names(table.players)
        self.agents: list[str] = []
        self.observation_spaces = {a: observation_space(table) for a in self.possible_agents}
        self.action_spaces = {a: ActionSpace(table.action_size) for a in self.possible_agents}
        self.state_space = Box(0.0, 255.0, (table.players * table.observation_size,), np.float32)
        """The whole table (`state`): every seat's observation, in seat order."""

    def observation_space(self, agent: str) -> Dict:
        """The agent's observation space (always the same object)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> Discrete:
        """The agent's action space (always the same object)."""
        return self.action_spaces[agent]

    def _observe(self, seat: int) -> Obs:
        table = self.table
        return {"observation": table.observation(seat), "action_mask": table.action_mask(seat)}

    def _game_seed(self, seed: int | None) -> bytes:
        if seed is not None or self._np_random is None:
            self._np_random, _ = seeding.np_random(seed)
        return self._np_random.bytes(32)

    def state(self) -> Array:
        """Everything at the table, for learners that train with it (a centralised critic):
        every seat's observation, in seat order, so every hand. Never give it to a seat."""
        table = self.table
        return np.concatenate([table.observation(seat) for seat in range(table.players)])

    def render(self) -> str | None:
        """The table (every hand included) as text: returned in render mode "ansi", printed in
        "human"; None, with a warning, without a render mode."""
        return rendered(self.table, self.render_mode)

    def close(self) -> None:
        """Nothing to release."""


class _Rewards:
    """Per-seat rewards of one step, by the environment's reward scheme."""

    __slots__ = ("_reward", "_scores", "_table")

    def __init__(self, table: Table, reward: str) -> None:
        self._table = table
        self._reward = check_reward(reward)
        self._scores = [0] * table.players

    def reset(self) -> None:
        self._scores = list(self._table.scores())

    def step(self) -> list[float]:
        table = self._table
        if self._reward == "score":
            before, after = self._scores, list(table.scores())
            self._scores = after
            return [float(a - b) for a, b in zip(after, before, strict=True)]
        if table.is_over():
            return final_rewards(table.players, table.winners())
        return [0.0] * table.players


class TableParallelEnv(_TableEnv, ParallelEnv):  # type: ignore[misc]
    """The parallel form: every live agent sends an action on every step (see module docstring)."""

    metadata: dict[str, Any] = {"render_modes": RENDER_MODES, "name": "table"}  # noqa: RUF012

    def __init__(
        self, table: Table, *, max_cycles: int, reward: str, render_mode: str | None
    ) -> None:
        self._setup(table, max_cycles, reward, render_mode)
        self._cycles = 0

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Obs], dict[str, dict[str, Any]]]:
        """A new game; every agent's first observation."""
        self.table.reset(self._game_seed(seed))
        self._rewards.reset()
        self._cycles = 0
        self.agents = self.possible_agents[:]
        return self._observations(), {agent: {} for agent in self.agents}

    def _observations(self) -> dict[str, Obs]:
        return {agent: self._observe(seat) for seat, agent in enumerate(self.agents)}

    def step(
        self, actions: dict[str, Any]
    ) -> tuple[
        dict[str, Obs],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        """Play one step; a missing or illegal action is replaced (see the module docstring)."""
        table = self.table
        agents = self.agents
        if not agents:
            raise ValueError("the game is over: call reset() first")
        infos: dict[str, dict[str, Any]] = {agent: {} for agent in agents}
        acting = table.acting()
        picks = {}
        for seat in acting:
            agent = agents[seat]
            action = actions.get(agent)
            index = -1 if action is None else int(action)
            if not table.is_legal(seat, index):
                index = table.default_action(seat)
                infos[agent] = _ILLEGAL
            picks[seat] = index
        if len(acting) < len(agents):
            # A sequential game: the others may only wait (their mask says which index).
            for seat, agent in enumerate(agents):
                action = actions.get(agent)
                if seat not in picks and (action is None or not table.is_legal(seat, int(action))):
                    infos[agent] = _ILLEGAL
        table.play(picks)
        self._cycles += 1
        over = table.is_over()
        truncated = not over and self._cycles >= self.max_cycles
        rewards = dict(zip(agents, self._rewards.step(), strict=True))
        observations = self._observations()
        terminations = dict.fromkeys(agents, over)
        truncations = dict.fromkeys(agents, truncated)
        if over or truncated:
            self.agents = []
        return observations, rewards, terminations, truncations, infos


class TableAECEnv(_TableEnv, AECEnv):  # type: ignore[misc]
    """The AEC form: one agent at a time (see the module docstring)."""

    metadata: dict[str, Any] = {  # noqa: RUF012 (PettingZoo declares it so)
        "render_modes": RENDER_MODES,
        "name": "table",
        "is_parallelizable": True,
    }

    def __init__(
        self, table: Table, *, max_cycles: int, reward: str, render_mode: str | None
    ) -> None:
        super().__init__()
        self._setup(table, max_cycles, reward, render_mode)
        self.agent_name_mapping = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        self._picks: dict[int, int] = {}
        self._acted = [0] * table.players

    def observe(self, agent: str) -> Obs:
        """What `agent` may know now: never another seat's hand, never a pick not yet played."""
        return self._observe(self.agent_name_mapping[agent])

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game."""
        self.table.reset(self._game_seed(seed))
        self._rewards.reset()
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._picks = {}
        self._acted = [0] * self.table.players
        self.agent_selection = self.possible_agents[self.table.acting()[0]]

    def step(self, action: Any) -> None:
        """The selected agent's action (None for an agent whose game has ended)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        table = self.table
        seat = self.agent_name_mapping[agent]
        self._cumulative_rewards[agent] = 0.0
        index = -1 if action is None else int(action)
        self.infos[agent] = {}
        if not table.is_legal(seat, index):
            index = table.default_action(seat)
            self.infos[agent] = dict(_ILLEGAL)
        self._acted[seat] += 1
        self._clear_rewards()
        if table.simultaneous:
            self._picks[seat] = index
            waiting = [s for s in table.acting() if s not in self._picks]
            if waiting:
                # The picks stay secret until the last one is in.
                self.agent_selection = self.possible_agents[waiting[0]]
                self._accumulate_rewards()
                return
            picks, self._picks = self._picks, {}
            table.play(picks)
        else:
            table.play({seat: index})
        self._played()

    def _played(self) -> None:
        """After a table step: rewards, ends, truncations, and the next agent."""
        table = self.table
        names = self.possible_agents
        rewards = self._rewards.step()
        over = table.is_over()
        for agent in self.agents:
            seat = self.agent_name_mapping[agent]
            self.rewards[agent] = rewards[seat]
            if over:
                self.terminations[agent] = True
            elif self._acted[seat] >= self.max_cycles:
                self.truncations[agent] = True
        if not over:
            # Seats that no longer play for themselves (truncated) are played for, so that the
            # others reach their own limit.
            live = {self.agent_name_mapping[a] for a in self.agents if not self.truncations[a]}
            acting = table.acting()
            while live and not table.is_over() and not live.intersection(acting):
                table.play({seat: table.default_action(seat) for seat in acting})
                acting = table.acting()
            if live and table.is_over():
                final = self._rewards.step()
                for agent in self.agents:
                    self.rewards[agent] += final[self.agent_name_mapping[agent]]
                    self.terminations[agent] = True
            elif live:
                self.agent_selection = names[min(s for s in acting if s in live)]
        self._accumulate_rewards()
        self._deads_step_first()


class _OrderEnforcing(wrappers.OrderEnforcingWrapper):  # type: ignore[misc]
    """PettingZoo's `OrderEnforcingWrapper`, with the attributes an agent loop reads every step
    (`agents`, `agent_selection`, `last`) taken from the environment itself rather than through
    each wrapper's `__getattr__` (a third of the tutorial loop's time went there). The checks
    stay: before `reset` they raise as the wrapper does."""

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        self._raw = env.unwrapped

    @property
    def agents(self) -> list[str]:
        if not self._has_reset:
            raise AttributeError("agents cannot be accessed before reset")
        agents: list[str] = self._raw.agents
        return agents

    @property
    def agent_selection(self) -> str:
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        selected: str = self._raw.agent_selection
        return selected

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """The selected agent's observation, reward, ends and info (`AECEnv.last`)."""
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        found: tuple[Any, float, bool, bool, dict[str, Any]] = self._raw.last(observe)
        return found

    def action_space(self, agent: str) -> Discrete:
        space: Discrete = self._raw.action_space(agent)
        return space


def wrapped(aec: TableAECEnv) -> Any:
    """`aec` with PettingZoo's usual wrappers for classic games (actions in range, call order)."""
    return _OrderEnforcing(wrappers.AssertOutOfBoundsWrapper(aec))


def makers(
    raw_env: Callable[..., TableAECEnv],
) -> tuple[Callable[..., Any], Callable[..., TableParallelEnv]]:
    """PettingZoo's `env` and `parallel_env` of the game whose unwrapped AEC class is `raw_env`
    (they take its keyword arguments): each game's module is its `raw_env` and these."""

    def env(**kwargs: Any) -> Any:
        """The AEC environment with PettingZoo's usual wrappers (actions in range, call order)."""
        return wrapped(raw_env(**kwargs))

    def parallel_env(**kwargs: Any) -> TableParallelEnv:
        """The parallel environment (the same keyword arguments as `raw_env`)."""
        aec = raw_env(**kwargs)
        par = TableParallelEnv(
            aec.table, max_cycles=aec.max_cycles, reward=aec.reward, render_mode=aec.render_mode
        )
        par.metadata = aec.metadata
        return par

    return env, parallel_env
