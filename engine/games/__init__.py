"""Every game this installation knows, by kind: the built-in ones and plug-ins.

A game outside this project plugs in without changing it: its distribution names its rules object
in the entry point group ``sushigo.rules`` (the entry point's name is the game's kind), and the
other layers' registries find its wire codec and strategies the same way (``sushigo.wire``,
``sushigo.strategies``; see docs/ARCHITECTURE.md, "Adding a game"). Plug-ins are looked up the
first time a kind that is not built in is asked for, and kept.

Nothing is imported before it is needed (a command's start-up is part of what it costs: the
arena's): Sushi Roll's rules, its whole engine, the first time its kind is asked for (10 ms of
imports), and `importlib.metadata` with its scan of every installed distribution (20 ms) the first
time a kind that is not built in is asked for, or the list of every kind (`kinds`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from sushigo.engine.api import Rules
from sushigo.engine.errors import EngineError

from .sushi_go.rules import SUSHI_GO

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

ENTRY_POINTS = "sushigo.rules"
"""The entry point group of plug-in games' rules."""

BUILTIN_KINDS = ("sushi-go", "sushi-roll")
"""The built-in games' kinds, the default (Sushi Go!) first: known without importing them."""

_LATER = {"sushi-roll": ("sushigo.engine.games.sushi_roll.rules", "SUSHI_ROLL")}
"""The built-in games imported when first asked for: their rules' module and name."""

_known: dict[str, Rules] = {SUSHI_GO.kind: SUSHI_GO}
_looked: set[str] = set()
"""Entry point groups already read (`plugin`)."""
_plugins: dict[str, dict[str, EntryPoint]] = {}


class UnknownGameError(EngineError):
    """No game of that kind is installed."""


def plugin(group: str, kind: str) -> Any | None:
    """The object the installed entry point `kind` of `group` names, loaded; None when there is
    none. `EngineError` when it fails to load (a broken plug-in names itself)."""
    if group not in _looked:
        from importlib import metadata  # noqa: PLC0415  (only for a kind not built in: above)

        _plugins[group] = {ep.name: ep for ep in metadata.entry_points(group=group)}
        _looked.add(group)
    entry = _plugins[group].get(kind)
    if entry is None:
        return None
    try:
        return entry.load()
    except Exception as exc:  # whatever the plug-in's import raises, say which plug-in it was
        raise EngineError(
            f"the {group} plug-in {kind!r} ({entry.value}) failed to load: "
            f"{type(exc).__name__}: {exc}"
        ) from None


def rules(kind: str) -> Rules:
    """The rules of the game `kind`; `UnknownGameError` naming the installed kinds otherwise."""
    found = _known.get(kind)
    if found is not None:
        return found
    later = _LATER.get(kind)
    if later is not None:
        module, name = later
        builtin: Rules = getattr(importlib.import_module(module), name)
        _known[kind] = builtin
        return builtin
    loaded = plugin(ENTRY_POINTS, kind) if isinstance(kind, str) else None
    if loaded is None:
        raise UnknownGameError(
            f"no game {kind!r} is installed (installed: {', '.join(sorted(kinds()))})"
        )
    if not isinstance(loaded, Rules) or loaded.kind != kind:
        raise EngineError(f"the {ENTRY_POINTS} plug-in {kind!r} is not the rules of {kind!r}")
    _known[kind] = loaded
    return loaded


def kinds() -> tuple[str, ...]:
    """Every installed game's kind: the built-in ones first, then plug-ins by name."""
    plugin(ENTRY_POINTS, "")  # reads the group once
    added = [kind for kind in _known if kind not in BUILTIN_KINDS]
    extra = sorted(set(_plugins[ENTRY_POINTS]) - set(_known) - set(BUILTIN_KINDS))
    return (*BUILTIN_KINDS, *added, *extra)


def is_kind(kind: str) -> bool:
    """Whether `kinds` holds `kind`, reading the installed plug-ins only for a kind that is not
    built in (`--game`'s check, `client.args.add_game`)."""
    return kind in BUILTIN_KINDS or kind in _known or kind in kinds()


def refresh() -> None:
    """Read the installed plug-ins again (a program that installs one while it runs: tests)."""
    _looked.clear()
    _plugins.clear()


def register(game: Rules) -> None:
    """Add a game's rules by hand (a program that embeds a game of its own, and tests)."""
    _known[game.kind] = game
