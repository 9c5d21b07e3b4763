"""A person at the web client, for the browser tests: logging in, and playing whole games by
clicking (or pressing keys on) the page's controls. What to play is read from the page's own
client (`sushigoApp.client`: its observation, as the screen shows it); every action goes through
the page's buttons and keys, found by their accessible names, as a person's would."""

from __future__ import annotations

import atexit
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DOCS = (
    Path(__file__).resolve().parents[2] / "docs"
    if os.environ.get("SUSHIGO_UPDATE_SCREENSHOTS")
    else Path(tempfile.mkdtemp(prefix="sushigo-shots-"))
)
"""Where the tests' screenshots go: docs/ when SUSHIGO_UPDATE_SCREENSHOTS is set (how docs' pictures
are made: `SUSHIGO_UPDATE_SCREENSHOTS=1 scripts/test tests/web/test_web_play.py`), otherwise a
scratch folder, so that a test run leaves the working tree as it was (and deleted at the end of the
test process, which every process of a parallel run makes, as it imports this module)."""
if not os.environ.get("SUSHIGO_UPDATE_SCREENSHOTS"):
    atexit.register(shutil.rmtree, DOCS, ignore_errors=True)
STATE = """() => {
  const app = globalThis.sushigoApp, c = app.client;
  return {awaiting: c.awaiting, pending: c.pending, seat: c.seat, kind: c.kind,
          obs: c.observation, over: app.game.over !== null,
          final: c.fairness ? c.fairness.final : null};
}"""
"""What the test reads of the page to choose its next action."""
READY = (
    "() => { const a = globalThis.sushigoApp, c = a.client;"
    " return c && !a.drawing && (c.awaiting && !c.pending || a.game.over !== null); }"
)
"""The page waits for an action of ours, or the game is over, and its screen shows it (the
page redraws at the next frame after a change)."""
VERIFIED = "() => { const c = globalThis.sushigoApp.client; return c.fairness && c.fairness.final !== 'pending'; }"
NIGIRI = ("squid", "salmon", "egg")


async def login(page: Any, port: int, name: str, *, scheme: str = "http") -> None:
    """Open the page and log in as a guest called `name`."""
    await page.goto(f"{scheme}://127.0.0.1:{port}/")
    await page.get_by_label("Name").fill(name)
    await page.get_by_role("button", name="Play as a guest").click()
    await page.get_by_role("button", name="Play against bots").wait_for()


async def play_bots(page: Any, kind: str, players: int, level: str = "easy") -> None:
    """From the lobby: a game of `kind` against bots, started at once."""
    await page.get_by_label("Game", exact=True).first.select_option(kind)
    await page.get_by_label("Players", exact=True).first.select_option(str(players))
    await page.get_by_label("Bots' level").select_option(level)
    await page.get_by_role("button", name="Play against bots").click()


@dataclass
class Played:
    """What a game played through the page showed and did."""

    picks: int = 0
    chopsticks: int = 0
    """Picks of two cards."""
    wasabi: int = 0
    """Nigiri we put on wasabi."""
    rerolls: int = 0
    swaps: int = 0
    final: str = ""
    """The page's fairness verdict at the end."""
    shots: list[str] = field(default_factory=list)


async def _our_step(page: Any) -> dict[str, Any] | None:
    """What the page shows once it waits for an action of ours; None once the game is over."""
    while True:
        await page.wait_for_function(READY, timeout=60_000)
        state: dict[str, Any] = await page.evaluate(STATE)
        if state["over"]:
            return None
        if state["obs"] is not None and state["awaiting"]:
            return state
        # The page moved on between the two reads (a new game began): wait again.


async def play_cards(
    page: Any, *, keyboard: bool = False, shot: str | None = None, picks: int | None = None
) -> Played:
    """Play our seat of a Sushi Go! game through the page until its end (or `picks` picks):
    wasabi, then nigiri on it; chopsticks, then two cards at once (clicks, or with `keyboard`
    the digit keys and `x`). `shot`: a screenshot of the game (docs/`shot`) after a few picks."""
    played = Played()
    while picks is None or played.picks < picks:
        state = await _our_step(page)
        if state is None:
            break
        obs = state["obs"]
        hand: list[str] = obs["hand"]
        me = obs["tableaus"][state["seat"]]
        wasabied = len(me["on_wasabi"])
        dummy = obs["dummy_controller"] == state["seat"]
        chosen = _choose(hand, me, spare=1 if dummy else 0)
        if dummy:  # the dummy's card comes last
            chosen.append(next(i for i in range(len(hand)) if i not in chosen))
        if len(chosen) - dummy == 2:
            await _press_or_click(
                page,
                keyboard,
                "x",
                page.get_by_role("button", name="pick two cards with chopsticks"),
            )
            played.chopsticks += 1
        for index in chosen:
            card = page.get_by_role("button", name=re.compile(f"^{hand[index]}\\b")).nth(
                _nth(hand, index)
            )
            await _press_or_click(page, keyboard, str(index + 1) if index < 9 else "", card)
        played.picks += 1
        if shot and played.picks == 4:
            await page.wait_for_function(READY, timeout=60_000)
            await page.screenshot(path=str(DOCS / shot))
        # Our tableau shows the nigiri on wasabi once the turn is over (the next one's state).
        await page.wait_for_function(
            "n => { const c = globalThis.sushigoApp.client, a = globalThis.sushigoApp;"
            " return a.game.over !== null || (c.observation && c.observation.turn !== n.turn)"
            " || (c.observation && c.observation.round !== n.round); }",
            arg={"turn": obs["turn"], "round": obs["round"]},
            timeout=60_000,
        )
        after = await page.evaluate(STATE)
        if after["obs"] and after["obs"]["round"] == obs["round"]:
            played.wasabi += len(after["obs"]["tableaus"][state["seat"]]["on_wasabi"]) > wasabied
    if picks is not None and played.picks == picks:
        return played
    await page.wait_for_function(VERIFIED, timeout=60_000)
    played.final = (await page.evaluate(STATE))["final"]
    return played


def _choose(hand: list[str], me: dict[str, Any], spare: int = 0) -> list[int]:
    """The indices of the hand to pick: one card, or two with chopsticks ready (`spare` cards
    more must stay in the hand: the dummy's)."""

    def first(*names: str) -> int | None:
        for name in names:
            if name in hand:
                return hand.index(name)
        return None

    nigiri = first(*NIGIRI)
    if me["chopsticks_ready"] and len(hand) >= 2 + spare:
        wasabi = first("wasabi")
        if wasabi is not None and nigiri is not None:
            return [wasabi, nigiri]
        one = 0
        two = next(i for i in range(len(hand)) if i != one)
        return [one, two]
    if me["open_wasabi"] and nigiri is not None:
        return [nigiri]
    wasabi = first("wasabi")
    if wasabi is not None and not me["open_wasabi"]:
        return [wasabi]
    chopsticks = first("chopsticks")
    if chopsticks is not None:
        return [chopsticks]
    return [0]


def _nth(hand: list[str], index: int) -> int:
    """Which of the hand's buttons of that card `index` is (a hand may hold two alike)."""
    return hand[:index].count(hand[index])


async def _press_or_click(page: Any, keyboard: bool, key: str, locator: Any) -> None:
    if keyboard and key:
        await page.locator("body").press(key)
    else:
        await locator.click()


async def play_dice(page: Any) -> Played:
    """Play our seat of a Sushi Roll game through the page until its end: a re-roll of the first
    die and a swap with another belt while we can, else take the first die."""
    played = Played()
    while True:
        state = await _our_step(page)
        if state is None:
            break
        obs = state["obs"]
        seat = state["seat"]
        me = obs["players"][seat]
        first = me["belt"][0][1]
        others = [i for i, p in enumerate(obs["players"]) if i != seat and p["belt"]]
        await page.get_by_role("button", name=re.compile(f"^{first} die, .*position 1\\b")).click()
        if played.rerolls < 2 and me["menu"] > me["fresh_menu"]:
            await page.get_by_role("button", name=re.compile("^re-roll")).click()
            played.rerolls += 1
        elif played.swaps < 2 and me["chopsticks"] > me["fresh_chopsticks"] and others:
            theirs = obs["players"][others[0]]["belt"][0][1]
            swap = page.get_by_role("button", name=re.compile(f"^{theirs} die, .*swap for"))
            await swap.first.click()
            played.swaps += 1
        else:
            await page.get_by_role("button", name=re.compile("^take")).click()
        played.picks += 1
        await page.wait_for_function("() => !globalThis.sushigoApp.client.pending", timeout=60_000)
    await page.wait_for_function(VERIFIED, timeout=60_000)
    played.final = (await page.evaluate(STATE))["final"]
    return played


async def new_table(page: Any, players: int, variants: tuple[str, ...], bots: int) -> None:
    """From the lobby: a Sushi Go! table made with the form (`variants` by their labels), `bots`
    bots added in the waiting room, and the game started."""
    form = page.get_by_role("region", name="New table")
    await form.get_by_label("Game").select_option("sushi-go")
    await form.get_by_label("Players").select_option(str(players))
    for variant in variants:
        await form.get_by_label(variant).check()
    await form.get_by_role("button", name="Create table").click()
    await page.get_by_role("heading", name="Waiting for players").wait_for()
    await page.get_by_label("Bot's level").select_option("easy")
    for _ in range(bots):
        await page.get_by_role("button", name="add a bot").click()
    await page.get_by_role("button", name="start the game").click()
