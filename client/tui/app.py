"""The prompt_toolkit application: layout, keys and style around one `AppState`, plus the
network task that feeds it.

Input and output are injectable, so tests drive the real application with `create_pipe_input()`
and `DummyOutput()`. The network task reads the client's events into the state and, when the
connection drops, takes the session back by itself (`auto_reconnect`), saying so in the status
line; the seat and the turn are picked up where they were.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.input import Input
from prompt_toolkit.layout import Layout
from prompt_toolkit.output import Output

from sushigo.client.connection import Client, ConnectError, ConnectionLost, auto_reconnect
from sushigo.protocol import Resumed

from . import ops
from .keys import close_chat, load_key_bindings
from .layout import STYLE, root_container
from .state import AppState

__all__ = ["build_application", "network_loop", "run_application", "run_tui"]

Reconnect = Callable[[Client], Awaitable[Resumed]]
Startup = Callable[[AppState], Coroutine[Any, Any, None]]


def build_application(
    state: AppState, *, input: Input | None = None, output: Output | None = None
) -> Application[None]:
    """The full-screen application for `state` (nothing runs until `run_application`)."""

    def accept(buffer: Buffer) -> bool:
        text = buffer.text.strip()
        if text:
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
            state.say("connection lost: reconnecting…", error=True)
            try:
                reply = await reconnect(client)
            except (ConnectError, ConnectionLost) as exc:
                state.reconnecting = False
                state.say(f"{exc}; press q to quit", error=True)
                return
            state.resumed(reply)
            continue
        state.apply(message)


async def _reconnect(client: Client) -> Resumed:
    return await auto_reconnect(client, attempts=20, delay=0.5)


async def run_application(
    app: Application[None],
    state: AppState,
    *,
    startup: Startup | None = None,
    reconnect: Reconnect = _reconnect,
    refresh_lobby: bool = True,
) -> None:
    """Run the application until the player quits: the network task, the lobby refresher and
    `startup` (e.g. seat the player with bots) run beside it and stop with it."""
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
    try:
        await app.run_async()
    finally:
        for task in list(tasks):
            task.cancel()
        for task in list(tasks):
            with contextlib.suppress(BaseException):
                await task
        state.spawn = None


async def run_tui(
    client: Client,
    address: str,
    *,
    startup: Startup | None = None,
    input: Input | None = None,
    output: Output | None = None,
) -> None:
    """The terminal client on a connected `client`, until the player quits."""
    state = AppState(client=client, address=address)
    app = build_application(state, input=input, output=output)
    await run_application(app, state, startup=startup)
