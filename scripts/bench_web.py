"""The web client's figures, in a real headless Chromium (Debian's) against a local
`sushigo-server --web`:

- the page over the wire: the bytes a first visit transfers (gzip) and their size unpacked, and
  the requests; a second visit (every file revalidated: 304s);
- first paint (first contentful paint) and ready (the login drawn, the modules loaded: the
  page's ``sushigo-ready`` mark), over `--loads` cold loads;
- a pick to the other player's screen: two browser players at one Sushi Go! table; each turn
  one picks, then the other (the turn's last pick), and the time from that click to the first
  player's screen showing the turn's result (the frame after it is drawn) is one sample.

    .venv/bin/python scripts/bench_web.py [--loads 10] [--games 3] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
from pathlib import Path

from playwright.async_api import Browser, Page, async_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent))
# The tests' way of starting Chromium (one set of flags for both).
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "web"))

from browser import CHROMIUM, INSTALL, launch
from load.servers import start_server

THINK = 0.1
"""Seconds between the first pick of a turn and the last (the first must be in first)."""
CLICKED = """() => {
  window.sushigoClicks = [];
  document.addEventListener("click", (e) => {
    const c = globalThis.sushigoApp.client, o = c.observation;
    if (e.target.closest(".hand .card") && o)
      window.sushigoClicks.push([o.round, o.turn, performance.timeOrigin + performance.now()]);
  }, true);
}"""
SHOWN = """() => {
  window.sushigoShown = [];
  let result = null;
  globalThis.sushigoApp.client.addEventListener("message", (e) => {
    if (e.detail.type === "turn_result") result = e.detail;
  });
  document.addEventListener("sushigo-drawn", () => {
    if (result !== null)
      window.sushigoShown.push([result.round, result.turn, performance.timeOrigin + performance.now()]);
    result = null;
  });
}"""
"""On the other player's page: when the screen is first redrawn after a turn's result."""
AWAITING = "() => { const a = globalThis.sushigoApp; return a.client.awaiting || a.game.over; }"


async def page_load(browser: Browser, url: str) -> dict[str, float]:
    """One cold visit, then a second in the same context: bytes, requests, paint times."""
    context = await browser.new_context()
    page = await context.new_page()
    cdp = await context.new_cdp_session(page)
    await cdp.send("Network.enable")
    wire: list[float] = []
    unpacked: list[float] = []
    cdp.on("Network.loadingFinished", lambda e: wire.append(e["encodedDataLength"]))
    cdp.on("Network.dataReceived", lambda e: unpacked.append(e["dataLength"]))
    await page.goto(url)
    await page.wait_for_function("() => performance.getEntriesByName('sushigo-ready').length")
    times = await page.evaluate(
        """() => ({
          paint: performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? NaN,
          ready: performance.getEntriesByName("sushigo-ready")[0].startTime,
        })"""
    )
    first = {"bytes": sum(wire), "unpacked": sum(unpacked), "requests": len(wire), **times}
    wire.clear()
    await page.reload()
    await page.wait_for_function("() => performance.getEntriesByName('sushigo-ready').length")
    first["again_bytes"] = sum(wire)
    await context.close()
    return first


async def player(browser: Browser, url: str, name: str) -> Page:
    page = await (await browser.new_context()).new_page()
    await page.goto(url)
    await page.get_by_label("Name").fill(name)
    await page.get_by_role("button", name="Play as a guest").click()
    await page.get_by_role("button", name="Play against bots").wait_for()
    return page


async def click_first_card(page: Page) -> None:
    await page.locator(".hand .card").first.click()


async def pick_latency(browser: Browser, url: str, games: int) -> list[float]:
    """Milliseconds from the turn's last pick to the other player's screen, every turn."""
    first, last = await player(browser, url, "first"), await player(browser, url, "last")
    await first.evaluate(SHOWN)
    await last.evaluate(CLICKED)
    table = await first.evaluate(
        "async () => (await sushigoApp.client.createTable("
        "{kind: 'sushi-go', players: 2, turn_seconds: 120})).table.table_id"
    )
    await last.evaluate("id => sushigoApp.client.joinTable(id)", table)
    samples: list[float] = []
    for game in range(games):
        await first.evaluate("() => sushigoApp.client.startGame()")
        while True:
            await first.wait_for_function(AWAITING)
            if await first.evaluate("() => sushigoApp.game.over !== null"):
                break
            await click_first_card(first)
            await asyncio.sleep(THINK)
            await last.wait_for_function(AWAITING)
            await click_first_card(last)
        clicks = {(r, t): ms for r, t, ms in await last.evaluate("() => window.sushigoClicks")}
        for r, t, ms in await first.evaluate("() => window.sushigoShown"):
            if (r, t) in clicks:
                samples.append(ms - clicks[(r, t)])
        await first.evaluate("() => { window.sushigoShown = []; }")
        await last.evaluate("() => { window.sushigoClicks = []; }")
        print(f"game {game + 1}: {len(samples)} samples so far", file=sys.stderr)
    return samples


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--loads", type=int, default=10, help="cold loads of the page")
    parser.add_argument("--games", type=int, default=3, help="2-player games for the pick latency")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    if not CHROMIUM.exists():
        print(f"bench_web: {INSTALL}", file=sys.stderr)
        return 1
    server = start_server(120, None, ["--web", "127.0.0.1:0"])
    url = f"http://127.0.0.1:{server.web_port}/"
    try:
        async with async_playwright() as playwright:
            browser = await launch(playwright)
            loads = [await page_load(browser, url) for _ in range(args.loads)]
            samples = await pick_latency(browser, url, args.games)
            await browser.close()
    finally:
        server.stop()
    figures = {
        "page_bytes_gzip": loads[0]["bytes"],
        "page_bytes_unpacked": loads[0]["unpacked"],
        "page_requests": loads[0]["requests"],
        "revisit_bytes": loads[0]["again_bytes"],
        "first_paint_ms_median": statistics.median(x["paint"] for x in loads),
        "first_paint_ms_max": max(x["paint"] for x in loads),
        "ready_ms_median": statistics.median(x["ready"] for x in loads),
        "ready_ms_max": max(x["ready"] for x in loads),
        "pick_samples": len(samples),
        "pick_ms_p50": quantile(samples, 0.5),
        "pick_ms_p99": quantile(samples, 0.99),
        "pick_ms_max": max(samples),
        "load_average": os.getloadavg()[0],
    }
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    kib = 1024
    print(
        f"page: {figures['page_bytes_gzip'] / kib:.0f} KiB over the wire (gzip),"
        f" {figures['page_bytes_unpacked'] / kib:.0f} KiB unpacked, {figures['page_requests']}"
        f" requests; a second visit {figures['revisit_bytes'] / kib:.0f} KiB (304s)"
    )
    print(
        f"first paint: median {figures['first_paint_ms_median']:.0f} ms, max"
        f" {figures['first_paint_ms_max']:.0f} ms; ready (login drawn): median"
        f" {figures['ready_ms_median']:.0f} ms, max {figures['ready_ms_max']:.0f} ms"
        f" ({args.loads} cold loads)"
    )
    print(
        f"a pick to the other player's screen: p50 {figures['pick_ms_p50']:.1f} ms,"
        f" p99 {figures['pick_ms_p99']:.1f} ms, max {figures['pick_ms_max']:.1f} ms"
        f" ({len(samples)} turns)"
    )
    print(f"load average {figures['load_average']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
