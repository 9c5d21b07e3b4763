"""A seat's action for one turn: one card, two with chopsticks, plus the dummy's card when it controls it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from sushigo.engine.errors import MalformedActionError

from .cards import Card


class Action(NamedTuple):
    """What one seat takes on a turn. Immutable and hashable.

    Cards resolve in order: `first`, then `second` (so wasabi first, then a nigiri, puts the nigiri
    on that wasabi), then `dummy`, which goes to the dummy's tableau.
    """

    first: Card
    """The card taken (the first of two with chopsticks)."""
    second: Card | None = None
    """The second card, taken with a chopsticks card from the seat's tableau; None otherwise."""
    dummy: Card | None = None
    """Dummy variant: the card the controller gives the dummy; None for every other seat."""

    @property
    def cards(self) -> tuple[Card, ...]:
        """Every card this action removes from the hand, in resolution order."""
        return tuple(c for c in self if c is not None)

    def describe(self) -> str:
        """A short human text, e.g. ``wasabi+squid`` or ``salmon (dummy: egg)``."""
        text = (
            self.first.label if self.second is None else f"{self.first.label}+{self.second.label}"
        )
        return text if self.dummy is None else f"{text} (dummy: {self.dummy.label})"

    def to_data(self) -> dict[str, Any]:
        """Plain data: ``{"cards": [names...]}`` plus ``"dummy": name`` when there is a dummy pick."""
        out: dict[str, Any] = {
            "cards": [self.first.label]
            if self.second is None
            else [self.first.label, self.second.label]
        }
        if self.dummy is not None:
            out["dummy"] = self.dummy.label
        return out

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Action:
        """The action `to_data` produced; `MalformedActionError` naming what is wrong otherwise."""
        if not isinstance(data, Mapping):
            raise MalformedActionError(None, f"an action must be a map, got {type(data).__name__}")
        cards = data.get("cards")
        if not isinstance(cards, list | tuple) or not 1 <= len(cards) <= 2:
            raise MalformedActionError(
                None, "an action's cards must be a list of 1 or 2 card names"
            )
        dummy = data.get("dummy")
        try:
            picks = [Card.from_label(name) for name in cards]
            dummy_card = None if dummy is None else Card.from_label(dummy)
        except ValueError as exc:
            raise MalformedActionError(None, str(exc)) from None
        return cls(picks[0], picks[1] if len(picks) == 2 else None, dummy_card)
