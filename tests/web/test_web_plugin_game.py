"""A game the server has as a plug-in, which the web page does not play (it has no board for
it): the lobby lists its tables saying to play it with the terminal client, with no way in, and
the page's own games are still there to play. Rock-paper-scissors (tests/games/rps/), installed
by its entry points in the real `sushigo-server --web` process."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from games.plugins import install_rps
from pages import DOCS, login
from processes import ServerProcess

from sushigo.client.connection import Client
from sushigo.engine import games
from sushigo.protocol import TableSettings

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_a_plug_in_games_tables_say_where_to_play_them(
    page: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = install_rps(tmp_path, monkeypatch)
    monkeypatch.setenv("PYTHONPATH", env["PYTHONPATH"])  # the server process installs it too
    server = ServerProcess(tmp_path / "server.db", extra=("--web", "127.0.0.1:0"))
    await server.start()
    host = await Client.connect("127.0.0.1", server.port, name="host")
    try:
        rps = (await host.create_table(TableSettings(kind="rps", players=2))).table.table_id
        await login(page, server.web_port, "ann")
        await page.get_by_role("button", name="refresh tables").click()
        row = page.get_by_role("listitem").filter(has_text=rps)
        await row.get_by_text("is not played in this page").wait_for()
        assert "play it with the terminal client (sushigo-client)" in await row.inner_text()
        assert await row.get_by_role("button").count() == 0
        assert await page.get_by_role("button", name=f"join table {rps}").count() == 0
        await page.screenshot(path=str(DOCS / "web-plugin-game.png"))
        # The page's own games are as they were: a Sushi Roll table beside it can be joined.
        other = await Client.connect("127.0.0.1", server.port, name="other")
        try:
            roll = (await other.create_table(TableSettings(kind="sushi-roll", players=2))).table
            await page.get_by_role("button", name="refresh tables").click()
            await page.get_by_role("button", name=f"join table {roll.table_id}").click()
            await page.get_by_role("heading", name="Waiting for players").wait_for()
        finally:
            await other.close()
    finally:
        await host.close()
        await server.stop()
        games.refresh()
