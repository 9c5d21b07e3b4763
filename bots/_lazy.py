"""Strategies imported when first asked for, not when their table is.

A command that plays `random` (the arena, a bot runner) should not pay for importing the search
bots, the learned bot and their tables: together three quarters of `bots`' imports, a tenth of a
second. A table lists each strategy by where it lives, ``"package.module:Name"``, so its names are
known at once and each class is imported the first time it is looked up.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any


def load(where: str) -> Any:
    """The object ``"package.module:name"`` names, importing its module (once: `sys.modules`);
    ``"package.module"`` alone names the module."""
    module, _, name = where.partition(":")
    found = importlib.import_module(module)
    return getattr(found, name) if name else found


def names_later(package: dict[str, Any], later: Mapping[str, str]) -> Callable[[str], Any]:
    """A package's ``__getattr__`` for the names `later` lists (name -> where, as `load` reads
    it): each imported when first asked for and kept in the package's namespace, `package`
    (its ``globals()``)."""

    def __getattr__(name: str) -> Any:
        where = later.get(name)
        if where is None:
            raise AttributeError(f"module {package['__name__']!r} has no attribute {name!r}")
        found = package[name] = load(where)
        return found

    return __getattr__


class LazyTable(Mapping[str, Callable[..., Any]]):
    """Strategy classes by name, each imported the first time it is looked up (`load`)."""

    __slots__ = ("_loaded", "_where")

    def __init__(self, where: Mapping[str, str]) -> None:
        self._where = dict(where)
        self._loaded: dict[str, Callable[..., Any]] = {}

    def __getitem__(self, name: str) -> Callable[..., Any]:
        found = self._loaded.get(name)
        if found is None:
            found = self._loaded[name] = load(self._where[name])  # KeyError: no such name
        return found

    def __contains__(self, name: object) -> bool:
        return name in self._where  # (Mapping's own would import the class)

    def __iter__(self) -> Iterator[str]:
        return iter(self._where)

    def __len__(self) -> int:
        return len(self._where)

    def __repr__(self) -> str:
        return f"LazyTable({self._where!r})"
