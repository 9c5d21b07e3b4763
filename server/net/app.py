"""The asyncio adapter: sockets in, `Hub` calls out (aioquic's asyncio/protocol.py is the model).

Each connection is an `asyncio.Protocol` that feeds bytes to the hub and writes what the hub sends
(`app_connection.Connection`). One loop timer follows `Hub.next_deadline`. What clients have not
taken yet is bounded per connection, per address and in all (`budget`): past a bound the slowest
readers are dropped, so clients that do not read can never make the server's memory grow.

Writes are coalesced: what the hub sends while it handles one input (bytes, a timer, a connection
opening or ending) is held per connection and written with one `transport.write` when the hub
returns. A turn ending sends each seat TURN_RESULT and the next TURN_START (and ROUND_SCORES at a
round's end): one system call instead of three.

Inputs are batched too: the bytes of every connection that one pass of the event loop finds ready
are handled first, and what they saved and sent is committed and written once, at the end of the
pass (`Server.soon`; frames wait so for at most `BATCH_SECONDS`). A busy server pays one SQLite
commit for many tables' turns; a quiet one commits each input as it comes. Commits are also
paced: a batch that begins less than `COMMIT_SPACING` after the last commit waits until then
(gathering the inputs of the next passes too), so a saturated server commits a few hundred times
a second instead of once per short pass, and a quiet one still answers at once.

Saved before sent: the server's storage holds its hot writes (write-behind). At the end of a
batch the frames the hub sent go into a wave, stamped with the storage's `mark` (how many writes
were made so far), and the adapter asks the storage to commit (`Storage.flush`). A wave is written
out only once the storage is `durable` up to its mark, waves in order. So a turn's result never
reaches a client before the turn is in the database, although the hub never waits for it: SQLite
commits at once in `flush` (unless its checkpoint thread has the file: then the storage calls
back), PostgreSQL in its own thread, calling back when the commit is done, while the server goes
on with the next inputs (their writes go in the next commit). A connection the hub closes is
closed after its held frames, in the same way.

While the database cannot be written (`Storage.failing`: PostgreSQL away, the disk full, the file
system read-only; `Storage.fault` says which, and so does /readyz) the frames go out without
waiting: the games go on in memory, the storage holds their writes and retries, and no new table
starts (`server.lobby.lobby`). Not on a cluster's node: its frames wait for the retried commit
(`_release`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import socket
import ssl
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from sushigo.protocol import ChatMessage
from sushigo.server.hub.core import Hub
from sushigo.server.routing.listing import listed
from sushigo.server.routing.matching import Move
from sushigo.server.routing.redirect import Answer, CutOff, Directory, send_off
from sushigo.server.routing.tournaments import published, stored
from sushigo.server.sessions.requests import Ask, Read
from sushigo.server.storage.contract import StorageError

from .budget import Budget
from .connection import Connection, Wave

log = logging.getLogger("sushigo.server")
_perf_counter = time.perf_counter

BATCH_SECONDS = 0.004
"""How long the first input of a batch waits for its writes to be committed and sent, at most
(see the module docstring): a pass of the loop over many game ends takes longer than that."""
STOP_LINGER = 3.0
"""How long a stopping server waits for its clients' last frames (RESTARTING, SHUTTING_DOWN) to
be written out before it exits anyway (a client that does not read is not waited for)."""
ADOPT_SECONDS = 0.004
"""How long a cluster node restores a dead node's tables in one pass of the loop when it takes
them over, or hands the hub answers from the cluster, at most (one more once it is past that):
play goes on between."""
COMMIT_SPACING = 0.004
"""The least time between two commits of batched inputs (see the module docstring). A commit
costs as much as a few turns: at saturation, committing at the end of every short pass of the
loop spent a tenth of the server's time in SQLite."""
OWNER_SECONDS = 1.0
"""How long a node that dropped tables (fenced, or its lease lapsed) asks the database where
they are now before it sends their people off without saying where."""


class Server:
    """A listening socket (or several: IPv4 and IPv6) driving one hub."""

    def __init__(self, hub: Hub, host: str | None, port: int, tls: ssl.SSLContext | None) -> None:
        self.hub = hub
        self.host, self.port, self.tls = host, port, tls
        self.loop = asyncio.get_running_loop()
        self._listeners: list[socket.socket] = []
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at: float | None = None
        self.dirty: list[Connection] = []
        """Connections with frames waiting for `done` to write them."""
        self.waves: deque[Wave] = deque()
        """Frames waiting for the writes made before them to be durable: the storage's `mark`
        when they were sent, when that was (`time.perf_counter`: the storage's write latency is
        measured from it), and each connection's frames (see the module docstring)."""
        self.stats = hub.stats
        """The hub's counters; the adapter adds the bytes and frames it moves."""
        self.budget = Budget(hub.config.unsent_per_address, hub.config.unsent_budget)
        """What the connections hold unsent, bounded (`budget`)."""
        self.stopping = False
        """`stop` has begun: the server is not ready for new tables (`ready`)."""
        self._batch: float | None = None
        """When the first input since the last `done` was handled (`time.perf_counter`)."""
        self._committed = 0.0
        """When `done` last ran (`time.perf_counter`)."""
        self.clock = self.loop.time
        """`now`, without the call around it (every input reads it)."""
        hub.storage.on_ready = self._storage_ready
        self._closing: set[Connection] = set()
        """While `stop` runs: the connections whose last bytes are not yet written."""
        self._all_closed: asyncio.Future[None] | None = None
        self._answers: deque[tuple[Ask, Any]] = deque()
        """Answers to questions to the cluster, not yet handed to the hub (`_hand_answers`)."""
        self._answering: asyncio.Task[None] | None = None
        self.lease_until = math.inf
        """A cluster's node: until when (the loop's clock) its lease surely holds (a lease after
        its last renewal began: `lease_renewed`); inf for a lone server. Every input and timer
        looks at it first (`lease_check`), as does every answer from the storage or the cluster."""
        self.lapsed = False
        """Its lease lapsed and its tables were dropped; until the next renewal it serves none."""
        self._lease_timer: asyncio.TimerHandle | None = None

    def now(self) -> float:
        """The hub's clock: the loop's monotonic time."""
        return self.loop.time()

    async def start(
        self,
        tables: list[tuple[str, bytes]] | None = None,
        listeners: list[socket.socket] | None = None,
    ) -> list[tuple[str, int]]:
        """Restore the saved tables (`tables`: these only, a node's share of a cluster's), then
        start listening, on `listeners` (bound by `bind`) or on sockets bound now; the bound
        (host, port) pairs. OSError if an address cannot be bound."""
        self.hub.restore(self.now(), tables)
        self._commit(wait=True)  # what restoring wrote (a game that ended as the server died)
        sockets = listeners if listeners is not None else bind(self.host, self.port)
        self.listen(sockets, lambda: Connection(self), self.tls)
        self.rearm()
        return [_address(sock.getsockname()) for sock in sockets]

    def listen(
        self,
        sockets: list[socket.socket],
        make: Callable[[], asyncio.Protocol],
        tls: ssl.SSLContext | None,
    ) -> None:
        """Accept connections on bound `sockets`, each served by the protocol `make` returns
        (this adapter's `Connection`, or the web endpoint's: `server.net.web`); closed by `stop`."""
        for sock in sockets:
            self._listeners.append(sock)
            self.loop.add_reader(sock.fileno(), self._accept, sock, make, tls)

    def _accept(
        self,
        listener: socket.socket,
        make: Callable[[], asyncio.Protocol],
        tls: ssl.SSLContext | None,
    ) -> None:
        """Take every waiting connection at once. (A loop that accepts one per iteration, as
        libuv does, lets a busy server fall behind its backlog by thousands of clients.)"""
        for _ in range(512):
            try:
                sock, _ = listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:  # e.g. out of file descriptors: say so, keep serving
                log.warning("accept failed: %s", exc)
                return
            self.loop.create_task(self._serve(sock, make, tls))

    async def _serve(
        self,
        sock: socket.socket,
        make: Callable[[], asyncio.Protocol],
        tls: ssl.SSLContext | None,
    ) -> None:
        try:
            await self.loop.connect_accepted_socket(make, sock, ssl=tls)
        except (OSError, ssl.SSLError) as exc:  # a failed TLS handshake or a peer gone already
            log.info("connection setup failed: %s", exc)
            self.stats.count(self.stats.rejected, "setup")
            sock.close()

    def _close_listeners(self) -> None:
        for sock in self._listeners:
            with contextlib.suppress(Exception):
                self.loop.remove_reader(sock.fileno())
            sock.close()
        self._listeners = []

    def soon(self) -> None:
        """The hub has handled bytes from a connection: `done` at the end of this pass of the loop
        (after every other ready connection's bytes; if the last commit was less than
        `COMMIT_SPACING` ago, once that much time has passed), or now if the batch began long
        ago."""
        now = _perf_counter()
        began = self._batch
        if began is None:
            self._batch = now
            wait = self._committed + COMMIT_SPACING - now
            if wait > 0:  # busy: gather the next passes' inputs into this commit too
                self.loop.call_later(wait, self._done_soon)
            else:
                self.loop.call_soon(self._done_soon)
        elif now - began >= BATCH_SECONDS:
            self.done()

    def _done_soon(self) -> None:
        if self._batch is not None:
            self.done()

    def done(self, *, wait: bool = False) -> None:
        """The hub has handled an input: commit what it saved, write what it sent once that is
        durable, and follow its next deadline."""
        self._batch = None
        self._committed = now = _perf_counter()
        cluster = self.hub.cluster
        if cluster is not None and (self.hub.opened or self.hub.lobby.changed):
            opened, self.hub.opened = self.hub.opened, []
            cluster.lease_soon(opened)  # leased in the commit that saves them
            self.publish()
        if cluster is not None and self.hub.desk.changed:
            self.hub.desk.changed = False
            cluster.publish_tournaments_soon(lambda: published(self.hub.desk))
        dirty = self.dirty
        if dirty:
            self.dirty = []
            self.waves.append((self.hub.storage.mark, now, [c.take() for c in dirty]))
        self._commit(wait)
        self._release()
        if self.hub.reads:
            reads, self.hub.reads = self.hub.reads, []
            for read in reads:
                self._start_read(read)
        if self.hub.said and self.hub.cluster is not None:
            said, self.hub.said = self.hub.said, []
            self.loop.create_task(self._say(self.hub.cluster, said))
        if self.hub.asks:
            asks, self.hub.asks = self.hub.asks, []
            for ask in asks:
                self.loop.create_task(self._answer(ask))
        self.rearm()

    def _start_read(self, read: Read) -> None:
        """Run a request's database read in a worker thread; its reply is made back on the loop
        (`Hub.read`)."""

        def finished(future: asyncio.Future[Any]) -> None:
            try:
                result: Any = future.result()
            except StorageError as exc:
                result = exc
            except Exception as exc:  # a bug in the read: its request gets no answer, we go on
                log.error("a database read failed: %r", exc)
                return
            try:
                self.hub.read_done(read, result, self.now())
            except Exception:
                log.exception("answering a database read failed")
            self.done()

        self.loop.run_in_executor(None, read.job).add_done_callback(finished)

    async def _say(self, cluster: Directory, said: list[ChatMessage]) -> None:
        try:
            await cluster.say([(m.player_id, m.name, m.text) for m in said])
        except StorageError as exc:  # lobby chat is not kept: it is lost, as in a restart
            log.warning("%s", exc)

    def heard(self, player_id: str, name: str, text: str) -> None:
        """Lobby chat said on another node of the cluster: said here too."""
        self.hub.lobby.lobby_chat(ChatMessage(player_id=player_id, name=name, text=text))
        self.done()

    def operation(self, kind: str, args: dict[str, Any], now: float | None = None) -> Answer:
        """An admin's operation another node asked this one to carry out (its listener's
        call): carried out on the hub, what it did said back."""
        answer = self.hub.admin.carry_out(kind, args, self.now() if now is None else now)
        self.done()
        return answer

    def quick_moves(self, moves: list[Move]) -> None:
        """The cluster's matcher moves players of this node's waiting tables to others'."""
        self.hub.move_quick(moves, self.now())
        self.done()

    def publish(self) -> None:
        """A cluster's node: tell the other nodes of its tables soon (its quick-match tables
        that take players, and its tables as the lobby lists them: `Cluster.publish_soon`)."""
        hub, cluster = self.hub, self.hub.cluster
        if cluster is not None:
            hub.lobby.changed = False
            cluster.publish_soon(hub.lobby.quick_tables, lambda: listed(hub.tables.values()))

    async def adopt(self) -> int:
        """Take over the tables of dead nodes (a cluster's node, at each renewal); how many."""
        cluster = self.hub.cluster
        if cluster is None:
            return 0
        tables = await cluster.adopt(self.hub.tables.keys())
        # A dead node's tables are many (hundreds): each restored by replaying its game, all
        # at once they would hold the loop up for a second or more, the tables in play here
        # and the resumes of the new ones waiting. A few milliseconds' worth at a time, play
        # going on between (a fixed 25 tables a pass held every table's frames 50-100 ms on a
        # busy machine).
        done = 0
        while done < len(tables):
            self.lease_check()  # paused between two slices past its lease: restore no more
            if self.lapsed:
                break
            began = _perf_counter()
            while done < len(tables) and _perf_counter() - began < ADOPT_SECONDS:
                self.hub.restore(self.now(), tables[done : done + 1])
                done += 1
            self.done()
            await asyncio.sleep(0)
        return len(tables)

    async def _answer(self, ask: Ask) -> None:
        """Await a request's question to the cluster, and hand the hub its answer (`Hub.ask`)."""
        try:
            result: Any = await ask.job()
        except StorageError as exc:
            result = exc
        except Exception as exc:  # a bug in the question: its request gets no answer, we go on
            # (While the node stops, its pool is closed under the questions still out: those
            # fail as they may, and nobody waits for their answers.)
            (log.info if self.stopping else log.error)("a question to the cluster failed: %r", exc)
            return
        if self.stopping:
            # Its tables are saved and handed over (`stop`): an answer now would have the hub
            # act as if it went on, e.g. play a placed game here after all, at a table no node
            # will ever hold, its seats waiting for people sent elsewhere.
            log.info("%s: answered as the node stops, dropped", ask.what)
            return
        self._answers.append((ask, result))
        if self._answering is None:
            self._answering = self.loop.create_task(self._hand_answers())

    async def _hand_answers(self) -> None:
        """Hand the hub the answers that came (`_answer`), in order, a few milliseconds' worth
        per pass of the loop (`ADOPT_SECONDS`). When a dead node's lease ends, the resumes held
        for its tables are answered together, hundreds in one pass, each taking a table up and
        sending a snapshot: handed over all at once they held every table here up for a second
        or more."""
        answers = self._answers
        try:
            while answers and not self.stopping:  # (`stop` begins only between passes)
                self.lease_check()  # an input as any other: the node's own lease first
                began = _perf_counter()
                while answers and _perf_counter() - began < ADOPT_SECONDS:
                    ask, result = answers.popleft()
                    try:
                        self.hub.ask_done(ask, result, self.now())
                    except Exception:
                        log.exception("answering a question to the cluster failed")
                self.done()
                await asyncio.sleep(0)
        finally:
            self._answering = None

    def _release(self) -> None:
        """Write out, in order, every wave whose writes are durable (all of them while the
        database is away, but on a cluster's node: the games go on in memory)."""
        cluster = self.hub.cluster
        storage = self.hub.storage
        # `durable` first, then the fenced tables: a commit (in the storage's thread) adds the
        # tables it left out before it moves `durable`, so every table fenced by a commit
        # counted in `durable` is dropped here before a frame of it can be written. (Read the
        # other way round, a commit landing in between made the frames of a table it had left
        # out look durable, and they went out: a turn shown that was never stored.)
        durable = storage.durable
        if cluster is not None:
            fenced = cluster.fenced()
            if fenced:
                self._fenced(fenced)
            # What tournaments' changes tell, once their commits say whether they were stored
            # (`server.routing.tournaments.stored`): sent with the next batch.
            commits = cluster.tournament_commits()
            if commits and (self.hub.desk.news or any(left for _, left in commits)):
                stored(self.hub, commits, self.now())
                self.soon()
        waves = self.waves
        if not waves:
            return
        # Not a cluster's node: it cannot tell, while its database is away, that it still holds
        # its tables (its lease may end meanwhile and another node take them over from what was
        # saved), so frames sent then could be of a game that never was. They wait for the retried
        # commit, which the fence may leave out (`pg_fence`).
        away = storage.failing and cluster is None
        if not away and waves[0][0] <= durable:
            # How long the oldest wave's writes took to be durable: the others were handed over
            # later, and became durable at the same time.
            self.stats.storage_write.observe(_perf_counter() - waves[0][1])
        while waves and (away or waves[0][0] <= durable):
            for connection, pending, closing in waves.popleft()[2]:
                connection.flush(pending, closing)

    def _fenced(
        self, table_ids: set[str], why: str = "its writes were left out (fenced by its lease)"
    ) -> None:
        """Tables whose writes a commit left out (`pg_fence`), or that a renewal found another
        node holds (`taken_over`): this node was away past its lease and another node holds
        them. Their people's connections are held at once (what they were sent since never
        became the table's state); once the database has said which node holds each table now,
        what was held is taken back and they are sent there (an unasked REDIRECT, then
        SHUTTING_DOWN), in sequence, as if the frames taken back had never been sent. They
        resume on that node."""
        if self.stopping:  # handed over already: its people are told where it went
            return
        cut = self.hub.cut_off(sorted(table_ids), unsent=True)
        held = [
            c.transport for one in cut for c in one.conns if isinstance(c.transport, Connection)
        ]
        for connection in held:
            connection.held = True
        for one in cut:
            log.warning("table %s: %s", one.table_id, why)
        # A table closed here meanwhile (its lease given up at a renewal between its closing
        # and the commit of its last deletions) loses nothing: its rows go as their tokens end.
        if cut:
            self.loop.create_task(self._send_fenced(cut, held))

    def taken_over(self, table_ids: set[str]) -> None:
        """Tables a renewal found another node holds: dropped as if fenced (`_fenced`)."""
        self._fenced(table_ids, "another node holds it now (found at a renewal)")

    async def _send_fenced(self, cut: list[CutOff], held: list[Connection]) -> None:
        moved: dict[str, str | None] = {}
        cluster = self.hub.cluster
        assert cluster is not None
        for one in cut:
            moved[one.table_id] = None

        async def ask() -> None:
            for one in cut:
                owner = await cluster.table_owner(one.table_id)
                if owner is not None and owner.alive and owner.node != cluster.node:
                    moved[one.table_id] = owner.address

        # Within a moment: with the database away or stopped (a lapsed lease), they are sent
        # off at once, to come back (to any node) when it is. (Not `wait_for`: cancelled, a
        # question to a database that answers nothing ends no sooner than it answers.)
        asking = asyncio.ensure_future(ask())
        await asyncio.wait({asking}, timeout=OWNER_SECONDS)
        asking.cancel()
        asking.add_done_callback(_retrieved)
        for connection in held:
            connection.unsend()
        self.hub.now = self.now()
        for one in cut:
            address = moved[one.table_id]  # None: the database away, or no node holds it yet
            send_off(self.hub, one, address)
            where = f"to {address}" if address else "off (to come back through any node)"
            log.warning("table %s: its players are sent %s", one.table_id, where)
        self.done()

    def _commit(self, wait: bool) -> None:
        """Commit the storage's held writes (or start to). One that fails leaves the storage
        `failing`, which says so in the log and retries: the games go on (unsaved) rather than
        stop for everyone."""
        with contextlib.suppress(StorageError):
            self.hub.storage.flush(wait=wait)

    def _storage_ready(self) -> None:
        """From the storage (its thread): writes became durable, the database went away or came
        back, or a declined commit may go ahead."""
        with contextlib.suppress(RuntimeError):  # the loop is closed: nothing is waiting
            self.loop.call_soon_threadsafe(self._stored)

    def _stored(self) -> None:
        # An input as any other: the node's own lease first. Woken from a pause past its lease,
        # the node drops its tables for that before it hears of a commit's fence (writes it made
        # before the pause, left out as another node took their tables over meanwhile).
        self.lease_check()
        self._release()
        if self.hub.storage.held and self._batch is None:
            self.done()

    def rearm(self) -> None:
        """Follow the hub's next deadline with the one loop timer."""
        deadline = self.hub.next_deadline()
        if deadline == self._timer_at:
            return
        if self._timer is not None:
            self._timer.cancel()
        self._timer_at = deadline
        self._timer = None if deadline is None else self.loop.call_at(deadline, self._fire)

    def _fire(self) -> None:
        self._timer = self._timer_at = None
        self.lease_check()
        try:
            self.hub.on_timer(self.now())
        except Exception:  # keep serving; the hub logs what it can
            log.exception("timer failed")
        self.done()

    def unready(self) -> str | None:
        """Why the server takes no new tables now, or None: it does (listening, not stopping or
        draining, and its storage saving: while the database is away no table starts; a
        cluster's node also reaching the database for its renewals, and holding its lease)."""
        hub = self.hub
        if self.stopping:
            return "shutting down"
        if not self._listeners:
            return "not listening yet"
        if hub.draining:
            return "draining"
        fault = hub.storage.fault
        if fault is not None:  # "the database's disk is full", ...
            return str(fault)
        if self.lapsed or self.loop.time() >= self.lease_until:  # the graver: said first
            return "its lease has lapsed (no renewal for a lease): its tables are another node's"
        if hub.cluster and not hub.cluster.reachable:
            return "the database is unreachable"
        return None

    # -- a cluster's node's own lease ----------------------------------------------------------

    def lease_renewed(self, until: float) -> None:
        """A renewal that began a lease before `until` (the loop's clock) went through: the
        node's lease surely holds until then. Looked at again then (`lease_check`)."""
        self.lease_until = self.hub.lease_until = until
        if self.lapsed:
            log.warning("this node's lease is renewed: it takes tables again")
            self.lapsed = False
        if self._lease_timer is not None:
            self._lease_timer.cancel()
        if until < math.inf:
            self._lease_timer = self.loop.call_at(until, self.lease_check)

    def lease_check(self) -> None:
        """Before any input or timer: a node whose lease has lapsed (no renewal went through for
        a lease: the database away or paused, this process paused or starved) drops its tables
        at once, before anyone can play a turn there. Another node may hold them already, or
        will once their leases end in the database (which the node cannot tell without it);
        their people are sent on as from a fenced commit (`_fenced`). Until a renewal goes
        through again it starts no table (`unready`, and the lobby's `fresh` check)."""
        if self.lapsed or self.stopping or self.loop.time() < self.lease_until:
            return
        cluster = self.hub.cluster
        if cluster is None:
            return
        self.lapsed = True
        tables = set(self.hub.tables)
        log.warning(
            "this node's lease has lapsed (no renewal for %.3g s): dropping its %d tables",
            cluster.lease,
            len(tables),
        )
        # Their writes held or under way land (the lease still names this node, unless another
        # took it: then the fence leaves them out), and only then may this node take them up
        # again itself: `Cluster.adopt` skips them until its storage is durable up to here
        # (after `_fenced`: a resume undone there stores its old token again among them).
        self._fenced(tables, "this node's lease lapsed: dropped, its people sent on")
        cluster.dropped(tables, self.hub.storage.mark)
        self.done()

    @property
    def ready(self) -> bool:
        """The server takes new tables (`unready` says why not)."""
        return self.unready() is None

    async def stop(self, linger: float = STOP_LINGER) -> None:
        """Stop listening, save every table, tell every client (once the saves are durable),
        and wait up to `linger` seconds for those last words to be written out.

        A node of a cluster hands its tables to the other live nodes first: nothing more is
        read nor any timer run (so no table moves on here after it is saved), every table is
        saved and durable, its lease goes to another node, and its people are told to follow
        a REDIRECT there (`Hub.shutdown`)."""
        self.stopping = True
        self._close_listeners()
        connections = [c.transport for c in self.hub.conns.values()]
        self._closing = {c for c in connections if isinstance(c, Connection)}
        self._all_closed = self.loop.create_future()
        if self._timer is not None:
            self._timer.cancel()
        self._timer_at = None
        moved: dict[str, str] = {}
        cluster = self.hub.cluster
        if cluster is not None:
            for connection in self._closing:
                if connection.transport is not None:
                    connection.transport.pause_reading()
            self.hub.save_all()
            self.done(wait=True)
            try:  # within seconds: the node must be out soon (`adopt.HANDOFF_SECONDS`)
                moved = await cluster.hand_off(list(self.hub.tables))
            except (StorageError, TimeoutError) as exc:  # their leases end as we leave
                log.warning("could not hand the tables over: %s", exc or "too slow")
        self.hub.shutdown(moved=moved)
        self.done(wait=True)
        if self._timer is not None:
            self._timer.cancel()
        if self._closing:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(linger):
                    await asyncio.shield(self._all_closed)

    def closed(self, connection: Connection) -> None:
        """A connection ended (while `stop` waits: one fewer to wait for)."""
        closing = self._closing
        if closing:
            closing.discard(connection)
            if not closing and self._all_closed is not None and not self._all_closed.done():
                self._all_closed.set_result(None)


def _retrieved(task: asyncio.Future[Any]) -> None:
    """A task whose end nobody awaits: what it raised is expected (the database away), not
    logged as never retrieved."""
    if not task.cancelled():
        task.exception()


def bind(host: str | None, port: int) -> list[socket.socket]:
    """Listening sockets on `host` (None or "": every address; IPv4 and IPv6 alike), all on
    `port` (0: one free port for every family). OSError if an address cannot be bound."""
    sockets: list[socket.socket] = []
    try:
        for family, kind, proto, _, address in socket.getaddrinfo(
            host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        ):
            sock = socket.socket(family, kind, proto)
            sockets.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind((address[0], port, *address[2:]))
            port = port or sock.getsockname()[1]  # port 0: every family on the same port
            sock.listen(4096)
            sock.setblocking(False)
    except OSError:
        for sock in sockets:
            sock.close()
        raise
    return sockets


def _address(name: Any) -> tuple[str, int]:
    return str(name[0]), int(name[1])
