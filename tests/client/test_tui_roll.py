"""The Sushi Roll screen: every widget renders through random playouts (belts, trays, tokens,
colours per kind of die), the turn's keys choose re-rolls, swaps and takes (and refuse what cannot
be done, saying why), and a whole game is played by keystrokes in the real application against a
scripted server."""

from __future__ import annotations

import contextlib
import dataclasses
import random
from collections.abc import AsyncIterator

import pytest
from feed import Feed
from roll_dealer import Dealer, settle
from tui_helpers import Harness, Output80x24, dice, render_all, running

from sushigo.client.connection import Client
from sushigo.client.tui import AppState, build_application, screen_text
from sushigo.client.tui.form import CreateForm
from sushigo.client.tui.layout import WIDGETS, help_text, keys_text, status_text
from sushigo.engine.games import sushi_roll
from sushigo.protocol import LoginGuest

NAMES = ("a-name-of-24-characters!", "default-bot-1", "Zoë", "heuristic-bot-12", "b")


def _text(fragments: list[tuple[str, str]] | list[tuple[str, str, object]]) -> str:
    return "".join(f[1] for f in fragments)


def _start(state: AppState, players: int, seat: int | None, seed: bytes = b"keys") -> Feed:
    """A Sushi Roll game told to `state` from `seat`; its GAME_STARTING sent."""
    feed = Feed(state, "sushi-roll", players, seat=seat, seed=seed)
    feed.names = NAMES[:players]
    feed.start()
    return feed


@pytest.mark.parametrize(("players", "seat"), [(2, 0), (3, 1), (4, 3), (5, 2), (3, None)])
def test_widgets_render_through_random_playouts(players: int, seat: int | None) -> None:
    rng = random.Random(f"roll render {players} {seat}")
    clock = [100.0]
    state = AppState(now=lambda: clock[0], address="127.0.0.1:7777")
    app = build_application(state, output=Output80x24())
    feed = _start(state, players, seat, rng.randbytes(32))
    game = feed.game
    kinds: set[str] = set()
    rounds = turns = 0
    while not game.is_terminal():
        feed.turn_start(deadline_ms=30_000)
        mover = game.to_move
        assert mover is not None
        clock[0] += rng.uniform(0, 40)
        # A random choice in progress: cursor, marks, a swap; sometimes an overlay.
        me = dice(state).me
        if me is not None and me.belt:
            dice(state).dice.cursor = rng.randrange(len(me.belt))
            k = rng.randint(0, min(2, len(me.belt)))
            dice(state).dice.marked = sorted(rng.sample(range(len(me.belt)), k))
            if rng.random() < 0.3:
                dice(state).roll_key("swap")
                dice(state).roll_key(rng.choice(["down", "right", "left"]))
        state.show_help = rng.random() < 0.05
        state.confirm_quit = rng.random() < 0.05
        turns += 1
        screen = render_all(state, app, screen=turns % 3 == 1)
        if screen and not (state.show_help or state.confirm_quit):
            assert screen.split("\n")[0].startswith(" Sushi Roll ")
            assert "RED" in screen and "belt" in screen and "tray" in screen
            assert "menu" in screen and "chop" in screen
        kinds |= {f[0] for f in WIDGETS["players"](state) if "die." in f[0]}
        state.show_help = state.confirm_quit = False
        # The mover's turn: a re-roll or a swap now and then, then a take.
        while True:
            legal = game.legal_actions(mover)
            action = (
                rng.choice(legal)
                if rng.random() < 0.3
                else rng.choice(legal[: len(game.belts()[mover])])
            )
            before = game.round
            feed.act(action, auto=rng.random() < 0.05)
            if game.round != before or game.is_terminal():
                rounds += 1
                screen = screen_text(app, 80, 24)
                if game.is_terminal():
                    assert state.summary == "round" and state.final is None
                    feed.end()
                    assert "Game over" in screen_text(app, 80, 24)
                else:
                    assert f"Round {rounds} scores" in screen, screen
                    state.summary = None
            if isinstance(action, sushi_roll.Take):
                break
    assert rounds == 3
    assert kinds >= {f"class:die.{k}" for k in ("appetizer", "maki", "nigiri")}
    screen = render_all(state, app)
    assert "Game over" in screen and "tok" in screen and "place" in screen
    assert "dice checked at the end" in screen or "fair" in screen
    state.own_fairness.failures.append(
        "round 1 cycle 2: the dice shown are not the ones the seeds give"
    )
    state.summary = None
    screen = render_all(state, app)
    assert "FAIRNESS CHECK FAILED" in screen


def _seated_state(players: int = 3, seed: bytes = b"keys") -> tuple[AppState, Feed]:
    """A state at the dice table, our move (seat = the red belt's holder)."""
    state = AppState()
    seat = sushi_roll.RollGame(sushi_roll.RollOptions(players), seed).to_move
    assert seat is not None
    feed = _start(state, players, seat, seed)
    feed.turn_start()
    assert dice(state).moving
    return state, feed


def test_marks_make_a_reroll_of_the_subset_in_belt_order() -> None:
    state, _ = _seated_state()
    assert dice(state).roll_key("digit", 2) is None
    dice(state).roll_key("mark")
    dice(state).roll_key("left")
    dice(state).roll_key("left")
    dice(state).roll_key("mark")
    assert dice(state).dice.marked == [0, 2] and "[x]" in _text(WIDGETS["hand"](state))
    assert "r re-rolls them" in state.status
    action = dice(state).roll_key("reroll")
    assert action == sushi_roll.Reroll((0, 2)) and not state.status_error
    dice(state).roll_key("mark")  # the cursor is on 0: unmark it
    assert dice(state).dice.marked == [2]
    dice(state).roll_key("cancel")
    assert dice(state).dice.marked == [] and state.status == "marks cleared"
    assert dice(state).roll_key("reroll") is None and "mark dice with space" in state.status


def test_a_swap_picks_our_die_then_a_die_on_another_belt() -> None:
    state, feed = _seated_state(players=3)
    me = feed.game.to_move
    assert me is not None
    dice(state).roll_key("digit", 1)
    dice(state).roll_key("swap")
    assert dice(state).dice.mode == "swap" and dice(state).dice.swap_from == 1
    first = dice(state).dice.swap_seat
    assert first == (me + 1) % 3  # the belt to our left first
    assert "swap your" in state.status and "Enter swaps" in state.status
    assert "↑↓ belt" in _text(keys_text(state))
    dice(state).roll_key("down")
    assert dice(state).dice.swap_seat == (me + 2) % 3
    dice(state).roll_key("digit", 3)
    assert "[S]" in _text(WIDGETS["players"](state)) and "▸" in _text(WIDGETS["players"](state))
    assert dice(state).roll_key("mark") is None and "Esc goes back" in state.status
    action = dice(state).roll_key("enter")
    assert action == sushi_roll.Swap(1, (me + 2) % 3, 3)
    dice(state).roll_key("cancel")
    assert dice(state).dice.mode == "choose" and state.status == "swap cancelled"
    assert dice(state).roll_key("enter") == sushi_roll.Take(1)


def test_keys_refuse_with_a_reason_and_play_nothing() -> None:
    state, _ = _seated_state(players=2, seed=b"refusals")
    seat = state.seat
    assert seat is not None
    # No tokens: every menu and chopsticks token spent.
    obs = dice(state).obs
    assert obs is not None
    broke = dataclasses.replace(obs.players[seat], menu=0, chopsticks=0)
    players = list(obs.players)
    players[seat] = broke
    dice(state).observation = dataclasses.replace(obs, players=tuple(players))
    assert dice(state).roll_key("mark") is None and "no menu token" in state.status
    assert state.status_error
    assert dice(state).roll_key("reroll") is None and "no menu token" in state.status
    assert dice(state).roll_key("swap") is None and "no chopsticks token" in state.status
    assert dice(state).dice.mode == "choose"
    # Fresh tokens (from our last take) are usable only from our next turn.
    fresh = dataclasses.replace(broke, chopsticks=1, fresh_chopsticks=1)
    players[seat] = fresh
    dice(state).observation = dataclasses.replace(obs, players=tuple(players))
    assert dice(state).roll_key("swap") is None and "usable from your next turn" in state.status
    # Not our move.
    dice(state).observation, dice(state).waiting = obs, False
    assert dice(state).roll_key("enter") is None and "not your move" in state.status
    # Waiting for the server's answer to our action.
    dice(state).waiting, dice(state).pending = True, sushi_roll.Take(0)
    assert dice(state).roll_key("enter") is None and "waiting for the server" in state.status
    # A number past the belt's end (8 dice each in a 2-player game).
    dice(state).pending = None
    assert dice(state).roll_key("digit", 8) is None and "there is no die 9" in state.status
    # Watching: nothing to choose.
    watcher = AppState()
    _start(watcher, 2, None, b"refusals").turn_start()
    assert dice(watcher).roll_key("enter") is None and "watching" in watcher.status
    assert dice(watcher).roll_key("mark") is None and "watching" in watcher.status
    watcher.status = ""
    assert "watching the game" in _text(status_text(watcher))
    assert "Watching" in _text(WIDGETS["hand"](watcher))


def test_updates_are_logged_and_the_choice_follows_the_belt() -> None:
    state, feed = _seated_state(players=3, seed=b"log")
    me = state.seat
    assert me is not None
    dice(state).roll_key("mark")
    feed.act(sushi_roll.Reroll((0,)))
    assert dice(state).dice.marked == [] and dice(state).moving  # still our move after a re-roll
    assert "re-rolled" in _text(state.log[-1]) and "→" in _text(state.log[-1])
    other = (me + 1) % 3
    feed.act(sushi_roll.Swap(0, other, 0))
    assert "swapped" in _text(state.log[-1])
    feed.act(sushi_roll.Take(0))
    assert not dice(state).moving and "you took" in _text(state.log[-1])
    assert dice(state).did[me].startswith("took ")
    feed.turn_start()
    assert "to move" in _text(WIDGETS["header"](state))
    assert "is moving" in _text(status_text(state))


def test_the_turn_timer_and_an_auto_take() -> None:
    clock = [50.0]
    state = AppState(now=lambda: clock[0])
    seat = sushi_roll.RollGame(sushi_roll.RollOptions(3), b"timer").to_move
    assert seat is not None
    feed = _start(state, 3, seat, b"timer")
    feed.turn_start(deadline_ms=30_000)
    assert "time 30s" in _text(WIDGETS["header"](state))
    clock[0] += 25
    assert "time 5s" in _text(WIDGETS["header"](state))
    feed.act(sushi_roll.Take(0), auto=True)
    assert "the server took a die for you" in state.status and state.status_error
    assert state.deadline is None and not dice(state).moving
    assert "(auto)" in _text(state.log[-1])


def test_help_and_form_offer_sushi_roll() -> None:
    state = AppState()
    lobby_help = _text(help_text(state))
    assert "r re-rolls" in lobby_help and "s swaps" in lobby_help and "Enter takes" in lobby_help
    state, _ = _seated_state()
    roll_help = _text(help_text(state))
    assert "menu token" in roll_help and "sashimi 0 6 13" in roll_help
    assert "chopsticks double pick" not in roll_help
    form = CreateForm()
    assert form.focused() == "game"
    form.change(1)
    assert form.game == "sushi-roll"
    form.move(1)
    form.move(1)  # players, then the turn time: the dice game has no variants
    assert form.focused() == "turn_seconds"
    form.move(-1)
    assert form.focused() == "players"
    settings = form.settings()
    assert (settings.kind, settings.players, settings.variants) == ("sushi-roll", 4, ())


def _moves(obs: sushi_roll.RollObservation, rng: random.Random) -> str:
    """Keys for one action of ours: sometimes mark two dice and re-roll, sometimes swap, else take
    the die chosen by number."""
    me = obs.players[obs.seat or 0]
    size = len(me.belt)
    roll = rng.random()
    if roll < 0.2 and me.usable_menu and size >= 2:
        return f"1 {size} r"
    if (
        roll < 0.35
        and me.usable_chopsticks
        and any(p.belt for s, p in enumerate(obs.players) if s != obs.seat)
    ):
        return f"{min(size, 2)}s1\r"  # our die 2 (or 1) for the first die of the next belt
    return f"{rng.randrange(size) + 1}\r"


@contextlib.asynccontextmanager
async def _dealt_app(dealer: Dealer) -> AsyncIterator[Harness]:
    client = Client("127.0.0.1", 1, name="tester")
    dealer.attach(client)
    await settle()
    client.send(LoginGuest(ref=client.proto.next_ref(), name="tester"))
    await settle()
    async with running(AppState(client=client, address="scripted")) as harness:
        yield harness


async def test_a_whole_game_by_keystrokes_against_a_scripted_server() -> None:
    dealer = Dealer(3, 1, seed=21)
    rng = random.Random(4)
    async with _dealt_app(dealer) as h:
        state = h.state
        dealer.seat_client()
        actions = 0
        while await h.ready_to_pick():
            obs = dice(state).obs
            assert obs is not None
            sent = len(dealer.received)
            keys = _moves(obs, rng)
            h.keys(keys)
            await h.wait(lambda n=sent: len(dealer.received) > n, f"the action of {keys!r}")
            actions += 1
        await h.wait(lambda: state.fairness.final != "pending", "the record check")
        assert state.fairness.final == "verified", state.fairness.failures
        assert state.fairness.actions_seen == len(dealer.steps)
        assert actions >= 3 * 7
        assert len(dice(state).rounds) == 3
        screen = h.screen()
        assert "Game over" in screen and "seed check passed" in screen
        await h.quit()


async def test_a_refused_action_is_said_and_the_move_stays_ours() -> None:
    dealer = Dealer(2, 0, seed=17)
    async with _dealt_app(dealer) as h:
        state = h.state
        dealer.seat_client()
        assert await h.ready_to_pick()
        dealer.refuse_next = True
        sent = len(dealer.received)
        h.keys("1\r")
        await h.wait(lambda: "server:" in state.status, "the refusal")
        assert state.status_error and dice(state).moving and dice(state).pending is None
        assert len(dealer.received) == sent + 1
        h.keys("1\r")
        await h.wait(lambda: len(dealer.received) == sent + 2, "the second try")
        await h.wait(lambda: bool((me := dice(state).me) and me.tray), "the take")
        assert not state.fairness.failures
        await h.quit()


async def test_watching_a_game_under_way_to_its_verified_end() -> None:
    dealer = Dealer(3, None, seed=23)
    async with _dealt_app(dealer) as h:
        state = h.state
        dealer.watch_late(12)
        await h.wait(lambda: state.final is not None, "the end of the game")
        await h.wait(lambda: state.fairness.final != "pending", "the record check")
        assert state.fairness.final == "verified", state.fairness.failures
        assert state.names == dealer.names and state.seat is None
        screen = h.screen()
        assert "Game over" in screen and "bot-0" in screen and "seed check passed" in screen
        await h.quit()
