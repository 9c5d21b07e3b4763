"""Sushi Roll as numbers: the observation vector and a fixed discrete action space with masks
(docs/RESEARCH.md, "The environments' encoding", has the table).

A turn is several actions (re-rolls and swaps, then a take), so the action space holds every one
of them, by position, for the largest belt of the player count (K dice):

- 0: wait (legal only for the seats not to move, in the parallel environment);
- 1 + p: take the die at position p (p < K);
- K + m: re-roll the positions in bit mask m (1 <= m < 2**K);
- K + 2**K + (mine * (n - 1) + r - 1) * K + theirs: swap my die `mine` with die `theirs` of the
  seat r places to my left (1 <= r < n).

Everything in Sushi Roll is public but the bag's order and future rolls, so every seat's
observation is the same numbers rotated to put the seat first; it is worked out once per state.
"""

from __future__ import annotations

import numpy as np

from sushigo.bots.pettingzoo._table import Array
from sushigo.engine.games.sushi_roll import (
    Face,
    PlayerView,
    Reroll,
    RollAction,
    RollObservation,
    Swap,
    Take,
)
from sushigo.engine.games.sushi_roll.dice import DICE_PER_PLAYER

FACES = len(Face)
"""17 faces."""
WAIT = 0
"""The index of waiting for another seat's move (parallel environment only)."""
GLOBAL_SIZE = 9
"""Round (3, one-hot), cycle, dice in the bag, menu and chopsticks tokens in the supply, game
over, this seat is to move; then the seat to move, one-hot by places to the left (n)."""
VIEW_EXTRA = FACES + 12
"""Per seat after its belt: tray face counts (17), nigiri on wasabi (egg, salmon, squid), open
wasabi, menu and chopsticks tokens, fresh menu and chopsticks tokens, puddings, score, has taken
this cycle, holds the red belt."""

_EGG, _SALMON, _SQUID = Face.EGG, Face.SALMON, Face.SQUID


class SushiRollEncoding:
    """The encoding for one player count."""

    __slots__ = ("action_size", "belt", "players", "size", "view_size")

    def __init__(self, players: int) -> None:
        self.players = n = players
        self.belt = k = DICE_PER_PLAYER[players]
        """K: the most dice a belt holds."""
        self.view_size = k * FACES + VIEW_EXTRA
        self.size = GLOBAL_SIZE + n + n * self.view_size
        """Length of the observation vector."""
        self.action_size = k + (1 << k) + k * (n - 1) * k
        """Size of the discrete action space."""

    # -- actions ---------------------------------------------------------------------------

    def action_index(self, action: RollAction, seat: int) -> int:
        """The index of `seat`'s `action`."""
        k = self.belt
        if type(action) is Take:
            return 1 + action.position
        if type(action) is Reroll:
            return k + sum(1 << p for p in action.dice)
        assert type(action) is Swap
        r = (action.other_seat - seat) % self.players
        return k + (1 << k) + (action.mine * (self.players - 1) + r - 1) * k + action.theirs

    def action_of(self, index: int, seat: int) -> RollAction | None:
        """The action of `seat` at `index`; None for `WAIT`. `IndexError` outside the space."""
        k, n = self.belt, self.players
        if not 0 <= index < self.action_size:
            raise IndexError(f"no action at index {index}")
        if index == WAIT:
            return None
        if index <= k:
            return Take(index - 1)
        if index < k + (1 << k):
            mask = index - k
            return Reroll(tuple(p for p in range(k) if mask >> p & 1))
        rest = index - k - (1 << k)
        theirs = rest % k
        mine, r = divmod(rest // k, n - 1)
        return Swap(mine, (seat + r + 1) % n, theirs)

    def mask(self, obs: RollObservation, seat: int) -> Array:
        """`seat`'s action mask in the public state `obs`: its legal actions when it is to move
        (exactly `engine.games.sushi_roll.legal_actions`), else only `WAIT`."""
        mask = np.zeros(self.action_size, dtype=np.int8)
        if obs.is_over:
            return mask
        if obs.to_move != seat:
            mask[WAIT] = 1
            return mask
        k, n = self.belt, self.players
        views = obs.players
        me = views[seat]
        size = len(me.belt)
        if not size:
            return mask
        mask[1 : 1 + size] = 1
        if me.usable_menu > 0:
            mask[k + 1 : k + (1 << size)] = 1
        if me.usable_chopsticks > 0:
            base = k + (1 << k)
            for r in range(1, n):
                theirs = len(views[(seat + r) % n].belt)
                for mine in range(size):
                    start = base + (mine * (n - 1) + r - 1) * k
                    mask[start : start + theirs] = 1
        return mask

    # -- observations ----------------------------------------------------------------------

    def view_part(self, view: PlayerView) -> list[int]:
        """One seat's numbers, the same for every observer."""
        part = [0] * self.view_size
        for position, die in enumerate(view.belt):
            part[position * FACES + die.face] = 1
        base = self.belt * FACES
        for die in view.tray:
            part[base + die.face] += 1
        tray = view.tray
        on = [tray[i].face for i in view.on_wasabi]
        part[base + FACES :] = (
            on.count(_EGG),
            on.count(_SALMON),
            on.count(_SQUID),
            view.open_wasabi,
            view.menu,
            view.chopsticks,
            view.fresh_menu,
            view.fresh_chopsticks,
            min(255, view.puddings),
            min(255, max(0, view.score)),
            1 if view.taken_this_cycle else 0,
            1 if view.has_red_belt else 0,
        )
        return part

    def encode(
        self, obs: RollObservation, seat: int, parts: list[list[int]] | None = None
    ) -> Array:
        """The observation vector of `seat`. `parts` may pass `view_part` of every seat (the
        same for every observer, so an environment works them out once per state)."""
        n = self.players
        if parts is None:
            parts = [self.view_part(view) for view in obs.players]
        values = [0, 0, 0]
        values[obs.round - 1] = 1
        to_move = obs.to_move
        values += (
            obs.cycle,
            obs.bag,
            obs.menu_supply,
            obs.chopsticks_supply,
            1 if obs.is_over else 0,
            1 if to_move == seat else 0,
        )
        relative = [0] * n
        if to_move is not None:
            relative[(to_move - seat) % n] = 1
        values += relative
        for s in range(seat, n):
            values += parts[s]
        for s in range(seat):
            values += parts[s]
        return np.frombuffer(bytes(values), dtype=np.uint8).astype(np.float32)
