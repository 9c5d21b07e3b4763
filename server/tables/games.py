"""The games the server hosts: each kind's rules, wire and bots, as a table needs them.

This is the one place the server meets a particular game, and it meets every game the same way:
through the engine's rules registry (`engine.games`), the protocol's wire registry
(`protocol.games`) and the bots' strategy registry (`bots`), all found by the table's kind. A game
installed as a plug-in is hosted without any change here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sushigo.bots import (
    Strategy,
    StrategyError,
    builtin_names,
    default_strategy,
    get_strategy,
    levels,
)
from sushigo.engine import EngineError, OptionsError, Rules, rules
from sushigo.protocol import ErrorCode, TableSettings, Wire, wire
from sushigo.server.errors import TableError


@dataclass(frozen=True, slots=True)
class GameAdapter:
    """One game kind as the server plays it."""

    rules: Rules
    """The game's rules (`engine.api.Rules`)."""
    wire: Wire
    """The game's values on the wire (`protocol.games.Wire`)."""

    @property
    def kind(self) -> str:
        """The game's kind."""
        return self.rules.kind

    def options(self, settings: TableSettings) -> Any:
        """The game's options for a table's settings; TableError BAD_SETTINGS for a combination
        that makes no game."""
        try:
            return self.rules.options(settings.players, settings.variants)
        except OptionsError as exc:
            raise TableError(ErrorCode.BAD_SETTINGS, str(exc)) from None

    def bot_names(self) -> tuple[str, ...]:
        """The strategies a table may seat by name: ``default``, the game's levels (easy to
        expert) and its built-in strategies."""
        return ("default", *levels(self.kind), *builtin_names(self.kind))

    def bot(self, name: str) -> Strategy:
        """A fresh built-in strategy by name (never a file or module a client names); TableError
        UNKNOWN_BOT otherwise."""
        names = (*levels(self.kind), *builtin_names(self.kind))
        chosen = name
        if name == "default":
            chosen = default_strategy(self.kind)  # server bots, auto-picks, seats left
        if chosen not in names:
            raise TableError(
                ErrorCode.UNKNOWN_BOT,
                f"no {self.rules.title} bot {name!r}: choose one of {', '.join(self.bot_names())}",
            )
        try:
            return get_strategy(chosen, game=self.kind)
        except StrategyError as exc:  # a plug-in's strategy that fails to start
            raise TableError(ErrorCode.UNKNOWN_BOT, str(exc)) from None


_adapters: dict[str, GameAdapter] = {}


def adapter(kind: str) -> GameAdapter:
    """The game of a table's kind; TableError UNSUPPORTED_GAME_KIND when it is not installed."""
    found = _adapters.get(kind)
    if found is not None:
        return found
    try:
        game_rules = rules(kind)
    except EngineError as exc:
        raise TableError(ErrorCode.UNSUPPORTED_GAME_KIND, str(exc)) from None
    codec = wire(kind)
    if codec is None:
        raise TableError(
            ErrorCode.UNSUPPORTED_GAME_KIND, f"the {kind!r} game has no wire codec installed"
        )
    found = _adapters[kind] = GameAdapter(game_rules, codec)
    return found


def check_settings(settings: TableSettings) -> GameAdapter:
    """The game of `settings`, after checking they make one (TableError UNSUPPORTED_GAME_KIND or
    BAD_SETTINGS)."""
    game = adapter(settings.kind)
    variants = settings.variants
    if len(set(variants)) != len(variants):
        # Refused rather than echoed in every TABLE_INFO: a table's view stays as short as its
        # game's variants make it.
        twice = sorted({v for v in variants if variants.count(v) > 1})
        raise TableError(
            ErrorCode.BAD_SETTINGS, f"a variant is named once; repeated: {', '.join(twice)}"
        )
    game.options(settings)
    return game


def describe(settings: TableSettings) -> str:
    """A table's game for a log line: ``sushi-go, 4 seats, soy_sauce``."""
    return ", ".join([settings.kind, f"{settings.players} seats", *settings.variants])
