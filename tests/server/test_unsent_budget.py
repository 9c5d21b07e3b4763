"""The memory budget for bytes clients have not taken (`server.net.budget`): per connection, per
address and in all, the slowest readers dropped first; a client that has not read what it was
sent is built no more lists; and what sessions keep for a resume, bounded too."""

from __future__ import annotations

import asyncio
import logging
import socket
import time
from collections.abc import Callable

import pytest
from server_helpers import Peer, card_settings, hello, logged_in, make_hub
from socket_helpers import RawPeer, Running, background_game, errors_of, running_server

from sushigo.protocol import (
    Chat,
    ChatMessage,
    Error,
    ErrorCode,
    ListTables,
    LoggedIn,
    LoginGuest,
    Resume,
    Resumed,
    TableList,
    TableSettings,
    Welcome,
)
from sushigo.server.config import HubConfig
from sushigo.server.net import budget
from sushigo.server.net.budget import Budget
from sushigo.server.sessions.session import REPLAY_BYTES, SMALL_LOG_BYTES

# -- the policy, with connections standing in ----------------------------------------------------


class Holder:
    """A connection as the budget sees it: what it holds now is `now_holds`."""

    def __init__(self, address: str, name: str) -> None:
        self.address, self.name = address, name
        self.unsent = 0
        self.now_holds = 0
        self.dropped = False

    def unsent_now(self) -> int:
        return self.now_holds

    def drop(self) -> None:
        self.dropped = True

    def holds(self, b: Budget, size: int) -> None:
        self.now_holds = size
        b.held(self, size, 0.0)


def test_a_connection_past_its_own_bound_is_dropped_alone() -> None:
    b = Budget(per_address=100 * budget.MAX_UNSENT, total=1000 * budget.MAX_UNSENT)
    deaf, other = Holder("10.0.0.1", "deaf"), Holder("10.0.0.1", "other")
    other.holds(b, 1000)
    deaf.holds(b, budget.MAX_UNSENT)
    assert not deaf.dropped  # at the bound, not past it
    deaf.holds(b, budget.MAX_UNSENT + 1)
    assert deaf.dropped and not other.dropped
    assert b.total == 1000 and b.by_address == {"10.0.0.1": 1000}


def test_past_an_address_share_its_slowest_readers_go_first() -> None:
    b = Budget(per_address=10_000, total=1_000_000)
    first, second, third = (Holder("10.0.0.1", n) for n in ("first", "second", "third"))
    elsewhere = Holder("10.0.0.2", "elsewhere")
    first.holds(b, 3000)  # behind first: the slowest reader
    second.holds(b, 3000)
    elsewhere.holds(b, 9000)
    third.holds(b, 5000)  # 11,000 from 10.0.0.1: one must go, the one behind longest
    assert [h.dropped for h in (first, second, third, elsewhere)] == [True, False, False, False]
    assert b.by_address["10.0.0.1"] == 8000
    # `second` caught up (the kernel took what it held) and fell behind again: now it is the
    # newest, and `third` is the slowest.
    second.now_holds = 0
    b.drained(second)
    second.holds(b, 4000)
    third.holds(b, 7000)
    assert third.dropped and not second.dropped and not elsewhere.dropped


def test_a_count_the_kernel_has_shrunk_since_is_measured_before_anyone_goes() -> None:
    b = Budget(per_address=10_000, total=1_000_000)
    slow, fast = Holder("10.0.0.1", "slow"), Holder("10.0.0.1", "fast")
    slow.holds(b, 6000)
    slow.now_holds = 100  # it read most of it; the budget has not been told yet
    fast.holds(b, 6000)
    assert not slow.dropped and not fast.dropped
    assert b.by_address["10.0.0.1"] == 6100


def test_past_the_whole_budget_the_address_holding_most_loses_its_slowest() -> None:
    b = Budget(per_address=50_000, total=100_000)
    flood = [Holder("10.0.0.9", f"flood{i}") for i in range(4)]
    honest = [Holder(f"10.0.1.{i}", f"honest{i}") for i in range(3)]
    honest[0].holds(b, 10_000)  # behind before any of the flood
    for h in flood:
        h.holds(b, 12_000)
    honest[1].holds(b, 10_000)
    honest[2].holds(b, 40_000)  # 108,000 in all: past the budget
    assert not any(h.dropped for h in honest)
    assert [h.dropped for h in flood] == [True, False, False, False]
    assert b.total <= 100_000


def test_a_closed_connection_is_counted_no_more() -> None:
    b = Budget(per_address=10_000, total=10_000)
    h = Holder("10.0.0.1", "gone")
    h.holds(b, 5000)
    b.gone(h)
    assert b.total == 0 and b.by_address == {} and b.behind == {}


# -- on real sockets -----------------------------------------------------------------------------


async def until(check: Callable[[], bool], what: str, timeout: float = 10.0) -> None:
    """Wait for the server's state to show `what` (it changes as the server writes, which the
    test cannot read without reading what it means not to read)."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"not seen within {timeout} s: {what}"
        await asyncio.sleep(0.005)


async def deaf_peer(running: Running, name: str, local: str = "127.0.0.1") -> tuple[RawPeer, str]:
    """A logged-in client whose socket buffers are as small as the kernel allows, at both ends,
    and which reads nothing more (until `read_all`), so that what it is sent waits in the
    server's memory: and its peer name. (A stream reader left reading would take up to its
    own limit, more or less of it as the loop turns.)"""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.bind((local, 0))
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, (running.host, running.port))
    reader, writer = await asyncio.open_connection(sock=sock)
    peer = RawPeer(reader, writer)
    here = "{}:{}".format(*writer.get_extra_info("sockname")[:2])
    peer.send(hello(peer.ref()))
    await peer.expect(Welcome)
    peer.send(LoginGuest(ref=peer.ref(), name=name))
    await peer.expect(LoggedIn)
    conn = next(c for c in running.hub.conns.values() if c.peer == here)
    server_socket = conn.transport.transport.get_extra_info("socket")  # type: ignore[attr-defined]
    server_socket.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    writer.transport.pause_reading()
    return peer, here


def conn_of(running: Running, peer: str) -> object | None:
    return next((c for c in running.hub.conns.values() if c.peer == peer), None)


async def read_all(peer: RawPeer) -> list[object]:
    """Everything the server sent, read at last, until it closed the connection."""
    peer.writer.transport.resume_reading()
    out: list[object] = []
    while True:
        try:
            message = await peer.recv(timeout=5)
        except ConnectionError:
            return out
        if message is None:
            return out
        out.append(message)


async def test_a_client_that_stops_reading_is_built_no_more_lists(running: Running) -> None:
    for _ in range(100):
        running.hub.lobby.open_table(TableSettings(kind="sushi-go", players=5), None)
    game = asyncio.create_task(background_game(running))
    peer, here = await deaf_peer(running, "deaf")
    conn = conn_of(running, here)
    assert conn is not None
    proto = conn.proto  # type: ignore[attr-defined]
    for ref in range(100, 200):  # one at a time, each once the server has answered the last
        if conn_of(running, here) is None:
            break
        answered = proto.last_seq
        peer.send(ListTables(ref=ref, limit=100))
        await until(
            lambda answered=answered: proto.last_seq > answered or conn_of(running, here) is None,  # type: ignore[misc]
            f"list {ref} answered",
        )
    await until(lambda: conn_of(running, here) is None, "closed after the last refusal")
    rest = await read_all(peer)
    pages = [m for m in rest if isinstance(m, TableList)]
    refused = [m for m in rest if isinstance(m, Error)]
    # A page of 100 tables is more than UNREAD_BYTES, and the kernel takes a few KiB of it:
    # once it waits in our memory, no other page is built.
    assert len(pages) == 1, "only the pages the kernel could take were built"
    assert [e.code for e in refused] == [ErrorCode.RATE_LIMITED] * len(refused)
    assert len(refused) == running.hub.config.strikes_before_close
    assert "read what was sent first" in refused[0].message
    assert await asyncio.wait_for(game, 30) is not None  # the game elsewhere finished


async def test_an_address_past_its_share_loses_its_slowest_reader_first(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="sushigo.server")
    config = HubConfig(
        unsent_per_address=96 * 1024,
        chat_per_second=1000,
        chat_burst=1000,
        message_burst=1000,
        bytes_per_second=10**9,
    )
    async with running_server(config=config) as running:
        game = asyncio.create_task(background_game(running))
        slow, slow_name = await deaf_peer(running, "slowest", "127.0.0.2")
        reader = await RawPeer.open(running)  # reads everything, from 127.0.0.1
        await reader.login("reader")
        talker = await RawPeer.open(running)
        await talker.login("talker")
        text = "字" * 500  # 1,500 bytes a message
        said = 0

        async def say() -> None:
            nonlocal said
            talker.send(Chat(ref=talker.ref(), text=text))
            heard = await reader.expect(ChatMessage)  # so everyone's copy is written too
            assert heard.text == text
            said += 1
            assert said < 1000, "the address's share was never enforced"

        while not conn_of(running, slow_name).behind:  # type: ignore[union-attr]
            await say()
        # Another from the same address falls behind later: the first is the slowest reader.
        later, later_name = await deaf_peer(running, "later", "127.0.0.2")
        while conn_of(running, slow_name) is not None:
            await say()
        assert conn_of(running, later_name) is not None, "the slowest reader went first"
        assert "past its address's share" in caplog.text
        assert await asyncio.wait_for(game, 30) is not None
        for peer in (slow, later, reader, talker):
            peer.close()


# -- what sessions keep for a resume -------------------------------------------------------------


def test_lists_are_not_kept_for_a_resume_and_the_lobby_keeps_little() -> None:
    hub, clock = make_hub(
        HubConfig(messages_per_second=10_000, message_burst=10_000, chat_burst=1000)
    )
    for i in range(100):
        holder = Peer(hub, clock, address=f"10.1.{i}.1")
        holder.login("".join(chr(0x20000 + i * 24 + j) for j in range(24)))
        holder.create(card_settings(5))
    peer = logged_in(hub, clock, "lister")
    for _ in range(30):
        peer.send(ListTables(ref=peer.ref(), limit=100))
    talker = logged_in(hub, clock, "talker", address="10.2.0.1")
    for _ in range(30):
        talker.send(Chat(ref=talker.ref(), text="字" * 500))
    assert len([m for m in peer.drain() if isinstance(m, TableList)]) == 30
    session = peer.conn.session
    assert session is not None
    assert session.log_bytes <= SMALL_LOG_BYTES
    assert session.log_bytes == sum(len(e[2]) for e in session.log)
    seated = next(iter(hub.sessions.values()))
    assert seated.seat is not None and seated.log_bytes <= REPLAY_BYTES


def test_a_resume_that_missed_a_list_gets_a_snapshot() -> None:
    hub, clock = make_hub()
    peer = logged_in(hub, clock, "player")
    peer.create(card_settings(2))
    peer.drain()
    last = peer.proto.last_seq
    peer.send(ListTables(ref=peer.ref()))
    hub.lost(peer.conn, clock.now)
    back = Peer(hub, clock)
    back.send(hello(back.ref()))
    back.expect(Welcome)
    back.send(Resume(ref=back.ref(), token=peer.token, last_seq=last))
    resumed = back.expect(Resumed)
    assert resumed.replayed == 0 and resumed.snapshot is not None
    assert resumed.snapshot.table is not None and resumed.seat == 0
    assert errors_of(back.drain()) == []
