"""The `ismcts` strategy: information-set Monte Carlo tree search over determinizations.

Each iteration deals the cards this seat cannot see at random, consistently with everything it has
seen (`SeatMemory.sample`), builds a simulation game from the observation and that deal
(`Game.from_observation`), and plays it to the end of the round: this seat's picks come from one
search tree over its own information sets (single-observer ISMCTS: nodes are keyed by its own
actions, and a child's availability counts how many determinizations allowed it), the other seats'
picks from a fast rollout policy. The end of the round is scored exactly by the engine; puddings
and the earlier rounds' totals are folded into a reward in [0, 1] that favours beating the leader.

The search never reads hidden state: it only ever sees the observation, its memory of earlier
observations, and games it made up itself.

The root's candidates are the heuristic strategy's best few actions (pairs with chopsticks and
dummy picks multiply the choices, and most are plainly bad), with a progressive bias towards the
heuristic's favourites that fades as visits accumulate.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from sushigo.bots._budget import Clock, SearchBudget
from sushigo.engine import Action, Card, Game, Observation, score_puddings

from ._heuristic import rank_actions
from ._memory import SeatMemory
from ._rollout import RolloutPolicy, SimState
from ._values import Context, Tuning


class _Node:
    """Statistics of one of this seat's information sets, reached by its own action sequence."""

    __slots__ = ("avail", "children", "total", "visits")

    def __init__(self) -> None:
        self.children: dict[Action, _Node] = {}
        self.visits = 0
        self.total = 0.0
        self.avail = 0


class IsmctsStrategy(SearchBudget):
    """Single-observer information-set MCTS, with heuristic candidates and rollouts.

    Budget: `iterations` per move (the default, deterministic for a seed), or `ms` milliseconds
    per move measured with the injected `clock` (required with `ms`). `candidates` root actions
    are searched (the heuristic's best); `exploration` is the UCB constant on rewards in [0, 1].
    """

    name = "ismcts"

    def __init__(
        self,
        iterations: int = 300,
        ms: float | None = None,
        clock: Clock | None = None,
        candidates: int = 6,
        exploration: float = 0.5,
        bias: float = 1.0,
        epsilon: float = 0.1,
    ) -> None:
        if iterations < 1:
            raise ValueError(f"iterations must be at least 1, got {iterations}")
        self._set_budget(iterations, ms, clock)
        self.candidates = max(1, candidates)
        self.exploration = exploration
        self.bias = bias
        self._policy = RolloutPolicy(epsilon)
        self._memory = SeatMemory()
        self.last_iterations = 0
        """Iterations the last search ran (for tests and tuning)."""

    def reset(self) -> None:
        """Forget the previous game."""
        self._memory.reset()

    def choose(
        self, observation: Observation, legal: Sequence[Action], rng: random.Random
    ) -> Action:
        """The root action visited most by the search."""
        memory = self._memory
        memory.observe(observation)
        self.last_iterations = 0
        if len(legal) == 1:
            return legal[0]
        tuning = Tuning(deny=0.35 if observation.players == 2 else 0.1)
        ranked = rank_actions(Context(observation, memory, tuning), legal)
        candidates = ranked[: self.candidates]
        if len(candidates) == 1:
            return candidates[0][1]
        best_value = candidates[0][0]
        # Progressive bias, in reward units: ten points of heuristic value is a whole reward.
        prior = {action: (value - best_value) / 10 for value, action in candidates}
        root = _Node()
        for _, action in candidates:
            root.children[action] = _Node()
        deadline = self._deadline()
        iterations = 0
        while not self._spent(deadline, iterations, iterations):
            self._iterate(observation, root, prior, rng)
            iterations += 1
        self.last_iterations = iterations
        return max(
            root.children.items(), key=lambda item: (item[1].visits, item[1].total, prior[item[0]])
        )[0]

    # -- one iteration -----------------------------------------------------------------------

    def _iterate(
        self, obs: Observation, root: _Node, prior: dict[Action, float], rng: random.Random
    ) -> None:
        me = obs.seat
        assert me is not None
        hands, deck, pile = self._memory.sample(rng)
        game = Game.from_observation(obs, hands, deck, pile)
        state = SimState.of(obs)
        policy = self._policy
        start_round = obs.round
        path: list[_Node] = []
        node = root
        in_tree = True
        while not game.is_terminal() and game.round == start_round:
            actions = [
                policy.choose(game, state, seat, game.legal_actions(seat), rng)
                if seat != me
                else _MINE
                for seat in range(obs.players)
            ]
            legal_me = game.legal_actions(me)
            if not in_tree:
                mine = policy.choose(game, state, me, legal_me, rng)
            else:
                expanded = False
                if node is root:
                    mine = self._select(root, list(root.children), prior)
                else:
                    mine, expanded = self._tree_step(node, legal_me, game, state, me, rng)
                node = node.children[mine]
                path.append(node)
                # Below a new node the rollout policy plays on: one expansion per iteration.
                in_tree = not expanded
            actions[me] = mine
            state.apply(actions, game.dummy_controller)
            game.apply(actions)
        reward = _reward(game, me, obs.players)
        root.visits += 1
        for step in path:
            step.visits += 1
            step.total += reward

    def _select(
        self, node: _Node, available: Sequence[Action], prior: dict[Action, float]
    ) -> Action:
        """UCB1 with availability counts and a fading prior bias, over the available children."""
        best: Action | None = None
        best_score = -math.inf
        c = self.exploration
        for action in available:
            child = node.children[action]
            child.avail += 1
            if child.visits == 0:
                score = 1e9 + prior.get(action, 0.0)
            else:
                score = (
                    child.total / child.visits
                    + c * math.sqrt(math.log(child.avail) / child.visits)
                    + self.bias * prior.get(action, 0.0) / (1 + child.visits)
                )
            if score > best_score:
                best, best_score = action, score
        assert best is not None
        return best

    def _tree_step(
        self,
        node: _Node,
        legal: Sequence[Action],
        game: Game,
        state: SimState,
        me: int,
        rng: random.Random,
    ) -> tuple[Action, bool]:
        """Below the root: expand the rollout policy's choice if it is new here, else select."""
        preferred = self._policy.choose(game, state, me, legal, rng)
        if preferred not in node.children:
            node.children[preferred] = _Node()
            node.children[preferred].avail = 1
            return preferred, True
        known = [a for a in legal if a in node.children]
        return self._select(node, known, {}), False


def _reward(game: Game, me: int, players: int) -> float:
    """This seat's outcome in [0, 1]: the win at the end of the game, else a squashed margin."""
    scores = game.scores()
    if game.is_terminal():
        places = game.places()
        winners = [s for s in range(players) if places[s] == 1]
        win = 1 / len(winners) if me in winners else 0.0
        margin = scores[me] - max(scores[s] for s in range(players) if s != me)
        return 0.8 * win + 0.2 * (0.5 + 0.5 * math.tanh(margin / 10))
    # Mid-game: puddings are not scored yet, so count their standing at a discount (rounds to
    # come can still change it).
    weight = 0.5 if game.round == 2 else 0.75
    pud = score_puddings(list(game.puddings()))
    totals = [scores[s] + weight * pud[s] for s in range(players)]
    others = [totals[s] for s in range(players) if s != me]
    lead = totals[me] - 0.5 * (max(others) + sum(others) / len(others))
    return 0.5 + 0.5 * math.tanh(lead / 15)


_MINE = Action(Card.TEMPURA)
"""A placeholder for this seat's action while the others' are chosen."""
