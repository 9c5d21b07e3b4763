"""`sushigo-admin` against a real server on loopback: each command's output, the admin key's set-up
(`public-key` and the server's --admin-key), and one-line errors with their exit codes (2 for a
usage error, 1 for the rest)."""

from __future__ import annotations

import asyncio
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import load_pem_public_key

from sushigo.client.admin import duration, main, parser
from sushigo.client.connection import Client, ConnectionLost
from sushigo.client.identity import load_or_create_key
from sushigo.protocol import Announcement, Error, ErrorCode, TableLeft, TableSettings
from sushigo.protocol.identity import player_id_for_key
from sushigo.server.hub.core import Hub
from sushigo.server.keys import KeyFileError, load_admin_key
from sushigo.server.net.app import Server
from sushigo.server.storage.sqlite.storage import SqliteStorage


@asynccontextmanager
async def admin_server(path: Path, admin_key: Path) -> AsyncIterator[tuple[Hub, str]]:
    """A real server on 127.0.0.1 whose admin holds `admin_key`; the hub and HOST:PORT."""
    storage = SqliteStorage(path / "server.db")
    hub = Hub(
        storage=storage,
        key=Ed25519PrivateKey.generate(),
        wall_ms=lambda: 1_700_000_000_000,
        admins=[load_admin_key(admin_key)],
    )
    server = Server(hub, "127.0.0.1", 0, None)
    (host, port), *_ = await server.start()
    try:
        yield hub, f"{host}:{port}"
    finally:
        await server.stop()
        storage.close()


async def admin(address: str, key: Path, *args: str) -> int:
    """Run one command (in a thread: it runs an event loop of its own)."""
    return await asyncio.to_thread(main, [address, "--key", str(key), *args])


def one_line(err: str) -> str:
    lines = [line for line in err.splitlines() if not line.startswith(("usage:", " "))]
    assert len(lines) == 1, err
    return lines[0]


def test_usage_errors_exit_2_before_connecting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = tmp_path / "none.pem"
    cases = [
        (["nohost", "sessions"], "expected HOST:PORT"),
        (["[::1:7777", "sessions"], "bad address"),
        (["h:1", "--key", str(key), "ban", "g:0123456789abcdef"], "ban its address"),
        (["h:1", "ban", "10.0.0.0/33"], "not a player id (k:...), an IP address or a CIDR"),
        (["h:1", "ban", "10.0.0.0/8", "--for", "forever"], "not a time"),
        (["h:1", "mute", "10.0.0.1"], "not a player id"),
        (["h:1", "bogus"], "invalid choice"),
        (["h:1"], "the following arguments are required: COMMAND"),
        (["h:1", "announce", "x" * 501], "the text is 500 characters at most"),
        (["h:1", "audit", "--limit", "0"], "must be 1-500"),
    ]
    for argv, why in cases:
        with pytest.raises(SystemExit) as usage:
            code = main(argv)
            raise SystemExit(code)
        assert usage.value.code == 2, argv
        assert why in one_line(capsys.readouterr().err), argv
    assert not key.exists()  # nothing was made on the way


def test_connection_options_may_follow_the_command_too() -> None:
    """``sushigo-admin HOST:PORT tables --key K`` as well as ``--key K HOST:PORT tables``; one
    given before the command is not undone by the command's defaults."""
    after = parser().parse_args(["h:1", "tables", "--key", "k.pem", "--timeout", "3", "--tls"])
    assert (after.key, after.timeout, after.tls, after.command) == (
        Path("k.pem"),
        3.0,
        True,
        "tables",
    )
    before = parser().parse_args(["--key", "k.pem", "--name", "root", "h:1", "kick", "s3"])
    assert (before.key, before.name, before.timeout, before.tls) == (
        Path("k.pem"),
        "root",
        10.0,
        False,
    )
    assert before.target == "s3"


def test_durations() -> None:
    assert [duration(t) for t in ("90", "90s", "15m", "2h", "7d", "2W")] == [
        90,
        90,
        900,
        7200,
        604800,
        1209600,
    ]
    for bad in ("0", "11000d", "1y", "", "-5"):
        with pytest.raises(Exception, match="time"):
            duration(bad)


def test_the_admin_key_is_made_once_and_its_public_half_is_what_the_server_takes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key_file = tmp_path / "conf" / "admin.pem"
    assert main(["public-key", "--key", str(key_file)]) == 0
    first = capsys.readouterr()
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert first.out.startswith("-----BEGIN PUBLIC KEY-----")
    assert main(["public-key", "--key", str(key_file)]) == 0
    second = capsys.readouterr()
    assert second.out == first.out  # the same key: made once
    key = load_or_create_key(key_file)
    raw = key.public_key().public_bytes_raw()
    assert load_pem_public_key(first.out.encode()).public_bytes_raw() == raw  # type: ignore[union-attr]
    assert f"player id {player_id_for_key(raw)}" in second.err
    public = tmp_path / "admin.pub"
    public.write_text(first.out)
    assert load_admin_key(public) == raw == load_admin_key(key_file)  # either file will do
    garbage = tmp_path / "garbage.pem"
    garbage.write_text("not a key")
    with pytest.raises(KeyFileError, match="not a PEM Ed25519 public key"):
        load_admin_key(garbage)
    with pytest.raises(KeyFileError, match="cannot read"):
        load_admin_key(tmp_path / "missing.pub")


def test_the_server_refuses_a_bad_admin_key_in_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.pub"
    bad.write_text("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n")
    server = shutil.which("sushigo-server", path=os.path.dirname(sys.executable))
    assert server is not None
    run = subprocess.run(
        [server, "--port", "0", "--db", str(tmp_path / "s.db"), "--admin-key", str(bad)],
        capture_output=True,
        text=True,
        check=False,
        timeout=30,
    )
    assert run.returncode == 1 and run.stdout == ""
    assert "bad.pub: not a PEM Ed25519 public key" in one_line(run.stderr)


async def test_refusals_exit_1_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    admin_key = tmp_path / "admin.pem"
    load_or_create_key(admin_key)
    other = tmp_path / "other.pem"
    other_id = player_id_for_key(load_or_create_key(other).public_key().public_bytes_raw())
    async with admin_server(tmp_path, admin_key) as (_, address):
        assert await admin(address, other, "sessions") == 1
        line = one_line(capsys.readouterr().err)
        assert "is for this server's admins" in line and f"this key is {other_id}" in line
        assert await admin(address, tmp_path / "missing.pem", "nodes") == 1
        assert "no admin key at" in one_line(capsys.readouterr().err)
        assert await admin(address, admin_key, "show", "nope") == 1
        assert one_line(capsys.readouterr().err) == "sushigo-admin: error: no table 'nope'"
        assert await admin(address, admin_key, "unban", "10.0.0.0/8") == 1
        assert "no ban on 10.0.0.0/8" in one_line(capsys.readouterr().err)
    assert await admin(address, admin_key, "nodes") == 1  # the server is gone
    assert "refused the connection" in one_line(capsys.readouterr().err)


async def test_every_command_against_a_live_server(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = tmp_path / "admin.pem"
    load_or_create_key(key)
    async with admin_server(tmp_path, key) as (hub, address):
        host, port = address.rsplit(":", 1)
        ann = await Client.connect(host, int(port), name="ann", timeout=5.0)
        try:
            joined = await ann.create_table(TableSettings(kind="sushi-go", players=2))
            table = joined.table.table_id
            capsys.readouterr()

            async def run(*args: str) -> list[str]:
                assert await admin(address, key, *args) == 0, args
                return capsys.readouterr().out.splitlines()

            tables = await run("tables")
            assert tables[0].split() == ["TABLE", "GAME", "STATUS", "SEATS", "WATCHING"]
            assert tables[1].split() == [table, "sushi-go", "open", "ann,", "-", "0"]
            assert tables[-1] == "1 table(s)"
            assert (await run("tables", "--status", "playing"))[-1] == "0 table(s)"
            sessions = await run("sessions")
            ann_row = next(line for line in sessions if " ann " in line)
            session_id, ann_id = ann_row.split()[:2]
            assert ann_id == ann.player_id and f"{table} seat 1" in ann_row
            assert "guest" in ann_row
            assert any("admin" in line.split()[-1] for line in sessions[1:-1])
            nodes = await run("nodes")
            assert nodes[1].split()[:3] == ["sushigo", "serving", "(here)"]
            shown = await run("show", table)
            assert shown[0].startswith(f"table {table}: sushi-go, 2 players, open (open)")
            assert shown[2].split()[:2] == ["1", "ann"] and shown[3].split() == ["2", "-"]
            assert await run("announce", "back", "in", "5") == ["announced to 2 people"]
            assert await ann.wait_for(Announcement, 5) == Announcement(text="back in 5", by="admin")
            assert await run("mute", ann_id, "--for", "10m", "--reason", "spam") == [
                f"muted {ann_id}"
            ]
            ann.chat("hello?")
            refusal = await ann.wait_for(Error, 5)
            assert refusal.code == ErrorCode.MUTED and "spam" in refusal.message
            bans = await run("bans")
            assert bans[1].split()[:2] == ["mute", ann_id] and bans[1].endswith("spam")
            assert await run("unmute", ann_id) == [f"lifted the mute on {ann_id}"]
            assert (await run("ban", "203.0.113.0/24", "--reason", "flood"))[0].startswith(
                "banned 203.0.113.0/24; 0 session(s) ended"
            )
            assert await run("unban", "203.0.113.0/24") == ["lifted the ban on 203.0.113.0/24"]
            drained = await run("drain")
            assert drained == [
                "sushigo is draining: no new table or game; 0 game(s) in play finish"
            ]
            assert hub.draining
            assert await run("drain", "--off") == ["sushigo takes new tables again"]
            assert (await run("close", table, "--reason", "cleanup"))[0] == f"closed table {table}"
            left = await ann.wait_for(TableLeft, 5)
            assert left.reason == "the table closed: an admin closed it: cleanup"
            assert await run("kick", session_id, "--reason", "bye") == [
                f"kicked 1 session(s) of {session_id}"
            ]
            with pytest.raises(ConnectionLost):
                while True:
                    await ann.next_event(5)
            assert ann.refusal is not None and ann.refusal.code == ErrorCode.KICKED
            assert "bye" in ann.refusal.message
        finally:
            await ann.close()
        audit = await run("audit", "--limit", "3")
        assert [line.split()[4] for line in audit[1:4]] == ["kick", "close", "undrain"]
        assert audit[-1] == "(older entries follow: --limit)"
        everything = await run("audit")
        actions = [line.split()[4] for line in everything[1:]]
        assert actions == [
            "kick",
            "close",
            "undrain",
            "drain",
            "unban",
            "ban",
            "unmute",
            "mute",
            "announce",
        ]


def test_the_installed_command_exits_with_its_codes(tmp_path: Path) -> None:
    command = shutil.which("sushigo-admin", path=os.path.dirname(sys.executable))
    assert command is not None
    version = subprocess.run([command, "--version"], capture_output=True, text=True, check=False)
    assert version.returncode == 0 and version.stdout.startswith("sushigo-admin ")
    usage = subprocess.run(
        [command, "nohost", "nodes"], capture_output=True, text=True, check=False
    )
    assert usage.returncode == 2 and "expected HOST:PORT" in usage.stderr
    key = tmp_path / "k.pem"
    made = subprocess.run(
        [command, "public-key", "--key", str(key)], capture_output=True, text=True, check=False
    )
    assert made.returncode == 0 and "BEGIN PUBLIC KEY" in made.stdout
