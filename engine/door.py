"""Each layer's one door to the games: a table from a game's kind to the game's part in that layer.

Every layer that has a part per game (the rules here, the wire in `protocol`, the strategies in
`bots`, the board in the terminal client) keeps one `Door`: the built-in games in one literal table
of the module that holds each game's part (its folder in that layer, such as
``sushigo.bots.games.sushi_roll``), and plug-ins in one entry point group whose entry point names
the same kind of module (the entry point's name is the game's kind, its value a module or an object
with the same names). The layer documents the names a game's part exposes (the engine: ``RULES``;
`protocol.games`: ``WIRE``; `bots`: ``STRATEGIES``, ``LEVELS``, ...), and reads them from
whatever its door gives, so a built-in game and a plug-in are found, and used, the same way.

A game's part is imported the first time its kind is asked for, and kept: a command's start-up is
part of what it costs (the arena's), so a run of Sushi Go! never imports Sushi Roll, and
`importlib.metadata` (20 ms, a scan of every installed distribution) is imported only for a kind
that is not built in, or for the list of every kind (`Door.kinds`).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .errors import EngineError

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

_plugins: dict[str, dict[str, EntryPoint]] = {}
"""Each entry point group's entry points by name, as read (`plugin`)."""

_doors: list[Door] = []
"""Every door made (one a layer, kept for the process's life), so `refresh` can make them forget
the plug-ins they loaded."""


def plugin(group: str, kind: str) -> Any | None:
    """The object the installed entry point `kind` of `group` names, loaded; None when there is
    none. `EngineError` when it fails to load (a broken plug-in names itself)."""
    entry = _entry_points(group).get(kind)
    if entry is None:
        return None
    try:
        return entry.load()
    except Exception as exc:  # whatever the plug-in's import raises, say which plug-in it was
        raise EngineError(
            f"the {group} plug-in {kind!r} ({entry.value}) failed to load: "
            f"{type(exc).__name__}: {exc}"
        ) from None


def _entry_points(group: str) -> dict[str, EntryPoint]:
    found = _plugins.get(group)
    if found is None:
        from importlib import metadata  # noqa: PLC0415  (only for a kind not built in: above)

        found = _plugins[group] = {ep.name: ep for ep in metadata.entry_points(group=group)}
    return found


def refresh() -> None:
    """Read the installed plug-ins again, and forget every plug-in's part a door loaded (a program
    that installs one while it runs: tests)."""
    _plugins.clear()
    for door in _doors:
        door.forget_plugins()


class Door:
    """One layer's table from a game's kind to the game's part in that layer (the module
    docstring): `built_in` maps each built-in kind to the module holding its part, `group` is the
    layer's entry point group of plug-ins."""

    def __init__(self, group: str, built_in: Mapping[str, str]) -> None:
        self.group = group
        self.built_in: Mapping[str, str] = dict(built_in)
        """The built-in games' parts: kind -> module name, imported when first asked for."""
        self._parts: dict[str, Any] = {}
        self._from_plugins: set[str] = set()
        _doors.append(self)

    def part(self, kind: str) -> Any | None:
        """The part of the game `kind` in this layer (its module, or the object its plug-in
        names); None when the game has none installed here. `EngineError` when a plug-in's part
        fails to load."""
        found = self._parts.get(kind)
        if found is not None or type(kind) is not str:
            return found
        where = self.built_in.get(kind)
        if where is not None:
            found = importlib.import_module(where)
        else:
            found = plugin(self.group, kind)
            if found is None:
                return None
            self._from_plugins.add(kind)
        self._parts[kind] = found
        return found

    def add(self, kind: str, part: Any) -> None:
        """Add a game's part by hand (a program that embeds a game of its own, and tests)."""
        self._parts[kind] = part
        self._from_plugins.discard(kind)

    def kinds(self) -> tuple[str, ...]:
        """Every game with a part here: the built-in ones first, then those added by hand, then
        plug-ins by name."""
        added = [kind for kind in self._parts if kind not in self.built_in]
        extra = sorted(set(_entry_points(self.group)) - set(self._parts) - set(self.built_in))
        return (*self.built_in, *added, *extra)

    def has(self, kind: str) -> bool:
        """Whether `kinds` holds `kind`, reading the plug-ins only for a kind not built in."""
        return kind in self.built_in or kind in self._parts or kind in self.kinds()

    def forget_plugins(self) -> None:
        """Drop the parts loaded from plug-ins, so the next ask reads the entry points again."""
        for kind in self._from_plugins:
            self._parts.pop(kind, None)
        self._from_plugins.clear()
