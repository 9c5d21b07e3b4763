"""The real `sushigo-server` command as a child process, for the tests that kill and restart it."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

SERVER = Path(sys.executable).with_name("sushigo-server")
BOT = Path(sys.executable).with_name("sushigo-bot")
LISTENING = re.compile(r"sushigo-server listening on (\S+):(\d+)")


class ServerProcess:
    """`sushigo-server` on 127.0.0.1 and a database of the test's (`db`: a file, or the ``--db``
    and ``--key`` arguments of the `server_db` fixture, for either backend): started on a free
    port, then killed and started again on the same port (the clients' address does not change),
    its output kept in `log`."""

    def __init__(self, db: Path | tuple[str, ...]) -> None:
        self.db_args = ("--db", str(db)) if isinstance(db, Path) else db
        self.port = 0
        self.proc: asyncio.subprocess.Process | None = None
        self.log = b""
        self._drain: asyncio.Task[None] | None = None

    async def start(self) -> int:
        """Start it (on the port of the last start, if any); returns the port."""
        self.proc = await asyncio.create_subprocess_exec(
            str(SERVER),
            *("--host", "127.0.0.1", "--port", str(self.port), *self.db_args),
            *("--log-level", "warning"),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        assert self.proc.stdout is not None
        line = (await asyncio.wait_for(self.proc.stdout.readline(), 20)).decode()
        match = LISTENING.match(line)
        assert match, f"unexpected first line: {line!r}"
        self.port = int(match.group(2))
        self._drain = asyncio.create_task(self._keep(self.proc))
        return self.port

    async def _keep(self, proc: asyncio.subprocess.Process) -> None:
        assert proc.stdout is not None
        while line := await proc.stdout.readline():
            self.log += line

    async def kill(self) -> None:
        """SIGKILL: no clean-up of any kind."""
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        await self.proc.wait()

    async def restart(self) -> None:
        await self.kill()
        await self.start()

    async def stop(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self.proc.kill()
            await self.proc.wait()
        if self._drain is not None:
            with contextlib.suppress(asyncio.CancelledError, TimeoutError):
                await asyncio.wait_for(self._drain, 5)


@asynccontextmanager
async def server_process(db: Path | tuple[str, ...]) -> AsyncIterator[ServerProcess]:
    """A started `ServerProcess`, stopped at the end."""
    server = ServerProcess(db)
    await server.start()
    try:
        yield server
    finally:
        await server.stop()
