"""A real PostgreSQL for the tests, from the `pgserver` package (PostgreSQL's binaries in a wheel).

`PgCluster` makes a cluster in a temporary directory and runs it on a free loopback port with
password authentication over TCP, as a deployed server would be reached (`postgresql://user:
password@host:port/db`), so the URL, the password check and the network path are all real. The
cluster can be stopped and started again on the same port (a database outage, in a test). As
root, PostgreSQL refuses to run, so it runs as the system user pgserver makes for that; that user
must reach its programs and its data, wherever the checkout is (a clone in a private folder, such
as ``mktemp -d`` makes or ``/root``, is closed to it): its programs are copied once into a folder
of their own in the temporary directory (`binaries`), and the folders above a cluster's data in
the temporary directory are opened to it for passing through, no more (`open_up`).

Settings for speed, not safety: ``fsync=off`` (the tests kill the sushigo server, never
PostgreSQL or the machine, so what PostgreSQL has accepted is durable enough), small shared
memory and a small write-ahead log, so that several test runs (and the several processes of a
parallel one, each with a cluster of its own) can share a small machine. `scratch` is where a
cluster had best live: in memory where the machine offers that, as a database per test (about
8 MB of files and as much of log, each) adds up to gigabytes over a run, which a disk would
otherwise be writing back, and deleting, for minutes after the tests.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import functools
import os
import pwd
import secrets
import shutil
import signal
import socket
import stat
import subprocess
import tempfile
import warnings
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Final

import asyncpg

with warnings.catch_warnings():
    # pgserver asks for a runtime directory as it is imported, one it does not use here: no
    # warning for the scripts that start a PostgreSQL by this module (chaos, load, benchmarks).
    warnings.filterwarnings("ignore", "XDG_RUNTIME_DIR is not set")
    from pgserver._commands import POSTGRES_BIN_PATH
    from pgserver.utils import ensure_user_exists

SUPERUSER: Final = "postgres"
SYSTEM_USER: Final = "pgserver"
"""The system user PostgreSQL runs as when the tests run as root (the one pgserver makes)."""


MEMORY: Final = Path("/dev/shm")
"""A file system in memory on most Linux machines."""


def scratch() -> Path | None:
    """The folder a test cluster's temporary directory goes in: `MEMORY` when it is there to
    write in, else None (the system's temporary folder)."""
    if MEMORY.is_dir() and os.access(MEMORY, os.W_OK | os.X_OK):
        return MEMORY
    return None


def free_port() -> int:
    """A loopback TCP port nothing listens on (at the time of asking)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class PgCluster:
    """One PostgreSQL cluster under `root`, started by `start` and stopped by `stop`."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.data = root / "data"
        self.sockets = root / "run"
        self.log = root / "postgres.log"
        """The server's own log (written by PostgreSQL's user)."""
        self.out = root / "commands.log"
        """What initdb and pg_ctl printed."""
        self.port = free_port()
        self.password = secrets.token_hex(8)
        """The superuser's password (TCP connections must give it)."""
        self.running = False
        self._user: str | None = None
        root.mkdir(parents=True, exist_ok=True)
        self.bins = POSTGRES_BIN_PATH
        """PostgreSQL's programs, as this cluster runs them."""
        if os.geteuid() == 0:
            self._user = SYSTEM_USER
            ensure_user_exists(SYSTEM_USER)
            open_up(root)
            self.bins = binaries()
        for folder in (self.data, self.sockets):
            folder.mkdir(mode=0o700)
            self._own(folder)
        secret = root / "pwfile"
        secret.write_text(self.password + "\n")
        self._own(secret)
        self._own(root)
        self._run(
            "initdb",
            *("-U", SUPERUSER, "--pwfile", str(secret), "-E", "UTF8", "--no-sync"),
            *("--auth-local", "trust", "--auth-host", "scram-sha-256"),
        )
        secret.unlink()

    def _run(self, program: str, *args: str) -> None:
        """Run one of PostgreSQL's programs on this cluster; its output goes to the log (pg_ctl's
        server keeps its output open, so a pipe would never close)."""
        with self.out.open("a") as log:
            try:
                done = subprocess.run(
                    [str(self.bins / program), "-D", str(self.data), *args],
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    # As that user alone: root's group would keep it out of folders of group root
                    # that others may pass through.
                    user=self._user,
                    group=self._user,
                    extra_groups=[] if self._user else None,
                    timeout=120,
                    check=False,
                )
            except OSError as exc:
                who = f" as the user {self._user}" if self._user else ""
                raise RuntimeError(
                    f"PostgreSQL cannot start: running {self.bins / program}{who} failed:"
                    f" {exc.strerror or exc}"
                ) from None
        if done.returncode != 0:
            lines = self.out.read_text(errors="replace").splitlines()
            if self.log.exists():
                lines += self.log.read_text(errors="replace").splitlines()
            tail = lines[-20:]
            raise RuntimeError(f"{program} failed ({done.returncode}):\n" + "\n".join(tail))

    def _own(self, path: Path) -> None:
        if self._user is not None:
            entry = pwd.getpwnam(self._user)
            os.chown(path, entry.pw_uid, entry.pw_gid)

    def start(self, *, durable: bool = False) -> None:
        """Start it (again). `durable`: PostgreSQL's own safe defaults (for benchmarks),
        instead of the tests' settings for speed."""
        fast = (
            ""
            if durable
            else "-c fsync=off -c full_page_writes=off -c shared_buffers=32MB"
            " -c min_wal_size=32MB -c max_wal_size=64MB"
        )
        options = " ".join(
            (f"-h 127.0.0.1 -p {self.port} -k {self.sockets}", fast, "-c max_connections=60")
        )
        self._run("pg_ctl", "-w", "-t", "60", "-l", str(self.log), "-o", options, "start")
        self.running = True

    def stop(self) -> None:
        """Stop the server now ("fast": open connections are ended, as in an outage)."""
        if not self.running:
            return
        try:
            self._run("pg_ctl", "-w", "-t", "60", "-m", "fast", "stop")
        except RuntimeError:
            self._run("pg_ctl", "-w", "-m", "immediate", "stop")
        self.running = False

    def processes(self) -> list[int]:
        """PostgreSQL's processes now: the postmaster and its children (every backend)."""
        postmaster = int((self.data / "postmaster.pid").read_text().split()[0])
        return [postmaster, *children_of(postmaster)]

    def pause(self) -> None:
        """SIGSTOP every process of PostgreSQL: its connections stay open and answer nothing, as
        a frozen machine's (or a saturated disk's) would; `unpause` wakes them."""
        for pid in self.processes():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGSTOP)

    def unpause(self) -> None:
        """SIGCONT every process of PostgreSQL (after `pause`)."""
        for pid in self.processes():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)

    def discard(self) -> None:
        """Stop the server at once, its files about to be deleted: no shutdown checkpoint
        (PostgreSQL's "immediate" mode, as in a crash)."""
        if self.running:
            self._run("pg_ctl", "-w", "-m", "immediate", "stop")
            self.running = False

    def cpu_seconds(self) -> float:
        """The CPU time PostgreSQL has used since it started (Linux): the postmaster, its live
        children (the backends, the checkpointer, the WAL writer...) and those it has reaped
        (backends that ended). Taken twice, the difference is what a run cost it."""
        postmaster = int((self.data / "postmaster.pid").read_text().split()[0])
        own, reaped = process_cpu(postmaster)
        total = own + reaped
        for child in children_of(postmaster):
            with contextlib.suppress(OSError, ValueError, IndexError):  # it ended meanwhile
                total += sum(process_cpu(child))
        return total

    def url(self, database: str, user: str = SUPERUSER, password: str | None = None) -> str:
        """The URL a sushigo server is given (the superuser's password unless told)."""
        secret = self.password if password is None else password
        return f"postgresql://{user}:{secret}@127.0.0.1:{self.port}/{database}"

    def sql(self, *statements: str, database: str = "postgres") -> None:
        """Run statements as the superuser, outside any transaction (CREATE DATABASE needs
        that)."""

        async def run() -> None:
            conn = await asyncpg.connect(self.url(database))
            try:
                for statement in statements:
                    await conn.execute(statement)
            finally:
                await conn.close()

        # In a thread of its own: the caller may be inside a running event loop (an async test).
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            pool.submit(asyncio.run, run()).result()

    def new_database(self) -> str:
        """A fresh, empty database; its URL."""
        name = "t_" + secrets.token_hex(6)
        self.sql(f"CREATE DATABASE {name}")
        return self.url(name)

    def drop_database(self, url: str) -> None:
        """Drop the database of `url` (one `new_database` made), ending any connection to it
        still open."""
        name = url.rsplit("/", 1)[1]
        self.sql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@contextlib.asynccontextmanager
async def running_cluster(root: Path) -> AsyncIterator[tuple[PgCluster, str]]:
    """A PostgreSQL of the test's own in `root` (a test may stop, start or pause it), started,
    and a database on it; woken if paused and stopped at the end."""
    cluster = PgCluster(root)
    await asyncio.to_thread(cluster.start)
    try:
        yield cluster, await asyncio.to_thread(cluster.new_database)
    finally:
        if cluster.running:
            cluster.unpause()
        await asyncio.to_thread(cluster.stop)


@contextlib.asynccontextmanager
async def own_postgresql() -> AsyncIterator[tuple[PgCluster, str]]:
    """`running_cluster` in a temporary directory of its own."""
    # Not under pytest's folder: every pytest run that starts makes its base folder private
    # again (mode 0700), which would lock PostgreSQL's own user out of it.
    with tempfile.TemporaryDirectory(prefix="sushigo-pg-") as tmp:
        async with running_cluster(Path(tmp) / "pg") as both:
            yield both


def open_up(root: Path) -> None:
    """Let PostgreSQL's system user pass through every folder above `root` (mode o+x, not
    o+r): those in the temporary directory (or in `MEMORY`) that this user owns are opened; any
    other closed to it is an error saying which, and nothing is changed outside those two."""
    temporary = Path(tempfile.gettempdir()).resolve()
    ours = (temporary, MEMORY.resolve())
    for folder in root.resolve().parents:
        mode = folder.stat().st_mode
        if mode & stat.S_IXOTH:
            continue
        if any(place in folder.parents for place in ours) and folder.stat().st_uid == os.geteuid():
            folder.chmod(stat.S_IMODE(mode) | stat.S_IXOTH)
            continue
        raise RuntimeError(
            f"PostgreSQL cannot start: it runs as the user {SYSTEM_USER} (it refuses root), who"
            f" cannot enter {folder} (mode {stat.S_IMODE(mode):04o}) to reach its data in {root};"
            " give the tests a temporary folder every user may pass through (TMPDIR, now"
            f" {temporary})"
        )


@functools.cache
def binaries() -> Path:
    """PostgreSQL's programs (with the libraries and files they find beside them) in a folder of
    their own in the temporary directory, that every user may read and run, once per process
    (removed at its exit): pgserver's own lie in the checkout's .venv, which its system user
    cannot reach from a private folder (and pgserver would open every folder above them to
    everyone instead). Linked, not copied, where the file system allows and the file is
    readable by all already; a copy is made readable by all (the .venv is never changed)."""
    copy = Path(tempfile.mkdtemp(prefix="sushigo-pginstall-"))
    atexit.register(shutil.rmtree, copy, ignore_errors=True)
    install = POSTGRES_BIN_PATH.parent  # .../site-packages/pgserver/pginstall
    # The same layout: the programs find the libraries the wheel carries in pgserver.libs by a
    # path relative to themselves ($ORIGIN/../../../pgserver.libs).
    placed = copy / install.parent.name / install.name
    (placed / "bin").mkdir(parents=True)
    for program in ("postgres", "initdb", "pg_ctl"):
        _place(install / "bin" / program, placed / "bin" / program)
    for part in (install / "lib", install / "share", install.parents[1] / "pgserver.libs"):
        if part.exists():
            target = copy / part.name if part.name.endswith(".libs") else placed / part.name
            shutil.copytree(part, target, symlinks=True, copy_function=_place)
    for folder in (copy, *(path for path in copy.rglob("*") if path.is_dir())):
        folder.chmod(0o755)
    open_up(placed / "bin")
    return placed / "bin"


def _place(source: str | Path, target: str | Path) -> None:
    """`source` at `target`, readable (and runnable, if it is a program) by every user."""
    mode = stat.S_IMODE(os.stat(source).st_mode)
    wanted = mode | 0o444 | (0o111 if mode & stat.S_IXUSR else 0)
    if mode == wanted:
        try:
            os.link(source, target)
            return
        except OSError:  # another file system: a copy
            pass
    shutil.copy2(source, target)
    os.chmod(target, wanted)


def process_cpu(pid: int) -> tuple[float, float]:
    """A process's CPU seconds from /proc (Linux): its own (user and system), and that of the
    children it has reaped."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    own = (int(fields[11]) + int(fields[12])) / tick
    return own, (int(fields[13]) + int(fields[14])) / tick


def children_of(pid: int) -> list[int]:
    """The live child processes of `pid` (from /proc)."""
    found: list[int] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue  # gone meanwhile
        if ppid == pid:
            found.append(int(entry.name))
    return found
