"""Every game this installation knows, by kind: the engine's door (`engine.door.Door`).

A game's part here is its rules: the module of each built-in game's folder
(`engine.games.sushi_go`, `engine.games.sushi_roll`) and a plug-in's module named in the entry
point group ``sushigo.engine`` expose them as ``RULES`` (an `engine.api.Rules`). The other layers
find a game's other parts through doors of their own (docs/ARCHITECTURE.md, "Adding a game").

Sushi Roll's rules, its whole engine, are imported the first time its kind is asked for (10 ms of
imports), and a plug-in's the first time a kind that is not built in is asked for, or the list of
every kind (`kinds`).
"""

from __future__ import annotations

from sushigo.engine.api import Rules
from sushigo.engine.door import Door, plugin, refresh
from sushigo.engine.errors import EngineError

__all__ = [
    "BUILTIN_KINDS",
    "DOOR",
    "ENTRY_POINTS",
    "UnknownGameError",
    "is_kind",
    "kinds",
    "plugin",
    "refresh",
    "register",
    "rules",
]

ENTRY_POINTS = "sushigo.engine"
"""The entry point group of plug-in games' rules (a module or object with ``RULES``)."""

DOOR = Door(
    ENTRY_POINTS,
    {
        "sushi-go": "sushigo.engine.games.sushi_go",
        "sushi-roll": "sushigo.engine.games.sushi_roll",
    },
)
"""The built-in games' rules, by kind: the default (Sushi Go!) first."""

BUILTIN_KINDS = tuple(DOOR.built_in)
"""The built-in games' kinds, the default first: known without importing them."""

_known: dict[str, Rules] = {}


class UnknownGameError(EngineError):
    """No game of that kind is installed."""


def rules(kind: str) -> Rules:
    """The rules of the game `kind`; `UnknownGameError` naming the installed kinds otherwise."""
    found = _known.get(kind)
    if found is not None:
        return found
    part = DOOR.part(kind)
    if part is None:
        raise UnknownGameError(
            f"no game {kind!r} is installed (installed: {', '.join(sorted(kinds()))})"
        )
    found = getattr(part, "RULES", None)
    if not isinstance(found, Rules) or found.kind != kind:
        raise EngineError(f"the {ENTRY_POINTS} plug-in {kind!r} has no RULES of {kind!r}")
    _known[kind] = found
    return found


def kinds() -> tuple[str, ...]:
    """Every installed game's kind: the built-in ones first, then plug-ins by name."""
    return DOOR.kinds()


def is_kind(kind: str) -> bool:
    """Whether `kinds` holds `kind`, reading the installed plug-ins only for a kind that is not
    built in (`--game`'s check, `client.args.add_game`)."""
    return DOOR.has(kind)


def register(game: Rules) -> None:
    """Add a game's rules by hand (a program that embeds a game of its own, and tests)."""
    _known[game.kind] = game
    DOOR.add(game.kind, _Part(game))


class _Part:
    """A game's engine part made of its rules alone (`register`)."""

    def __init__(self, game: Rules) -> None:
        self.RULES = game
