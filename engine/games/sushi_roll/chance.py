"""Where a Sushi Roll game's chance comes from: the red belt, each round's bag and every roll.

A game asks its `RollChance` for each of them when the rules need it (the order is in
`engine.games.sushi_roll.game`'s docstring). `SeededChance`, every game's own, draws them from the game seed
through `engine.rng`, byte for byte as the replay contract says. Another source lets a framework
choose the outcomes itself (OpenSpiel's chance nodes: `bots.openspiel`) while the rules stay the
engine's: `RollGame.with_chance` and `RollGame.clone(chance=...)` take one.
"""

from __future__ import annotations

import copy
from typing import Protocol, runtime_checkable

from sushigo.engine.rng import DeterministicRng

from .dice import DIE_FACES, DieKind, Face

BELTS_STREAM = b"roll/belts"
"""The generator stream that picks the red belt's seat."""
FACES_STREAM = b"roll/faces"
"""The generator stream of every die roll, in the order `engine.games.sushi_roll.game` documents."""


def bag_stream(round_: int) -> bytes:
    """The generator stream that shuffles the bag for `round_` (1-3): ``b"roll/bag/1"``..."""
    return b"roll/bag/" + str(round_).encode("ascii")


@runtime_checkable
class RollChance(Protocol):
    """The chance events of one Sushi Roll game, asked for in the order the game meets them."""

    def red_belt(self, players: int) -> int:
        """The seat that holds the red belt when the game starts (0 to `players` - 1)."""

    def draw(self, round_: int, bag: list[DieKind], count: int) -> None:
        """Order `bag` (all 30 dice, in `dice.BAG_ORDER`) in place so that its first `count` are
        the dice drawn onto the belts at the start of `round_`, in drawing order."""

    def roll(self, kind: DieKind) -> Face:
        """The face a die of `kind` shows when rolled."""

    def clone(self) -> RollChance:
        """An independent copy at the same point (a cloned game draws what this one would)."""


class SeededChance:
    """Every chance event from the game seed (the replay contract of `engine.games.sushi_roll.game`)."""

    __slots__ = ("_faces", "_seed")

    def __init__(self, seed: bytes) -> None:
        self._seed = seed
        self._faces = DeterministicRng(seed, FACES_STREAM)

    def red_belt(self, players: int) -> int:
        """The first draw of stream ``roll/belts``, below `players`."""
        return DeterministicRng(self._seed, BELTS_STREAM).below(players)

    def draw(self, round_: int, bag: list[DieKind], count: int) -> None:
        """The whole bag shuffled with stream ``roll/bag/<round>``."""
        DeterministicRng(self._seed, bag_stream(round_)).shuffle(bag)

    def roll(self, kind: DieKind) -> Face:
        """The face at the next ``below(6)`` of stream ``roll/faces``."""
        return DIE_FACES[kind][self._faces.below(6)]

    def clone(self) -> SeededChance:
        """A copy at the same point of the faces' stream."""
        other = SeededChance.__new__(SeededChance)
        other._seed = self._seed
        # The generator's hash base is never updated in place (each block hashes a copy of it),
        # so a shallow copy is an independent generator at the same point of the stream.
        other._faces = copy.copy(self._faces)
        return other
