"""Sushi Roll in the terminal application, played by keystrokes against a real server on loopback
with server bots in the other seats: a whole game to its verified end, and a dropped connection
taken back mid-game."""

from __future__ import annotations

import random
from pathlib import Path

from tui_helpers import Harness, dice, local_server, running_app

from sushigo.client.connection import Client
from sushigo.client.tui import AppState, ops
from sushigo.client.tui.lobby import lobby_text
from sushigo.engine.games.sushi_roll import RollObservation
from sushigo.protocol import Act, TableList, TableSettings


def _settings(players: int) -> TableSettings:
    return TableSettings(kind="sushi-roll", players=players, turn_seconds=0)


def _spy(h: Harness) -> list[Act]:
    """Every ROLL_ACTION the client sends from now on."""
    sent: list[Act] = []
    send = h.client.send

    def spy(message: object) -> None:
        if isinstance(message, Act):
            sent.append(message)
        send(message)  # type: ignore[arg-type]

    h.client.send = spy  # type: ignore[method-assign]
    return sent


def _keys(obs: RollObservation, rng: random.Random, step: int = 2) -> str:
    """One action by keys: mark two dice and re-roll them, or swap our die for the first die of
    the next belt, or take a die by its number (the first two actions of a game re-roll, then
    swap, when the tokens allow; later ones at random)."""
    me = obs.players[obs.seat or 0]
    size = len(me.belt)
    roll = 0.0 if step == 0 else 0.3 if step == 1 else rng.random()
    if roll < 0.25 and me.usable_menu and size >= 2:
        return f"1 {size} r"
    others = any(p.belt for s, p in enumerate(obs.players) if s != obs.seat)
    if roll < 0.4 and me.usable_chopsticks and others:
        return f"{min(2, size)}s1\r"
    return f"{rng.randrange(size) + 1}\r"


async def test_a_whole_sushi_roll_game_by_keystrokes(tmp_path: Path) -> None:
    rng = random.Random(7)
    async with local_server(tmp_path) as address, running_app(address, _settings(3)) as h:
        state = h.state
        sent = _spy(h)
        kinds = {"reroll": 0, "swap": 0, "take": 0}
        first_screen = ""
        while await h.ready_to_pick():
            if not first_screen:
                first_screen = h.screen()
            obs = dice(state).obs
            assert obs is not None and obs.seat == state.seat
            before = len(sent)
            h.keys(_keys(obs, rng, before))
            await h.wait(lambda n=before: len(sent) > n, "the action to be sent")  # type: ignore[misc]
            kinds[type(sent[-1].action).__name__.lower()] += 1
        assert " Sushi Roll " in first_screen and "round 1/3" in first_screen
        assert "your move" in first_screen and "RED" in first_screen and "tray" in first_screen
        assert kinds["take"] == 3 * 7  # 7 dice each with 3 players, every take typed
        assert kinds["reroll"] and kinds["swap"], kinds
        assert len(dice(state).rounds) == 3
        await h.wait(lambda: state.fairness.final != "pending", "the record check")
        fair = state.fairness
        assert fair.final == "verified" and fair.failures == []
        assert fair.actions_seen >= 3 * 3 * 7 and fair.observations_verified > 0
        screen = h.screen()
        assert "Game over" in screen and "seed check passed" in screen and "tok" in screen
        await h.quit()


async def test_the_connection_drops_and_the_dice_game_goes_on(tmp_path: Path) -> None:
    rng = random.Random(8)
    async with local_server(tmp_path) as address, running_app(address, _settings(2)) as h:
        state, client = h.state, h.client
        assert await h.ready_to_pick()
        h.keys("1\r")
        await h.wait(lambda: not dice(state).moving or dice(state).pending is None, "the take")
        assert await h.ready_to_pick()
        where = (dice(state).obs.round, dice(state).obs.cycle) if dice(state).obs else None
        writer = client._writer
        assert writer is not None
        writer.transport.abort()  # the network goes away
        await h.wait(lambda: state.reconnects == 1, "the reconnect")
        assert any("reconnecting" in s for s in h.statuses)
        assert any("reconnected" in s for s in h.statuses)
        assert await h.ready_to_pick()
        assert (
            dice(state).obs is not None and (dice(state).obs.round, dice(state).obs.cycle) == where
        )
        while await h.ready_to_pick():
            obs = dice(state).obs
            assert obs is not None
            moved = state.fairness.actions_seen
            h.keys(_keys(obs, rng))
            await h.wait(
                lambda n=moved: state.fairness.actions_seen > n or state.final is not None,  # type: ignore[misc]
                "our action to be shown",
            )
        await h.wait(lambda: state.fairness.final != "pending", "the record check")
        assert state.fairness.final == "verified", state.fairness.failures
        await h.quit()


async def test_quick_match_finds_the_game_the_lobby_chose(tmp_path: Path) -> None:
    async with local_server(tmp_path) as (host, port):
        client = await Client.connect(host, port, name="quick")
        try:
            state = AppState(client=client, address=f"{host}:{port}")
            assert "m: quick match of Sushi Go!" in "".join(t for _, t, *_ in lobby_text(state))
            state.quick_kind = "sushi-roll"
            await ops.quick_match(state, players=2)
            assert client.table is not None
            assert client.table.settings.kind == "sushi-roll"
            state.apply(TableList(tables=await client.list_tables()))
            listing = "".join(t for _, t, *_ in lobby_text(state))
            assert "Sushi Roll" in listing and "quick match of Sushi Roll" in listing
        finally:
            await client.close()
