"""The terminal client's colours and attributes by style class, shared by its screens (the game
and lobby's `layout`, the replay viewer's `replay_view`)."""

from __future__ import annotations

from prompt_toolkit.styles import Style

__all__ = ["STYLE"]

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
