"""The lobby's "my recent games": our finished games a page at a time (h), and any of them
stepped through full screen (Enter: the replay viewer, `replay_view`).

The list comes from the server (MY_GAMES, protocol 2.2); a game's record too (GET_RECORD), and
it is verified here as at the end of a game (the signature against the key the server gave in
WELCOME, then the seeds, every commitment and the replay) before the viewer shows it, its
verdict on top. A guest's list is its session's games; a server older than 2.2 keeps none for
anyone, and the list says so.
"""

from __future__ import annotations

import time

from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent, merge_key_bindings
from prompt_toolkit.key_binding.key_bindings import KeyBindingsBase

from . import ops
from .board import player_label
from .form import game_title
from .lobby import list_row
from .replay_state import RecentGames, ReplayError, open_record
from .replay_view import ReplayScreen, replay_bindings
from .state import AppState, Fragments

__all__ = ["PAGE", "load_recent_bindings", "open_replay", "recent_games", "recent_text"]

PAGE = 10
"""Games on a page of the list (it fits the lobby at 80x24)."""

_ORDINAL = {1: "1st", 2: "2nd", 3: "3rd"}


# -- what the keys ask of the server --------------------------------------------------------------


async def recent_games(state: AppState, offset: int = 0) -> None:
    """Show the list of our games, the page from `offset` (asked of the server)."""
    client = state.client
    recent = state.recent = state.recent or RecentGames()
    if client is None or not client.keeps_games:
        recent.loading = False
        version = client.welcome.version if client is not None and client.welcome else None
        recent.note = f"this server keeps no games for its players (protocol {version})"
        state.notify()
        return
    recent.loading = True
    state.notify()
    try:
        page = await client.my_games(offset=offset, limit=PAGE)
    finally:
        recent.loading = False
    if state.recent is not recent:
        return  # closed meanwhile
    if page.offset != recent.offset:
        recent.cursor = 0  # another page: from its top
    recent.games, recent.offset, recent.more = page.games, page.offset, page.more
    recent.cursor = min(recent.cursor, max(0, len(page.games) - 1))
    recent.note = (
        "as a guest, only this session's games are kept (--key keeps them all)"
        if page.guest
        else ""
    )
    state.notify()


async def open_replay(state: AppState) -> None:
    """Step through the game under the cursor: its record fetched, verified, shown."""
    recent, client = state.recent, state.client
    if recent is None or not recent.games or client is None:
        return
    game = recent.games[min(recent.cursor, len(recent.games) - 1)]
    if game.game_id in recent.opened:
        return  # its record is on its way already
    recent.opened.add(game.game_id)
    state.say(f"fetching the record of {game_title(game.kind)} at table {game.table_id}…")
    try:
        reply = await client.get_record(game.game_id)
    finally:
        recent.opened.discard(game.game_id)
    try:
        replay = open_record(
            reply.record, client.server_key or None, [p.name for p in reply.game.players]
        )
    except ReplayError as exc:
        state.say(f"cannot show that game: {exc}", error=True)
        return
    if state.recent is recent:
        state.replay = ReplayScreen(replay, back="back")
        state.say("" if replay.ok else "that game's record does not verify", error=not replay.ok)


# -- the list on screen -------------------------------------------------------------------------


def recent_text(state: AppState) -> Fragments:
    """Our finished games: when, the game, our place and score, everyone's scores."""
    recent = state.recent
    if recent is None:
        return []
    page = recent.offset // PAGE + 1
    pages = f"page {page}" + (", more: →" if recent.more else "") + (", ←" if recent.offset else "")
    out: Fragments = [
        ("class:title", "My recent games"),
        ("class:dim", f"   ({pages})\n" if recent.games else "\n"),
    ]
    if recent.note:
        out.append(("class:dim", f"{recent.note}\n"))
    if recent.loading and not recent.games:
        return [*out, ("class:dim", "  asking the server…")]
    if not recent.games:
        out.append(("class:dim", "  no finished games yet: play one, and it will be here"))
        return out
    head = f"  {'finished (UTC)':<17}{'game':<11}{'you':<11}scores"
    out.append(("class:dim", head))
    for i, game in enumerate(recent.games):
        when = time.strftime("%Y-%m-%d %H:%M", time.gmtime(game.finished_ms / 1000))
        mine = next((p for p in game.players if p.seat == game.seat), None)
        you = f"{_ORDINAL.get(mine.place, f'{mine.place}th')} {mine.score}pt" if mine else "-"
        scores = " · ".join(
            f"{player_label(p.name)[:12]} {p.score}" for p in game.players if p.seat != game.seat
        )
        row = f"{when:<17}{game_title(game.kind)[:10]:<11}{you:<11}{scores}"[:76]
        out += list_row(row, i == recent.cursor)
    return out


# -- keys -----------------------------------------------------------------------------------------


def _spawn(state: AppState, coro: object) -> None:
    assert state.spawn is not None, "the app installs state.spawn"
    state.spawn(ops.guarded(state, coro))  # type: ignore[arg-type]


def load_recent_bindings(state: AppState) -> KeyBindingsBase:
    """h opens the list from the lobby's tables; the list's keys; the replay's, over it."""
    kb = KeyBindings()
    free = Condition(
        lambda: (
            not (state.chatting or state.confirm_quit or state.show_help or state.leaderboard)
            and state.replay is None
            and not state.in_game
            and state.form is None
            and state.table is None
        )
    )
    tables = free & Condition(lambda: state.recent is None)
    listing = free & Condition(lambda: state.recent is not None)

    @kb.add("h", filter=tables)
    def _open(event: KeyPressEvent) -> None:
        state.set_status("")
        _spawn(state, recent_games(state))

    def move(delta: int) -> None:
        recent = state.recent
        if recent is not None and recent.games:
            recent.cursor = max(0, min(len(recent.games) - 1, recent.cursor + delta))
            state.notify()

    @kb.add("up", filter=listing)
    @kb.add("k", filter=listing)
    def _up(event: KeyPressEvent) -> None:
        move(-1)

    @kb.add("down", filter=listing)
    @kb.add("j", filter=listing)
    def _down(event: KeyPressEvent) -> None:
        move(1)

    @kb.add("right", filter=listing)
    @kb.add("pagedown", filter=listing)
    def _older(event: KeyPressEvent) -> None:
        recent = state.recent
        if recent is not None and recent.more:
            _spawn(state, recent_games(state, recent.offset + PAGE))

    @kb.add("left", filter=listing)
    @kb.add("pageup", filter=listing)
    def _newer(event: KeyPressEvent) -> None:
        recent = state.recent
        if recent is not None and recent.offset:
            _spawn(state, recent_games(state, max(0, recent.offset - PAGE)))

    @kb.add("r", filter=listing)
    def _refresh(event: KeyPressEvent) -> None:
        recent = state.recent
        _spawn(state, recent_games(state, recent.offset if recent is not None else 0))

    @kb.add("enter", filter=listing)
    def _view(event: KeyPressEvent) -> None:
        _spawn(state, open_replay(state))

    @kb.add("escape", filter=listing, eager=True)
    @kb.add("h", filter=listing)
    def _close(event: KeyPressEvent) -> None:
        state.recent = None
        state.set_status("")
        state.notify()
        _spawn(state, ops.refresh_tables(state))

    def leave(event: KeyPressEvent) -> None:
        state.replay = None
        state.set_status("")
        state.notify()

    viewing = Condition(lambda: state.replay is not None and not state.confirm_quit)
    return merge_key_bindings(
        [kb, replay_bindings(lambda: state.replay, viewing, leave, state.notify)]
    )
