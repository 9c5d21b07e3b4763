"""Drive the real terminal application by keystrokes against a real server on loopback.

The app runs with `create_pipe_input()` and `DummyOutput()`; the tests type into the pipe and
wait for the state to change: every state change sets an asyncio.Event, so a wait is bounded and
never a sleep.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from prompt_toolkit.application import Application
from prompt_toolkit.application.current import set_app
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.input.base import PipeInput
from prompt_toolkit.output import DummyOutput
from terminal import Keys, Session, Until, terminal

from sushigo.client.connection import Client, auto_reconnect
from sushigo.client.tui import AppState, build_application, run_application, screen_text
from sushigo.client.tui.board import Board
from sushigo.client.tui.games.sushi_go.card_board import CardBoard
from sushigo.client.tui.games.sushi_roll.roll_board import RollBoard
from sushigo.client.tui.layout import WIDGETS
from sushigo.client.tui.ops import seat_with_bots
from sushigo.protocol import TableSettings
from sushigo.server.hub.core import Hub
from sushigo.server.net.app import Server
from sushigo.server.storage.sqlite.storage import SqliteStorage

WAIT = 15.0
"""Longest wait for any one thing (seconds); normally it takes milliseconds."""


class Output80x24(DummyOutput):
    """A dummy terminal of 80 columns and 24 rows."""

    def get_size(self) -> Size:
        return Size(rows=24, columns=80)


@contextlib.asynccontextmanager
async def local_server(
    path: Path, key: Ed25519PrivateKey | None = None, admins: Sequence[bytes] = ()
) -> AsyncIterator[tuple[str, int]]:
    """A real server on 127.0.0.1, a free port, its database under `path` (``server.db``), its
    signing key `key` (a fresh one if None), the admins' public keys `admins`."""
    storage = SqliteStorage(path / "server.db")
    key = key or Ed25519PrivateKey.generate()
    server = Server(
        Hub(storage=storage, key=key, wall_ms=lambda: 1_700_000_000_000, admins=admins),
        "127.0.0.1",
        0,
        None,
    )
    addresses = await server.start()
    try:
        yield addresses[0]
    finally:
        await server.stop()
        storage.close()


@dataclass
class Harness:
    """The running app, its state and its keyboard."""

    state: AppState
    app: Application[None]
    keyboard: PipeInput
    client: Client
    task: asyncio.Task[None]
    changed: asyncio.Event
    statuses: list[str] = field(default_factory=list)
    """Every status line message, in order."""

    def keys(self, text: str) -> None:
        """Type `text` (``\\r`` is Enter)."""
        self.keyboard.send_text(text)

    async def wait(self, predicate: Callable[[], bool], what: str, timeout: float = WAIT) -> None:
        """Wait until `predicate()` holds, re-checking on every state change."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not predicate():
            if self.task.done():
                self.task.result()
                raise AssertionError(f"the app ended while waiting for {what}")
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise AssertionError(f"timed out waiting for {what}; status: {self.state.status!r}")
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), remaining)

    def screen(self) -> str:
        """The screen as an 80x24 terminal shows it."""
        return screen_text(self.app, 80, 24)

    @property
    def position(self) -> tuple[int, int] | None:
        board = self.state.board
        return None if board is None else board.position

    async def ready_to_pick(self) -> bool:
        """Wait for our turn, or our next action in it (dismissing round summaries); False once
        the game is over."""
        state = self.state
        while True:
            await self.wait(
                lambda: (
                    (_waiting(state) and state.summary != "round")
                    or state.summary == "round"
                    or state.final is not None
                ),
                "our turn",
            )
            if state.final is not None:
                return False
            if state.summary == "round":
                self.keys(" ")
                await self.wait(lambda: state.summary != "round", "the summary to close")
                continue
            return True

    async def pick(self, keys: str) -> None:
        """Type the keys of a pick and wait until it is committed."""
        before = self.position
        self.keys(keys)
        await self.wait(
            lambda: _picked(self.state) or self.position != before or self.state.final is not None,
            f"the pick {keys!r} to be committed",
        )

    async def quit(self) -> None:
        """q, then y: the app ends."""
        self.keys("q")
        await self.wait(lambda: self.state.confirm_quit, "the quit question")
        self.keys("y")
        await asyncio.wait_for(self.task, WAIT)


@contextlib.asynccontextmanager
async def running_app(
    address: tuple[str, int],
    settings: TableSettings | None,
    *,
    bots: int | None = None,
    strategy: str = "random",
    name: str = "tester",
    key: Ed25519PrivateKey | None = None,
) -> AsyncIterator[Harness]:
    """The application, connected (as a guest, or with `key`) and seated at a table of
    `settings` with bots (game starting); in the lobby when `settings` is None."""
    host, port = address
    client = await Client.connect(host, port, name=name, key=key)

    async def startup(state: AppState) -> None:
        if settings is not None:
            count = settings.players - 1 if bots is None else bots
            await seat_with_bots(state, settings, count, strategy)

    async def reconnect(c: Client) -> Any:
        return await auto_reconnect(c, attempts=10, delay=0.05)

    state = AppState(client=client, address=f"{host}:{port}")
    try:
        async with running(state, startup=startup, reconnect=reconnect) as harness:
            state.listeners.append(lambda: harness.statuses.append(state.status))
            yield harness
    finally:
        await client.close()


@contextlib.asynccontextmanager
async def running(state: AppState, **run: Any) -> AsyncIterator[Harness]:
    """The application of `state` (its client connected) running by keystrokes, with the
    arguments `run` of `run_application`; stopped at the end."""
    assert state.client is not None
    with create_pipe_input() as keyboard:
        app = build_application(state, input=keyboard, output=Output80x24())
        changed = asyncio.Event()
        state.listeners.append(changed.set)
        task = asyncio.create_task(run_application(app, state, refresh_lobby=False, **run))
        harness = Harness(state, app, keyboard, state.client, task, changed)
        try:
            yield harness
        finally:
            if not task.done():
                if app.is_running:
                    app.exit()
                with contextlib.suppress(BaseException):
                    await asyncio.wait_for(task, WAIT)


def render_all(state: AppState, app: object, screen: bool = True) -> str:
    """Every widget's text, and (unless `screen` is false: it is the slow part) the whole screen
    at 80x24, which must fit."""
    with set_app(app):  # type: ignore[arg-type]  # (outside an app, get_app() builds one each call)
        for name, widget in WIDGETS.items():
            fragments = widget(state)
            assert isinstance(fragments, list), name
            for fragment in fragments:
                assert isinstance(fragment[0], str) and isinstance(fragment[1], str), name
    if not screen:
        return ""
    text = screen_text(app, 80, 24)  # type: ignore[arg-type]
    lines = text.split("\n")
    assert len(lines) == 24 and all(len(line) <= 80 for line in lines)
    with set_app(app):  # type: ignore[arg-type]
        keys = "".join(text for _, text, *_ in WIDGETS["keys"](state))
    assert len(keys) <= 80, f"the keys line is cut at 80 columns: {keys!r}"
    return text


def digit(index: int) -> str:
    """The number key of hand card `index` (from 0)."""
    assert index < 10
    return "0" if index == 9 else str(index + 1)


def log_text(state: AppState) -> str:
    """The event log as plain text."""
    return "\n".join("".join(text for _, text, *_ in line) for line in state.log)


def _waiting(state: AppState) -> bool:
    """A step waits for an action of ours, and none is on its way."""
    board = state.board
    return board is not None and board.waiting and board.pending is None


def _picked(state: AppState) -> bool:
    return state.board is not None and state.board.my_pick is not None


def card(state: AppState) -> CardBoard:
    """The card game's board on screen."""
    board = state.board
    assert isinstance(board, CardBoard), f"not the card game's board: {board!r}"
    return board


def dice(state: AppState) -> RollBoard:
    """Sushi Roll's board on screen."""
    board = state.board
    assert isinstance(board, RollBoard), f"not Sushi Roll's board: {board!r}"
    return board


def plain(state: AppState) -> Board:
    """The board on screen, whichever it is."""
    board = state.board
    assert board is not None, "no game on screen"
    return board


AGAINST_A_BOT = ["--bots", "1", "--players", "2", "--turn-seconds", "0", "--bot-strategy", "random"]
"""A two-seat table with one random server bot and no turn timer."""

Tmux = Callable[..., Awaitable[str]]
"""Any tmux command on the test's own tmux server (`resize-window -t play -x 60`, say)."""


async def in_terminal(
    tmp_path: Path,
    game_args: list[str],
    play: Callable[[Until, Keys, Tmux], Awaitable[None]],
    server: Callable[[Path], AbstractAsyncContextManager[tuple[str, int]]] = local_server,
    size: tuple[int, int] = (80, 24),
    env: tuple[str, ...] = (),
) -> None:
    """Run `sushigo-client HOST:PORT --name e2e <game_args>` (`AGAINST_A_BOT` and more, or the
    lobby) in a tmux window (80x24 unless `size` says otherwise) against a real server
    (`local_server`, in this process, unless another is given), let `play` type and look, then
    check it quits with exit code 0."""
    async with server(tmp_path) as (host, port):
        command = [
            sys.executable,
            "-m",
            "sushigo.client.cli",
            f"{host}:{port}",
            "--name",
            "e2e",
            *game_args,
        ]
        # Seats kept for a resume (a quit mid-game) go to the test's folder, not the user's.
        kept = (f"XDG_STATE_HOME={tmp_path / 'state'}", *env)
        async with terminal(tmp_path, command, size=size, env=kept) as term:
            await play(term.until, term.keys, term.term.tmux)
            await quit_in(term)


async def quit_in(term: Session) -> str:
    """Quit the client in `term` as a person does (q, then y at the question); it exits with
    code 0. The screen that asked."""
    await term.keys("q")
    asked = await term.until(lambda s: "Quit sushigo?" in s, "the quit question")
    await term.keys("y")
    assert await term.exit_code() == 0
    return asked
