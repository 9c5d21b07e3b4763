"""A game that brings no board of its own is playable in the terminal client on the plain board:
rock-paper-scissors (tests/games/rps/), installed by its entry points alone, played by
keystrokes against a real server on loopback, to its verified end. A game that does bring a board
(a ``BOARD`` in its part in the entry point group ``sushigo.tui``) gets its own."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from feed import Feed
from games.plugins import install_rps, rps_entry_points
from tui_helpers import local_server, log_text, plain, running_app

from sushigo.client.tui import AppState, Board, board_class
from sushigo.engine import games
from sushigo.protocol import TableSettings


@pytest.fixture
def rps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The game installed as a distribution installs it (it has no board of its own)."""
    install_rps(tmp_path, monkeypatch)
    yield
    games.refresh()


async def test_rps_is_played_by_keystrokes_on_the_plain_board(rps: None, tmp_path: Path) -> None:
    settings = TableSettings(kind="rps", players=2, turn_seconds=0)
    async with (
        local_server(tmp_path) as address,
        running_app(address, settings, strategy="rock") as h,
    ):
        state = h.state
        throws = 0
        first_screen = ""
        while await h.ready_to_pick():
            board = plain(state)
            assert type(board) is Board
            if not first_screen:
                first_screen = h.screen()
            # The menu: 1 rock, 2 paper, 3 scissors; move down once from the top and play.
            await h.pick("1\x1b[B\r")
            assert board.my_pick == "paper"
            throws += 1
        assert throws == 3
        assert " Rock-paper-scissors " in first_screen and "round 1" in first_screen
        assert "1 rock" in first_screen and "2 paper" in first_screen
        assert "3 scissors" in first_screen and "Your move" in first_screen
        final = state.final
        assert final is not None and final.winners == (0,) and final.totals == (3, 0)
        await h.wait(lambda: state.fairness.final != "pending", "the record check")
        assert state.fairness.final == "verified", state.fairness.failures
        assert state.fairness.openings_verified == 6
        screen = h.screen()
        assert "Game over · You win!" in screen and "seed check passed" in screen
        assert "you:paper" in log_text(state) and ":rock" in log_text(state)
        await h.quit()


def test_a_game_may_bring_its_own_board(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "rps_board.py").write_text(
        "from sushigo.client.tui import Board\n\n\n"
        "class RpsBoard(Board):\n"
        "    def header(self):\n"
        "        return [('', ' best of three')]\n\n\n"
        "BOARD = RpsBoard\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    install_rps(tmp_path, monkeypatch, rps_entry_points(tui="rps_board"))
    try:
        own = board_class("rps")
        assert own is not Board and issubclass(own, Board) and own.__name__ == "RpsBoard"
        state = AppState()
        feed = Feed(state, "rps", 2)
        feed.start()
        feed.turn_start()
        assert type(state.board) is own and state.board.header() == [("", " best of three")]
        assert board_class("no-such-game") is Board
    finally:
        games.refresh()
