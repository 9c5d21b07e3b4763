"""The web client among other people and through faults, in a real headless Chromium against a
real `sushigo-server --web`: a browser player and a client-library player (TCP) at one table
while another browser watches; a server killed (SIGKILL) and started again mid-game, the page
taking its seat back by itself; a record tampered with on its way, which the page refuses and
says so; and the page on a phone's screen."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import msgpack
import pytest
from pages import READY, VERIFIED, login, play_bots, play_cards
from processes import ServerProcess
from test_web_endpoint import _play

from sushigo.client.connection import Client
from sushigo.protocol import ChatMessage, TableSettings

pytestmark = pytest.mark.asyncio(loop_scope="session")

PHONE = {"width": 360, "height": 740}


async def test_a_browser_and_a_library_player_at_one_table_and_a_watcher(
    page: Any, chromium: Any, web_server: ServerProcess
) -> None:
    host = await Client.connect("127.0.0.1", web_server.port, name="tcp-tom")
    context = await chromium.new_context(viewport={"width": 1100, "height": 850})
    watcher = await context.new_page()
    try:
        joined = await host.create_table(TableSettings(kind="sushi-go", players=3, turn_seconds=60))
        table_id = joined.table.table_id
        await login(page, web_server.web_port, "web-wes")
        await page.get_by_role("button", name="refresh tables").click()
        await page.get_by_role("button", name=f"join table {table_id}").click()
        await page.get_by_role("heading", name="Waiting for players").wait_for()
        await login(watcher, web_server.web_port, "watcher")
        await watcher.get_by_role("button", name="refresh tables").click()
        await watcher.get_by_role("button", name=f"watch table {table_id}").click()
        await watcher.get_by_role("button", name="stop watching").wait_for()

        # The table's chat reaches the terminal's player.
        await page.get_by_label("chat message").fill("hello from the web")
        await page.get_by_role("button", name="send").click()
        said = await host.wait_for(ChatMessage, 10)
        assert (said.name, said.text) == ("web-wes", "hello from the web")

        await host.add_bot("easy")
        host.start_game()
        library, played = await asyncio.gather(_play(host), play_cards(page))
        assert played.final == "verified"
        assert host.fairness.final == "verified"
        # The watcher saw the whole game, and verified it too.
        await watcher.wait_for_function(VERIFIED, timeout=60_000)
        assert await watcher.evaluate("() => sushigoApp.client.fairness.final") == "verified"
        await watcher.get_by_role("heading", name="Game over").wait_for()
        totals = await page.evaluate("() => sushigoApp.game.over.totals")
        assert list(library.totals) == totals
    finally:
        await host.close()
        await context.close()


async def test_the_page_resumes_its_seat_after_the_server_is_killed(
    page: Any, web_server: ServerProcess
) -> None:
    await login(page, web_server.web_port, "kit")
    await play_bots(page, "sushi-go", 2)
    before = await play_cards(page, picks=4)
    await web_server.kill()
    await page.get_by_text("reconnecting").wait_for()
    await web_server.start()  # the same ports: the page comes back by itself
    await page.get_by_text("reconnecting").wait_for(state="hidden", timeout=60_000)
    after = await play_cards(page)
    assert after.final == "verified"
    assert before.picks + after.picks >= 20
    await page.get_by_text("fair ✓").first.wait_for()


async def test_a_reload_takes_the_seat_back(page: Any, web_server: ServerProcess) -> None:
    await login(page, web_server.web_port, "rae")
    await play_bots(page, "sushi-go", 2)
    before = await play_cards(page, picks=3)
    await page.reload()
    # No login asked for: the page comes back as rae, in her seat, and plays the game out.
    await page.get_by_role("heading", name=re.compile("^Sushi Go! · table")).wait_for()
    assert await page.evaluate("() => sushigoApp.client.name") == "rae"
    after = await play_cards(page)
    assert after.final == "verified" and before.picks + after.picks >= 20


async def test_a_tampered_record_is_refused_and_the_page_says_so(
    page: Any, web_server: ServerProcess
) -> None:
    tamper = {"on": False}

    def carry(ws: Any) -> None:
        """Between the page and the server: each frame as it is, or, when `tamper` is on, a
        finished game's record with one byte changed."""
        server = ws.connect_to_server()
        ws.on_message(server.send)

        def down(message: str | bytes) -> None:
            if tamper["on"] and isinstance(message, bytes):
                value = msgpack.unpackb(message, raw=False)
                if value.get("type") == "game_record":
                    record = bytearray(value["record"]["record"])
                    record[len(record) // 2] ^= 0x01
                    value["record"]["record"] = bytes(record)
                    message = msgpack.packb(value, use_bin_type=True)
            ws.send(message)

        server.on_message(down)

    await page.route_web_socket("**/ws", carry)
    await login(page, web_server.web_port, "rex")
    await play_bots(page, "sushi-go", 2)
    assert (await play_cards(page)).final == "verified"
    await page.get_by_role("button", name="leave table").click()
    await page.get_by_role("button", name="My games").click()
    replay = page.get_by_role("button", name=re.compile("^replay game "))
    await replay.first.click()
    # As it came: verified, and stepped through turn by turn.
    await page.get_by_text("record verified").wait_for()
    await page.get_by_role("button", name="next turn").click()
    await page.get_by_role("button", name="next turn").click()
    await page.get_by_text("step 2 of").wait_for()
    await page.get_by_role("button", name="last turn").click()
    await page.get_by_role("button", name="back to my games").click()
    # Tampered with on its way: refused, and the page says why.
    tamper["on"] = True
    await replay.first.click()
    alert = page.get_by_text("RECORD REFUSED")
    await alert.wait_for()
    assert await page.get_by_role("alert").filter(has_text="RECORD REFUSED").count() == 1
    assert not await page.get_by_role("button", name="next turn").is_visible()


async def test_the_page_on_a_phone(chromium: Any, web_server: ServerProcess) -> None:
    context = await chromium.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        await login(page, web_server.web_port, "pip")
        await _fits(page)
        assert await _unnamed(page) == []
        await play_bots(page, "sushi-go", 3)
        await page.wait_for_function(READY, timeout=60_000)
        await _fits(page)
        # Every card of the hand is on the screen, and a tap plays it.
        cards = page.locator(".hand .card")
        for i in range(await cards.count()):
            box = await cards.nth(i).bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
        played = await play_cards(page, picks=3)
        assert played.picks == 3
        await _fits(page)
        assert await _unnamed(page) == []
    finally:
        await context.close()
    assert errors == []


async def _unnamed(page: Any) -> list[str]:
    """The page's buttons and form controls that have no accessible name (none may)."""
    names: list[str] = await page.evaluate(
        """() => [...document.querySelectorAll("button, select, input, textarea")]
          .filter((el) => !(el.getAttribute("aria-label") || el.textContent.trim()
            || (el.id && document.querySelector(`label[for="${el.id}"]`))
            || el.closest("label")))
          .map((el) => el.outerHTML.slice(0, 80))"""
    )
    return names


async def _fits(page: Any) -> None:
    """Nothing on the page is wider than the screen (no sideways scrolling)."""
    wide = await page.evaluate("() => document.documentElement.scrollWidth")
    assert wide <= PHONE["width"], f"the page is {wide} px wide on a {PHONE['width']} px screen"
