"""One seat of the load: `LoadClient`, a minimal client speaking the protocol from raw msgpack
maps, and `glance`, which reads the two commonest frames' heads without decoding them.

A seat lives in a client process's `worker.Worker`, whose shared counters and connections it
uses; `Host` names that part of the worker (the worker makes seats, so the seat does not import
it back)."""

from __future__ import annotations

import asyncio
import os
import random
import secrets
import time
from typing import Any, Protocol, cast

import msgpack

from sushigo.engine import Action, Card
from sushigo.protocol import (
    CARD_WIRE,
    CLIENT_LIMITS,
    PROTOCOL_NAME,
    ClientConnection,
    Commit,
    ErrorCode,
    Hello,
    JoinTable,
    LeaveTable,
    LoginGuest,
    LoginTicket,
    Message,
    Pong,
    ProtocolError,
    QuickMatch,
    Resume,
    Reveal,
    Seed,
    encode_frame,
    encode_message,
    make_commitment,
)
from sushigo.protocol.versions import CURRENT_VERSION

from .stats import Settings, Stats

_pack = msgpack.Packer(use_bin_type=True, autoreset=True).pack
_TAKEN = (ErrorCode.TABLE_FULL, ErrorCode.GAME_IN_PROGRESS, ErrorCode.NO_SUCH_TABLE)


class Host(Protocol):
    """What a seat uses of its client process (`worker.Worker`): the run's settings, the
    process's figures and counters, and new connections (a redirect followed, a seat resumed)."""

    settings: Settings
    stats: Stats
    loop: asyncio.AbstractEventLoop
    rng: random.Random
    seats: int
    """Seats in this process."""
    open: int
    """Connections open now."""
    logged_in: int
    all_in: asyncio.Event
    """Every seat of the process has logged in."""
    playing: bool
    """Seats quick match as they log in (else they wait in `waiting` for the others)."""
    waiting: list[LoadClient]
    stopping: bool
    """The run is over: closes are not errors."""
    clients: list[LoadClient]
    quick_at: dict[int, float]
    over_at: dict[int, float]

    def nonce(self) -> bytes: ...

    def elapsed(self) -> float: ...

    def count_result(self) -> None: ...

    def connect_soon(self, index: int, port: int, resume: dict[str, Any] | None = None) -> None:
        """A new connection for seat `index` (to take back `resume`'s seat, when given)."""

    def resume_later(self, index: int, resume: dict[str, Any], port: int | None = None) -> None: ...

    def follow(self, index: int, redirect: dict[str, Any]) -> None: ...


class LoadClient(asyncio.Protocol):
    """One seat: a minimal client speaking the protocol from raw msgpack maps."""

    def __init__(
        self,
        worker: Host,
        index: int,
        redirect: dict[str, Any] | None = None,
        resume: dict[str, Any] | None = None,
    ) -> None:
        self.worker = worker
        self.index = index
        self.resume = resume
        """The seat this connection takes back after its node died (token, table, seat, when)."""
        self.token = resume["token"] if resume else b""
        self.port = 0
        self.redirect = redirect
        """The REDIRECT this connection follows (its ticket logs in, its table is joined)."""
        self.transport: asyncio.Transport | None = None
        self.buf = bytearray()
        self.last_seq = 0
        self.ref = 0
        self.closing = False
        self.strict: ClientConnection | None = (
            ClientConnection() if worker.settings.strict else None
        )
        self.table_id = ""
        self.over = False
        """The game of `table_id` has ended."""
        self.seat = 0
        self.position = (0, 0)
        self.hand: list[str] = []
        self.action: Action | None = None
        self.nonce = b""
        self.revealed_at = 0.0
        self.timer: asyncio.TimerHandle | None = None
        self.last_type = "(nothing)"

    # -- asyncio.Protocol ------------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports do not subclass asyncio.Transport but have the same methods.
        self.transport = cast(asyncio.Transport, transport)
        self.port = int(transport.get_extra_info("peername")[1])
        if self.resume is not None:
            self.table_id, self.seat = self.resume["table_id"], self.resume["seat"]
        self.worker.open += 1
        self.worker.stats.connected += 1
        self.worker.clients.append(self)
        self.send(
            Hello(
                ref=self.next_ref(),
                protocol=PROTOCOL_NAME,
                version=CURRENT_VERSION,
                software="sushigo-loadtest",
            )
        )

    def data_received(self, data: bytes) -> None:
        if self.strict is not None:
            self._check_strictly(data)
        buf = self.buf
        if buf:
            buf += data
            data = bytes(buf)
            buf.clear()
        at, end = 0, len(data)
        while end - at >= 4:
            stop = at + 4 + int.from_bytes(data[at : at + 4], "big")
            if stop > end:
                break
            value = glance(data, at + 4)
            if value is None:
                try:
                    value = msgpack.unpackb(data[at + 4 : stop], raw=False)
                except Exception:
                    self.fail("malformed frame from the server")
                    return
            at = stop
            self.handle(value)
            if self.closing:
                return
        if at < end:
            buf += data[at:]

    def connection_lost(self, exc: Exception | None) -> None:
        self.worker.open -= 1
        if self.timer is not None:
            self.timer.cancel()
        worker = self.worker
        if not self.closing and not worker.stopping:
            if worker.settings.ports and self.token and self.table_id:
                # Its node died (--kill-node-after): the seat is taken back on another.
                resume = self.resume or {
                    "token": self.token,
                    "table_id": self.table_id,
                    "seat": self.seat,
                    "lost": time.perf_counter(),
                }
                if self.resume is None:
                    worker.stats.dropped += 1
                    if not self.over:  # a game under way (not one that ended before)
                        worker.stats.killed_tables.setdefault(self.table_id, "lost")
                resume["token"] = self.token
                worker.resume_later(self.index, resume, self.port)
            elif worker.settings.ports and not self.table_id:
                # Its node died while it was in the lobby (a quick match under way): logged in
                # again on the next node, as a person would.
                worker.stats.error("(not an error) a seat in the lobby logged in again elsewhere")
                ports = worker.settings.ports
                after = (
                    ports[(ports.index(self.port) + 1) % len(ports)]
                    if self.port in ports
                    else ports[0]
                )
                worker.connect_soon(self.index, after)
            else:
                worker.stats.error("unexpected close")
        self.closing = True

    # -- sending ---------------------------------------------------------------------------------

    def next_ref(self) -> int:
        self.ref += 1
        return self.ref

    def send(self, message: Message) -> None:
        if self.closing or self.transport is None:
            return
        if type(message) is QuickMatch:
            self.worker.quick_at[self.index] = time.perf_counter()
        if self.strict is not None:
            try:
                frame = self.strict.send(message)
            except ProtocolError as exc:
                self.fail(f"strict client refused to send {message.TYPE}: {exc.code.name}")
                return
        else:
            frame = encode_frame(encode_message(message, None, CARD_WIRE), CLIENT_LIMITS)
        self.transport.write(frame)

    def send_raw(self, value: dict[str, Any]) -> None:
        """A game move built as a plain map: the hot path of thousands of clients."""
        if self.closing or self.transport is None:
            return
        body = _pack(value)
        self.transport.write(len(body).to_bytes(4, "big") + body)

    def stop(self) -> None:
        """The run is over: close without counting it as an error."""
        self.closing = True
        if self.timer is not None:
            self.timer.cancel()
        if self.transport is not None:
            self.transport.close()

    def fail(self, why: str) -> None:
        self.worker.stats.error(why)
        self.stop()

    def _check_strictly(self, data: bytes) -> None:
        conn = self.strict
        assert conn is not None
        try:
            conn.receive_data(data)
            while conn.next_event() is not None:
                pass
        except ProtocolError as exc:
            self.fail(f"strict client: {exc.code.name}: {exc}")

    # -- the game --------------------------------------------------------------------------------

    def handle(self, msg: Any) -> None:
        if type(msg) is not dict:
            self.fail("server message is not a map")
            return
        seq = msg.get("seq")
        if seq != self.last_seq + 1:
            self.fail("bad sequence number")
            return
        self.last_seq = seq
        kind = msg.get("type")
        self.last_type = str(kind)
        worker = self.worker
        if kind == "turn_start":
            self.turn((msg["round"], msg["turn"]), msg["observation"]["hand"])
        elif kind == "commitments":
            if self.action is not None and (msg["round"], msg["turn"]) == self.position:
                round_, turn = self.position
                if self.strict is not None:
                    self.send(
                        Reveal(
                            ref=self.next_ref(),
                            round=round_,
                            turn=turn,
                            action=self.action,
                            nonce=self.nonce,
                        )
                    )
                else:
                    self.send_raw(
                        {
                            "type": "reveal",
                            "ref": self.next_ref(),
                            "round": round_,
                            "turn": turn,
                            "action": {"cards": [self.action.first.label]},
                            "nonce": self.nonce,
                        }
                    )
                self.revealed_at = time.perf_counter()
        elif kind == "turn_result":
            if self.resume is not None and "back" not in self.resume:
                self.resume["back"] = True
                worker.stats.back.append(time.perf_counter() - self.resume["lost"])
                killed = worker.stats.killed_tables
                if killed.get(self.table_id) == "lost":
                    killed[self.table_id] = "back"
            if self.action is not None:
                worker.stats.latencies.append(time.perf_counter() - self.revealed_at)
                worker.stats.latency_at.append(worker.elapsed())
            self.action = None
            worker.count_result()
        elif kind == "game_starting":
            over_at = worker.over_at.pop(self.index, None)
            if over_at is not None:
                worker.stats.between.append(time.perf_counter() - over_at)
            self.table_id = msg["table_id"]
            self.seat = msg["seat"]
            self.over = False
            self.send(Seed(ref=self.next_ref(), seed=secrets.token_bytes(32)))
        elif kind == "game_over":
            self.over = True
            worker.over_at[self.index] = time.perf_counter()
            if self.seat == 0:
                worker.stats.games += 1
            if self.resume is not None and self.table_id in worker.stats.killed_tables:
                worker.stats.killed_tables[self.table_id] = "finished"
            self.send(LeaveTable(ref=self.next_ref()))
        elif kind == "table_left":
            if not worker.stopping:
                self.send(QuickMatch(ref=self.next_ref(), kind="sushi-go", players=4))
        elif kind == "welcome":
            if self.resume is not None:
                self.send(Resume(ref=self.next_ref(), token=self.resume["token"], last_seq=0))
                return
            if self.redirect is not None:
                self.send(LoginTicket(ref=self.next_ref(), ticket=self.redirect["ticket"]))
                return
            # Names are unique among the connected: each worker process numbers its own.
            self.send(LoginGuest(ref=self.next_ref(), name=f"load{os.getpid()}-{self.index}"))
        elif kind == "redirect" and self.resume is not None:
            # The node of our table: take the seat back there.
            self.stop()
            port = int(str(msg["address"]).rsplit(":", 1)[1])
            worker.connect_soon(self.index, port, self.resume)
        elif kind == "redirect":
            self.stop()
            worker.follow(self.index, msg)
        elif kind == "resumed":
            self.token = msg["resume_token"]
            phase, snapshot = msg.get("phase"), msg.get("snapshot") or {}
            observation = snapshot.get("observation") or {}
            if phase == "committing":
                self.turn((msg["round"], msg["turn"]), observation.get("hand") or [])
            elif phase == "seeding":
                self.send(Seed(ref=self.next_ref(), seed=secrets.token_bytes(32)))
        elif kind == "logged_in" and self.redirect is not None:
            self.token = msg["resume_token"]
            self.send(JoinTable(ref=self.next_ref(), table_id=self.redirect["table_id"]))
        elif kind == "logged_in":
            self.token = msg["resume_token"]
            worker.logged_in += 1
            if worker.logged_in == worker.seats:
                worker.stats.all_connected_at = worker.elapsed()
                worker.all_in.set()
            if worker.playing:
                self.send(QuickMatch(ref=self.next_ref(), kind="sushi-go", players=4))
            else:
                worker.waiting.append(self)
        elif kind == "table_joined":
            quick_at = worker.quick_at.pop(self.index, None)
            if quick_at is not None:
                worker.stats.joined.append(time.perf_counter() - quick_at)
        elif kind == "ping":
            self.send(Pong(ref=self.next_ref(), nonce=msg.get("nonce", 0)))
        elif kind == "error":
            code: Any = msg.get("code")
            try:
                name = ErrorCode(int(code)).name
            except (TypeError, ValueError):
                name = str(code)
            if self.redirect is not None and code in _TAKEN and not self.table_id:
                # The other node's table filled meanwhile: a quick match there instead.
                self.worker.stats.error("(not an error) redirected to a table already full")
                self.send(QuickMatch(ref=self.next_ref(), kind="sushi-go", players=4))
                return
            if self.resume is not None and "back" not in self.resume:
                # Taking a seat back from a dead node: the next node may be swamped (TIMEOUT),
                # or the table on its way to it: try again, as the client library does.
                self.worker.stats.error(f"(not an error) resume tried again after {name}")
                self.stop()
                self.worker.resume_later(self.index, self.resume, self.port)
                return
            self.worker.stats.error(f"ERROR {name}: {msg.get('message', '')}"[:120])
            if code in (ErrorCode.TIMEOUT, ErrorCode.SHUTTING_DOWN, ErrorCode.RATE_LIMITED):
                self.stop()

    def turn(self, position: tuple[int, int], hand: list[str]) -> None:
        """A step asks for our pick: at once (saturation), or after a person's pause."""
        worker = self.worker
        self.position, self.hand = position, hand
        if worker.settings.mode == "human":
            delay = worker.settings.pick_seconds * (0.5 + worker.rng.random())
            self.timer = worker.loop.call_later(delay, self.commit)
        else:
            self.commit()

    def commit(self) -> None:
        self.timer = None
        if self.closing or not self.hand:
            return
        card = Card.from_label(self.worker.rng.choice(self.hand))
        self.action = Action(card)
        self.nonce = self.worker.nonce()
        round_, turn = self.position
        commitment = make_commitment(
            self.table_id, round_, turn, self.seat, CARD_WIRE.commit_bytes(self.action), self.nonce
        )
        if self.strict is not None:
            self.send(Commit(ref=self.next_ref(), round=round_, turn=turn, commitment=commitment))
            return
        self.send_raw(
            {
                "type": "commit",
                "ref": self.next_ref(),
                "round": round_,
                "turn": turn,
                "commitment": commitment,
            }
        )


_COMMITMENTS = b"\xa4type\xabcommitments\xa3seq"
_TURN_RESULT = b"\xa4type\xabturn_result\xa3seq"


def glance(data: bytes, at: int) -> dict[str, Any] | None:
    """The type, seq, round and turn of a COMMITMENTS or TURN_RESULT frame's body at `at`, read
    from its first bytes without decoding the rest (its commitments, openings and events, which
    the load test does not use); None for any other frame (or one laid out otherwise: it is
    decoded whole). Most frames a seat receives are one of these two."""
    head = data[at + 1 : at + 1 + len(_COMMITMENTS)]
    if head == _COMMITMENTS:
        kind = "commitments"
    elif head == _TURN_RESULT:
        kind = "turn_result"
    else:
        return None
    try:
        return _position(data, kind, at + 1 + len(_COMMITMENTS))
    except IndexError:  # cut short: the whole decode says what is wrong
        return None


def _position(data: bytes, kind: str, at: int) -> dict[str, Any] | None:
    seq, at = _uint(data, at)
    if data[at : at + 6] != b"\xa5round":
        return None
    round_, at = _uint(data, at + 6)
    if data[at : at + 5] != b"\xa4turn":
        return None
    turn, _ = _uint(data, at + 5)
    if seq < 0 or round_ < 0 or turn < 0:
        return None
    return {"type": kind, "seq": seq, "round": round_, "turn": turn}


def _uint(data: bytes, at: int) -> tuple[int, int]:
    """A msgpack unsigned integer at `at` and the offset after it (-1 if there is none)."""
    first = data[at]
    if first < 0x80:
        return first, at + 1
    size = {0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8}.get(first)
    if size is None:
        return -1, at + 1
    return int.from_bytes(data[at + 1 : at + 1 + size], "big"), at + 1 + size
