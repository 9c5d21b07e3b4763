"""What the terminal client's screens share (the game and lobby's `layout`, the replay viewer's
`replay_view`): colours and attributes by style class, and the smallest terminal they draw in."""

from __future__ import annotations

from prompt_toolkit.application.current import get_app
from prompt_toolkit.styles import Style

__all__ = ["MIN_COLUMNS", "MIN_ROWS", "STYLE", "too_small"]

MIN_COLUMNS, MIN_ROWS = 80, 24
"""The smallest terminal the screens are drawn for."""


def too_small() -> bool:
    """The terminal is smaller than the screens are drawn for (False with no terminal to ask:
    a snapshot outside an app)."""
    try:
        size = get_app().output.get_size()
    except Exception:
        return False
    return size.columns < MIN_COLUMNS or size.rows < MIN_ROWS


STYLE = Style.from_dict(
    {
        "header": "reverse bold",
        "status": "reverse",
        "status.error": "reverse bold fg:ansired",
        "keys": "fg:ansibrightblack",
        "cursor": "reverse bold",
        "marked": "bold underline",
        "dim": "fg:ansibrightblack",
        "title": "bold",
        "me": "bold",
        "fair.ok": "fg:ansigreen",
        "fair.pending": "",
        "fair.fail": "bold reverse fg:ansired",
        "log.round": "bold",
        "log.dim": "fg:ansibrightblack",
        "log.name": "bold",
        "chat.name": "bold fg:ansicyan",
        "card.tempura": "fg:ansimagenta",
        "card.sashimi": "fg:ansigreen",
        "card.dumpling": "fg:ansiblue",
        "card.maki": "fg:ansired",
        "card.nigiri": "fg:ansiyellow",
        "card.wasabi": "fg:ansibrightgreen bold",
        "card.chopsticks": "fg:ansicyan",
        "card.pudding": "fg:ansibrightmagenta",
        "card.soy": "fg:ansibrightyellow",
        "die.appetizer": "fg:ansiblue",
        "die.maki": "fg:ansired",
        "die.nigiri": "fg:ansiyellow",
        "die.specials": "fg:ansigreen",
        "die.pudding": "fg:ansimagenta",
        "overlay": "",
    }
)
"""Colours and attributes by class. prompt_toolkit drops colours under NO_COLOR (1-bit depth)."""
