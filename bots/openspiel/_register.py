"""Every game's OpenSpiel part, registered with pyspiel: the built-in games, and the installed
plug-ins that have one (each game's ``OPENSPIEL`` module, `bots._door`, registers its game when
imported)."""

from __future__ import annotations

import importlib

from sushigo.bots._base import StrategyError
from sushigo.bots._door import DOOR, part


def register_all() -> tuple[str, ...]:
    """Import every game's OpenSpiel module (once: `sys.modules`); the kinds that have one."""
    done = []
    for kind in DOOR.kinds():
        try:
            where = getattr(part(kind), "OPENSPIEL", None)
        except StrategyError:  # a broken plug-in: the other games are still registered
            continue
        if isinstance(where, str):
            importlib.import_module(where)
            done.append(kind)
    return tuple(done)
