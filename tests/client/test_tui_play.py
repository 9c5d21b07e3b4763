"""The terminal application, driven by keystrokes, against a real server on loopback."""

from __future__ import annotations

from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from tui_helpers import card, digit, local_server, log_text, running_app

from sushigo.client.tui.games.sushi_go.cards import SHORT
from sushigo.client.tui.layout import status_text
from sushigo.engine import Card
from sushigo.protocol import Commit, Phase, Reveal, TableSettings
from sushigo.server.hub.core import Hub
from sushigo.server.net.app import Server
from sushigo.server.storage.sqlite.storage import SqliteStorage


async def test_a_complete_game_to_its_final_summary(tmp_path: Path) -> None:
    settings = TableSettings(kind="sushi-go", players=2, turn_seconds=0)
    async with local_server(tmp_path) as address, running_app(address, settings) as h:
        state = h.state
        turns = 0
        first_screen = ""
        while await h.ready_to_pick():
            if not first_screen:
                first_screen = h.screen()
            # Alternate number keys and arrow keys, as a person would.
            await h.pick("2\r" if turns % 2 and len(card(state).hand) > 1 else "\x1b[B\x1b[A\r")
            turns += 1
        assert "Your hand" in first_screen and "round 1/3" in first_screen
        assert turns == 30  # 3 rounds of 10 cards, every pick typed
        assert len(card(state).round_scores) == 3
        final = state.final
        assert final is not None
        await h.wait(lambda: state.fairness.final != "pending", "the seed check")
        assert state.fairness.final == "verified" and state.fairness.failures == []
        assert state.fairness.openings_verified == 60
        screen = h.screen()
        assert "Game over" in screen and "seed check passed" in screen
        winner = "You win!" if final.winners == (0,) else "wins"
        if len(final.winners) > 1:
            winner = "share the win"
        assert winner in screen
        assert "maki" in screen and "pud" in screen and "place" in screen
        # The quit question can be declined, then confirmed.
        h.keys("q")
        await h.wait(lambda: state.confirm_quit, "the quit question")
        assert "Quit sushigo?" in h.screen()
        h.keys("n")
        await h.wait(lambda: not state.confirm_quit, "the question to close")
        await h.quit()


async def test_chopsticks_double_pick(tmp_path: Path) -> None:
    settings = TableSettings(kind="sushi-go", players=2, turn_seconds=0)
    async with local_server(tmp_path) as address, running_app(address, settings) as h:
        state = h.state
        for _ in range(6):  # a game without a usable chopsticks card is rare; try again
            while await h.ready_to_pick():
                me, hand = card(state).me, card(state).hand
                assert me is not None
                if me.chopsticks_ready and len(hand) >= 2:
                    first, second = hand[0], hand[1]
                    # 1 space 2 space: mark two cards in order; Enter plays both.
                    h.keys("1 2 ")
                    await h.wait(lambda: len(card(state).marked) == 2, "two marked cards")
                    assert "[1]" in h.screen() and "[2]" in h.screen()
                    await h.pick("\r")
                    assert card(state).my_pick is not None
                    assert (card(state).my_pick.first, card(state).my_pick.second) == (
                        first,
                        second,
                    )
                    await h.wait(lambda: "you used chopsticks" in log_text(state), "the reveal")
                    assert f"you:{_short(first)}+{_short(second)}" in log_text(state)
                    assert not state.fairness.failures
                    await h.quit()
                    return
                if Card.CHOPSTICKS in hand and Card.CHOPSTICKS not in me.cards and len(hand) > 2:
                    await h.pick(digit(hand.index(Card.CHOPSTICKS)) + "\r")
                else:
                    await h.pick("1\r")
            h.keys("\rn")  # close the summary, start another game (we are the host)
            await h.wait(lambda: state.final is None, "a new game")
        raise AssertionError("no chopsticks in six games")


def _short(card: Card) -> str:
    return SHORT[card]


async def test_an_illegal_choice_is_refused_and_nothing_is_sent(tmp_path: Path) -> None:
    # The dummy variant: seat 0 controls the dummy on turn 1, and nobody has chopsticks yet.
    settings = TableSettings(kind="sushi-go", players=2, variants=("dummy",), turn_seconds=0)
    async with local_server(tmp_path) as address, running_app(address, settings) as h:
        state, client = h.state, h.client
        assert await h.ready_to_pick()
        assert card(state).controls_dummy
        sent: list[object] = []
        send = client.send

        def spy(message: object) -> None:
            sent.append(message)
            send(message)  # type: ignore[arg-type]

        client.send = spy  # type: ignore[method-assign]
        # Two cards without chopsticks ready.
        h.keys("1 2 \r")
        await h.wait(lambda: "chopsticks" in state.status and state.status_error, "a refusal")
        assert "! two cards need chopsticks" in h.screen()
        # Unmark both; one card but no card for the dummy.
        h.keys("1 2 \r")
        await h.wait(lambda: "dummy" in state.status, "the dummy refusal")
        assert not card(state).marked and card(state).my_pick is None
        assert client.proto.phase is Phase.COMMITTING
        assert not any(isinstance(m, Commit | Reveal) for m in sent)
        # The same card for us and the dummy is impossible: d takes it out of our pick.
        hand = card(state).hand
        await h.pick("2d1\r")
        assert card(state).my_pick is not None
        assert card(state).my_pick.first == hand[0] and card(state).my_pick.dummy == hand[1]
        assert any(isinstance(m, Commit) for m in sent)
        await h.quit()


async def test_the_connection_drops_and_the_game_goes_on(tmp_path: Path) -> None:
    settings = TableSettings(kind="sushi-go", players=2, turn_seconds=0)
    async with local_server(tmp_path) as address, running_app(address, settings) as h:
        state, client = h.state, h.client
        assert await h.ready_to_pick()
        await h.pick("1\r")
        assert await h.ready_to_pick()
        where = h.position
        seat = state.seat
        writer = client._writer
        assert writer is not None
        writer.transport.abort()  # the network goes away
        await h.wait(lambda: state.reconnects == 1, "the reconnect")
        assert any("reconnecting" in s for s in h.statuses)
        assert "reconnected" in state.status
        assert state.seat == seat and h.position == where
        assert card(state).waiting
        await h.pick("1\r")
        assert await h.ready_to_pick()
        assert h.position == (1, 3)
        await h.pick("1\r")
        assert not state.fairness.failures
        await h.quit()


async def test_the_server_restarts_and_the_game_comes_back_from_its_snapshot(
    tmp_path: Path,
) -> None:
    """The server stops mid-game and a new one starts on its database and port: the app takes
    the session back (a snapshot: the new server has no messages to replay), shows the turn where
    it was, and the game goes on to its verified end."""
    key = Ed25519PrivateKey.generate()
    storage = SqliteStorage(tmp_path / "server.db")
    first = Server(
        Hub(storage=storage, key=key, wall_ms=lambda: 1_700_000_000_000), "127.0.0.1", 0, None
    )
    host, port = (await first.start())[0]
    settings = TableSettings(kind="sushi-go", players=3, turn_seconds=0)
    second: Server | None = None
    try:
        async with running_app((host, port), settings) as h:
            state = h.state
            assert await h.ready_to_pick()
            await h.pick("1\r")
            assert await h.ready_to_pick()
            where, hand = h.position, card(state).hand
            await first.stop()
            storage.close()
            await h.wait(lambda: state.reconnecting, "the drop to be seen")
            # The server said it is restarting: the status line says so, not "connection lost".
            assert state.reconnect_note == "the server is restarting: reconnecting…"
            [(style, text)] = status_text(state)
            assert style == "class:status" and "restarting" in text  # no alarm: it was said
            storage = SqliteStorage(tmp_path / "server.db")
            hub = Hub(storage=storage, key=key, wall_ms=lambda: 1_700_000_000_000)
            second = Server(hub, "127.0.0.1", port, None)
            await second.start()
            await h.wait(lambda: state.reconnects == 1, "the resume")
            resumed = h.client._last_resumed
            assert resumed is not None and resumed.snapshot is not None  # not a replay
            assert "reconnected" in state.status
            assert h.position == where and card(state).hand == hand
            assert card(state).waiting and "Your hand" in h.screen()
            while await h.ready_to_pick():
                await h.pick("1\r")
            await h.wait(lambda: state.fairness.final != "pending", "the record check")
            assert state.fairness.final == "verified", state.fairness.failures
            assert "Game over" in h.screen()
            await h.quit()
    finally:
        if second is not None:
            await second.stop()
        storage.close()
