"""Ctrl-C, typed in a real terminal (tmux) at each command while it works: one line saying it was
interrupted, no traceback (the arena's worker processes included), and exit code 130, the
shell's convention for SIGINT (README, "Exit codes"). The server stops cleanly first."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from scripted import tcp_server
from terminal import needs_tmux, terminal
from tui_helpers import local_server

from sushigo.client.identity import load_or_create_key
from sushigo.protocol.about import INTERRUPTED

pytestmark = needs_tmux

PY = [sys.executable, "-m"]


@contextlib.asynccontextmanager
async def silent_server() -> AsyncIterator[tuple[int, asyncio.Event]]:
    """A TCP server on 127.0.0.1 that takes connections and never says a word: a command
    connecting to it waits for the handshake. Its port, and an event set once one connected."""
    connected = asyncio.Event()

    async def take(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connected.set()

    async with tcp_server(take) as port:
        yield port, connected


async def _interrupted(tmp_path: Path, command: list[str], ready: asyncio.Event | str) -> str:
    """Run `command` in a terminal, wait until it works (`ready` set, or that text on screen),
    type Ctrl-C; check the exit code is 130 and no traceback shows; the screen."""
    async with terminal(tmp_path, command, size=(100, 30)) as term:
        if isinstance(ready, str):
            await term.until(lambda s: ready in s, ready)
        else:
            await asyncio.wait_for(ready.wait(), 20)
        await term.keys("C-c")
        screen = await term.until(lambda s: "interrupted" in s, "a word of the interruption")
        code = await term.exit_code()
    assert code == INTERRUPTED, screen
    assert "Traceback" not in screen and "KeyboardInterrupt" not in screen, screen
    return screen


@pytest.mark.parametrize(
    ("prog", "args"),
    [
        ("sushigo-client", ["sushigo.client.cli", "ADDRESS", "--name", "ann"]),
        ("sushigo-bot", ["sushigo.client.bot", "ADDRESS"]),
        ("sushigo-admin", ["sushigo.client.admin", "ADDRESS", "sessions", "--key", "KEY"]),
        ("sushigo-tournament", ["sushigo.client.tournament", "ADDRESS", "list"]),
        ("sushigo-replay", ["sushigo.server.replay", "ADDRESS"]),
    ],
)
async def test_ctrl_c_while_a_command_connects(tmp_path: Path, prog: str, args: list[str]) -> None:
    key = tmp_path / "admin.pem"
    load_or_create_key(key)
    async with silent_server() as (port, connected):
        command = [
            *PY,
            *(
                f"127.0.0.1:{port}" if a == "ADDRESS" else str(key) if a == "KEY" else a
                for a in args
            ),
        ]
        screen = await _interrupted(tmp_path, command, connected)
    assert f"{prog}: interrupted" in screen, screen


async def test_ctrl_c_in_the_arena_stops_its_workers_quietly(tmp_path: Path) -> None:
    command = [*PY, "sushigo.client.arena", "--strategies", "random,random"]
    command += ["--games", "1000000", "--workers", "2"]
    screen = await _interrupted(tmp_path, command, "games/s")
    assert screen.strip().endswith("sushigo-arena: interrupted"), screen


async def test_ctrl_c_stops_the_server_cleanly(tmp_path: Path) -> None:
    command = [*PY, "sushigo.server.cli", "--host", "127.0.0.1", "--port", "0"]
    command += ["--db", str(tmp_path / "server.db"), "--log-level", "warning"]
    screen = await _interrupted(tmp_path, command, "listening on")
    assert "sushigo-server: interrupted" in screen, screen


async def test_ctrl_c_twice_quits_the_terminal_client(tmp_path: Path) -> None:
    async with local_server(tmp_path) as (host, port):
        command = [*PY, "sushigo.client.cli", f"{host}:{port}", "--name", "ann"]
        async with terminal(tmp_path, command) as term:
            await term.until(lambda s: "Tables on" in s, "the lobby")
            await term.keys("C-c")
            await term.until(lambda s: "Quit sushigo?" in s, "the quit question")
            await term.keys("C-c")
            screen = await term.until(lambda s: "interrupted" in s, "a word of the interruption")
            assert await term.exit_code() == INTERRUPTED
    assert "sushigo-client: interrupted" in screen and "Traceback" not in screen
