"""SIGTERM (a supervisor, `kill`) at each command that talks to a server, while it waits for the
server: a clean stop, as Ctrl-C's, but exit code 0 and one line ``PROG: stopped`` on stderr
(README, "Exit codes")."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

import pytest
from test_ctrl_c import silent_server

from sushigo.client.identity import load_or_create_key


@pytest.mark.parametrize(
    ("prog", "args"),
    [
        ("sushigo-bot", ["sushigo.client.bot", "ADDRESS"]),
        ("sushigo-client", ["sushigo.client.cli", "ADDRESS", "--leaderboard", "--key", "KEY"]),
        ("sushigo-admin", ["sushigo.client.admin", "ADDRESS", "sessions", "--key", "KEY"]),
        ("sushigo-tournament", ["sushigo.client.tournament", "ADDRESS", "watch", "cup"]),
        ("sushigo-replay", ["sushigo.client.fetch", "ADDRESS", "--identity", "KEY"]),
        # The command people run, which runs the one above and passes the signal on.
        ("sushigo-replay", ["sushigo.server.replay", "ADDRESS", "--identity", "KEY"]),
    ],
)
async def test_sigterm_while_a_command_waits_for_the_server(
    tmp_path: Path, prog: str, args: list[str]
) -> None:
    key = tmp_path / "me.pem"
    load_or_create_key(key)
    async with silent_server() as (port, connected):
        command = [
            f"127.0.0.1:{port}" if a == "ADDRESS" else str(key) if a == "KEY" else a for a in args
        ]
        env = {**os.environ, "HOME": str(tmp_path)}
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", *command, env=env, stderr=asyncio.subprocess.PIPE
        )
        try:
            await asyncio.wait_for(connected.wait(), 20)
            proc.send_signal(signal.SIGTERM)
            _, err = await asyncio.wait_for(proc.communicate(), 20)
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
    assert (proc.returncode, err.decode()) == (0, f"{prog}: stopped\n")
