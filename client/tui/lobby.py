"""The lobby's widgets: the table list, the create-table form, our table before its game."""

from __future__ import annotations

from sushigo.bots import levels
from sushigo.protocol import Leaderboard, Rated, TableSettings

from .board import player_label
from .form import game_title, variant_label
from .state import AppState, CreateForm, Fragments

__all__ = ["form_text", "leaderboard_lines", "lobby_text", "seats_text"]


_SHORT_VARIANTS = {"pass_both_ways": "both-ways", "soy_sauce": "soy"}
"""Variants' names in the table list, where room is short."""


def _variants(settings: TableSettings) -> str:
    return ",".join(_SHORT_VARIANTS.get(v, v) for v in settings.variants) or "-"


def lobby_text(state: AppState) -> Fragments:
    """The server's tables: game, variants, seats taken, turn time, status, spectators."""
    quick = game_title(state.quick_kind)
    out: Fragments = [
        ("class:title", f"Tables on {state.address}"),
        ("class:dim", f"   (m: quick match of {quick}, g switches)\n"),
        ("class:dim", f"  b: play {quick} now against bots of level {state.bot_level}"),
        ("class:dim", " (v changes it)\n"),
    ]
    head = f"  {'table':<13}{'game':<11}{'seats':<6}{'variants':<17}{'turn':<6}{'status':<9}watch"
    out.append(("class:dim", head))
    if not state.tables:
        out.append(("class:dim", "\n  no tables yet: n creates one, m finds a quick match"))
    for i, table in enumerate(state.tables):
        s = table.settings
        taken = sum(1 for seat in table.seats if seat.player_id is not None or seat.bot)
        turn = f"{s.turn_seconds}s" if s.turn_seconds else "-"
        game = game_title(s.kind)
        row = (
            f"{table.table_id[:12]:<13}{game[:10]:<11}{taken}/{s.players:<4}"
            f"{_variants(s)[:16]:<17}{turn:<6}{table.status.value:<9}{table.spectators}"
        )
        out += list_row(row, i == state.table_cursor)
    return out


def list_row(row: str, at_cursor: bool) -> Fragments:
    """A row of one of the lobby's lists (tables, recent games) on a line of its own: marked and
    reversed under the list's cursor, which the terminal's own cursor follows."""
    out: Fragments = [("", "\n")]
    if at_cursor:
        out.append(("[SetCursorPosition]", ""))
    out.append(("class:cursor" if at_cursor else "", ("▸ " if at_cursor else "  ") + row))
    return out


def form_text(state: AppState) -> Fragments:
    """The create-table form: the game's own fields (its variants) between the common ones."""
    form = state.form or CreateForm()
    box = {True: "[x]", False: "[ ]"}
    values = {
        "game": ("game", f"‹ {game_title(form.game)} ›"),
        "players": ("players", f"‹ {form.players} ›"),
        "turn_seconds": (
            "turn time",
            f"‹ {form.turn_seconds} s ›" if form.turn_seconds else "‹ no timer ›",
        ),
        "bots": ("bots", f"‹ {form.bots} › of {form.players - 1} empty seats"),
        "strategy": (
            "bot level" if levels(form.game) else "bot strategy",
            f"‹ {form.strategy} ›",
        ),
        "create": ("", "[ Create ]"),
    }
    out: Fragments = [("class:title", "Create a table\n")]
    focused = form.focused()
    for name in form.fields():
        if name.startswith("variant:"):
            variant = name.removeprefix("variant:")
            label, value = variant_label(variant), box[variant in form.variants]
        else:
            label, value = values[name]
        here = name == focused
        out.append(("", "▸ " if here else "  "))
        out.append(("class:cursor" if here else "", f"{label:<16}{value}"))
        out.append(("", "\n"))
    return out


def seats_text(state: AppState) -> Fragments:
    """Our table before its game: settings and who sits where."""
    table = state.table
    if table is None:
        return []
    s = table.settings
    turn = f"{s.turn_seconds} s turns" if s.turn_seconds else "no timer"
    game = game_title(s.kind)
    out: Fragments = [
        ("class:title", f"Table {table.table_id} · {game} · {s.players} players · "),
        ("", f"{_variants(s) if s.variants else 'no variant'} · {turn} · {table.status.value}\n"),
    ]
    for seat in table.seats:
        if seat.player_id is None and not seat.bot:
            who: Fragments = [("class:dim", "(empty)")]
        else:
            name = player_label(seat.name) if seat.name else "?"
            who = [("class:me" if seat.seat == state.seat else "", name)]
            if seat.bot:
                who.append(("class:dim", " [bot]"))
            if seat.player_id == table.host:
                who.append(("class:dim", " [host]"))
            if not seat.connected:
                who.append(("class:status.error", " [disconnected]"))
        out.append(("", f"  seat {seat.seat + 1}: "))
        out.extend(who)
        out.append(("", "\n"))
    if table.spectators:
        out.append(("class:dim", f"  {table.spectators} watching\n"))
    return out


def leaderboard_lines(board: Leaderboard, player_id: str, *, signed_in: bool) -> list[str]:
    """A game's ladder as lines of text (the lobby's overlay and ``--leaderboard`` print the
    same): rank, name, rating with its uncertainty, games; our own row marked, and shown below
    the table when it is not among the top rows. `signed_in`: we logged in with a key (guests
    are never rated)."""
    title = game_title(board.kind)
    players = "player" if board.total == 1 else "players"
    lines = [f"{title} leaderboard: {board.total} rated {players}"]
    if not board.top:
        lines.append("nobody is rated at this game yet")
    else:
        lines.append(f"{'rank':>5}  {'name':<24}{'rating':>8}{'skill':>9}{'±':>6}{'games':>7}")
        lines += [_rated_line(row, row.player_id == player_id) for row in board.top]
    mine = board.mine
    if mine is not None and all(row.player_id != mine.player_id for row in board.top):
        lines += ["  ...", _rated_line(mine, True)]
    elif mine is None and signed_in:
        lines.append(f"you are not rated at {title} yet: a game is rated when it has two or")
        lines.append("more players logged in with --key (bots and guests are not rated)")
    elif mine is None:
        lines.append("guests are not rated: log in with --key to be on the leaderboard")
    return lines


def _rated_line(row: Rated, mine: bool) -> str:
    return (
        f"{row.rank:>5}{'▸' if mine else ' '} {row.name[:24]:<24}{row.rating_milli / 1000:>8.1f}"
        f"{row.mu_milli / 1000:>9.1f}{row.sigma_milli / 1000:>6.1f}{row.games:>7}"
    )
