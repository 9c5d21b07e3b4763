"""The asyncio connection to a sushigo server, shared by the terminal client and the bots.

`Client.connect` opens the socket (TLS pinned on first use), says HELLO, logs in (all of that,
the lobby calls and the events in order are `client.link.Link`'s); then:

- the game's bookkeeping is done for the caller, for any game: a fresh SEED when a game starts;
  `play(action)` commits in a secret step (and reveals once every commitment is in) or acts in an
  open one; `awaiting` says when an action of ours is wanted; PONG to pings;
- everything shown is checked as it comes and at GAME_OVER (`client.checks`): openings against
  commitments, the signed record, and every observation shown against the replay of the record.
  A failure is recorded loudly in `fairness.failures`, never ignored;
- `resume()` takes the session back on a new connection after a drop (replayed messages or a
  snapshot), one attempt at a time, and goes on with what the seat still owes; `auto_reconnect`
  does it by itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections import deque
from collections.abc import Sequence
from typing import Any, Unpack

from sushigo.protocol import (
    Act,
    Acted,
    ClientConnection,
    Commit,
    Commitments,
    Error,
    ErrorCode,
    GameEnded,
    GameStarted,
    GameStarting,
    Message,
    Phase,
    ProtocolError,
    Redirect,
    Resume,
    Resumed,
    Reveal,
    Seed,
    Spectating,
    TableJoined,
    TableStatus,
    TurnResult,
    TurnStart,
    make_commitment,
    new_nonce,
    new_seed,
)

from .address import AddressError, parse_address
from .checks import Fairness, GameChecks
from .errors import NoAnswer, ResumeUnanswered
from .link import ConnectError, ConnectionLost, Link, LinkOptions, ServerError

__all__ = [
    "FINAL",
    "Client",
    "ConnectError",
    "ConnectionLost",
    "ServerError",
    "auto_reconnect",
    "reconnect",
]


log = logging.getLogger("sushigo.client")

MAX_REDIRECTS = 3
"""Redirects one resume follows (a cluster's nodes may move a table on while we look for it)."""
NAME_TRIES = 50
"""Names a fresh login after a lost session tries (`Client.login_again`)."""


class Client(Link):
    """One connection (and session) to a server, and our seat's part in its games. Use
    `Client.connect`."""

    def __init__(self, host: str, port: int, **options: Unpack[LinkOptions]) -> None:
        super().__init__(host, port, **options)
        self.observation: Any = None
        """Our latest observation (TURN_START, ACTED or a resume snapshot) as the caller has read
        it: the game's own value (`engine.api.SeatView`)."""
        self.fairness = Fairness()
        """The checks of the game the caller is reading (see `client.checks`)."""
        self.refusals = 0
        """Our open-step actions the server refused (ERROR) since our last accepted one."""
        self._checks: GameChecks | None = None
        """The game as it arrives (ahead of the caller's view)."""
        self._state: Any = None
        """Our observation as it stands on arrival: what `play` chooses are checked against."""
        self._pick: tuple[int, int, Any, bytes] | None = None
        """(round, turn, action, nonce) of our pick in the current secret step."""
        self._revealed: tuple[int, int] | None = None
        self._pending: tuple[int, Any] | None = None
        """(ref, action) of our open-step action the server has not answered yet."""
        self._starts: deque[Fairness] = deque()
        """Each arrived game's checks, until the caller reads that game's start."""
        self._resuming = asyncio.Lock()
        """Held by the one resume attempt under way (see `resume`)."""

    # -- resuming -------------------------------------------------------------------------------

    async def resume(self) -> Resumed:
        """Take the session back on a new connection (after `ConnectionLost`).

        One attempt at a time: a caller that asks while another attempt is under way waits for
        it and gets its answer (or tries again if it failed). Then whatever the seat still owes
        in the current step is sent again: the commitment or reveal of the pick it kept (a
        restarted server asks for the step again), and nothing else."""
        async with self._resuming:
            if self.connected and self._last_resumed is not None:
                return self._last_resumed
            return await self._resume(self.proto)

    async def _back(self, before: ClientConnection) -> None:
        """After a redirect's node refused its ticket: the session we left (on the connection
        `before`) taken back here by its token, as after a drop (or, if this node no longer
        knows it, a fresh login: we are in the lobby)."""
        async with self._resuming:
            try:
                await self._resume(before)
            except ServerError as exc:
                if exc.code is not ErrorCode.UNKNOWN_SESSION:
                    raise
            else:
                return
        await self.login_again()

    async def _resume(self, since: ClientConnection) -> Resumed:
        """`resume` the session of the connection `since` (its last message read, its game)."""
        last_seq = since.last_seq
        game, seat = since.game, since.seat
        for _ in range(MAX_REDIRECTS + 1):
            await self._open()
            # The new connection is at the same table: its game's values read the same way.
            self.proto.game, self.proto.seat = game, seat
            try:
                reply = await self._request(
                    Resume(ref=self.proto.next_ref(), token=self.token, last_seq=last_seq)
                )
            except NoAnswer as exc:
                if self._writer is not None:
                    self._writer.close()
                raise ResumeUnanswered(str(exc)) from None
            if not isinstance(reply, Redirect):
                break
            # A cluster's node that does not hold our table: the one that does, with the
            # same token (nothing was sent on the old connection since, so no seq is lost).
            try:
                self.host, self.port = parse_address(reply.address)
            except AddressError as exc:
                raise ConnectionLost(f"a redirect to a bad address: {exc}") from None
        if not isinstance(reply, Resumed):
            raise ConnectionLost(f"unexpected answer to RESUME: {reply.TYPE}")
        self.nodes = reply.nodes or self.nodes
        self.token = reply.resume_token
        if reply.phase is Phase.LOBBY:  # at no table (one whose game had not begun is not held)
            self.table = self.seat = None
        # As a login would (a new process taking a kept session back knew neither).
        self.player_id, self.name = reply.player_id, reply.name
        if reply.kind is not None:
            self.kind = reply.kind
        snap = reply.snapshot
        if snap is not None:
            self.table = snap.table
            self.seat = snap.seat
            if snap.observation is not None:
                self.observation = snap.observation
        self._continue()
        self._last_resumed = reply
        return reply

    def next_node(self) -> None:
        """After a failed attempt to reach our node: go on with the next of the cluster's live
        nodes (as the last login or resume listed them; nothing changes for a lone server). Any
        node takes our token: it resumes us, or redirects us to the node that holds our table."""
        nodes = self.nodes
        if len(nodes) < 2:
            return
        here = self._where()
        following = nodes[(nodes.index(here) + 1) % len(nodes)] if here in nodes else nodes[0]
        with contextlib.suppress(AddressError):
            self.host, self.port = parse_address(following)

    async def login_again(self) -> None:
        """A new session on a new connection, for when the server no longer knows ours (a
        restart loses the sessions of players at no game in progress: they were in the lobby or
        at a finished table). Afterwards we are in the lobby: no table and no game."""
        async with self._resuming:
            await self._open()
            # Forgotten before the login, not after: what the server sends right after
            # LOGGED_IN (a tournament seating its entrant at once) is checked on arrival.
            self.table = self.seat = self.kind = None
            self.observation = self._state = None
            self._checks, self._pick, self._pending = None, None, None
            self._last_resumed = None
            await self._login_any_name()

    async def _login_any_name(self) -> None:
        """Log in under our name, or, while another player holds it (a session of ours the
        server kept, under another guest id), under "NAME-2", "NAME-3", ...: the name was ours
        already, and a player logging in again must not be stopped by its own old session."""
        name = self.name
        for attempt in range(1, NAME_TRIES + 1):
            self.name = name if attempt == 1 else f"{name[:20]}-{attempt}"
            try:
                if attempt > 1:
                    await self._open()  # a login refused: the next on a connection of its own
                await self._login()
            except ServerError as exc:
                if exc.code is not ErrorCode.NAME_TAKEN or attempt == NAME_TRIES:
                    self.name = name
                    raise
            else:
                if self.name != name:
                    log.warning("the name %r is taken here: logged in as %r", name, self.name)
                return

    def _left(self) -> None:
        """The session we had is left behind (following a tournament's REDIRECT): no table and
        no game, as after a fresh login."""
        super()._left()
        self.observation = self._state = None
        self._checks, self._pick, self._pending = None, None, None
        self._starts.clear()  # the games started on it: their GAME_STARTING was dropped unread
        self._last_resumed = None

    _last_resumed: Resumed | None = None
    """The answer of the last successful resume, while its connection lasts."""

    def _resumed(self, msg: Resumed) -> None:
        """RESUMED arrived (before any message replayed or sent after it is read). An open-step
        action of ours still unanswered was lost with the connection or is answered among the
        replayed messages: either way we may act again on the game as it now stands. A snapshot
        starts the checks afresh from where it stands (what happened in between was not shown)."""
        self._pending = None
        snap = msg.snapshot
        if snap is None:
            return
        table = snap.table
        if table is None:
            self._checks = None
            return
        checks = self._checks
        if snap.server_seed_hash is not None and (
            checks is None or checks.table_id != table.table_id
        ):
            # A game this client never saw start (a new process resuming with a saved token).
            checks = self._checks = GameChecks(
                table.table_id,
                snap.seat,
                table.settings.kind,
                snap.server_seed_hash,
                client_seeds=tuple(snap.client_seeds),
            )
            self.fairness = checks.fairness
        if checks is not None:
            checks.acting = snap.seats
            if snap.observation is not None:
                checks.shown.append((snap.steps, snap.observation))
            if snap.commitments and msg.round and msg.turn:
                checks.commitments[msg.round, msg.turn] = tuple(snap.commitments)
        if snap.observation is not None:
            self._state = snap.observation

    def _continue(self) -> None:
        """After a resume, send again what the seat owes in the current step, if it kept it.

        Judged by the protocol state now, not by the phase RESUMED named: the replayed messages
        that follow it have already moved the state on (and may have had us reveal)."""
        checks = self._checks
        if self.proto.phase is Phase.SEEDING and checks is not None and checks.seat is not None:
            # A restarted server lost our seed (it keeps a game's seeds once all are in): the
            # same one again, so what we check the deal against does not change; or, when the
            # game's start never reached us (it went down with the connection), a first one.
            if checks.my_seed is None:
                checks.my_seed = new_seed()
            self.send(Seed(ref=self.proto.next_ref(), seed=checks.my_seed))
            return
        pick = self._pick
        if pick is None or self.proto.position != (pick[0], pick[1]):
            return
        if self.proto.phase is Phase.COMMITTING:
            self._revealed = None
            self._send_commit()
        elif self.proto.phase is Phase.REVEALING:
            self._send_reveal()

    # -- the current step ----------------------------------------------------------------------

    @property
    def awaiting(self) -> bool:
        """A step waits for an action of ours: a secret step we have not picked in, or our open
        turn with nothing of ours unanswered (after a resume too: the caller should choose from
        `legal_actions()` when this is true)."""
        phase = self.proto.phase
        position = self.proto.position
        if phase is Phase.COMMITTING:
            return position is not None and (
                self._pick is None or (self._pick[0], self._pick[1]) != position
            )
        return phase is Phase.MOVING and self._pending is None and self._state is not None

    @property
    def state(self) -> Any:
        """Our observation as the game stands now (it may be ahead of `observation`, the caller's
        view, which moves as events are read): choose from this one."""
        return self._state

    def legal_actions(self) -> Sequence[Any]:
        """The actions our seat may take now (empty when none is wanted)."""
        state = self._state
        return () if state is None else state.legal_actions()

    def play(self, action: Any, seen: Any = None) -> None:
        """Our action in the current step: `pick` in a secret step, `act` in an open one."""
        if self.proto.phase is Phase.MOVING:
            self.act(action, seen)
        else:
            self.pick(action)

    def pick(self, action: Any) -> None:
        """Choose our action in a secret step: commits now, reveals when every commitment is in."""
        state = self._state
        position = self.proto.position
        if state is None or self.proto.phase is not Phase.COMMITTING or position is None:
            raise ServerError.of(ErrorCode.OUT_OF_PHASE, "no step is waiting for a pick")
        _check_legal(state, action)
        round_, turn = position
        self._pick = (round_, turn, action, new_nonce())
        self._revealed = None
        if self._checks is not None:
            self._checks.my_pick = (round_, turn, action)
        self._send_commit()

    def act(self, action: Any, seen: Any = None) -> None:
        """Send one action of our open turn (Sushi Roll: re-rolls and swaps, then the take).

        Refused here, with nothing sent (`ServerError` with the code the server would give), when
        it is not our turn, while our previous action awaits its answer, when the game is no
        longer `seen` (the choice was made on a state that has changed since), or when the action
        is not legal. The answer is an ACTED (or an ERROR) event."""
        state = self._state
        position = self.proto.position
        if state is None or self.proto.phase is not Phase.MOVING or position is None:
            raise ServerError.of(ErrorCode.OUT_OF_PHASE, "it is not your move")
        if self._pending is not None:
            raise ServerError.of(ErrorCode.ALREADY_DONE, "your last action is not answered yet")
        if seen is not None and seen != state:
            raise ServerError.of(ErrorCode.WRONG_TURN, "the game has changed: choose again")
        _check_legal(state, action)
        round_, turn = position
        ref = self.proto.next_ref()
        self.send(Act(ref=ref, round=round_, turn=turn, action=action))
        self._pending = (ref, action)
        if self._checks is not None:
            self._checks.sent.append(action)

    @property
    def pending(self) -> Any:
        """Our open-step action the server has not answered yet (None: none in flight)."""
        return self._pending[1] if self._pending is not None else None

    def _send_commit(self) -> None:
        """Commit to our pick: bound to the game's table and our seat in it as the connection
        has them (the caller's view may lag behind: `next_event`)."""
        pick, game, checks = self._pick, self.proto.game, self._checks
        seat = self.proto.seat
        if seat is None:
            seat = checks.seat if checks is not None and checks.seat is not None else self.seat
        table_id = checks.table_id if checks is not None else ""
        if not table_id and self.table is not None:
            table_id = self.table.table_id
        if pick is None or game is None or seat is None or not table_id:
            # Nothing tells which game or seat this pick is for (messages came in an order the
            # library did not expect): sending it could only be refused, or bind the wrong seat.
            log.warning("a pick with no game or seat of ours to commit it to: not sent")
            return
        round_, turn, action, nonce = pick
        commitment = make_commitment(table_id, round_, turn, seat, game.commit_bytes(action), nonce)
        self.send(Commit(ref=self.proto.next_ref(), round=round_, turn=turn, commitment=commitment))

    def _send_reveal(self) -> None:
        assert self._pick is not None
        round_, turn, action, nonce = self._pick
        if self._revealed == (round_, turn):
            return
        self._revealed = (round_, turn)
        self.send(
            Reveal(ref=self.proto.next_ref(), round=round_, turn=turn, action=action, nonce=nonce)
        )

    # -- receiving ------------------------------------------------------------------------------

    def _view(self, msg: Message) -> None:
        """Move the caller's view as it takes `msg` (see `next_event`)."""
        super()._view(msg)
        if isinstance(msg, GameStarting):
            table = self.table
            if table is not None and table.table_id != msg.table_id:
                log.warning(
                    "a game starts at table %s, not at table %s where we were: played there",
                    msg.table_id,
                    table.table_id,
                )
            self.seat = msg.seat
            self.kind = msg.kind
            if self._starts:
                self.fairness = self._starts.popleft()
        elif isinstance(msg, TurnStart | Acted):
            self.observation = msg.observation
        elif isinstance(msg, Resumed):
            self._view_resumed(msg)

    def _view_resumed(self, msg: Resumed) -> None:
        """RESUMED read: the caller's view is the session as it was taken back. `_resume` set
        it already, for its caller; the messages of the dropped connection read since (they
        stay, in order, ahead of RESUMED) moved it back to what they said, and a snapshot
        says nothing more that would move it on."""
        snap = msg.snapshot
        if snap is not None:
            self.table, self.seat = snap.table, snap.seat
            if snap.table is not None:
                self.kind = snap.table.settings.kind
            if snap.observation is not None:
                self.observation = snap.observation
        elif msg.phase is Phase.LOBBY:
            self.table = self.seat = None

    def _duty(self, msg: Message) -> None:
        """As `msg` arrives: the seat's part of the protocol (seed, reveal) and every check.

        Done on arrival, not when the caller gets round to reading, so the game never waits on a
        slow reader; each game's checks go to that game's own `Fairness`."""
        checks = self._checks
        if isinstance(msg, TurnStart):
            self._state = msg.observation
            if checks is not None:
                checks.step(msg)
        elif isinstance(msg, Acted):
            self._state = msg.observation
            if msg.seat == self.proto.seat:
                self._pending = None  # whatever was applied answers ours (an auto one overtakes it)
                self.refusals = 0
            if checks is not None:
                checks.acted(msg)
        elif isinstance(msg, Commitments):
            if checks is not None:
                checks.committed(msg)
            pick = self._pick
            if pick is not None and (pick[0], pick[1]) == (msg.round, msg.turn):
                with contextlib.suppress(ConnectionLost, ProtocolError):
                    self._send_reveal()
        elif isinstance(msg, TurnResult):
            if checks is not None:
                checks.result(msg)
        elif isinstance(msg, GameStarting):
            new = self._checks = GameChecks(msg.table_id, msg.seat, msg.kind, msg.server_seed_hash)
            self._starts.append(new.fairness)
            self._state, self._pending, self._pick = None, None, None
            if msg.seat is not None:
                new.my_seed = new_seed()
                with contextlib.suppress(ConnectionLost, ProtocolError):
                    self.send(Seed(ref=self.proto.next_ref(), seed=new.my_seed))
        elif isinstance(msg, GameStarted):
            if checks is not None:
                checks.started(msg)
        elif isinstance(msg, GameEnded):
            self._pending = None
            if checks is not None:
                checks.finished(msg, self.server_key or None)
        elif isinstance(msg, TableJoined | Spectating):
            self._watch(msg)
        elif isinstance(msg, Resumed):
            self._resumed(msg)
        elif isinstance(msg, Error):
            pending = self._pending
            if pending is not None and msg.ref == pending[0]:
                # Refused: it changed nothing, and the seat may send another.
                self._pending = None
                self.refusals += 1
                if checks is not None:
                    with contextlib.suppress(ValueError):
                        checks.sent.remove(pending[1])

    def _watch(self, msg: TableJoined | Spectating) -> None:
        """We are at a new table: the last game's checks are over. Watching a game under way,
        we check what is left of it from here on (its start was never shown to us)."""
        self._checks = None
        table = msg.table
        if isinstance(msg, Spectating) and table.status is TableStatus.PLAYING:
            checks = self._checks = GameChecks(table.table_id, None, table.settings.kind, b"")
            self.fairness = checks.fairness


FINAL = frozenset({ErrorCode.BANNED, ErrorCode.KICKED})
"""Why the server closed a connection that must not be taken back by itself: an admin ended the
session, or banned its player."""


RESTART_PATIENCE = 300.0
"""How long a client told RESTARTING keeps trying to take its session back (seconds): a server
being upgraded is expected back, so the usual number of attempts does not apply."""
RESTART_RETRY_CAP = 1.0
"""The longest wait between two attempts after RESTARTING: the server is back any moment, and a
player should not wait long once it is."""


async def auto_reconnect(client: Client, attempts: int = 30, delay: float = 1.0) -> Resumed:
    """Resume after a drop, retrying with a growing delay; `ConnectError` after `attempts`.
    After RESTARTING the first attempt waits what the server asked, and the attempts go on, a
    second apart at most, for up to `RESTART_PATIENCE` seconds. A connection the server closed
    with BANNED or KICKED is not taken back: `ServerError`."""
    refusal = client.refusal
    if refusal is not None and refusal.error_code in FINAL:
        raise ServerError(refusal)
    restarting = client.restarting
    moved, client.moved = client.moved, None
    last: Exception | None = None
    if moved is not None:
        # Our node handed our table to another and told us which: straight there.
        with contextlib.suppress(AddressError):
            client.host, client.port = parse_address(moved.address)
    if restarting is not None or moved is not None:
        loop = asyncio.get_running_loop()
        until = loop.time() + RESTART_PATIENCE
        await asyncio.sleep(restarting.retry_ms / 1000 if restarting is not None else 0)
        pause = 0.1
        while loop.time() < until:
            resumed, last = await _try_resume(client)
            if resumed is not None:
                return resumed
            await asyncio.sleep(pause * (0.5 + random.random()))
            pause = min(pause * 1.5, RESTART_RETRY_CAP)
        raise ConnectError(f"{client._where()} did not come back after restarting: {last}")
    for attempt in range(attempts):
        resumed, last = await _try_resume(client)
        if resumed is not None:
            return resumed
        # Jittered: the players of a server that went away must not all knock at once.
        await asyncio.sleep(min(delay * (1.5**attempt), 10.0) * (0.5 + random.random()))
    raise ConnectError(f"could not reconnect to {client._where()}: {last}")


async def _try_resume(client: Client) -> tuple[Resumed | None, Exception | None]:
    """One attempt to take the session back: RESUMED, or why not (the next node is tried next
    time, but after a RESUME unanswered, `ResumeUnanswered`, the same). INTERNAL_ERROR means the
    server could not answer now (a cluster's table on its way to another node, the database
    away): another try; any other refusal is final (raised)."""
    try:
        return await client.resume(), None
    except (ConnectError, ConnectionLost, OSError, ServerError) as exc:
        if isinstance(exc, ServerError) and exc.code is not ErrorCode.INTERNAL_ERROR:
            raise
        if not isinstance(exc, ResumeUnanswered):
            client.next_node()
        return None, exc


async def reconnect(client: Client, attempts: int = 30, delay: float = 1.0) -> Resumed | None:
    """`auto_reconnect`; or, when the server no longer knows the session (it restarted, and we
    were at no game in progress), a fresh login (`_log_in_again`): None, and we are in the
    lobby. Any other refusal is raised (`ServerError`), as is `ConnectError` after `attempts`.
    If we waited in a quick match and came back to no table (a seat in a game not begun is not
    held for a resume), we are in the queue again (`Link.requeue`). A connection that drops
    again before that is done is taken back the same way (`attempts` times at most, then
    `ConnectionLost`)."""
    dropped = 0
    while True:
        try:
            try:
                resumed = await auto_reconnect(client, attempts, delay)
            except ServerError as exc:
                if exc.error.error_code is not ErrorCode.UNKNOWN_SESSION:
                    raise
                resumed = None
                await _log_in_again(client, attempts, delay)
            await client.requeue()
            return resumed
        except ConnectionLost:
            dropped += 1
            if dropped >= attempts:
                raise


async def _log_in_again(client: Client, attempts: int, delay: float) -> None:
    """`Client.login_again`, tried again with a growing delay while it gets no answer (a
    cluster's node answers a login once its database has read and stored it) or the node
    cannot be reached (then on the next node); `ConnectError` after `attempts`."""
    for attempt in range(attempts):
        try:
            await client.login_again()
            return
        except ConnectError:
            if attempt == attempts - 1:
                raise
            if not client.connected:
                client.next_node()
        await asyncio.sleep(min(delay * (1.5**attempt), 10.0) * (0.5 + random.random()))


def _check_legal(state: Any, action: Any) -> None:
    """Refuse, as the server would, an action the observation `state` does not allow."""
    if action not in state.legal_actions():
        raise ServerError.of(ErrorCode.ILLEGAL_ACTION, f"{action!r} is not legal now")
