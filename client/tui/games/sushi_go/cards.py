"""How cards look on screen: names, short names, style classes and scoring hints, in one place.

Colour is never the only signal: every card is also named, so the screen reads the same on a
monochrome terminal (prompt_toolkit drops the colours itself under NO_COLOR or a 1-bit depth).
"""

from __future__ import annotations

from typing import Protocol

from sushigo.engine import Card, TableauView
from sushigo.engine.games.sushi_go import cards as deck

__all__ = ["KIND_ORDER", "NAMES", "SHORT", "card_style", "hint"]

NAMES: dict[Card, str] = {
    Card.TEMPURA: "tempura",
    Card.SASHIMI: "sashimi",
    Card.DUMPLING: "dumpling",
    Card.MAKI1: "maki roll (1)",
    Card.MAKI2: "maki roll (2)",
    Card.MAKI3: "maki roll (3)",
    Card.EGG: "egg nigiri",
    Card.SALMON: "salmon nigiri",
    Card.SQUID: "squid nigiri",
    Card.WASABI: "wasabi",
    Card.CHOPSTICKS: "chopsticks",
    Card.PUDDING: "pudding",
    Card.SOY_SAUCE: "soy sauce",
}
"""A card's name in the hand."""

SHORT: dict[Card, str] = {
    Card.TEMPURA: "tempura",
    Card.SASHIMI: "sashimi",
    Card.DUMPLING: "dumpl",
    Card.MAKI1: "maki",
    Card.MAKI2: "maki",
    Card.MAKI3: "maki",
    Card.EGG: "egg",
    Card.SALMON: "salmon",
    Card.SQUID: "squid",
    Card.WASABI: "wasabi",
    Card.CHOPSTICKS: "chop",
    Card.PUDDING: "pud",
    Card.SOY_SAUCE: "soy",
}
"""A card's name in a tableau or the log, where room is short."""

_FAMILY: dict[Card, str] = {
    Card.TEMPURA: "tempura",
    Card.SASHIMI: "sashimi",
    Card.DUMPLING: "dumpling",
    Card.MAKI1: "maki",
    Card.MAKI2: "maki",
    Card.MAKI3: "maki",
    Card.EGG: "nigiri",
    Card.SALMON: "nigiri",
    Card.SQUID: "nigiri",
    Card.WASABI: "wasabi",
    Card.CHOPSTICKS: "chopsticks",
    Card.PUDDING: "pudding",
    Card.SOY_SAUCE: "soy",
}

KIND_ORDER: tuple[str, ...] = (
    "maki",
    "tempura",
    "sashimi",
    "dumpling",
    "nigiri",
    "wasabi",
    "chopsticks",
    "pudding",
    "soy",
)
"""The order kinds are grouped in a tableau."""


def card_style(card: Card) -> str:
    """The style class of a card's kind (colours live in the app's Style)."""
    return f"class:card.{_FAMILY[card]}"


def family(card: Card) -> str:
    """The kind a card is grouped under in a tableau."""
    return _FAMILY[card]


_W = Card.WASABI


class OwnView(Protocol):
    """What a hint reads of the player's own tableau (cards) or tray (dice)."""

    @property
    def open_wasabi(self) -> int:
        """Wasabi waiting for a nigiri."""


def sushi_hint(icons: int, nigiri: int, wasabi: bool, mine: OwnView | None) -> str | None:
    """The hint of a maki (its `icons`), a nigiri (its points, tripled on a wasabi that `mine`,
    the player's own tableau or tray, has open) or a `wasabi`, which score alike in both games
    (cards here, dice in `dice`); None for anything else."""
    if icons:
        return f"{icons} icon{'s' if icons > 1 else ''}; most = 6"
    if nigiri:
        if mine is not None and mine.open_wasabi:
            return f"on wasabi: {nigiri * deck.WASABI_MULTIPLIER}!"
        return f"{nigiri}, on wasabi {nigiri * deck.WASABI_MULTIPLIER}"
    return "x3 your next nigiri" if wasabi else None


def hint(card: Card, mine: TableauView | None = None) -> str:
    """A short scoring hint (at most 22 characters), told against the player's own tableau."""
    cards = mine.cards if mine is not None else ()
    if card is Card.TEMPURA:
        if cards.count(Card.TEMPURA) % deck.TEMPURA_SET == deck.TEMPURA_SET - 1:
            return f"completes a pair: +{deck.TEMPURA_POINTS}"
        return f"pair = {deck.TEMPURA_POINTS}"
    if card is Card.SASHIMI:
        have = cards.count(Card.SASHIMI) % deck.SASHIMI_SET
        if have == deck.SASHIMI_SET - 1:
            return f"completes 3: +{deck.SASHIMI_POINTS}"
        return f"set of 3 = {deck.SASHIMI_POINTS}" + (f" ({have}/3)" if have else "")
    if card is Card.DUMPLING:
        n = cards.count(Card.DUMPLING)
        top = len(deck.DUMPLING_POINTS) - 1
        gain = deck.DUMPLING_POINTS[min(n + 1, top)] - deck.DUMPLING_POINTS[min(n, top)]
        return f"1 3 6 10 15: +{gain} now"
    if common := sushi_hint(
        deck.MAKI_ICONS.get(card, 0), deck.NIGIRI_POINTS.get(card, 0), card is _W, mine
    ):
        return common
    if card is Card.CHOPSTICKS:
        return "later: take 2 cards"
    if card is Card.PUDDING:
        return "game end: most +6"
    return f"most colours: +{deck.SOY_SAUCE_POINTS}"
