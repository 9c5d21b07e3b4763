"""Sushi Go!'s own refusals of an action, beside the ones every game shares (`engine.errors`)."""

from __future__ import annotations

from sushigo.engine.errors import IllegalActionError


class CardNotInHandError(IllegalActionError):
    """A picked card (or two picks of one kind) that the seat's hand does not hold."""


class ChopsticksUnavailableError(IllegalActionError):
    """A second pick without a chopsticks card played on an earlier turn, or with too few cards."""


class DummyPickError(IllegalActionError):
    """A dummy pick missing from the controller's action, or given by a seat that does not control it."""
