"""The Sushi Roll `ismcts` strategy: Monte Carlo search over this seat's next action.

Nothing in Sushi Roll is hidden but the future (engine/games/sushi_roll/observation.py): the bag's
order and the dice still to be rolled are chance, not another player's secret. So a determinization
is just a sample of the future, and the information-set tree of the card game's `ismcts` collapses
to a choice among this seat's actions, each judged by playouts of sampled futures:

- **Candidates.** Every distinct take (dice with the same face are the same take); with a usable
  menu token, re-rolls of the worst 1, 2, ... dice of the belt (by `heuristic`'s valuation), which
  covers every "re-roll what is below X" choice, plus `heuristic`'s own re-roll; with a usable
  chopsticks token, swaps of the worst die of the belt for each of the most valuable distinct dice
  on the other belts. A belt of k dice has 2^k - 1 re-rolls and up to k * (other dice) swaps, most
  of them plainly worse than one of these, so the search spends its playouts where the choice is.
- **Playouts.** From a fast copy of the position (`_sim.SimState`, the engine's rules on plain
  ints, chance from a `random.Random` seeded from `rng`), the candidate is played, then every seat,
  this one included, plays `heuristic`'s policy (`_sim.policy_action`) to the end of the round, or
  of the game in round 3. The same seeds are used for every candidate in a pass (common random
  numbers), so candidates are compared on the same dice, which removes most of the luck from the
  comparison.
- **Reward** in [0, 1]: at the end of the game the win (a shared win split) plus a little for the
  margin over the best other seat; at the end of an earlier round the lead over the others (their
  best and their mean) with the pudding race and tokens projected, squashed with tanh.
- **Halving.** Passes run over every candidate still in the race; after 4, 8, 16, ... passes the
  worse half (by mean reward) is dropped, down to two. The move is the best mean at the end.

Budget: `iterations` playouts per decision (deterministic for a given `rng`), or `ms`
milliseconds per decision on the injected `clock`. After a re-roll or a swap the strategy is asked
again and searches again, from the dice as they fell.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from sushigo.bots._budget import Clock, SearchBudget
from sushigo.engine.games.sushi_roll import Reroll, RollAction, RollObservation, Swap, Take
from sushigo.engine.games.sushi_roll.scoring import score_puddings

from ._sim import (
    REROLL_COST,
    SimState,
    apply,
    expected_max,
    face_values,
    kind_spread,
    play_round,
    policy_action,
)

_FIRST_CUT = 4
"""Passes before the first halving; each later halving comes after twice as many."""


class RollSearchStrategy(SearchBudget):
    """Monte Carlo search over this seat's candidate actions with heuristic playouts.

    Budget: `iterations` playouts per decision (the default, deterministic for a seed), or `ms`
    milliseconds per decision measured with the injected `clock` (required with `ms`). `swaps` is
    how many swap targets are searched; `token_value` what an unused menu or chopsticks token is
    worth at the end of a round before the last (in points), `scale` the points of lead that make
    a reward of about 0.88.
    """

    name = "ismcts"

    def __init__(
        self,
        iterations: int = 160,
        ms: float | None = None,
        clock: Clock | None = None,
        swaps: int = 3,
        token_value: float = 0.8,
        scale: float = 15.0,
    ) -> None:
        if not _is_int(iterations) or iterations < 1:
            raise ValueError(f"iterations must be an integer of at least 1, got {iterations!r}")
        if not _is_int(swaps) or swaps < 0:
            raise ValueError(f"swaps must be an integer of at least 0, got {swaps!r}")
        for name, value in (("ms", ms), ("token_value", token_value), ("scale", scale)):
            if value is not None and not _is_number(value):
                raise ValueError(f"{name} must be a number, got {value!r}")
        self._set_budget(iterations, ms, clock)
        if scale <= 0:
            raise ValueError(f"scale must be positive, got {scale}")
        self.swaps = swaps
        self.token_value = token_value
        self.scale = scale
        self.last_iterations = 0
        """Playouts the last search ran (for tests and tuning)."""
        self.last_values: dict[RollAction, float] = {}
        """The last search's mean reward per candidate (for tests and tuning)."""

    def reset(self) -> None:
        """Nothing to forget: the observation shows everything the search needs."""

    def choose(
        self, observation: RollObservation, legal: Sequence[RollAction], rng: random.Random
    ) -> RollAction:
        """The candidate with the best mean reward over the search's playouts."""
        self.last_iterations = 0
        self.last_values = {}
        if len(legal) == 1:
            return legal[0]
        state = SimState.of(observation)
        legal_set = set(legal)
        candidates = [a for a in candidates_of(state, self.swaps) if a in legal_set]
        if not candidates:  # cannot happen with the engine's legal actions; stay safe anyway
            return legal[0]
        if len(candidates) == 1:
            return candidates[0]
        return self._search(state, candidates, rng)

    def _search(
        self, state: SimState, candidates: list[RollAction], rng: random.Random
    ) -> RollAction:
        me = state.to_move
        count = len(candidates)
        totals = [0.0] * count
        visits = [0] * count
        alive = list(range(count))
        deadline = self._deadline()
        passes, used, cut = 0, 0, _FIRST_CUT
        while not self._spent(deadline, passes, used):
            seed = rng.getrandbits(64)
            for c in alive:
                sim = state.copy()
                chance = random.Random(seed)
                apply(sim, candidates[c], chance)
                play_round(sim, chance)
                totals[c] += self._reward(sim, me)
                visits[c] += 1
            used += len(alive)
            passes += 1
            if passes == cut and len(alive) > 2:
                # Candidate order (best prior first) breaks ties, so halving is deterministic.
                alive.sort(key=lambda c: -totals[c] / visits[c])
                alive = sorted(alive[: max(2, (len(alive) + 1) // 2)])
                cut *= 2
        self.last_iterations = used
        self.last_values = {candidates[c]: totals[c] / visits[c] for c in range(count) if visits[c]}
        best = max(alive, key=lambda c: (totals[c] / visits[c], -c))
        return candidates[best]

    def _reward(self, sim: SimState, me: int) -> float:
        """This seat's outcome in [0, 1] where the playout stopped (see the module docstring)."""
        scores = sim.score
        n = sim.n
        if sim.over:
            places = sim.places()
            winners = places.count(1)
            win = 1 / winners if places[me] == 1 else 0.0
            margin = scores[me] - max(scores[s] for s in range(n) if s != me)
            return 0.8 * win + 0.2 * (0.5 + 0.5 * math.tanh(margin / 10))
        # The round just scored is sim.round - 1; puddings are scored at the end of the game, so
        # their standing counts at a discount that shrinks as the end nears.
        weight = 0.5 if sim.round == 2 else 0.75
        puddings = score_puddings(sim.pudding)
        token = self.token_value
        totals = [
            scores[s] + weight * puddings[s] + token * (sim.menu[s] + sim.chop[s]) for s in range(n)
        ]
        others = [totals[s] for s in range(n) if s != me]
        lead = totals[me] - 0.5 * (max(others) + sum(others) / len(others))
        return 0.5 + 0.5 * math.tanh(lead / self.scale)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def candidates_of(state: SimState, swaps: int = 3) -> list[RollAction]:
    """The actions the search compares for the seat to move, the likeliest best first:
    `heuristic`'s choice, every distinct take, re-rolls of the worst dice, swaps for the best
    dice elsewhere (see the module docstring). Every one is legal."""
    me = state.to_move
    belt = state.belts[me]
    vals = face_values(state, me)
    first = policy_action(state)
    out: list[RollAction] = [first]
    seen_faces = {belt[first.position]} if isinstance(first, Take) else set()
    for i in sorted(range(len(belt)), key=lambda i: -vals[belt[i]]):
        if belt[i] not in seen_faces:
            seen_faces.add(belt[i])
            out.append(Take(i))
    if state.menu[me] > state.fresh_menu[me] and belt:
        order = sorted(range(len(belt)), key=lambda i: (vals[belt[i]], i))
        seen_rolls: set[tuple[int, ...]] = set()
        rerolls: list[tuple[float, RollAction]] = []
        for j in range(1, len(belt) + 1):
            chosen = sorted(order[:j])
            faces = tuple(sorted(belt[i] for i in chosen))
            if faces in seen_rolls:
                continue
            seen_rolls.add(faces)
            kept = max((vals[belt[i]] for i in order[j:]), default=-math.inf)
            gain = expected_max(kept, [kind_spread(belt[i], vals) for i in chosen])
            rerolls.append((gain - REROLL_COST, Reroll(tuple(chosen))))
        out.extend(a for _, a in sorted(rerolls, key=lambda r: -r[0]))
    if swaps and state.chop[me] > state.fresh_chop[me] and belt:
        mine = min(range(len(belt)), key=lambda i: (vals[belt[i]], i))
        targets: dict[int, tuple[float, int, int]] = {}
        for other, their_belt in enumerate(state.belts):
            if other == me:
                continue
            for j, face in enumerate(their_belt):
                # One target per face: prefer a seat still to move this cycle (taking its die
                # also denies it).
                key = (other - state.red) % state.n >= state.moved
                entry = (vals[face] + 0.01 * key, other, j)
                if face not in targets or entry[0] > targets[face][0]:
                    targets[face] = entry
        best_here = max(vals[f] for f in belt)
        ranked = sorted(targets.values(), key=lambda t: -t[0])
        out.extend(Swap(mine, other, j) for v, other, j in ranked[:swaps] if v > best_here - 1e-9)
    # Drop repeats, keeping the first (heuristic's choice leads).
    unique: list[RollAction] = []
    seen: set[RollAction] = set()
    for action in out:
        if action not in seen:
            seen.add(action)
            unique.append(action)
    return unique
