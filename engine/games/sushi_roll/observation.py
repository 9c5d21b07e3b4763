"""What a seat (or a spectator) sees of a Sushi Roll game, and the legal actions it implies.

Nearly everything in Sushi Roll is public: belts, trays, tokens and scores lie open on the table.
The only hidden things are the order of the dice left in the bag and future rolls, and both come
from the game seed, which the observation never holds. So every seat's observation is the same
apart from its `seat` field; `RollGame.observation(None)` is the spectators' view.

`legal_actions` is a pure function of public state, shared by `RollGame.legal_actions` and
`RollObservation.legal_actions`, so a bot sees exactly the actions the game will accept.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from .actions import Reroll, RollAction, Swap, Take
from .dice import Die
from .options import RollOptions


@dataclass(frozen=True, slots=True)
class PlayerView:
    """One seat's part of the table, as everyone sees it."""

    belt: tuple[Die, ...]
    """The dice on the belt this seat holds now, in position order."""
    has_red_belt: bool
    """This seat holds the red-bordered belt (it moves first in the current cycle)."""
    tray: tuple[Die, ...]
    """This round's dice on the seat's tray, in the order they were taken."""
    on_wasabi: tuple[int, ...]
    """Indices into `tray` of the nigiri lying on a wasabi (each scores triple)."""
    open_wasabi: int
    """Wasabi on the tray still waiting for a nigiri."""
    menu: int
    """Menu tokens held, fresh ones included."""
    chopsticks: int
    """Chopsticks tokens held, fresh ones included."""
    fresh_menu: int
    """Menu tokens gained on this seat's last take: usable from its next turn on."""
    fresh_chopsticks: int
    """Chopsticks tokens gained on this seat's last take: usable from its next turn on."""
    puddings: int
    """Pudding tokens collected this game."""
    score: int
    """Points from finished rounds; once the game is over, the final score."""
    round_scores: tuple[int, ...]
    """Points of each finished round."""
    taken_this_cycle: bool
    """The seat has already taken its die in the current cycle."""

    @property
    def usable_menu(self) -> int:
        """Menu tokens that can be spent now."""
        return self.menu - self.fresh_menu

    @property
    def usable_chopsticks(self) -> int:
        """Chopsticks tokens that can be spent now."""
        return self.chopsticks - self.fresh_chopsticks


@dataclass(frozen=True, slots=True)
class RollObservation:
    """The public state of a Sushi Roll game, seen from `seat`. Immutable."""

    options: RollOptions
    seat: int | None
    """The observing seat; None for a spectator (who sees exactly the same)."""
    round: int
    """1-3; after the game, 3."""
    cycle: int
    """Within the round, 1 to the dice per player: every seat takes one die per cycle."""
    to_move: int | None
    """The seat whose turn it is; None once the game is over."""
    red_belt: int
    """The seat holding the red belt: the first to move in this cycle."""
    players: tuple[PlayerView, ...]
    """Indexed by seat."""
    bag: int
    """Dice left in the bag this round (their order is never shown)."""
    menu_supply: int
    """Menu tokens left in the supply."""
    chopsticks_supply: int
    """Chopsticks tokens left in the supply."""
    is_over: bool
    pudding_points: tuple[int, ...] = ()
    """End-of-game pudding points per seat (empty until the game is over)."""
    token_bonus: tuple[int, ...] = ()
    """End-of-game points for unused tokens per seat (empty until the game is over)."""

    @property
    def player_count(self) -> int:
        """Number of seats."""
        return self.options.players

    def legal_actions(self) -> tuple[RollAction, ...]:
        """The observing seat's legal actions, exactly as `RollGame.legal_actions(seat)`."""
        if self.seat is None or self.seat != self.to_move:
            return ()
        me = self.players[self.seat]
        return legal_actions(
            self.seat, [p.belt for p in self.players], me.usable_menu, me.usable_chopsticks
        )


@functools.cache
def _rerolls(k: int) -> tuple[Reroll, ...]:
    """Every non-empty subset of k belt positions, by bit mask (position i is bit i)."""
    return tuple(Reroll(tuple(i for i in range(k) if mask >> i & 1)) for mask in range(1, 1 << k))


@functools.cache
def _takes(k: int) -> tuple[Take, ...]:
    return tuple(Take(i) for i in range(k))


def legal_actions(
    seat: int, belts: Sequence[Sequence[Die]], menu: int, chopsticks: int
) -> tuple[RollAction, ...]:
    """The actions of `seat`, to move, with `menu` and `chopsticks` usable tokens.

    Order: every `Take` by position; then, with a menu token, every `Reroll` subset by bit mask;
    then, with a chopsticks token, every `Swap` by own position, other seat, their position. A swap
    of two identical dice is legal (if pointless), as the rules do not forbid it.
    """
    k = len(belts[seat])
    actions: list[RollAction] = list(_takes(k))
    if menu > 0 and k:
        actions.extend(_rerolls(k))
    if chopsticks > 0 and k:
        others = [(s, len(b)) for s, b in enumerate(belts) if s != seat and b]
        actions.extend(
            Swap(mine, other, theirs)
            for mine in range(k)
            for other, size in others
            for theirs in range(size)
        )
    return tuple(actions)
