"""The dice, their faces and every fixed number of Sushi Roll, in one place.

**Assumed:** the printed rulebook shows the six faces of each die only as pictures, and sources
disagree on them. `DIE_FACES` below is the one table that states them (RULES.md section 2, "Die
faces"); correcting a face is a one-line change here, and nothing else in the engine hard-codes a
face. The dumpling points (`APPETIZER_POINTS`) are assumed too: the rulebook's table of them is
lost in our copy. The other numbers (dice per kind, dice per player, tokens) are printed in the
rulebook.

Die kinds and faces are small ints (`IntEnum`s) so they index the per-face tables cheaply; their
labels (``"appetizer"``, ``"salmon"``, ``"menu2"``...) are the names used on the wire and in records.
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple, Self


class _Named(IntEnum):
    """Kinds and faces of dice: small ints named on the wire and in records by their lower-case
    names (``"specials"``, ``"chopsticks2"``)."""

    __hash__ = int.__hash__

    @property
    def label(self) -> str:
        """The name on the wire, e.g. ``"specials"`` or ``"chopsticks2"``."""
        return self.name.lower()

    @classmethod
    def from_label(cls, label: str) -> Self:
        """The member named `label`; `ValueError` naming the label if there is none."""
        if isinstance(label, str) and label.upper() in cls.__members__ and label.islower():
            return cls[label.upper()]
        raise ValueError(f"unknown {_NOUNS[cls]} {label!r}")


class DieKind(_Named):
    """One of the five kinds of die in the bag. The value is its index in per-kind tables."""

    APPETIZER = 0
    """Dumpling, tempura or sashimi faces."""
    MAKI = 1
    """Maki roll faces with 1, 2 or 3 icons."""
    NIGIRI = 2
    """Egg, salmon or squid faces."""
    SPECIALS = 3
    """Wasabi, chopsticks or menu faces."""
    PUDDING = 4
    """Faces with 1, 2 or 3 pudding icons."""


class Face(_Named):
    """What a die shows. The value is its index in per-face tables."""

    DUMPLING = 0
    """1 dumpling icon: 1, 2, 3 icons score 2, 4, 8 per set (**Assumed**: `APPETIZER_POINTS`)."""
    TEMPURA = 1
    """1 tempura icon: 1, 2, 3 icons score 1, 5, 10 per set."""
    SASHIMI = 2
    """1 sashimi icon: 1, 2, 3 icons score 0, 6, 13 per set."""
    MAKI1 = 3
    """1 maki roll icon."""
    MAKI2 = 4
    """2 maki roll icons."""
    MAKI3 = 5
    """3 maki roll icons."""
    EGG = 6
    """Egg nigiri: 1 point, 3 on wasabi."""
    SALMON = 7
    """Salmon nigiri: 2 points, 6 on wasabi."""
    SQUID = 8
    """Squid nigiri: 3 points, 9 on wasabi."""
    WASABI = 9
    """Triples the next nigiri its owner takes this round."""
    CHOPSTICKS1 = 10
    """Taking it gains 1 chopsticks token."""
    CHOPSTICKS2 = 11
    """Taking it gains 2 chopsticks tokens."""
    MENU1 = 12
    """Taking it gains 1 menu token."""
    MENU2 = 13
    """Taking it gains 2 menu tokens."""
    PUDDING1 = 14
    """Taking it gains 1 pudding token."""
    PUDDING2 = 15
    """Taking it gains 2 pudding tokens."""
    PUDDING3 = 16
    """Taking it gains 3 pudding tokens."""


_NOUNS: dict[type[_Named], str] = {DieKind: "die kind", Face: "die face"}
"""What a `from_label` that finds nothing says it looked for."""


class Die(NamedTuple):
    """A die as it lies on a belt or a tray: its kind and the face it shows. Immutable."""

    kind: DieKind
    face: Face

    def describe(self) -> str:
        """A short human text, e.g. ``salmon (nigiri)``."""
        return f"{self.face.label} ({self.kind.label})"

    def to_data(self) -> list[str]:
        """Plain data: ``[kind label, face label]``."""
        return [self.kind.label, self.face.label]

    @classmethod
    def from_data(cls, data: object) -> Die:
        """The die `to_data` produced; `ValueError` naming what is wrong otherwise."""
        if not isinstance(data, list | tuple) or len(data) != 2:
            raise ValueError(f"a die must be [kind, face], got {data!r}")
        kind, face = DieKind.from_label(data[0]), Face.from_label(data[1])
        if face not in DIE_FACES[kind]:
            raise ValueError(f"a {kind.label} die has no {face.label} face")
        return cls(kind, face)


_A, _M, _N, _S, _P = DieKind
_F = Face

# -- the one table of assumed faces -----------------------------------------------------------

DIE_FACES: dict[DieKind, tuple[Face, Face, Face, Face, Face, Face]] = {
    # **Assumed** (RULES.md section 2): the rulebook shows these only as pictures. A roll draws
    # below(6) and shows the face at that index, so the order here is part of the replay contract.
    _A: (_F.DUMPLING, _F.DUMPLING, _F.DUMPLING, _F.TEMPURA, _F.TEMPURA, _F.SASHIMI),
    _M: (_F.MAKI1, _F.MAKI1, _F.MAKI2, _F.MAKI2, _F.MAKI3, _F.MAKI3),
    _N: (_F.EGG, _F.EGG, _F.SALMON, _F.SALMON, _F.SQUID, _F.SQUID),
    _S: (_F.WASABI, _F.WASABI, _F.CHOPSTICKS1, _F.CHOPSTICKS2, _F.MENU1, _F.MENU2),
    _P: (_F.PUDDING1, _F.PUDDING1, _F.PUDDING1, _F.PUDDING2, _F.PUDDING2, _F.PUDDING3),
}
"""The six faces of each kind of die, in roll order (index 0 to 5). **Assumed.**"""

# -- printed numbers ----------------------------------------------------------------------------

DICE_COUNTS: dict[DieKind, int] = {_A: 10, _M: 6, _N: 5, _S: 5, _P: 4}
"""Dice of each kind in the bag: 30 in all."""
TOTAL_DICE = sum(DICE_COUNTS.values())

BAG_ORDER: tuple[DieKind, ...] = tuple(kind for kind in DieKind for _ in range(DICE_COUNTS[kind]))
"""The bag before each round's shuffle: every die, grouped by kind in `DieKind` order."""

DICE_PER_PLAYER: dict[int, int] = {2: 8, 3: 7, 4: 6, 5: 5}
"""Dice each player draws onto their belt at the start of a round, by player count."""
MIN_PLAYERS, MAX_PLAYERS = 2, 5
ROUNDS = 3

START_MENU = 3
"""Menu tokens each player starts the game with."""
START_CHOPSTICKS = 2
"""Chopsticks tokens each player starts the game with."""
MENU_SUPPLY = 18
"""Menu tokens in the box: a player gains only what the supply still holds."""
CHOPSTICKS_SUPPLY = 12
"""Chopsticks tokens in the box: a player gains only what the supply still holds."""

# -- what a face is worth ------------------------------------------------------------------------

MAKI_ICONS: dict[Face, int] = {_F.MAKI1: 1, _F.MAKI2: 2, _F.MAKI3: 3}
MAKI_FIRST, MAKI_SECOND = 6, 3
"""Maki: the most icons score 6, the second most 3 (every tied player the full points)."""

NIGIRI_POINTS: dict[Face, int] = {_F.EGG: 1, _F.SALMON: 2, _F.SQUID: 3}
WASABI_MULTIPLIER = 3

APPETIZER_POINTS: dict[Face, tuple[int, int, int, int]] = {
    # **Assumed** (docs/RULES.md, "Scoring a round"): no legible line or example of the
    # rulebook gives a dumpling value. What it shows: tempura 5 and 10 (2 and 3 icons), sashimi
    # 0, 6 and 13, and a worked example with one tempura worth 1.
    _F.DUMPLING: (0, 2, 4, 8),
    _F.TEMPURA: (0, 1, 5, 10),
    _F.SASHIMI: (0, 0, 6, 13),
}
"""T[n] for n = 0..3 icons of one appetizer; sets of 3 repeat: (n // 3) * T[3] + T[n % 3]. The
dumpling values are **Assumed**; tempura's and sashimi's are the rulebook's."""

MENU_TOKENS: dict[Face, int] = {_F.MENU1: 1, _F.MENU2: 2}
CHOPSTICKS_TOKENS: dict[Face, int] = {_F.CHOPSTICKS1: 1, _F.CHOPSTICKS2: 2}
PUDDING_TOKENS: dict[Face, int] = {_F.PUDDING1: 1, _F.PUDDING2: 2, _F.PUDDING3: 3}

PUDDING_MOST, PUDDING_FEWEST = 6, -6
"""End of game: the most pudding tokens +6, the fewest -6 (every tied player the full amount)."""
TOKENS_PER_BONUS_POINT = 2
"""End of game: 1 point per 2 unused menu and/or chopsticks tokens."""
