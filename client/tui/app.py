"""The prompt_toolkit application: layout, keys and style around one `AppState`, plus the
network task that feeds it.

Input and output are injectable, so tests drive the real application with `create_pipe_input()`
and `DummyOutput()`. The network task reads the client's events into the state and, when the
connection drops, takes the session back by itself (`auto_reconnect`), saying so in the status
line; the seat and the turn are picked up where they were.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.input import Input
from prompt_toolkit.layout import Layout
from prompt_toolkit.output import Output

from sushigo.client.connection import (
    FINAL,
    Client,
    ConnectError,
    ConnectionLost,
    ServerError,
    reconnect,
)
from sushigo.protocol import ErrorCode, Resumed

from . import ops
from .keys import close_chat, load_key_bindings
from .layout import STYLE, root_container
from .state import LOST, AppState, reconnect_note

__all__ = ["build_application", "network_loop", "run_application", "run_tui"]

_ENDING = (signal.SIGHUP, signal.SIGTERM)
"""The signals that end the client as a quit does (a closed terminal, a stop)."""

Reconnect = Callable[[Client], Awaitable[Resumed | None]]
"""Takes the session back (`client.connection.reconnect`): None when the server no longer knew it
and a new one was made (we are in the lobby)."""
Startup = Callable[[AppState], Coroutine[Any, Any, None]]


def build_application(
    state: AppState, *, input: Input | None = None, output: Output | None = None
) -> Application[None]:
    """The full-screen application for `state` (nothing runs until `run_application`)."""

    def accept(buffer: Buffer) -> bool:
        text = buffer.text.strip()
        if text and not state.chat_command(text):
            assert state.spawn is not None
            state.spawn(ops.guarded(state, ops.send_chat(state, text[:500])))
        close_chat(state, None, home)
        app.layout.focus(home)
        return False

    chat_buffer = Buffer(multiline=False, accept_handler=accept, name="chat")
    container, home = root_container(state, chat_buffer)
    app: Application[None] = Application(
        layout=Layout(container, focused_element=home),
        key_bindings=load_key_bindings(state, chat_buffer, home),
        style=STYLE,
        full_screen=True,
        mouse_support=False,
        input=input,
        output=output,
        refresh_interval=0.5,
    )
    app.ttimeoutlen = 0.05
    state.listeners.append(app.invalidate)
    return app


async def network_loop(state: AppState, reconnect: Reconnect) -> None:
    """Feed the client's events into the state; reconnect by itself when the link drops."""
    client = state.client
    if client is None:
        return
    while True:
        try:
            message = await client.next_event()
        except ConnectionLost:
            state.reconnecting = True
            state.reconnect_note = reconnect_note(client)
            state.say(state.reconnect_note, error=state.reconnect_note == LOST)
            back, reply = await take_back(state, client, reconnect)
            if not back:
                return
            if reply is None:
                state.reconnecting = False
                state.left_table()
                state.say("the server restarted without your session: logged in again (lobby)")
            else:
                state.resumed(reply)
            continue
        try:
            state.apply(message)
        except Exception as exc:  # a message the screen cannot show must not end the game
            state.say(f"could not show {message.TYPE}: {type(exc).__name__}: {exc}", error=True)


RECONNECT_TRIES = 5
"""Times a failed resume (one that reached the server) is tried again before giving up."""


async def take_back(
    state: AppState, client: Client, reconnect: Reconnect
) -> tuple[bool, Resumed | None]:
    """Take the session back after a drop: (True, what `reconnect` gave), or (False, None) once
    that is hopeless (the status line says why). Whatever goes wrong on the way is a line in the
    status bar and another try, never an exception out of the network task."""
    for attempt in range(1, RECONNECT_TRIES + 1):
        try:
            return True, await reconnect(client)
        except ConnectError as exc:  # the server stayed out of reach through every retry
            problem, hopeless = str(exc), True
        except ServerError as exc:
            problem = exc.error.message or str(exc)
            code = exc.error.error_code
            if code in FINAL:  # kicked or banned: nothing to take back, and no trying again
                state.reconnecting = False
                state.say(f"{problem}; press q to quit", error=True)
                return False, None
            hopeless = code is ErrorCode.UNKNOWN_SESSION
        except Exception as exc:  # ConnectionLost mid-resume, a broken frame: try again
            problem, hopeless = f"{type(exc).__name__}: {exc}", False
        if hopeless or attempt == RECONNECT_TRIES:
            state.reconnecting = False
            state.say(f"could not reconnect: {problem}; press q to quit", error=True)
            return False, None
        state.say(f"reconnecting failed ({problem}); trying again…", error=True)
        await asyncio.sleep(min(0.5 * attempt, 3.0))
    return False, None


async def _reconnect(client: Client) -> Resumed | None:
    return await reconnect(client, attempts=20, delay=0.5)


async def run_application(
    app: Application[None],
    state: AppState,
    *,
    startup: Startup | None = None,
    reconnect: Reconnect = _reconnect,
    refresh_lobby: bool = True,
    hung_up: Callable[[AppState], None] | None = None,
) -> None:
    """Run the application until the player quits: the network task, the lobby refresher and
    `startup` (e.g. seat the player with bots) run beside it and stop with it. SIGHUP and
    SIGTERM end it too (`AppState.signalled`), `hung_up` called with the state first."""
    tasks: set[asyncio.Task[None]] = set()

    def spawn(coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    state.spawn = spawn
    spawn(network_loop(state, reconnect))
    if refresh_lobby:
        spawn(ops.lobby_refresher(state))
    if startup is not None:
        spawn(ops.guarded(state, startup(state)))
    loop = asyncio.get_running_loop()

    def signalled(signum: int) -> None:
        # The terminal closed (SIGHUP) or we are told to stop: `hung_up` first, for the screen
        # may be gone and the exit fail.
        state.signalled = signum
        if hung_up is not None:
            hung_up(state)
        app.exit()

    watched = []
    for signum in _ENDING:
        try:
            loop.add_signal_handler(signum, signalled, signum)
        except (ValueError, RuntimeError):  # a loop outside the main thread: not ours to watch
            continue
        watched.append(signum)
    try:
        await app.run_async()
    finally:
        for signum in watched:
            loop.remove_signal_handler(signum)
        for task in list(tasks):
            task.cancel()
        try:
            if tasks:  # their ends are theirs: waited for, not raised
                await asyncio.wait(list(tasks))
        finally:
            state.spawn = None


async def run_tui(
    client: Client,
    address: str,
    *,
    startup: Startup | None = None,
    input: Input | None = None,
    output: Output | None = None,
    resumed: Resumed | None = None,
    hung_up: Callable[[AppState], None] | None = None,
) -> AppState:
    """The terminal client on a connected `client`, until the player quits (`resumed`: the
    session was taken back rather than logged in, and its game comes on screen); the state as it
    ended (whether they quit with Ctrl-C, or in the middle of a game)."""
    state = AppState(client=client, address=address)
    state.server_ends_with_us = bool(os.environ.get("SUSHIGO_PLAY"))
    if resumed is not None:
        state.resumed(resumed)
    app = build_application(state, input=input, output=output)
    await run_application(app, state, startup=startup, hung_up=hung_up)
    return state
