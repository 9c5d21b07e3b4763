"""The two kinds of table, and making the right one for a table's settings.

A table's game kind is ``sushi-go`` (the card game, `server.table.Table`, commit-reveal) or
``sushi-roll`` (the dice game, `server.roll_table.RollTable`, sequential turns). Both have the same
lobby face (seats, spectators, `info`, `start`, `seed`, `leave`, `deadline`, `on_timer`), which is
all the lobby, the hub and the tournament desk use; only the game messages go to one kind or the
other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias

from sushigo.engine import OptionsError
from sushigo.protocol import ErrorCode, GameKind, TableSettings

from .roll_table import RollTable
from .table import Table, TableError

if TYPE_CHECKING:
    from .hub import Hub

AnyTable: TypeAlias = Table | RollTable
"""A table of either game kind."""


def check_settings(settings: TableSettings) -> None:
    """TableError UNSUPPORTED_GAME_KIND or BAD_SETTINGS for settings that make no game here."""
    if settings.kind not in (GameKind.SUSHI_GO, GameKind.SUSHI_ROLL):
        raise TableError(
            ErrorCode.UNSUPPORTED_GAME_KIND, f"this server does not host {settings.kind!r}"
        )
    try:
        if settings.kind == GameKind.SUSHI_ROLL:
            settings.roll_options()  # Sushi Roll has no variants: any card variant is refused
        else:
            settings.options()
    except OptionsError as exc:
        raise TableError(ErrorCode.BAD_SETTINGS, str(exc)) from None


def make_table(table_id: str, settings: TableSettings, hub: Hub, host: str | None) -> AnyTable:
    """A new table of the settings' kind (TableError for settings that make no game)."""
    check_settings(settings)
    if settings.kind == GameKind.SUSHI_ROLL:
        return RollTable(table_id, settings, hub, host)
    return Table(table_id, settings, hub, host)


def describe(table: AnyTable) -> str:
    """The table's game for a log line: ``sushi-go, 4 seats, soy_sauce``."""
    variants = table.options.variants() if isinstance(table, Table) else ()
    return ", ".join(
        [str(table.settings.kind), f"{len(table.seats)} seats", *(str(v) for v in variants)]
    )
