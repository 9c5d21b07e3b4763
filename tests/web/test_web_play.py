"""A person's games in the web client, in a real headless Chromium against a real
`sushigo-server --web`: a guest's login and the lobby, whole games against bots (Sushi Go! for
2 and 4 players, chopsticks and wasabi used, with the mouse and with the keyboard; Sushi Roll
with re-rolls and swaps), each ending with the page's own verdict on its fairness. The
screenshots in docs/ are taken here."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from pages import DOCS, Played, login, new_table, play_bots, play_cards, play_dice
from processes import ServerProcess
from test_web_endpoint import _play

from sushigo.client.connection import Client
from sushigo.protocol import TableSettings

pytestmark = pytest.mark.asyncio(loop_scope="session")

GAMES_AT_MOST = 3
"""Games played until chopsticks and wasabi were both used (the deal decides whether we get
them: in one game nearly always, in three all but surely)."""


async def test_a_guest_logs_in_and_sees_the_lobby(page: Any, web_server: ServerProcess) -> None:
    await login(page, web_server.web_port, "ann")
    await page.get_by_text("ann (guest)").wait_for()
    for name in ("Play against bots", "Quick match", "Create table", "refresh tables"):
        assert await page.get_by_role("button", name=name).is_enabled()
    # A table someone made (over TCP) shows in the list, with join and watch buttons named by it.
    host = await Client.connect("127.0.0.1", web_server.port, name="host")
    try:
        joined = await host.create_table(TableSettings(kind="sushi-roll", players=3))
        table_id = joined.table.table_id
        await page.get_by_role("button", name="refresh tables").click()
        await page.get_by_role("button", name=f"join table {table_id}").wait_for()
        assert await page.get_by_role("button", name=f"watch table {table_id}").is_enabled()
        await page.screenshot(path=str(DOCS / "web-lobby.png"))
    finally:
        await host.close()


async def _cards_until_used(page: Any, players: int, *, keyboard: bool, shots: bool) -> Played:
    """Games against bots until one used chopsticks and wasabi both (at most `GAMES_AT_MOST`):
    started with the lobby's button, or its key (`b`) with `keyboard`."""
    if keyboard:
        await page.get_by_label("Players", exact=True).first.select_option(str(players))
        await page.get_by_label("Bots' level").select_option("easy")
        await page.locator("body").press("b")
    else:
        await play_bots(page, "sushi-go", players)
    for game in range(GAMES_AT_MOST):
        played = await play_cards(page, keyboard=keyboard, shot="web-game.png" if shots else None)
        assert played.final == "verified"
        await page.get_by_role("heading", name="Game over").wait_for()
        await page.get_by_text("fair ✓").first.wait_for()
        if played.chopsticks and played.wasabi:
            return played
        assert game < GAMES_AT_MOST - 1, f"no chopsticks and wasabi in {GAMES_AT_MOST} games"
        await page.get_by_role("button", name="play again").click()
        # The last game's end stays on the page until the next begins: wait for it to go, or
        # the next game's first read could be the last game's end.
        await page.wait_for_function(
            "() => globalThis.sushigoApp.game.over === null", timeout=60_000
        )
    raise AssertionError("unreachable")


@pytest.mark.parametrize(
    ("name", "players", "keyboard"),
    [("bea", 2, False), ("cy", 4, True)],
    ids=["two players against a bot with the mouse", "four players against bots with the keyboard"],
)
async def test_cards_against_bots(
    page: Any, web_server: ServerProcess, name: str, players: int, keyboard: bool
) -> None:
    """A whole game (or more, until chopsticks and wasabi were used), by mouse or by keyboard;
    the mouse game's screens are the docs' screenshots."""
    await login(page, web_server.web_port, name)
    played = await _cards_until_used(page, players, keyboard=keyboard, shots=not keyboard)
    assert played.picks >= 20
    if not keyboard:
        await page.screenshot(path=str(DOCS / "web-end.png"))


async def test_sushi_roll_with_rerolls_and_swaps(page: Any, web_server: ServerProcess) -> None:
    await login(page, web_server.web_port, "dee")
    await play_bots(page, "sushi-roll", 3)
    played = await play_dice(page)
    assert played.final == "verified"
    assert played.rerolls >= 1 and played.swaps >= 1
    await page.get_by_text("fair ✓").first.wait_for()


@pytest.mark.parametrize(
    ("players", "variants"),
    [
        pytest.param(2, ("dummy player (2 players)", "soy sauce"), id="2p-dummy-soy-sauce"),
        pytest.param(5, ("hands pass both ways", "soy sauce"), id="5p-both-ways-soy-sauce"),
    ],
)
async def test_a_table_made_with_the_form_in_its_variants(
    page: Any, web_server: ServerProcess, players: int, variants: tuple[str, ...]
) -> None:
    await login(page, web_server.web_port, "eve")
    await new_table(page, players, variants, bots=players - 1)
    played = await play_cards(page)
    assert played.final == "verified"
    await page.get_by_role("heading", name="Game over").wait_for()


async def test_a_player_with_a_key_is_rated_and_keeps_the_key(
    page: Any, web_server: ServerProcess
) -> None:
    """A key made in the browser: logged in with, rated after a game against another player
    with a key (the leaderboard shows both), exported as a key file, and a broken key file
    refused, saying why."""
    await page.goto(f"http://127.0.0.1:{web_server.web_port}/")
    await page.get_by_label("Name").fill("kay")
    await page.get_by_role("button", name="Create a key").click()
    await page.get_by_role("button", name="Log in with my key").click()
    await page.get_by_role("button", name="Play against bots").wait_for()
    player_id = await page.evaluate("() => sushigoApp.client.playerId")
    assert player_id.startswith("k:")
    other = await Client.connect(
        "127.0.0.1", web_server.port, name="lee", key=Ed25519PrivateKey.generate()
    )
    try:
        joined = await other.create_table(TableSettings(kind="sushi-go", players=2))
        await page.get_by_role("button", name="refresh tables").click()
        await page.get_by_role("button", name=f"join table {joined.table.table_id}").click()
        await page.get_by_role("heading", name="Waiting for players").wait_for()
        other.start_game()
        _, played = await asyncio.gather(_play(other), play_cards(page))
        assert played.final == "verified"
    finally:
        await other.close()
    await page.get_by_role("button", name="leave table").click()
    await page.get_by_role("button", name="Leaderboards").click()
    await page.get_by_role("rowheader", name="kay").wait_for()
    await page.get_by_role("rowheader", name="lee").wait_for()
    await page.get_by_text(re.compile(r"^You: rank \d of 2")).wait_for()
    # Out, and back in with the same key: the same player.
    await page.get_by_role("button", name="log out").click()
    await page.get_by_role("button", name="Export my key").click()
    pem = await page.get_by_label(re.compile("^Your key file")).input_value()
    assert pem.startswith("-----BEGIN PRIVATE KEY-----")
    await page.get_by_role("button", name="Import a key file").click()
    await page.get_by_label(re.compile("^Paste a key file")).fill("not a key")
    await page.get_by_role("button", name="Use this key").click()
    await page.get_by_role("alert").filter(has_text="not a key file").wait_for()
    await page.get_by_role("button", name="Log in with my key").click()
    await page.get_by_role("button", name="Play against bots").wait_for()
    assert await page.evaluate("() => sushigoApp.client.playerId") == player_id


async def test_the_page_over_https(page: Any, tmp_path: Path) -> None:
    """With --tls the page is https and its WebSocket wss, with the server's certificate."""
    server = ServerProcess(tmp_path / "server.db", extra=("--web", "127.0.0.1:0", "--tls"))
    await server.start()
    try:
        await login(page, server.web_port, "tess", scheme="https")
        assert await page.evaluate("() => sushigoApp.client.url") == (
            f"wss://127.0.0.1:{server.web_port}/ws"
        )
        await play_bots(page, "sushi-roll", 2)
        await page.get_by_role("heading", name=re.compile("^Sushi Roll · table")).wait_for()
    finally:
        await server.stop()
