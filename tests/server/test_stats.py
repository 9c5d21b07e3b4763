"""What the server's core counts for the operator (`server.stats`), driven with a hand-moved
clock: every figure here is exact (server/net/metrics.py exports them; tests/server/test_metrics.py
reads them over HTTP)."""

from __future__ import annotations

import random

from server_helpers import (
    FakeTransport,
    Peer,
    card_settings,
    expected_turns,
    logged_in,
    make_hub,
    raw_frame,
)
from socket_helpers import errors_of

from sushigo import protocol
from sushigo.engine import GameOptions
from sushigo.server.config import HubConfig
from sushigo.server.stats import TURN_LATENCY_BOUNDS, Histogram


def test_a_game_counts_its_turns_their_latency_and_the_frames_received() -> None:
    hub, clock = make_hub()
    host = Peer(hub, clock)
    host.login("host")  # 2 frames: hello, login
    host.create(card_settings(2, turn_seconds=60))
    host.add_bot("random")
    host.start()
    host.seed()  # 4 more: create, add bot, start, seed
    host.expect(protocol.GameStarted)
    sent = 6
    rng = random.Random(1)
    ended = None
    while ended is None:
        message = host.next()
        assert message is not None, "the game stalled"
        if isinstance(message, protocol.TurnStart):
            host.commit(
                rng.choice(message.observation.legal_actions()), message.round, message.turn
            )
        elif isinstance(message, protocol.Commitments):
            clock.now += 0.2  # the reveal's round trip: the turn's latency
            host.reveal()
            sent += 2
        elif isinstance(message, protocol.GameEnded):
            ended = message
    turns = expected_turns(GameOptions(players=2))
    stats = hub.stats
    assert stats.turns == {"sushi-go": turns}
    assert stats.games_finished == {"sushi-go": 1}
    latency = stats.turn_latency["sushi-go"]
    assert latency.count == turns
    assert abs(latency.sum - 0.2 * turns) < 1e-6
    assert latency.counts[TURN_LATENCY_BOUNDS.index(0.25)] == turns  # all in (0.1, 0.25]
    assert stats.frames_in == sent
    assert stats.errors == {} and stats.bot_takeovers == {} and stats.connections_opened == 1


def test_errors_are_counted_by_code_and_chat_messages_passed_on() -> None:
    hub, clock = make_hub(HubConfig(chat_burst=2))
    peer = logged_in(hub, clock, "talker")
    no_table = protocol.Commit(ref=90, round=1, turn=1, commitment=bytes(32))
    peer.send_bytes(raw_frame(no_table))
    for text in ("hello", "again", "too fast"):
        peer.send(protocol.Chat(ref=peer.ref(), text=text))
    codes = errors_of(peer.drain())
    assert len(codes) == 2 and protocol.ErrorCode.RATE_LIMITED in codes
    assert hub.stats.errors == dict.fromkeys(codes, 1)
    assert hub.stats.chat_messages == 2


def test_refused_connections_are_counted_by_reason() -> None:
    hub, clock = make_hub(
        HubConfig(max_per_address=2, connect_rate_per_address=1, connect_burst_per_address=3)
    )

    def connect(address: str) -> bool:
        return hub.open(FakeTransport(), address, 5000, clock.now) is not None

    assert connect("10.1.1.1") and connect("10.1.1.1")
    assert not connect("10.1.1.1")  # a third at once from one address
    for conn in list(hub.conns.values()):
        hub.lost(conn, clock.now)
    assert not connect("10.1.1.1")  # the burst of three arrivals is spent
    assert connect("10.2.2.2")  # another address has a bucket of its own
    clock.now += 1.0  # one more a second
    assert connect("10.1.1.1")
    assert hub.stats.rejected == {"per_address": 1, "rate": 1}
    assert hub.stats.connections_opened == 4


def test_an_addresss_arrival_bucket_is_forgotten_once_full_again() -> None:
    hub, clock = make_hub(HubConfig(connect_rate_per_address=10, connect_burst_per_address=20))
    for i in range(100):  # a scan from many addresses, one connection each, 10 a second
        conn = hub.open(FakeTransport(), f"10.3.{i // 256}.{i % 256}", 5000, clock.now)
        assert conn is not None
        hub.lost(conn, clock.now)
        clock.now += 0.1
    # A bucket refills in 2 s: only the last 2 s of addresses (and the two checked last) stay.
    assert len(hub.limits.arrivals) <= 22


def test_a_histogram_counts_each_value_in_the_first_bucket_that_holds_it() -> None:
    histogram = Histogram((0.1, 1.0))
    for value in (0.05, 0.1, 0.5, 1.0, 3.0):
        histogram.observe(value)
    assert histogram.counts == [2, 2, 1]
    assert histogram.cumulative() == [(0.1, 2), (1.0, 4), (float("inf"), 5)]
    assert histogram.count == 5 and abs(histogram.sum - 4.65) < 1e-9
