"""`sushigo-client` on the command line: addresses, one-line errors, exit codes, the key file."""

from __future__ import annotations

import asyncio
import socket
import stat
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from tui_helpers import local_server

from sushigo.client.cli import (
    UsageError,
    describe_server_error,
    load_or_create_key,
    main,
    parse_address,
    parser,
    table_settings,
)
from sushigo.client.connection import Client, ServerError
from sushigo.client.identity import KeyFileError
from sushigo.protocol import SUPPORTED_VERSIONS, Error, ErrorCode
from sushigo.protocol.versions import Version
from sushigo.server.hub.core import Hub
from sushigo.server.net.app import Server
from sushigo.server.net.tls import ensure_certificate, server_ssl_context
from sushigo.server.storage.sqlite.storage import SqliteStorage


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("localhost:7777", ("localhost", 7777)),
        ("127.0.0.1:1", ("127.0.0.1", 1)),
        ("[::1]:7777", ("::1", 7777)),
        ("[fe80::1%eth0]:80", ("fe80::1%eth0", 80)),
        ("sushi.example.org:65535", ("sushi.example.org", 65535)),
    ],
)
def test_addresses(text: str, expected: tuple[str, int]) -> None:
    assert parse_address(text) == expected


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("localhost", "expected HOST:PORT"),
        ("localhost:", "expected HOST:PORT"),
        ("localhost:http", "expected HOST:PORT"),
        ("localhost:0", "1-65535"),
        ("localhost:70000", "1-65535"),
        ("::1:7777", "[::1]:7777"),
        ("[::1]", "expected HOST:PORT"),
        ("", "expected HOST:PORT"),
    ],
)
def test_bad_addresses(text: str, why: str) -> None:
    with pytest.raises(UsageError, match=why.replace("[", r"\[").replace("]", r"\]")):
        parse_address(text)


def _one_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line]
    assert "Traceback" not in err
    return lines[-1]


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["nohost"]) == 2
    assert _one_line(capsys.readouterr().err).startswith("sushigo-client: error: bad address")
    assert main(["h:1", "--bots", "2", "--players", "2"]) == 2
    assert "leaves no seat for you" in _one_line(capsys.readouterr().err)
    assert main(["h:1", "--bots", "2", "--players", "3", "--variant", "dummy"]) == 2
    assert "dummy" in _one_line(capsys.readouterr().err)
    assert main(["h:1", "--bots", "1", "--variant", "caviar"]) == 2
    line = _one_line(capsys.readouterr().err)
    assert "no variant 'caviar'" in line and "pass_both_ways, dummy, soy_sauce" in line


def test_table_settings_from_options() -> None:
    args = parser().parse_args(["h:1", "--bots", "1", "--variant", "dummy", "--turn-seconds", "0"])
    settings = table_settings(args)
    assert (settings.players, settings.variants, settings.turn_seconds) == (2, ("dummy",), 0)
    args = parser().parse_args(["h:1", "--bots", "3", "--variant", "soy_sauce"])
    settings = table_settings(args)
    assert (settings.players, settings.variants, settings.turn_seconds) == (4, ("soy_sauce",), 60)
    args = parser().parse_args(["h:1", "--bots", "1", "--players", "5"])
    assert table_settings(args).players == 5


def test_sushi_roll_tables_and_their_refused_variants(capsys: pytest.CaptureFixture[str]) -> None:
    args = parser().parse_args(["h:1", "--game", "sushi-roll", "--bots", "2"])
    settings = table_settings(args)
    assert (settings.kind, settings.players, settings.turn_seconds) == ("sushi-roll", 3, 60)
    argv = ["h:1", "--game", "sushi-roll", "--bots", "1", "--variant", "soy_sauce"]
    assert main(argv) == 2
    line = _one_line(capsys.readouterr().err)
    assert (
        line == "sushigo-client: error: sushi-roll has no variant 'soy_sauce' (its variants: none)"
    )
    with pytest.raises(SystemExit) as exit_info:
        main(["h:1", "--game", "sushi-dice"])
    assert exit_info.value.code == 2
    assert "sushi-roll" in capsys.readouterr().err


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def test_refused_is_one_line_exit_1(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([f"127.0.0.1:{_closed_port()}"]) == 1
    line = _one_line(capsys.readouterr().err)
    assert "refused the connection" in line and "is the server running?" in line


def test_version_mismatch_is_explained() -> None:
    error = Error(
        code=ErrorCode.UNSUPPORTED_VERSION,
        message="no common version",
        supported_versions=(Version(3, 0),),
    )
    text = describe_server_error(ServerError(error))
    ours = ", ".join(f"{v.major}.{v.minor}" for v in SUPPORTED_VERSIONS)
    assert "version mismatch" in text and f"protocol 3.0, this client {ours}" in text
    other = describe_server_error(ServerError(Error(code=ErrorCode.INVALID_NAME, message="bad")))
    assert other == "the server refused: bad"
    taken = describe_server_error(ServerError(Error(code=ErrorCode.NAME_TAKEN, message="taken")))
    assert taken == "taken (with --name)"


def test_key_file_made_once_with_mode_0600(tmp_path: Path) -> None:
    path = tmp_path / "keys" / "me.pem"
    key = load_or_create_key(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    again = load_or_create_key(path)

    def raw(k: Ed25519PrivateKey) -> bytes:
        return k.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)

    assert raw(again) == raw(key)
    bad = tmp_path / "bad.pem"
    bad.write_text("not a key")
    with pytest.raises(KeyFileError, match="not an unencrypted PEM"):
        load_or_create_key(bad)


def test_bad_key_file_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.pem"
    bad.write_text("garbage")
    assert main([f"127.0.0.1:{_closed_port()}", "--key", str(bad)]) == 1
    assert "not an unencrypted PEM" in _one_line(capsys.readouterr().err)


async def test_changed_tls_certificate_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = ensure_certificate(tmp_path / "tls")
    storage = SqliteStorage(tmp_path / "server.db")
    server = Server(
        Hub(storage=storage, key=Ed25519PrivateKey.generate(), wall_ms=lambda: 1_700_000_000_000),
        "127.0.0.1",
        0,
        server_ssl_context(files),
    )
    host, port = (await server.start())[0]
    known = tmp_path / "known_hosts"
    known.write_text(f"{host}:{port} SHA256:" + ":".join(["AB"] * 32) + "\n")
    try:
        code = await asyncio.to_thread(
            main, [f"{host}:{port}", "--tls", "--known-hosts", str(known)]
        )
    finally:
        await server.stop()
        storage.close()
    assert code == 1
    line = _one_line(capsys.readouterr().err)
    assert "certificate" in line and "has changed" in line and "delete line 1" in line


async def test_a_taken_default_name_is_numbered_and_a_taken_given_name_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with local_server(tmp_path) as (host, port):
        clients = []
        try:
            # Two people on one machine share a login name: the second plays as "ann-2", the
            # third as "ann-3".
            for _ in range(3):
                clients.append(await Client.connect_unique(host, port, name="ann"))
            assert [c.name for c in clients] == ["ann", "ann-2", "ann-3"]
            # A name chosen with --name is that name or an error, as a person reads it.
            code = await asyncio.to_thread(main, [f"{host}:{port}", "--name", "ANN"])
        finally:
            for client in clients:
                await client.close()
    assert code == 1
    line = _one_line(capsys.readouterr().err)
    assert "'ANN' is taken by another player" in line and "with --name" in line


async def test_the_leaderboard_is_printed_with_our_own_rank(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key_file = tmp_path / "me.pem"
    mine = load_or_create_key(key_file).public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    storage = SqliteStorage(tmp_path / "server.db")
    ratings = {}
    for i in range(30):
        raw = mine if i == 25 else Ed25519PrivateKey.generate().public_key().public_bytes_raw()
        player = storage.upsert_identity(raw, f"player{i}", 1)
        ratings[player] = (60.0 - i, 3.0)
    storage.set_ratings(ratings, "sushi-go")
    storage.close()
    async with local_server(tmp_path) as (host, port):
        ours = await asyncio.to_thread(
            main, [f"{host}:{port}", "--leaderboard", "--key", str(key_file), "--name", "me"]
        )
        as_guest = await asyncio.to_thread(
            main, [f"{host}:{port}", "--leaderboard", "--game", "sushi-roll"]
        )
    assert (ours, as_guest) == (0, 0)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Sushi Go! leaderboard: 30 rated players"
    top = out[2].split()
    assert top[:2] == ["1", "player0"] and top[2:4] == ["51.0", "60.0"]
    # 20 rows, then ours below them: rank 26.
    assert out[22] == "  ..." and out[23].split()[:2] == ["26*", "me"]
    assert out[24] == "Sushi Roll leaderboard: 0 rated players"
    assert "guests are not rated" in out[-1]


async def test_the_leaderboard_with_a_key_and_no_name_leaves_the_keys_name_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--leaderboard --key` without `--name` shows the key's place under the name it has on the
    ladder (the login name would have replaced it); a key not rated yet is told what rates one."""
    key_file, new_key = tmp_path / "me.pem", tmp_path / "new.pem"
    mine = load_or_create_key(key_file).public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    storage = SqliteStorage(tmp_path / "server.db")
    ratings = {storage.upsert_identity(mine, "kiri", 1): (30.0, 2.0)}
    other = Ed25519PrivateKey.generate().public_key().public_bytes_raw()
    ratings[storage.upsert_identity(other, "bob", 1)] = (40.0, 2.0)
    storage.set_ratings(ratings, "sushi-go")
    storage.close()
    async with local_server(tmp_path) as (host, port):
        ours = await asyncio.to_thread(
            main, [f"{host}:{port}", "--leaderboard", "--key", str(key_file)]
        )
        fresh = await asyncio.to_thread(
            main, [f"{host}:{port}", "--leaderboard", "--key", str(new_key)]
        )
    assert (ours, fresh) == (0, 0)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Sushi Go! leaderboard: 2 rated players"
    assert out[3].split()[:2] == ["2*", "kiri"], out
    storage = SqliteStorage(tmp_path / "server.db")
    try:
        names = {entry.name for entry in storage.leaderboard(limit=10, kind="sushi-go")}
    finally:
        storage.close()
    assert names == {"kiri", "bob"}, "the key kept its name on the ladder"
    words = " ".join(out[-2:])
    assert "you are not rated at Sushi Go! yet" in words
    assert "two or more players logged in with --key" in words


@pytest.mark.parametrize(
    ("greeting", "said"),
    [
        (b"HTTP/1.1 400 Bad Request\r\nServer: nginx\r\n\r\n", "it answered like a web server"),
        (b"SSH-2.0-OpenSSH_9.6\r\n", "it answered like an SSH server: 'SSH-2.0-OpenSSH_9.6'"),
        (b"220 mail.example.org ESMTP\r\n", "it answered with text: '220 mail.example.org"),
        (bytes(range(200, 232)), "it answered with bytes that are no sushigo frame: c8 c9"),
    ],
)
async def test_a_service_that_is_no_sushigo_server_is_named_as_such(
    capsys: pytest.CaptureFixture[str], greeting: bytes, said: str
) -> None:
    """A web server, an SSH server, a mail server, a stream of bytes at the address: one line
    naming the address and what answered (not a frame of 1.2 GB, not twice)."""

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(greeting)
        await writer.drain()
        await reader.read(1024)  # until the client gives up and closes
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        code = await asyncio.to_thread(main, [f"127.0.0.1:{port}", "--name", "ann"])
    finally:
        server.close()
        await server.wait_closed()
    assert code == 1
    err = capsys.readouterr().err
    assert len([line for line in err.splitlines() if line]) == 1, err
    assert _one_line(err).startswith(
        f"sushigo-client: error: 127.0.0.1:{port} is not a sushigo server ({said}"
    ), err


async def test_a_tls_server_reached_without_tls_says_to_give_tls(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = ensure_certificate(tmp_path / "tls")
    storage = SqliteStorage(tmp_path / "server.db")
    hub = Hub(storage=storage, key=Ed25519PrivateKey.generate(), wall_ms=lambda: 1_700_000_000_000)
    server = Server(hub, "127.0.0.1", 0, server_ssl_context(files))
    host, port = (await server.start())[0]
    try:
        code = await asyncio.to_thread(main, [f"{host}:{port}", "--name", "ann"])
    finally:
        await server.stop()
        storage.close()
    assert code == 1
    line = _one_line(capsys.readouterr().err)
    assert f"{host}:{port} closed the connection without answering" in line, line
    assert "a sushigo server with TLS needs --tls" in line
