"""`sushigo-server` that cannot start: one line naming what is wrong, exit code 1, and nothing made
(no database, no lock, no key, no folder). The real command, as a process."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

SERVER = str(Path(sys.executable).with_name("sushigo-server"))


def _server(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [SERVER, "--host", "127.0.0.1", *args],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "HOME": str(home), "XDG_DATA_HOME": ""},
    )


def _one_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 1, done.stderr
    assert done.stdout == "" and "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


def _files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def test_a_port_in_use_is_named_and_nothing_is_made(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = _server("--port", str(port), "--db", str(tmp_path / "s.db"), home=tmp_path)
        default = _server("--port", str(port), home=tmp_path)  # the default database too
    for run in (done, default):
        line = _one_line(run)
        assert (
            line
            == f"sushigo-server: error: cannot listen on 127.0.0.1:{port}: Address already in use"
        )
    assert _files(tmp_path) == [], "no database, lock, key or folder"


@pytest.mark.parametrize("option", ["--db", "--key"])
def test_a_file_in_a_missing_folder_is_an_error_not_a_new_folder(
    tmp_path: Path, option: str
) -> None:
    missing = tmp_path / "nonexistent" / "dir"
    args = ["--port", "0", option, str(missing / "x.db")]
    if option == "--key":
        args += ["--db", str(tmp_path / "s.db")]
    line = _one_line(_server(*args, home=tmp_path))
    assert line.startswith(f"sushigo-server: error: {option} {missing / 'x.db'}: ")
    assert f"there is no folder {missing}" in line
    assert _files(tmp_path) == []


def test_an_admin_key_that_cannot_be_read_stops_the_server_before_its_database(
    tmp_path: Path,
) -> None:
    line = _one_line(
        _server(
            "--port",
            "0",
            "--db",
            str(tmp_path / "s.db"),
            "--admin-key",
            str(tmp_path / "no.pub"),
            home=tmp_path,
        )
    )
    assert "no.pub" in line
    assert _files(tmp_path) == []


@pytest.mark.parametrize("option", ["--metrics", "--web"])
def test_a_second_address_in_use_is_named_and_nothing_is_made(tmp_path: Path, option: str) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = _server("--port", "0", option, f"127.0.0.1:{port}", home=tmp_path)
    line = _one_line(done)
    assert line.startswith(f"sushigo-server: error: cannot listen on 127.0.0.1:{port} ({option}): ")
    assert _files(tmp_path) == [], "not even the default database"


@pytest.mark.parametrize(
    "option", [("--advertise", "203.0.113.5:7777"), ("--lease", "30"), ("--quick-patience", "0")]
)
def test_a_cluster_option_without_node_is_a_usage_error(
    tmp_path: Path, option: tuple[str, str]
) -> None:
    """Each says how a cluster's node is reached or behaves: alone it would be ignored, and the
    operator who gave it believe it in force. One line, exit code 2, nothing made."""
    done = _server("--port", "0", *option, home=tmp_path)
    assert done.returncode == 2, done.stderr
    assert f"sushigo-server: error: {option[0]} goes with --node: " in done.stderr, done.stderr
    assert done.stderr.count("error:") == 1
    assert _files(tmp_path) == []
