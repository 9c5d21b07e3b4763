"""A small file system for the tests of a full or read-only disk: a tmpfs of a given size, real
(the kernel says ENOSPC and EROFS, not a mock), and the `as_root` marker for the tests that mount
one.

As root, `SmallDisk` mounts it where the test asks. An ordinary user may mount one only in a user
and mount namespace of its own (``unshare -rm``), where the user is root; two ways in:

- A test marked `as_root` is run, as an ordinary user, in a pytest of its own inside such a
  namespace (where it is root, and mounts as root does): its processes and itself see the disk
  where it was mounted. This is what SQLite needs: it resolves symbolic links in a database's path
  itself, and ``/proc/PID/root`` (below) is one, to this process's own root.
- Unmarked, `SmallDisk` mounts it in a namespace held by a small shell that lives as long as the
  `SmallDisk`, and the test and the processes it starts reach it through that shell's view of the
  file system, ``/proc/PID/root/...``, a path like any other to this user's processes. This is
  what PostgreSQL needs: it refuses to run as root, even a namespace's.

Where neither is possible, the test is skipped, saying why.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Final

import pytest

CHUNK: Final = 64 * 1024

# The holder (as an ordinary user): mounts the tmpfs in its namespace, says "ready", then makes
# the mount read-only or writable when told, until its input ends. (A user namespace's root may
# remount the mount, not the file system under it; to its writers both say EROFS.)
_HOLDER: Final = """
mount -t tmpfs -o size="$2",mode=0755 sushigo-small "$1" || exit 1
echo ready
while read -r line; do
    mount -o remount,bind,"$line" "$1"
    echo "=$?"
done
"""


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "as_root: run as root; as an ordinary user, in a pytest of its own inside a user and"
        " mount namespace where it is root (tests/smalldisk.py)",
    )


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    """An `as_root` test, run by an ordinary user: run it again as root of a user namespace of
    its own, and take its outcome."""
    if pyfuncitem.get_closest_marker("as_root") is None or os.geteuid() == 0:
        return None
    problem = mount_problem()
    if problem is not None:
        pytest.skip(f"this test mounts a tmpfs: {problem}")
    with tempfile.TemporaryDirectory(prefix="sushigo-as-root-") as base:
        # Its own runtime folder for pgserver's import: one made by the real root elsewhere
        # belongs to nobody in the namespace, and is refused.
        run = Path(base, "run")
        run.mkdir(mode=0o700)
        again = ("-m", "pytest", "-q", "-p", "no:cacheprovider", f"--basetemp={base}/tmp")
        done = subprocess.run(
            ["unshare", "-rm", sys.executable, *again, pyfuncitem.nodeid],
            cwd=pyfuncitem.config.rootpath,
            env={**os.environ, "XDG_RUNTIME_DIR": str(run)},
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
    if done.returncode == 5 or "1 skipped" in done.stdout:
        pytest.skip(f"inside a user namespace: {done.stdout.strip().splitlines()[-1]}")
    if done.returncode != 0:
        pytest.fail(
            f"as root of a user namespace (unshare -rm), it failed:\n{done.stdout}{done.stderr}",
            pytrace=False,
        )
    return True


def mount_problem() -> str | None:
    """Why no small disk can be made here, or None."""
    if os.geteuid() == 0:
        return None if shutil.which("mount") else "the mount command is missing"
    if shutil.which("unshare") is None:
        return "not root, and the unshare command (util-linux) is missing"
    done = subprocess.run(
        ["unshare", "-rm", "true"], capture_output=True, text=True, timeout=30, check=False
    )
    if done.returncode != 0:
        return (
            "not root, and no user namespace for an ordinary user (unshare -rm:"
            f" {done.stderr.strip()}; see the sysctls user.max_user_namespaces and"
            " kernel.unprivileged_userns_clone)"
        )
    return None


class SmallDisk:
    """A tmpfs of `size` bytes at `where` (an empty folder), reached at `path`."""

    def __init__(self, where: Path, size: int) -> None:
        problem = mount_problem()
        if problem is not None:
            pytest.skip(f"a small disk is a tmpfs mounted: {problem}")
        where.mkdir(parents=True, exist_ok=True)
        self.where = where
        self.filler = 0
        """Bytes `fill` wrote (0: the disk has its room)."""
        self._holder: subprocess.Popen[str] | None = None
        if os.geteuid() == 0:
            _run("mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "sushigo-small", where)
            self.path = where
            """Where the test and its processes find the disk."""
            return
        holder = subprocess.Popen(
            ["unshare", "-rm", "sh", "-c", _HOLDER, "sh", str(where), str(size)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self._holder = holder
        assert holder.stdout is not None
        if holder.stdout.readline() != "ready\n":
            holder.kill()
            raise RuntimeError(f"could not mount a tmpfs at {where} in a user namespace")
        self.path = Path(f"/proc/{holder.pid}/root") / where.relative_to("/")

    def fill(self) -> int:
        """Fill what room is left with one file; how many bytes that took."""
        block = b"\0" * CHUNK
        with (self.path / "filler").open("ab", buffering=0) as out:
            size = CHUNK
            while size:  # down to single bytes: not a byte is left
                try:
                    self.filler += out.write(block[:size])
                except OSError as exc:
                    if exc.errno != errno.ENOSPC:
                        raise
                    size //= 2
        return self.filler

    def free(self) -> None:
        """Give the room `fill` took back."""
        (self.path / "filler").unlink()
        self.filler = 0

    def remount(self, *, read_only: bool) -> None:
        """Make the mount read-only, or writable again. (The kernel refuses while a file on it
        is open for writing: a running server's database, for one.)"""
        mode = "ro" if read_only else "rw"
        if self._holder is None:
            _run("mount", "-o", f"remount,bind,{mode}", self.where)
            return
        assert self._holder.stdin is not None and self._holder.stdout is not None
        self._holder.stdin.write(mode + "\n")
        self._holder.stdin.flush()
        answer = self._holder.stdout.readline()
        if answer != "=0\n":
            raise RuntimeError(f"remount,{mode} of {self.where} failed ({answer.strip()})")

    def close(self) -> None:
        """Unmount (at once for the processes to come; for those with files open on it, when
        they close them)."""
        holder, self._holder = self._holder, None
        if holder is not None:
            with contextlib.suppress(OSError):
                assert holder.stdin is not None
                holder.stdin.close()
            try:
                holder.wait(timeout=10)
            except subprocess.TimeoutExpired:
                holder.kill()
                holder.wait()
        elif os.geteuid() == 0:
            _run("umount", "--lazy", self.where)

    def __enter__(self) -> SmallDisk:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _run(*command: str | Path) -> None:
    done = subprocess.run(
        [str(part) for part in command], capture_output=True, text=True, timeout=30, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, command))}: {done.stderr.strip()}")
