"""`sushigo-server`: run a game server.

    sushigo-server --port 7777 [--host 0.0.0.0] [--db PATH|URL] [--key PATH] [--tls]
                   [--web HOST:PORT] [--admin-key PATH]...
    sushigo-server migrate --from PATH --to URL     copy an SQLite database into PostgreSQL

`--db` takes the path of an SQLite file (the default), or a PostgreSQL URL
(``postgresql://user:password@host:port/dbname``).

Prints one line saying where it listens (and the TLS fingerprint); Ctrl-C or SIGTERM stops it
cleanly, saving every table. Exit codes: 0 after a clean stop by SIGTERM, 130 after one by Ctrl-C
(SIGINT), 2 for a usage error, 1 otherwise, always with a one-line reason.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import socket
import ssl
import sys
import time
from collections.abc import Coroutine
from datetime import timedelta
from pathlib import Path
from types import ModuleType
from typing import Any

from sushigo.protocol import CURRENT_VERSION, ProtocolError, SignedRecord
from sushigo.protocol.about import INTERRUPTED, interrupted
from sushigo.protocol.records import check_signature

from .cluster.node import DEFAULT_LEASE, QUICK_PATIENCE, STOP_SECONDS, Cluster, ClusterError, Load
from .cluster.wallclock import WallClock
from .hub.core import Hub
from .keys import KeyFileError, load_admin_key, load_or_create_server_key, public_key_bytes
from .net import logs
from .net.app import Server, bind
from .net.metrics import MetricsServer, registry_for
from .net.tls import ensure_certificate, server_ssl_context
from .net.web import WebServer
from .net.web_files import PageFiles
from .options import advertised, config_from, default_db, key_path, parser, web_advertised
from .routing import spread as tournament_spread
from .routing import tournaments as tournament_cluster
from .runtime import malloc_trim, raise_fd_limit, tidy_memory, tune_gc
from .storage.contract import Storage, StorageError
from .storage.database import is_url, open_storage
from .storage.postgres.schema import quiet_driver_tasks
from .storage.postgres.storage import PgStorage

uvloop: ModuleType | None
try:
    import uvloop
except ImportError:  # pragma: no cover - uvloop is a dependency on every platform but Windows
    uvloop = None

log = logging.getLogger("sushigo.server")


def main(argv: list[str] | None = None) -> int:
    """Run the server until Ctrl-C or SIGTERM (or `migrate`: copy a database)."""
    if argv is None:
        argv = sys.argv[1:]
    if argv[:1] == ["migrate"]:
        from .storage.migrate import main as migrate  # noqa: PLC0415

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
    if args.advertise is not None and args.node is None:
        p.error("--advertise goes with --node: where clients reach this node of a cluster")
    if args.quick_patience is not None and args.node is None:
        p.error(
            "--quick-patience goes with --node: how long a cluster node's quick-match tables wait"
        )
    if args.lease is not None and args.node is None:
        p.error("--lease goes with --node: how long a cluster node's leases last")
    if args.web_advertise is not None and (args.node is None or args.web is None):
        p.error("--web-advertise goes with --node and --web: where browsers reach this node")
    if (
        args.node is not None
        and args.web is not None
        and args.web[1] == 0
        and not args.web_advertise
    ):
        p.error("--node with --web on port 0 needs --web-advertise HOST:PORT")
    logs.setup(args.log_level, args.log_format)
    # From here a SIGTERM (a supervisor stopping the server as it starts) is noted and honoured
    # once the server is up, as a clean stop: the default action would kill it mid-start (143).
    signal.signal(signal.SIGTERM, _stop_early)
    log.debug("starting")
    files = raise_fd_limit()
    if files < args.max_connections:
        log.warning(
            "the open-file limit (%d) is below --max-connections (%d): connections past it fail",
            files,
            args.max_connections,
        )
    try:
        code = _run(args)
    except (StorageError, KeyFileError) as exc:
        print(f"sushigo-server: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # before the event loop took SIGINT over
        code = INTERRUPTED
    return interrupted("sushigo-server") if code == INTERRUPTED else code


def command() -> None:
    """The ``sushigo-server`` command: `main`, then out at once with its exit code. Everything
    is saved, closed and flushed by then; what is left is the interpreter's own teardown,
    freeing every object one by one (half a second to a second of a stopping node's time under
    load, its players waiting on it), which an exiting process does not need."""
    code = main()
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


_early: list[int] = []
"""The signals that arrived before the event loop took them over."""


def _stop_early(signum: int, _frame: object) -> None:
    _early.append(signum)


SWITCH_SECONDS = 0.0005
"""The interpreter's switch interval when the storage is PostgreSQL (Python's own is 5 ms)."""


def _run(args: argparse.Namespace) -> int:
    db: str = args.db or str(default_db())
    if args.node is not None and not is_url(db):
        raise StorageError(db, "--node needs a PostgreSQL --db: a cluster's nodes share one")
    # Everything that can fail is checked before anything is made (the database, its lock, the
    # key): a server that cannot start leaves nothing behind.
    for given, what in ((args.db, "--db"), (args.key, "--key")):
        folder = Path(given).parent if given is not None and not is_url(str(given)) else None
        if folder is not None and not folder.is_dir():
            print(
                f"sushigo-server: error: {what} {given}: there is no folder {folder} (make it"
                " first: only the default one is made)",
                file=sys.stderr,
            )
            return 1
    admins = [load_admin_key(path) for path in args.admin_key]
    listening: list[socket.socket] = []
    bound: dict[str, list[socket.socket] | None] = {}
    asked = {"": (args.host, args.port), " (--metrics)": args.metrics, " (--web)": args.web}
    for what, where in asked.items():
        try:
            bound[what] = None if where is None else bind(*where)
        except OSError as exc:
            for sock in listening:
                sock.close()
            print(
                f"sushigo-server: error: cannot listen on {_where([where])}{what}:"
                f" {exc.strerror or exc}",
                file=sys.stderr,
            )
            return 1
        listening += bound[what] or []
    try:
        game = bound[""]
        assert game is not None
        return _open_and_serve(args, db, admins, game, bound[" (--metrics)"], bound[" (--web)"])
    finally:
        for sock in listening:
            sock.close()


def _open_and_serve(
    args: argparse.Namespace,
    db: str,
    admins: list[bytes],
    game: list[socket.socket],
    metrics: list[socket.socket] | None,
    web: list[socket.socket] | None,
) -> int:
    """Open the database and the key, then serve on the sockets already bound."""
    # A node shares its database with the other nodes; a lone server keeps every other off.
    storage = open_storage(db, exclusive=args.node is None, write_behind=True)
    if is_url(db):
        # PostgreSQL's driver runs in a thread of this process (server.storage.postgres.storage),
        # and each round trip of a commit wakes it to read the answer and send the next statement.
        # While the hub is busy, the woken thread waits for the interpreter lock until the switch
        # interval has passed: up to 5 ms a round trip by default, so that when a crowd of
        # games ended at once, a commit of a dozen statements took 25 to 95 ms of which its
        # own work was 2 or 3 ms, and every frame waited for it. The interval matters only while
        # a thread waits for the lock, so the hub is not interrupted more while the storage idles.
        sys.setswitchinterval(SWITCH_SECONDS)
    try:
        key_file = key_path(db, args.key)
        key = load_or_create_server_key(key_file)
        fill_record_keys(storage, public_key_bytes(key))
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
                address=args.advertise or advertised(f"{args.host}:{args.port}"),
                server_key=hub.server_key,
                protocol=str(CURRENT_VERSION),
                web=web_advertised(args),
                lease=DEFAULT_LEASE if args.lease is None else args.lease,
                quick_patience=QUICK_PATIENCE
                if args.quick_patience is None
                else args.quick_patience,
                clock=wall,
            )
        served = _serve(hub, (game, args.host, args.port), tls, fingerprint, metrics, cluster, web)
        return _loop(served)
    finally:
        storage.close()


SAVE_PATIENCE = 10.0
"""How long a lone server stopping waits for PostgreSQL to save what it holds (a cluster's node
waits `cluster.node.STOP_SECONDS`)."""
FILL_BATCH = 500
"""Records read at once by `fill_record_keys`."""


def fill_record_keys(storage: Storage, server_key: bytes) -> int:
    """Store `server_key` with the finished games stored before records kept their key (schema
    12) whose signature verifies with it; how many. Once per database: those it fills are not
    read again, and a record some other key signed is left as it was. About 60 µs a record."""
    filled = 0
    after = ""
    while batch := storage.keyless_records(after, FILL_BATCH):
        after = batch[-1][0]
        mine = []
        for game_id, record, signature in batch:
            signed = SignedRecord(record=record, signature=signature, server_key=server_key)
            with contextlib.suppress(ProtocolError):
                check_signature(signed, server_key)
                mine.append(game_id)
        if mine:
            storage.fill_record_keys(server_key, mine)
            filled += len(mine)
    if filled:
        log.info("stored the signing key with %d earlier records", filled)
    return filled


def _loop(coro: Coroutine[Any, Any, int]) -> int:
    if uvloop is not None:  # faster sockets where it is installed; the stdlib loop otherwise
        result: int = uvloop.run(coro)
        return result
    return asyncio.run(coro)


async def _serve(
    hub: Hub,
    listening: tuple[list[socket.socket], str, int],
    tls: ssl.SSLContext | None,
    fingerprint: str,
    metrics_on: list[socket.socket] | None = None,
    cluster: Cluster | None = None,
    web_on: list[socket.socket] | None = None,
) -> int:
    """Serve on the bound sockets (`listening`: the game's, with the host and port asked for)
    until a signal stops the server; the exit code."""
    listeners, host, port = listening
    server = Server(hub, host, port, tls)
    if isinstance(hub.storage, PgStorage):
        quiet_driver_tasks(asyncio.get_running_loop())
    tables = None
    if cluster is not None:
        # Refused (another key, another protocol, the name taken): one line, exit 1, nothing
        # written, the cluster as it was.
        began = asyncio.get_running_loop().time()
        taken = await cluster.join()
        cluster.held_until = began + cluster.lease  # its lease, as the join wrote it
        storage = hub.storage
        assert isinstance(storage, PgStorage)
        tables = storage.load_tables_of(taken)
        hub.cluster = cluster
        cluster.storage = storage
        storage.fence = (cluster.node, timedelta(seconds=cluster.lease))
        hub.nodes = cluster.addresses()
        hub.web_nodes.update(cluster.web_addresses())

        def nodes_changed() -> None:
            hub.nodes = cluster.addresses()
            # In place: the connections over WebSocket hold this very map (sessions.web_routes).
            hub.web_nodes.clear()
            hub.web_nodes.update(cluster.web_addresses())

        cluster.on_nodes = nodes_changed
        cluster.on_handoff = server.adopt
        cluster.on_chat = server.heard
        cluster.on_operation = server.operation
        cluster.on_moves = server.quick_moves
        await cluster.listen()
        cluster.start_matching()
        log.info(
            "node %s joined the cluster (%d live nodes); %d tables are its own",
            cluster.node,
            len(cluster.nodes),
            len(tables),
        )
    tune_gc(asyncio.get_running_loop())
    tidy_memory(asyncio.get_running_loop(), malloc_trim())
    metrics: MetricsServer | None = None
    if metrics_on is not None:
        metrics = MetricsServer(registry_for(server), server.unready)
        metrics_where = _where(await metrics.start("", 0, metrics_on))
    addresses = await server.start(tables, listeners)
    web_sockets = web_on or []
    extra = f" (TLS, certificate {fingerprint})" if fingerprint else ""
    print(f"sushigo-server listening on {_where(addresses)}{extra}", flush=True)
    if metrics is not None:
        print(f"sushigo-server metrics on http://{metrics_where}/metrics", flush=True)
    if web_sockets:
        web = WebServer(server, PageFiles())
        web.listen(web_sockets, tls)
        scheme = "https" if tls is not None else "http"
        where = _where([_bound(s) for s in web_sockets])
        print(f"sushigo-server web client on {scheme}://{where}/", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()

    def stopping(signum: int) -> None:
        _early.append(signum)  # which one: its exit code differs
        stop.set()

    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stopping, sig)
    if _early:
        log.info("stopping: a signal came while starting")
        stop.set()
    removed: list[str] = []
    renewing = None
    if cluster is not None:
        server.lease_renewed(cluster.held_until)
        renewing = asyncio.create_task(_renew(cluster, server, stop, removed))
    await stop.wait()
    log.info("shutting down: saving %d tables", sum(t.playing for t in hub.tables.values()))
    if isinstance(hub.storage, PgStorage):
        # A database that answers nothing (paused, its machine frozen) must not keep a stopping
        # server from exiting: a node's frames waited for their writes (nothing it sent is
        # lost); a lone server's unsaved play is, past this.
        patience = STOP_SECONDS if cluster is not None else SAVE_PATIENCE
        hub.storage.deadline = time.monotonic() + patience
    await server.stop()
    if cluster is not None and renewing is not None:
        renewing.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await renewing
        await cluster.leave()
    if metrics is not None:
        await metrics.stop()
    if removed:
        print(f"sushigo-server: error: {removed[0]}", file=sys.stderr)
        return 1
    # Stopped by Ctrl-C (SIGINT) or by a supervisor (SIGTERM): the same clean stop, and the
    # exit code of each (README, "Exit codes").
    return INTERRUPTED if signal.SIGINT in _early else 0


async def _renew(cluster: Cluster, server: Server, stop: asyncio.Event, removed: list[str]) -> None:
    """Renew the node's leases every third of their length, for as long as it runs, and take
    over the tables of nodes that died. A renewal that fails (whatever it raises: it is logged
    in the server's format, once until renewals work again) is tried again within half a second
    (`RETRY_SECONDS`); one unanswered for `SLOW_SECONDS` makes the node not ready; one that
    takes a whole lease is given up (the database is not answering) and tried again. A node
    removed from the cluster (its row deleted) stops, with exit code 1: it must not linger,
    serving tables no one else knows are its."""
    loop = asyncio.get_running_loop()
    failing_since: float | None = None
    while True:
        await asyncio.sleep(_retry(cluster) if failing_since is not None else _beat(cluster))
        renewing = asyncio.ensure_future(_renew_once(cluster, server))
        try:
            await asyncio.wait({renewing}, timeout=_slow(cluster))
            if not renewing.done():
                # A database that accepts and answers nothing (paused, frozen): not ready now,
                # not only once the lease has lapsed; the renewal is waited for all the same.
                cluster.reachable = False
            await renewing
        except ClusterError as exc:
            log.error("%s: stopping", exc)
            removed.append(str(exc))
            stop.set()
            return
        except Exception as exc:
            cluster.reachable = False
            if failing_since is None:
                failing_since = loop.time()
                if isinstance(exc, StorageError):
                    log.warning("%s; trying again until it works", exc)
                elif isinstance(exc, TimeoutError):
                    log.warning("renewing the leases: no answer from the database within a lease")
                else:  # a bug, or the driver's: logged, and tried again all the same
                    log.exception("renewing the leases failed; trying again until it works")
            continue
        finally:
            renewing.cancel()  # this loop stopped (the node stops): so does its renewal
        if failing_since is not None:
            log.warning("renewing the leases works again after %.1f s", loop.time() - failing_since)
            failing_since = None


RETRY_SECONDS = 0.5
"""How soon a renewal that failed is tried again (a sixth of the lease, if that is sooner): the
database back, the node's lease is renewed within a moment, not a third of a lease later, so an
outage of most of a lease leaves its tables in play."""


def _retry(cluster: Cluster) -> float:
    return min(RETRY_SECONDS, cluster.lease / 6)


def _beat(cluster: Cluster) -> float:
    """Until the next renewal: a third of the lease, or half of what is left of it if less. A
    renewal that took most of a lease (the database paused as it was asked) holds the lease
    for what is left of one from its start, a moment: the next must go through before that
    ends, or the node drops the tables it has just taken up."""
    left = cluster.held_until - asyncio.get_running_loop().time()
    return max(0.0, min(cluster.lease / 3, left / 2))


SLOW_SECONDS = 2.0
"""A renewal unanswered this long (or a third of the lease, if sooner) leaves the node not
ready until one goes through: it takes milliseconds when the database answers."""


def _slow(cluster: Cluster) -> float:
    return min(SLOW_SECONDS, cluster.lease / 3)


async def _renew_once(cluster: Cluster, server: Server) -> None:
    hub = server.hub
    began = asyncio.get_running_loop().time()
    load = Load(
        draining=hub.draining,
        connections=len(hub.conns),
        sessions=len(hub.sessions),
        playing=sum(table.playing for table in hub.tables.values()),
    )
    lost = await cluster.bounded(cluster.renew(hub.tables.keys(), load), cluster.lease)
    # Cheap (one indexed look, of the names this node runs): a node that was away past its
    # lease finds the tournaments taken over meanwhile, and lets them go before it seats
    # another game of theirs.
    taken = await cluster.bounded(
        cluster.tournaments_moved(list(hub.desk.tournaments)), cluster.lease
    )
    if taken:
        tournament_spread.let_go(hub, taken)
    cluster.held_until = began + cluster.lease
    cluster.reachable = True
    # Held up for over half a lease (the database paused as it was asked) while the node's
    # lease lapsed by its own clock, it holds the lease for less than it took: asked again at
    # once (`_beat`) before the node counts itself renewed and takes tables up, which it would
    # drop again as that little ends. (A slow renewal within the lease, as on a loaded machine,
    # counts: it holds the lease longer than the last one did, and the node keeps its tables.)
    now = asyncio.get_running_loop().time()
    lapsed = server.lapsed or now >= server.lease_until
    late = lapsed and now - began > cluster.lease / 2
    if not late:
        server.lease_renewed(cluster.held_until)
    if lost:  # this node was away past its lease: those tables are another's now
        # As when a commit leaves their writes out: what their people were sent since the last
        # commit (play read from their sockets on waking, never saved) is taken back before
        # they are sent to the node that holds them.
        server.taken_over(set(lost))
    if late:
        return
    # Listening again, if its connection ended with PostgreSQL: then the bans and mutes made or
    # lifted while it could not hear are read.
    if await cluster.listen():
        hub.admin.sanctions_read(await cluster.sanctions(), server.now())
    hub.desk.renewed(server.now())
    server.done()
    await server.adopt()
    # After the tables: a tournament taken over finds its games' tables here.
    tournament_cluster.adopt(hub, cluster.take_tournaments)
    server.done()  # the question goes out
    server.publish()  # not awaited: the next renewal must not wait behind it


def _bound(sock: socket.socket) -> tuple[str, int]:
    name = sock.getsockname()
    return str(name[0]), int(name[1])


def _where(addresses: list[tuple[str, int]]) -> str:
    return ", ".join(f"[{h}]:{p}" if ":" in h else f"{h}:{p}" for h, p in addresses)


if __name__ == "__main__":
    command()
