"""`sushigo-server`: run a game server.

    sushigo-server --port 7777 [--host 0.0.0.0] [--db PATH|URL] [--key PATH] [--tls]
                   [--admin-key PATH]...
    sushigo-server migrate --from PATH --to URL     copy an SQLite database into PostgreSQL

`--db` takes the path of an SQLite file (the default), or a PostgreSQL URL
(``postgresql://user:password@host:port/dbname``).

Prints one line saying where it listens (and the TLS fingerprint); Ctrl-C or SIGTERM stops it
cleanly, saving every table. Exit codes: 0 after a clean stop, 2 for a usage error, 1 otherwise,
always with a one-line reason.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ctypes
import gc
import logging
import math
import os
import re
import resource
import signal
import ssl
import sys
from collections.abc import Callable, Coroutine
from datetime import timedelta
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

from sushigo.protocol import CURRENT_VERSION
from sushigo.protocol.about import version_text

from . import logs
from .app import Server
from .cluster import DEFAULT_LEASE, QUICK_PATIENCE, Cluster
from .config import HubConfig
from .database import is_url, open_storage
from .hub import Hub
from .keys import KeyFileError, load_admin_key, load_or_create_server_key
from .metrics import MetricsServer, registry_for
from .pg_storage import PgStorage
from .storage import StorageError
from .tls import ensure_certificate, server_ssl_context
from .wallclock import WallClock

uvloop: ModuleType | None
try:
    import uvloop
except ImportError:  # pragma: no cover - uvloop is a dependency on every platform but Windows
    uvloop = None

log = logging.getLogger("sushigo.server")

N = TypeVar("N", int, float)


def default_db() -> Path:
    """The database under the user's data directory ($XDG_DATA_HOME or ~/.local/share)."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(Path.home(), ".local", "share")
    return Path(base) / "sushigo" / "server.db"


def key_path(db: str, key: Path | None) -> Path:
    """The server's signing key file: `key` when given; else beside an SQLite database
    (``DB.key``), or for a PostgreSQL database ``server.key`` beside the default database."""
    if key is not None:
        return key
    if is_url(db):
        return default_db().with_name("server.key")
    path = Path(db)
    return path.with_name(path.name + ".key")


def _number(
    convert: Callable[[str], N], what: str, low: float, high: float, refusal: str
) -> Callable[[str], N]:
    """An argparse type: `what` (``"a port number"``) from `low` to `high`; `refusal` says so,
    with the ``{value}`` and the ``{text}`` given. (A float bound also refuses nan and inf.)"""

    def parse(text: str) -> N:
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not {what}: {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(refusal.format(value=value, text=text))
        return value

    return parse


_positive_int = _number(int, "a whole number", 1, math.inf, "must be at least 1, got {value}")
_port = _number(int, "a port number", 0, 65535, "a port is 0-65535, got {value}")
_seconds = _number(
    float, "a number of seconds", 0.1, 86400, "a time-out is 0.1-86400 seconds, got {text}"
)
_turn_seconds = _number(
    int,
    "a whole number of seconds",
    0,
    600,
    "turn time is 0-600 seconds (0: no timer), got {value}",
)
_rate = _number(float, "a number", 0.001, 1e9, "must be 0.001-1e9, got {text}")
_rate_or_off = _number(float, "a number", 0, 1e9, "must be 0 (no limit) to 1e9, got {text}")
_chat_chars = _number(
    int,
    "a whole number",
    1,
    500,
    "a chat message is 1-500 characters (the protocol's), got {value}",
)
_hours = _number(
    float, "a number of hours", 0.01, 24 * 365, "a lifetime is 0.01-8760 hours, got {text}"
)


def _hours_ms(text: str) -> int:
    return round(_hours(text) * 3_600_000)


def _host_port(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:9100`` for IPv6; an empty host: every address)."""
    host, sep, port = text.rpartition(":")
    if not sep:
        raise argparse.ArgumentTypeError(f"not HOST:PORT: {text!r}")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    elif ":" in host:
        raise argparse.ArgumentTypeError(f"put an IPv6 address in brackets: [{host}]:{port}")
    return host, _port(port)


_lease = _number(float, "a number of seconds", 1, 3600, "a lease is 1-3600 seconds, got {text}")
_patience = _number(float, "a number of seconds", 0, 3600, "must be 0-3600 seconds, got {text}")


def _node_name(text: str) -> str:
    """A node's name: 1-64 letters, digits, dots, dashes and underscores."""
    if not re.fullmatch(r"[A-Za-z0-9._-]{1,64}", text):
        raise argparse.ArgumentTypeError(
            f"a node name is 1-64 letters, digits, '.', '-' or '_', got {text!r}"
        )
    return text


def _advertised(text: str) -> str:
    """``HOST:PORT`` that clients can reach (a host is required; port 1-65535)."""
    host, port = _host_port(text)
    if not host or port == 0:
        raise argparse.ArgumentTypeError(f"clients need a host and a port: {text!r}")
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def parser() -> argparse.ArgumentParser:
    """The command line."""
    p = argparse.ArgumentParser(
        prog="sushigo-server",
        description="Host Sushi Go! and Sushi Roll tables for terminal clients and bots.",
    )
    p.add_argument("--version", action="version", version=version_text("sushigo-server"))
    p.add_argument("--host", default="0.0.0.0", help="address to listen on (default 0.0.0.0)")
    p.add_argument("--port", type=_port, default=7777, help="TCP port; 0 picks a free one")
    p.add_argument(
        "--db",
        default=None,
        metavar="PATH|URL",
        help=f"SQLite file (default {default_db()}) or PostgreSQL URL "
        "postgresql://user:password@host:port/dbname",
    )
    p.add_argument(
        "--key",
        type=Path,
        default=None,
        metavar="PATH",
        help="the server's signing key (default: DB.key beside an SQLite file; with PostgreSQL, "
        f"{default_db().with_name('server.key')}); created if missing",
    )
    p.add_argument(
        "--turn-seconds",
        type=_turn_seconds,
        default=60,
        help="turn time of quick-match tables (default 60; 0: no timer)",
    )
    p.add_argument(
        "--log-level",
        choices=logs.LEVELS,
        default="info",
        help="how much to log to stderr (default info: one line per notable event; debug adds"
        " every connection and login)",
    )
    p.add_argument(
        "--log-format",
        choices=logs.FORMATS,
        default="text",
        help="text (default): 'TIME level=LEVEL message' lines; json: one object per line",
    )
    p.add_argument(
        "--metrics",
        type=_host_port,
        default=None,
        metavar="HOST:PORT",
        help="serve Prometheus metrics on http://HOST:PORT/metrics, with /healthz and /readyz"
        " (port 0 picks a free one; off by default)",
    )
    p.add_argument(
        "--admin-key",
        type=Path,
        action="append",
        default=[],
        metavar="PATH",
        help="an admin's Ed25519 public key (PEM, as `sushigo-admin public-key` prints it; or the"
        " admin's key file itself, whose public half is read): that key may send admin"
        " requests (sushigo-admin). Repeat for several admins",
    )
    p.add_argument("--tls", action="store_true", help="TLS with a self-signed certificate")
    cluster = p.add_argument_group(
        "cluster (docs/DEPLOY.md): nodes on one PostgreSQL --db, sharing one --key"
    )
    cluster.add_argument(
        "--node",
        default=None,
        metavar="NAME",
        type=_node_name,
        help="run as the node NAME of the cluster on --db (a PostgreSQL URL)",
    )
    cluster.add_argument(
        "--advertise",
        default=None,
        metavar="HOST:PORT",
        type=_advertised,
        help="where clients reach this node (with --node; default: --host:--port, when those"
        " name one address and port)",
    )
    cluster.add_argument(
        "--quick-patience",
        type=_patience,
        default=QUICK_PATIENCE,
        metavar="S",
        help=f"seconds a quick-match table waits for players before the other nodes send theirs"
        f" to it (default {QUICK_PATIENCE:g}; until then each node fills its own)",
    )
    cluster.add_argument(
        "--lease",
        type=_lease,
        default=DEFAULT_LEASE,
        metavar="S",
        help=f"seconds a node's leases last unless renewed (default {DEFAULT_LEASE:g}): a dead "
        "node's tables are taken over this long after it died",
    )
    p.add_argument("--name", default="sushigo", help="server name shown to clients")
    _limits(p.add_argument_group("limits (README.md, 'Limits': what each bounds, NAT advice)"))
    return p


_LIMITS: tuple[tuple[str, str, str], ...] = (
    ("max_connections", "N", "connections open at once, in all"),
    ("max_per_address", "N", "connections open at once from one IP address"),
    ("max_unidentified_per_address", "N", "connections from one address not yet logged in"),
    ("connect_rate_per_address", "O", "new connections a second from one address (0: no limit)"),
    ("connect_burst_per_address", "R", "new connections from one address at once"),
    ("handshake_seconds", "S", "from connecting to logged in (HELLO and login)"),
    ("frame_seconds", "S", "from a frame's first byte to its last"),
    ("heartbeat_seconds", "S", "quiet time before the server pings a connection"),
    ("dead_after_seconds", "S", "silence before a connection is dropped"),
    ("messages_per_second", "R", "messages a connection may send a second, sustained"),
    ("message_burst", "R", "messages a connection may send at once"),
    ("bytes_per_second", "R", "bytes a connection may send a second (and at once)"),
    ("chat_per_second", "R", "chat messages a connection may send a second, sustained"),
    ("chat_burst", "R", "chat messages a connection may send at once"),
    ("strikes_before_close", "N", "RATE_LIMITED refusals within a minute before closing"),
    ("resume_seconds", "S", "how long a disconnected player's session waits for a resume"),
    ("max_away_sessions", "N", "disconnected sessions kept for resume, in all"),
    ("idle_away_per_address", "N", "of them, from one address, of players at no seat"),
    ("sessions_per_player", "N", "connections one player (one key) may have at once"),
    ("tables_per_player", "N", "open tables one player made"),
    ("deserted_per_address", "N", "tables from one address nobody is connected to, kept"),
    ("max_tables", "N", "open tables, in all"),
    ("tournaments_per_address", "N", "unfinished tournaments made from one address"),
    ("abandon_seconds", "S", "a table nobody is connected to closes after this (not mid-game)"),
    ("token_lifetime_ms", "H", "a seated player's resume token survives restarts this long"),
    ("chat_max_chars", "C", "the longest chat message, in characters (1-500)"),
)
"""The limit flags: `HubConfig` field, kind (N: a count, S: seconds, R: a positive number, O: one or 0 for none, H:
hours, kept in milliseconds, C: a chat message's length) and what it bounds. Each field's flag is its name with dashes
(`flag`)."""
_KINDS: dict[str, tuple[Callable[[str], Any], str]] = {
    "N": (_positive_int, "N"),
    "S": (_seconds, "S"),
    "R": (_rate, "R"),
    "O": (_rate_or_off, "R"),
    "H": (_hours_ms, "HOURS"),
    "C": (_chat_chars, "N"),
}


def flag(field: str) -> str:
    """The flag of a `HubConfig` field (``token_lifetime_ms`` is given in hours)."""
    if field == "token_lifetime_ms":
        return "--token-lifetime-hours"
    return "--" + field.replace("_", "-")


def _limits(group: argparse._ArgumentGroup) -> None:
    defaults = HubConfig()
    for field, kind, what in _LIMITS:
        default = getattr(defaults, field)
        shown = default / 3_600_000 if kind == "H" else default
        parse, metavar = _KINDS[kind]
        group.add_argument(
            flag(field),
            dest=field,
            type=parse,
            default=default,
            metavar=metavar,
            help=f"{what} (default {shown:g})",
        )


def raise_fd_limit() -> int:
    """Raise the soft limit on open files to the hard limit (every connection is a file) and
    return the soft limit now. The usual soft default of 1024 would cap the server far below
    ``--max-connections``."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    # An unlimited hard limit (macOS) cannot be the soft one; take a large finite value instead.
    for want in (hard, 1 << 20, 65536, 10240):
        if want == resource.RLIM_INFINITY or (hard != resource.RLIM_INFINITY and want > hard):
            continue
        if want <= soft:
            break
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
        except (ValueError, OSError):
            continue
        return want
    return soft


def main(argv: list[str] | None = None) -> int:
    """Run the server until Ctrl-C or SIGTERM (or `migrate`: copy a database)."""
    if argv is None:
        argv = sys.argv[1:]
    if argv[:1] == ["migrate"]:
        from .migrate import main as migrate  # noqa: PLC0415

        return migrate(argv[1:])
    p = parser()
    args = p.parse_args(argv)
    heartbeat = args.heartbeat_seconds
    if args.dead_after_seconds < 2 * heartbeat:
        p.error(
            f"--dead-after-seconds must be at least {2 * heartbeat:g} (two heartbeats of"
            f" {heartbeat:g} s), got {args.dead_after_seconds:g}"
        )
    if (
        args.node is not None
        and args.advertise is None
        and (args.host in ("", "0.0.0.0", "::") or args.port == 0)
    ):
        p.error("--node needs --advertise HOST:PORT: where clients reach this node")
    logs.setup(args.log_level, args.log_format)
    files = raise_fd_limit()
    if files < args.max_connections:
        log.warning(
            "the open-file limit (%d) is below --max-connections (%d): connections past it fail",
            files,
            args.max_connections,
        )
    try:
        return _run(args)
    except (StorageError, KeyFileError) as exc:
        print(f"sushigo-server: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0


def config_from(args: argparse.Namespace) -> HubConfig:
    """The hub's limits from the command line."""
    return HubConfig(
        server_name=args.name,
        quick_turn_seconds=args.turn_seconds,
        **{field: getattr(args, field) for field, _, _ in _LIMITS},
    )


SWITCH_SECONDS = 0.0005
"""The interpreter's switch interval when the storage is PostgreSQL (Python's own is 5 ms)."""


def _run(args: argparse.Namespace) -> int:
    db: str = args.db or str(default_db())
    if args.node is not None and not is_url(db):
        raise StorageError(db, "--node needs a PostgreSQL --db: a cluster's nodes share one")
    # A node shares its database with the other nodes; a lone server keeps every other off.
    storage = open_storage(db, exclusive=args.node is None, write_behind=True)
    if is_url(db):
        # PostgreSQL's driver runs in a thread of this process (server.pg_storage), and each
        # round trip of a commit wakes it to read the answer and send the next statement. While
        # the hub is busy, the woken thread waits for the interpreter lock until the switch
        # interval has passed: up to 5 ms a round trip by default, so that when a crowd of
        # games ended at once, a commit of a dozen statements took 25 to 95 ms of which its
        # own work was 2 or 3 ms, and every frame waited for it. The interval matters only while
        # a thread waits for the lock, so the hub is not interrupted more while the storage idles.
        sys.setswitchinterval(SWITCH_SECONDS)
    try:
        key_file = key_path(db, args.key)
        key = load_or_create_server_key(key_file)
        admins = [load_admin_key(path) for path in args.admin_key]
        tls = None
        fingerprint = ""
        if args.tls:
            files = ensure_certificate(key_file.parent)
            tls = server_ssl_context(files)
            fingerprint = files.fingerprint
        config = config_from(args)
        # The wall clock the server's core is given (it reads none itself): a cluster's node
        # sets it to the database's (`Cluster.clock`).
        wall = WallClock()
        hub = Hub(storage=storage, key=key, wall_ms=wall, config=config, admins=admins)
        if admins:
            log.info("%d admin key(s): %s", len(admins), ", ".join(hub.admin.admins))
        cluster = None
        if args.node is not None:
            cluster = Cluster(
                db,
                node=args.node,
                address=args.advertise or _advertised(f"{args.host}:{args.port}"),
                server_key=hub.server_key,
                protocol=str(CURRENT_VERSION),
                lease=args.lease,
                quick_patience=args.quick_patience,
                clock=wall,
            )
        return _loop(_serve(hub, args.host, args.port, tls, fingerprint, args.metrics, cluster))
    finally:
        storage.close()


GC_SWEEP_SECONDS = 600.0
"""How often the cyclic collector walks every object, frozen ones included (see `tune_gc`)."""


def tune_gc(loop: asyncio.AbstractEventLoop) -> None:
    """Keep the cyclic garbage collector's pauses short while thousands of players play.

    A full collection walks every tracked object: every session, table and game, a few hundred
    milliseconds with thousands of players, during which no table moves. So whatever survives a
    collection of the middle generation (it has lived through a dozen young collections) is
    frozen (`gc.freeze`): the oldest generation stays empty, and no collection walks the players'
    objects. Frozen objects still die by reference counting; only cyclic garbage among them would
    wait, and the server makes none as it plays (measured with scripts/bench_server.py; a closed
    connection's objects are unlinked by the adapter). As a safety net, every `GC_SWEEP_SECONDS`
    everything is unfrozen and walked once: the one long pause, a few hundred milliseconds with
    thousands of players.
    """
    gc.collect()
    gc.freeze()  # modules, keys and configuration: frozen for good, until the sweeps

    def frozen_after(phase: str, info: dict[str, int]) -> None:
        if phase == "stop" and info["generation"] >= 1:
            gc.freeze()

    def sweep() -> None:
        gc.unfreeze()
        gc.collect()  # freezes again when it stops
        loop.call_later(GC_SWEEP_SECONDS, sweep)

    gc.callbacks.append(frozen_after)
    loop.call_later(GC_SWEEP_SECONDS, sweep)


TRIM_SECONDS = 60.0
"""How often the C allocator is asked to give free memory back to the system (`tidy_memory`)."""


def tidy_memory(loop: asyncio.AbstractEventLoop, trim: Callable[[int], int] | None) -> None:
    """Every `TRIM_SECONDS`, give the memory freed since back to the system (glibc's
    ``malloc_trim``; `trim` None: not on this platform).

    Python frees its objects, but the C allocator keeps the pages they were on: after a crowd
    (or a flood) has gone, the server's resident memory would stay at its peak for good. A trim
    walks the allocator's free lists, about a millisecond for this server's heap."""
    if trim is None:
        return

    def tick() -> None:
        trim(0)
        loop.call_later(TRIM_SECONDS, tick)

    loop.call_later(TRIM_SECONDS, tick)


def malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None where there is none (macOS, musl, Windows)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        trim: Callable[[int], int] = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None
    return trim


def _loop(coro: Coroutine[Any, Any, int]) -> int:
    if uvloop is not None:  # faster sockets where it is installed; the stdlib loop otherwise
        result: int = uvloop.run(coro)
        return result
    return asyncio.run(coro)


async def _serve(
    hub: Hub,
    host: str,
    port: int,
    tls: ssl.SSLContext | None,
    fingerprint: str,
    metrics_at: tuple[str, int] | None = None,
    cluster: Cluster | None = None,
) -> int:
    server = Server(hub, host, port, tls)
    tables = None
    if cluster is not None:
        # Refused (another key, another protocol, the name taken): one line, exit 1, nothing
        # written, the cluster as it was.
        taken = await cluster.join()
        storage = hub.storage
        assert isinstance(storage, PgStorage)
        tables = storage.load_tables_of(taken)
        hub.cluster = cluster
        cluster.storage = storage
        storage.fence = (cluster.node, timedelta(seconds=cluster.lease))
        hub.nodes = cluster.addresses()

        def nodes_changed() -> None:
            hub.nodes = cluster.addresses()

        cluster.on_nodes = nodes_changed
        cluster.on_handoff = server.adopt
        cluster.on_chat = server.heard
        await cluster.listen()
        log.info(
            "node %s joined the cluster (%d live nodes); %d tables are its own",
            cluster.node,
            len(cluster.nodes),
            len(tables),
        )
    tune_gc(asyncio.get_running_loop())
    tidy_memory(asyncio.get_running_loop(), malloc_trim())
    metrics: MetricsServer | None = None
    try:
        if metrics_at is not None:
            # Bound first, so a metrics address in use stops the server before it restores.
            metrics = MetricsServer(registry_for(server), server.unready)
            metrics_where = _where(await metrics.start(*metrics_at))
        addresses = await server.start(tables)
    except OSError as exc:
        print(f"sushigo-server: error: cannot listen: {exc.strerror or exc}", file=sys.stderr)
        if metrics is not None:
            await metrics.stop()
        return 1
    extra = f" (TLS, certificate {fingerprint})" if fingerprint else ""
    print(f"sushigo-server listening on {_where(addresses)}{extra}", flush=True)
    if metrics is not None:
        print(f"sushigo-server metrics on http://{metrics_where}/metrics", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    renewing = None if cluster is None else asyncio.create_task(_renew(cluster, server))
    await stop.wait()
    log.info("shutting down: saving %d tables", sum(t.playing for t in hub.tables.values()))
    await server.stop()
    if cluster is not None and renewing is not None:
        renewing.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await renewing
        await cluster.leave()
    if metrics is not None:
        await metrics.stop()
    return 0


async def _renew(cluster: Cluster, server: Server) -> None:
    """Renew the node's leases every third of their length, for as long as it runs, and take
    over the tables of nodes that died. A renewal that fails is tried at the next beat: the
    lease outlasts two of them."""
    hub = server.hub
    while True:
        await asyncio.sleep(cluster.lease / 3)
        try:
            lost = await cluster.renew(hub.tables.keys())
            await server.adopt()
            server.publish()  # not awaited: the next renewal must not wait behind it
        except StorageError as exc:
            log.warning("%s", exc)
            continue
        if lost:  # this node was away past its lease: those tables are another's now
            moved: dict[str, str | None] = {}
            for table_id in lost:
                with contextlib.suppress(StorageError):
                    owner = await cluster.table_owner(table_id)
                    moved[table_id] = owner.address if owner is not None else None
            hub.release({table_id: moved.get(table_id) for table_id in lost})
            server.done()


def _where(addresses: list[tuple[str, int]]) -> str:
    return ", ".join(f"[{h}]:{p}" if ":" in h else f"{h}:{p}" for h, p in addresses)


if __name__ == "__main__":
    sys.exit(main())
