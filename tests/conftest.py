"""Fixtures for every test folder: a real PostgreSQL, started once per test run (tests/pgcluster.py)."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pgcluster import PgCluster

pytest_plugins = ["smalldisk"]  # the `as_root` marker


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PgCluster]:
    """One PostgreSQL for the whole run, in a temporary directory (stopped and removed at the
    end). Tests that stop it make their own (`PgCluster` in tests/pgcluster.py)."""
    # Imported here, by the tests that use PostgreSQL only: pgserver's import looks for a
    # runtime folder, which a test run again in a user namespace (tests/smalldisk.py) has none of.
    from pgcluster import PgCluster  # noqa: PLC0415

    with tempfile.TemporaryDirectory(prefix="sushigo-pg-") as tmp:
        cluster = PgCluster(Path(tmp) / "pg")
        cluster.start()
        try:
            yield cluster
        finally:
            cluster.stop()


@pytest.fixture
def pg_url(pg_cluster: PgCluster) -> str:
    """The URL of a fresh, empty database of its own for this test."""
    return pg_cluster.new_database()


@pytest.fixture(params=["sqlite", "postgresql"])
def server_db(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, ...]:
    """A server's ``--db`` (and ``--key``) on each backend in turn: an SQLite file, or a fresh
    PostgreSQL database (with the key in the test's directory)."""
    if request.param == "sqlite":
        return ("--db", str(tmp_path / "server.db"))
    url: str = request.getfixturevalue("pg_url")
    return ("--db", url, "--key", str(tmp_path / "server.key"))
