"""The servers under test: one `sushigo-server` process (`start_server`), or a cluster's nodes
on one PostgreSQL (`start_nodes`), their CPU and memory read from /proc, and a node killed
(``--kill-node-after``)."""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

from .options import HOST

LOG_LINES = 1000
"""Lines of the server's stderr kept for the report."""
ROOT = Path(__file__).resolve().parents[2]
"""The repository (this file is scripts/load/servers.py)."""


@dataclass
class ServerProcess:
    """The server under test."""

    proc: subprocess.Popen[str]
    port: int
    tmp: tempfile.TemporaryDirectory[str]
    log: list[str] = field(default_factory=list)
    """What the server wrote to stderr (read as it comes, so a chatty server never blocks on a
    full pipe; the first `LOG_LINES` lines are kept, the rest counted)."""
    more_log: int = 0
    reader: threading.Thread | None = None
    metrics_url: str = ""
    """The server's /metrics (``--metrics``), or empty."""
    web_port: int = 0
    """The server's web port (``--web``), or 0."""

    def read_log(self) -> None:
        """Start reading the server's stderr in a thread."""

        def read() -> None:
            assert self.proc.stderr is not None
            for line in self.proc.stderr:
                if len(self.log) < LOG_LINES:
                    self.log.append(line.rstrip("\n"))
                else:
                    self.more_log += 1

        self.reader = threading.Thread(target=read, daemon=True)
        self.reader.start()

    def status(self) -> dict[str, int]:
        """VmHWM, VmRSS (KiB) and CPU ticks of the server: ``ticks`` (utime + stime), and
        ``user`` and ``system`` apart."""
        out: dict[str, int] = {}
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
                key, _, value = line.partition(":")
                if key in ("VmHWM", "VmRSS"):
                    out[key] = int(value.split()[0])
            fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
            out["user"], out["system"] = int(fields[11]), int(fields[12])
            out["ticks"] = out["user"] + out["system"]
        return out

    def stop(self) -> str:
        """SIGTERM, wait, and whatever the server wrote to stderr."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.reader is not None:
            self.reader.join(timeout=10)
        self.tmp.cleanup()
        lines = [*self.log, *([f"... and {self.more_log} more lines"] if self.more_log else [])]
        return "\n".join(lines)


def start_server(
    turn_seconds: int,
    cpus: set[int] | None,
    extra: list[str],
    prefix: list[str] | None = None,
    port: int = 0,
    exe: Path | None = None,
) -> ServerProcess:
    """Start the server on a free port of 127.0.0.1 and wait for its "listening" line. `prefix`
    runs it under another command (a profiler: ``py-spy record -o out.txt --``, valgrind); `exe`
    is another build's ``sushigo-server`` (default: this checkout's)."""
    tmp = tempfile.TemporaryDirectory(prefix="sushigo-load-")
    exe = exe or ROOT / ".venv" / "bin" / "sushigo-server"
    command = [*(prefix or [])]
    command += [str(exe)] if exe.exists() else [sys.executable, "-m", "sushigo.server.cli"]
    command += [
        "--host",
        HOST,
        "--port",
        str(port),
        "--db",  # a --db in `extra`, which comes later, wins
        str(Path(tmp.name) / "load.db"),
        "--key",
        str(Path(tmp.name) / "server.key"),
        "--log-level",
        "warning",
        "--max-per-address",
        "100000",
        "--max-unidentified-per-address",  # every seat connects from 127.0.0.1 at once
        "100000",
        "--max-connections",
        "100000",
        "--connect-rate-per-address",
        "1e9",
        "--connect-burst-per-address",
        "1e9",
        "--turn-seconds",
        str(turn_seconds),
        *extra,
    ]

    proc = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    if cpus:
        with contextlib.suppress(OSError):
            os.sched_setaffinity(proc.pid, cpus)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line.startswith("sushigo-server listening on "):
        err = proc.stderr.read() if proc.stderr else ""
        proc.kill()
        tmp.cleanup()
        raise SystemExit(f"loadtest: the server did not start: {line!r} {err}")
    port = int(line.split()[3].rsplit(":", 1)[1])
    server = ServerProcess(proc, port, tmp)
    if "--metrics" in extra:
        line = proc.stdout.readline()  # "sushigo-server metrics on http://HOST:PORT/metrics"
        server.metrics_url = line.split()[-1]
    if "--web" in extra:
        line = proc.stdout.readline()  # "sushigo-server web client on http://HOST:PORT/"
        server.web_port = int(line.split()[-1].rstrip("/").rsplit(":", 1)[1])
    server.read_log()
    return server


class Nodes:
    """A cluster's node processes, seen as one server: CPU added up, memory added up, logs
    joined."""

    def __init__(self, servers: list[ServerProcess]) -> None:
        self.servers = servers
        self.port = servers[0].port
        self.metrics_url = ""
        self.last: dict[int, dict[str, int]] = {}
        """Each node's status as last read (a killed node's is read just before the kill)."""

    def status(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for i, server in enumerate(self.servers):
            status = server.status() or self.last.get(i, {})
            self.last[i] = status
            for key, value in status.items():
                out[key] = out.get(key, 0) + value
        return out

    def ticks(self) -> list[int]:
        """Each node's CPU ticks so far (user and system)."""
        self.status()
        return [self.last.get(i, {}).get("ticks", 0) for i in range(len(self.servers))]

    def stop(self) -> str:
        return "\n".join(server.stop() for server in self.servers)

    def kill_first(self) -> None:
        """SIGKILL the first node (``--kill-node-after``): its players must play on elsewhere."""
        self.last[0] = self.servers[0].status()  # the CPU it used, counted to its death
        self.servers[0].proc.kill()


def start_nodes(args: argparse.Namespace, extra: list[str], folder: Path) -> Nodes:
    """`--nodes` node processes on the cluster database `args.db`, sharing one key; each pinned
    to a CPU of its own, in turn."""
    sys.path.insert(0, str(ROOT / "tests"))
    from pgcluster import free_port  # type: ignore[import-not-found]  # noqa: PLC0415

    cpus = sorted(os.sched_getaffinity(0))
    servers: list[ServerProcess] = []
    try:
        for i in range(args.nodes):
            port = free_port()
            node = [*extra, "--key", str(folder / "cluster.key"), "--node", f"n{i + 1}"]
            node += ["--advertise", f"{HOST}:{port}"]
            pin = {cpus[i % len(cpus)]} if args.pin else None
            servers.append(start_server(args.turn_seconds, pin, node, port=port))
    except BaseException:
        for server in servers:
            server.stop()
        raise
    return Nodes(servers)
