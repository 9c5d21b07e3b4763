"""A real terminal for end-to-end tests: a command in a tmux window of our own, typed at by
keystrokes, its screen read by capture-pane.

The command's terminal output is piped (tmux pipe-pane) into a FIFO the test reads; every chunk
that arrives is a cue to look at the screen again, so a test waits on the terminal's own output,
bounded by a timeout, and never sleeps.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import shlex
import shutil
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WAIT = 20.0

needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

Until = Callable[[Callable[[str], bool], str], Awaitable[str]]
"""Wait until the screen satisfies a predicate (what it waits for, for the failure's message);
the screen."""
Keys = Callable[..., Awaitable[str]]
"""Type keys (tmux key names: "Enter", "Right", "q", ...)."""


class Terminal:
    """A tmux server of our own with one window, "play"."""

    def __init__(self) -> None:
        # Never a name used before: a tmux server killed at the end of one test may still be
        # going away when the next test starts its own (an `id` is reused once freed).
        self.socket = f"sushigo-test-{os.getpid()}-{secrets.token_hex(6)}"

    async def tmux(self, *args: str) -> str:
        proc = await asyncio.create_subprocess_exec(
            "tmux",
            "-L",
            self.socket,
            "-f",
            "/dev/null",
            *args,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(proc.communicate(), WAIT)
        assert proc.returncode == 0, f"tmux {args}: {err.decode()}"
        return out.decode()

    async def screen(self) -> str:
        return await self.tmux("capture-pane", "-p", "-t", "play")


class Session:
    """A command running in the terminal: wait for what it shows, type at it, and its exit
    code once it ends."""

    def __init__(self, term: Terminal, reader: asyncio.StreamReader, rc_file: Path) -> None:
        self.term = term
        self.reader = reader
        self.rc_file = rc_file

    async def until(self, predicate: Callable[[str], bool], what: str) -> str:
        """The screen, once `predicate` holds for it (AssertionError after `WAIT` seconds)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + WAIT
        while True:
            screen = await self.term.screen()
            if predicate(screen):
                return screen
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise AssertionError(f"no {what} on the screen:\n{screen}")
            with contextlib.suppress(TimeoutError):  # the next output, or the deadline
                await asyncio.wait_for(self.reader.read(65536), remaining)

    async def keys(self, *names: str) -> str:
        return await self.term.tmux("send-keys", "-t", "play", *names)

    async def resize(self, columns: int, rows: int) -> None:
        await self.term.tmux("resize-window", "-t", "play", "-x", str(columns), "-y", str(rows))

    async def exit_code(self) -> int:
        """Wait for the command to end; its exit code."""
        await self.term.tmux("wait-for", "done")
        return int(self.rc_file.read_text().strip())


@asynccontextmanager
async def terminal(
    tmp_path: Path,
    command: Sequence[str],
    *,
    size: tuple[int, int] = (80, 24),
    env: Sequence[str] = (),
) -> AsyncIterator[Session]:
    """Run `command` (from the repository's root) in a terminal of `size` (columns, rows) with
    the extra environment `env` ("NAME=value"); the tmux server is killed at the end. Seats a
    client keeps for a resume (`client.seats`) go to the test's folder unless `env` says where:
    never to the user's."""
    env = (f"XDG_STATE_HOME={tmp_path / 'state'}", *env)  # (a later NAME= wins)
    fifo = tmp_path / "output.fifo"
    os.mkfifo(fifo)
    # Our own reader and a spare writer: the FIFO never reads as ended while the test watches.
    read_fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    spare_fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(read_fd, "rb", buffering=0)
    )
    term = Terminal()
    rc_file = tmp_path / "rc"
    try:
        tmux = f"tmux -L {term.socket} -f /dev/null"
        # The shell outlives a Ctrl-C typed at the command (its own trap, which the command does
        # not inherit as it would an ignored signal), to say how the command ended. It then waits
        # for the end of the test, so the pane stays alive: tmux reads what the command wrote
        # last at its own pace (a pane whose process ended may be marked dead with the command's
        # last words unread: a loaded machine showed an empty screen).
        script = (
            f"cd {shlex.quote(str(ROOT))} && trap : INT && {tmux} wait-for ready && "
            f"{shlex.join(command)}; echo $? > {shlex.quote(str(rc_file))}; "
            f"{tmux} wait-for -S done; exec {tmux} wait-for ended"
        )
        columns, rows = size
        await term.tmux(
            "new-session", "-d", "-s", "play", "-x", str(columns), "-y", str(rows),
            "env", "LANG=C.UTF-8", "LC_ALL=C.UTF-8", "TERM=xterm-256color", *env,
            "sh", "-c", script,
        )  # fmt: skip
        # The window outlives its command, and so the tmux server does: `exit_code`'s wait-for
        # reaches it even when the command ended (and said "done") before the test asked.
        await term.tmux("set-option", "-w", "-t", "play", "remain-on-exit", "on")
        await term.tmux("pipe-pane", "-t", "play", "-o", f"cat >> {shlex.quote(str(fifo))}")
        await term.tmux("wait-for", "-S", "ready")
        yield Session(term, reader, rc_file)
    finally:
        transport.close()
        os.close(spare_fd)
        proc = await asyncio.create_subprocess_exec(
            "tmux", "-L", term.socket, "kill-server",
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
        )  # fmt: skip
        await proc.wait()
