"""Bots across the two worlds: our strategies as OpenSpiel bots, OpenSpiel bots as our strategies.

`StrategyBot` plays one of the registry's strategies (``"heuristic"``, ``"ismcts@iterations=50"``,
``"path/to/bot.py:MyBot"``...) as a `pyspiel.Bot`: it gives the strategy its seat's engine
observation, exactly what a seat at the server gets, and turns the action back into an index. It
plays on the games' own states and on Sushi Go!'s turn-based conversion.

`OpenSpielStrategy` is the other way round: a pyspiel bot as a strategy of the registry, so it
plays in ``sushigo-arena`` and at a server's table (``sushigo-bot --strategy``) with only its
seat's observations. Each move it builds an OpenSpiel state of the position: in Sushi Go! the
cards the seat cannot see are dealt at random where they may be (`bots.SeatMemory.sample`, a
determinization); Sushi Roll hides nothing. The state's history begins at that position. A
subclass writes `make_bot`; `MctsStrategy` is OpenSpiel's MCTS (``--strategy
sushigo.bots.openspiel:MctsStrategy@simulations=200``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

from sushigo.bots import SeatMemory, Strategy, StrategyError, get_strategy
from sushigo.bots.games.sushi_go._spiel import SushiGoGame, SushiGoState
from sushigo.bots.games.sushi_roll._spiel import SushiRollGame, SushiRollState
from sushigo.bots.pettingzoo import action_index, action_of
from sushigo.engine import Action, Game, Observation
from sushigo.engine.games.sushi_roll import RollAction, RollGame, RollObservation

AnyGame = SushiGoGame | SushiRollGame
AnyState = SushiGoState | SushiRollState


def native_state(state: Any) -> AnyState:
    """Our own state behind `state`: itself, or the simultaneous state of a turn-based
    conversion (whose seats still to pick have not picked there)."""
    if isinstance(state, SushiGoState | SushiRollState):
        return state
    if isinstance(state, pyspiel.TurnBasedSimultaneousState):
        inner = state.simultaneous_game_state()
        if isinstance(inner, SushiGoState):
            return inner
    raise ValueError(f"not a state of python_sushi_go or python_sushi_roll: {type(state)}")


class StrategyBot(pyspiel.Bot):  # type: ignore[misc]
    """A strategy of the registry as the OpenSpiel bot of `player` (see the module docstring).

    `game` is ``python_sushi_go`` or ``python_sushi_roll`` (the strategy's game follows from it);
    `strategy` a spec or a ready instance; `seed` seeds the `random.Random` it draws from.
    """

    def __init__(
        self, game: AnyGame, player: int, strategy: str | Strategy = "heuristic", seed: int = 0
    ) -> None:
        pyspiel.Bot.__init__(self)
        if not isinstance(game, SushiGoGame | SushiRollGame):
            raise ValueError("StrategyBot plays python_sushi_go or python_sushi_roll")
        kind = "sushi-go" if isinstance(game, SushiGoGame) else "sushi-roll"
        self.game = game
        self.player = player
        self.strategy = get_strategy(strategy, game=kind) if isinstance(strategy, str) else strategy
        self._seed = seed
        self._rng = random.Random(seed)

    def restart_at(self, state: Any) -> None:
        """A new game: the strategy forgets the last one."""
        reset = getattr(self.strategy, "reset", None)
        if callable(reset):
            reset()

    def inform_action(self, state: Any, player_id: int, action: int) -> None:
        """Nothing to do: the strategy reads the next observation."""

    def provides_policy(self) -> bool:
        return False

    def step(self, state: Any) -> int:
        """The strategy's action for this seat, as an index."""
        native = native_state(state)
        p = self.player
        obs = native.observation_of(p)
        engine = native.engine_game()
        if obs is None or engine is None:
            raise ValueError("no seat acts before the game starts")
        legal = engine.legal_actions(p)
        if not legal:
            raise ValueError(f"player {p} does not act now")
        action = self.strategy.choose(obs, legal, self._rng)
        if action not in legal:
            raise ValueError(f"the strategy chose an illegal action {action!r}")
        if isinstance(native, SushiGoState):
            return action_index(action)
        return int(native.core.game.encoding.action_index(action, p))


class OpenSpielStrategy:
    """A pyspiel bot as a strategy of the registry (see the module docstring).

    Subclasses write `make_bot` and may set `turn_based` (the bot needs one seat to act at a
    time: in Sushi Go! it then plays on the turn-based conversion, where the seats before it in
    seat order have picked already; the determinization gives them random legal picks, which a
    search that reads the whole state takes as known). The keyword arguments a spec gives
    (``@simulations=200``) go to the subclass's constructor.
    """

    turn_based = False

    def __init__(self) -> None:
        self._memory = SeatMemory()

    def make_bot(self, game: Any, player: int, seed: int) -> pyspiel.Bot:
        """The bot that plays `player` in `game` (an OpenSpiel game), seeded with `seed`."""
        raise NotImplementedError

    def reset(self) -> None:
        """Forget the last game."""
        self._memory.reset()

    def choose(self, observation: Any, legal: Sequence[Any], rng: random.Random) -> Any:
        """The bot's action in the position `observation` shows."""
        if isinstance(observation, Observation):
            self._memory.observe(observation)
        if len(legal) == 1:
            return legal[0]
        seed = rng.randrange(1 << 31)
        if isinstance(observation, Observation):
            return self._choose_go(observation, legal, rng, seed)
        if isinstance(observation, RollObservation):
            return self._choose_roll(observation, legal, rng, seed)
        raise StrategyError(f"no OpenSpiel game for observations of {type(observation)}")

    def _choose_go(
        self, obs: Observation, legal: Sequence[Action], rng: random.Random, seed: int
    ) -> Action:
        seat = obs.seat
        assert seat is not None
        hands, rest, pile = self._memory.sample(rng)
        engine = Game.from_observation(obs, hands, rest, pile)
        opts = obs.options
        params = {
            "players": opts.players,
            "pass_both_ways": opts.pass_both_ways,
            "dummy": opts.dummy,
            "soy_sauce": opts.soy_sauce,
        }
        game: Any = SushiGoGame(params).rooted_at(engine, self._memory.past_known)
        if self.turn_based:
            game = pyspiel.convert_to_turn_based(game)
        state = game.new_initial_state()
        while state.current_player() != seat and not state.is_simultaneous_node():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, probs)[0])
            else:  # an earlier seat of the turn-based conversion
                state.apply_action(rng.choice(state.legal_actions()))
        index = self.make_bot(game, seat, seed).step(state)
        found: Action = self._legal(action_of(index), legal)
        return found

    def _choose_roll(
        self, obs: RollObservation, legal: Sequence[RollAction], rng: random.Random, seed: int
    ) -> RollAction:
        seat = obs.seat
        assert seat is not None
        engine = RollGame.from_observation(obs, rng.randbytes(32))
        game = SushiRollGame({"players": obs.options.players}).rooted_at(engine)
        state = game.new_initial_state()
        index = self.make_bot(game, seat, seed).step(state)
        found: RollAction = self._legal(game.encoding.action_of(index, seat), legal)
        return found

    @staticmethod
    def _legal(action: Any, legal: Sequence[Any]) -> Any:
        if action not in legal:
            raise StrategyError(f"the OpenSpiel bot chose an illegal action {action!r}")
        return action


class MctsStrategy(OpenSpielStrategy):
    """OpenSpiel's MCTS (`open_spiel.python.algorithms.mcts.MCTSBot`, UCT with random
    rollouts) on a determinization of the position, `simulations` a move."""

    turn_based = True

    def __init__(self, simulations: int = 100, uct_c: float = 2.0, rollouts: int = 1) -> None:
        super().__init__()
        if type(simulations) is not int or simulations < 1:
            raise StrategyError(f"simulations must be a positive integer, got {simulations!r}")
        if type(rollouts) is not int or rollouts < 1:
            raise StrategyError(f"rollouts must be a positive integer, got {rollouts!r}")
        self.simulations = simulations
        self.uct_c = float(uct_c)
        self.rollouts = rollouts

    def make_bot(self, game: Any, player: int, seed: int) -> pyspiel.Bot:
        """An `MCTSBot` with a random-rollout evaluator."""
        state = np.random.RandomState(seed)
        evaluator = mcts.RandomRolloutEvaluator(self.rollouts, state)
        return mcts.MCTSBot(
            game, self.uct_c, self.simulations, evaluator, random_state=state, solve=False
        )
