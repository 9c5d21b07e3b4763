"""Card kinds and every fixed number of Sushi Go! in one place.

Cards are small ints (an `IntEnum`), so the engine can keep hands as packed counts and tableaus as
lists of ints. The names (`Card.SALMON.label == "salmon"`) are the ones of the scoring contract in
DESIGN.md and of the wire protocol.
"""

from __future__ import annotations

from enum import IntEnum


class Card(IntEnum):
    """A kind of card. The value is its index in every per-kind table."""

    TEMPURA = 0
    """Each full set of 2 scores 5."""
    SASHIMI = 1
    """Each full set of 3 scores 10."""
    DUMPLING = 2
    """1, 2, 3, 4, 5+ score 1, 3, 6, 10, 15."""
    MAKI1 = 3
    """Maki roll with 1 icon."""
    MAKI2 = 4
    """Maki roll with 2 icons."""
    MAKI3 = 5
    """Maki roll with 3 icons."""
    EGG = 6
    """Egg nigiri: 1, or 3 on wasabi."""
    SALMON = 7
    """Salmon nigiri: 2, or 6 on wasabi."""
    SQUID = 8
    """Squid nigiri: 3, or 9 on wasabi."""
    WASABI = 9
    """Triples the next nigiri its owner takes."""
    CHOPSTICKS = 10
    """From a later turn on, lets its owner take two cards in one turn."""
    PUDDING = 11
    """Kept until the end of the game; most and fewest are compared then."""
    SOY_SAUCE = 12
    """Promo card (soy sauce variant): 4 for the most colours at round end."""

    # Enum hashes members by name in Python code; cards are hashed on hot paths (legal-action
    # caches, sets of actions), so use the int's own C-level hash. Equal ints already compare equal.
    __hash__ = int.__hash__

    @property
    def label(self) -> str:
        """The card's name in the scoring API and on the wire, e.g. ``"soy_sauce"``."""
        return _LABELS[self]

    @classmethod
    def from_label(cls, label: str) -> Card:
        """The card named `label`; `ValueError` naming the label if there is none."""
        try:
            return _BY_LABEL[label]
        except (KeyError, TypeError):
            raise ValueError(f"unknown card name {label!r}") from None


_LABELS = {card: card.name.lower() for card in Card}
_BY_LABEL = {label: card for card, label in _LABELS.items()}

CARDS: tuple[Card, ...] = tuple(Card)
"""Every card kind, in value order."""

NUM_KINDS = len(CARDS)

DECK_COUNTS: dict[Card, int] = {
    Card.TEMPURA: 14,
    Card.SASHIMI: 14,
    Card.DUMPLING: 14,
    Card.MAKI2: 12,
    Card.MAKI3: 8,
    Card.MAKI1: 6,
    Card.SALMON: 10,
    Card.SQUID: 5,
    Card.EGG: 5,
    Card.PUDDING: 10,
    Card.WASABI: 6,
    Card.CHOPSTICKS: 4,
}
"""The 108-card base deck."""

SOY_SAUCE_COUNT = 3
"""Assumed (RULES.md): soy sauce cards added by the soy sauce variant. One place to change it."""

HAND_SIZES: dict[int, int] = {2: 10, 3: 9, 4: 8, 5: 7}
"""Cards dealt to each player per round, by player count."""

DUMMY_HAND_SIZE = 9
"""Two-player dummy variant: three hands of 9 per round (two players and the dummy pile)."""

ROUNDS = 3

MAKI_ICONS: dict[Card, int] = {Card.MAKI1: 1, Card.MAKI2: 2, Card.MAKI3: 3}
NIGIRI_POINTS: dict[Card, int] = {Card.EGG: 1, Card.SALMON: 2, Card.SQUID: 3}
WASABI_MULTIPLIER = 3
DUMPLING_POINTS = (0, 1, 3, 6, 10, 15)
"""Points for 0..5 dumplings; 5 or more score the last entry."""
TEMPURA_SET, TEMPURA_POINTS = 2, 5
SASHIMI_SET, SASHIMI_POINTS = 3, 10
MAKI_FIRST, MAKI_SECOND = 6, 3
PUDDING_MOST, PUDDING_FEWEST = 6, 6
SOY_SAUCE_POINTS = 4

COLOUR_FAMILIES: dict[Card, str] = {
    Card.MAKI1: "maki",
    Card.MAKI2: "maki",
    Card.MAKI3: "maki",
    Card.TEMPURA: "tempura",
    Card.SASHIMI: "sashimi",
    Card.DUMPLING: "dumpling",
    Card.EGG: "nigiri",
    Card.SALMON: "nigiri",
    Card.SQUID: "nigiri",
    Card.WASABI: "nigiri",
    Card.CHOPSTICKS: "chopsticks",
    Card.PUDDING: "pudding",
    Card.SOY_SAUCE: "soy_sauce",
}
"""Assumed (RULES.md): the colour family of each card, for the soy sauce variant."""


def deck(soy_sauce: bool = False) -> list[Card]:
    """The unshuffled deck in a fixed, documented order: by card value, each kind's copies together."""
    return list(_DECKS[soy_sauce])


def _build_deck(soy_sauce: bool) -> tuple[Card, ...]:
    counts = dict(DECK_COUNTS)
    if soy_sauce:
        counts[Card.SOY_SAUCE] = SOY_SAUCE_COUNT
    return tuple(card for card in CARDS for _ in range(counts.get(card, 0)))


_DECKS = {False: _build_deck(False), True: _build_deck(True)}
