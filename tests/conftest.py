"""Fixtures for every test folder: a real PostgreSQL, started once per test process
(tests/pgcluster.py); and how a run is spread over processes (pytest-xdist)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from pgcluster import PgCluster

pytest_plugins = ["smalldisk"]  # the `as_root` marker

WORKERS = 4
"""Test processes for a run of folders (the whole suite, say). Most of the slow tests wait on
the wall clock (leases, restarts, timers, real processes starting), not on a core, so on a
two-core machine four processes overlap those waits well and still leave the cores busy."""

FIRST = ("cluster", "integration", "web")
"""Folders whose tests are long (real processes, real waits): started first, so that the last
minutes of a parallel run are short tests filling in around them rather than one long test
holding everything up."""


@pytest.hookimpl
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto`` (pyproject.toml's default): `WORKERS` processes when the command names a
    folder, or nothing (the whole suite); none (this process alone) when it names test files
    or single tests only, whose run would not win back the processes' start-up. ``-n N`` on
    the command line, or PYTEST_XDIST_AUTO_NUM_WORKERS, decides instead."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # pytest-xdist's own hook reads it
    base = config.invocation_params.dir
    if config.args and all((base / arg.split("::")[0]).is_file() for arg in config.args):
        return 0
    return WORKERS


TOGETHER = ("tests/web/",)
"""Folders whose test files all go to one test process in a parallel run: the browser tests
share one headless Chromium (tests/web/conftest.py's `chromium`, a fixture of the process),
which every process given one of their files would otherwise start again."""


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadfile`` (pyproject.toml's default): pytest-xdist's own scheduling, a test
    file to a process whole, but a folder of `TOGETHER` to one process whole."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling  # noqa: PLC0415  (a parallel run's only)

    class Together(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            folder = next((each for each in TOGETHER if nodeid.startswith(each)), None)
            return folder or super()._split_scope(nodeid)

    return Together(config, log)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In a parallel run, the long folders' test files first (`FIRST`); the order is otherwise
    kept, as every process collects, and must agree on, the same order."""
    if "PYTEST_XDIST_WORKER" not in os.environ:  # set in the processes of a parallel run
        return
    root = Path(__file__).parent

    def rank(item: pytest.Item) -> int:
        try:
            folder = item.path.relative_to(root).parts[0]
        except ValueError:
            return len(FIRST)
        return FIRST.index(folder) if folder in FIRST else len(FIRST)

    items.sort(key=rank)


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PgCluster]:
    """One PostgreSQL for the whole run of this process, in a temporary directory (in memory
    where the machine has a place for it: tests/pgcluster.py), started when a test first asks
    for it, stopped and removed at the end. Tests that stop it make their own (`PgCluster`)."""
    # Imported here, by the tests that use PostgreSQL only: pgserver's import looks for a
    # runtime folder, which a test run again in a user namespace (tests/smalldisk.py) has none of.
    from pgcluster import PgCluster, scratch  # noqa: PLC0415

    with tempfile.TemporaryDirectory(prefix="sushigo-pg-", dir=scratch()) as tmp:
        cluster = PgCluster(Path(tmp) / "pg")
        cluster.start()
        try:
            yield cluster
        finally:
            cluster.discard()


@pytest.fixture
def pg_url(pg_cluster: PgCluster) -> Iterator[str]:
    """The URL of a fresh, empty database of its own for this test (dropped after it)."""
    url = pg_cluster.new_database()
    yield url
    pg_cluster.drop_database(url)


@pytest.fixture(params=["sqlite", "postgresql"])
def server_db(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, ...]:
    """A server's ``--db`` (and ``--key``) on each backend in turn: an SQLite file, or a fresh
    PostgreSQL database (with the key in the test's directory)."""
    if request.param == "sqlite":
        return ("--db", str(tmp_path / "server.db"))
    url: str = request.getfixturevalue("pg_url")
    return ("--db", url, "--key", str(tmp_path / "server.key"))
