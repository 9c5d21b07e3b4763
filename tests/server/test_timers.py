"""Timers with an injected clock, driving `Hub` directly (no sockets, no sleeping): turn timeouts
and auto-picks, a bot taking over after two misses and handing back, heartbeats and the dead-peer
drop, the handshake deadline and the resume window."""

from __future__ import annotations

import random
from typing import TypeVar

from server_helpers import Peer, check_ended, hello, logged_in, make_hub, three_seats
from socket_helpers import errors_of

from sushigo.engine import GameOptions
from sushigo.protocol import (
    Commitments,
    Error,
    ErrorCode,
    GameEnded,
    Pong,
    Resume,
    Resumed,
    ServerPing,
    TableUpdate,
    TurnResult,
    TurnStart,
    Welcome,
)

T = TypeVar("T")


def seat_is_bot(update: TableUpdate, seat: int) -> bool:
    return update.table.seats[seat].bot


def test_timeout_auto_picks_the_silent_seat() -> None:
    hub, clock = make_hub()
    a, b = three_seats(hub, clock)
    start_b = b.expect(TurnStart)
    a.expect(TurnStart)
    b.commit(start_b.observation.legal_actions()[0], 1, 1)
    clock.advance(29.9)
    assert b.drain() == []  # still waiting for A
    clock.advance(0.1)
    shown = b.expect(Commitments)
    assert shown.commitments[0] is None  # A never committed
    assert shown.commitments[1] is not None and shown.commitments[2] is not None
    b.reveal()
    result = b.expect(TurnResult)
    assert result.openings[0].auto and result.openings[0].nonce is None
    assert not result.openings[1].auto and not result.openings[2].auto
    assert b.expect(TurnStart).turn == 2


def test_reveal_timeout_auto_picks_too() -> None:
    hub, clock = make_hub()
    a, b = three_seats(hub, clock)
    for p in (a, b):
        start = p.expect(TurnStart)
        p.commit(start.observation.legal_actions()[0], 1, 1)
    a.expect(Commitments)
    b.expect(Commitments)
    b.reveal()  # A committed but never reveals
    clock.advance(30)
    result = b.expect(TurnResult)
    assert result.openings[0].auto and not result.openings[1].auto


def test_two_timeouts_hand_the_seat_to_a_bot_until_its_player_acts() -> None:
    hub, clock = make_hub()
    a, b = three_seats(hub, clock, turn_seconds=10)
    updates: list[TableUpdate] = []

    def take(kind: type[T]) -> T:
        """B's next message of `kind`, noting the table updates on the way."""
        while (message := b.next()) is not None:
            if isinstance(message, TableUpdate):
                updates.append(message)
            if isinstance(message, kind):
                return message
        raise AssertionError(f"no {kind.__name__}")

    for turn in (1, 2):  # A misses both: auto-picked when the commit timer runs out
        start = take(TurnStart)
        b.commit(start.observation.legal_actions()[0], 1, turn)
        clock.advance(10)
        take(Commitments)
        b.reveal()
        assert take(TurnResult).openings[0].auto
        if turn == 1:
            assert not any(seat_is_bot(u, 0) for u in updates)
    assert updates and seat_is_bot(updates[-1], 0), "after two misses the seat shows as a bot"
    assert not seat_is_bot(updates[-1], 1)

    # Turn 3: the bot picks for A at once; no timer is needed.
    start = take(TurnStart)
    b.commit(start.observation.legal_actions()[0], 1, 3)
    take(Commitments)
    b.reveal()
    assert take(TurnResult).openings[0].auto
    start_b = take(TurnStart)

    # Turn 4: A acts again and the seat is handed back (this turn's pick was already made).
    start_a = [m for m in a.drain() if isinstance(m, TurnStart)][-1]
    assert (start_a.round, start_a.turn) == (1, 4)
    a.commit(start_a.observation.legal_actions()[0], 1, 4)
    assert errors_of(a.drain()) == [ErrorCode.ALREADY_DONE]
    assert not seat_is_bot(take(TableUpdate), 0), "the player is back"
    b.commit(start_b.observation.legal_actions()[0], 1, 4)
    take(Commitments)
    b.reveal()
    assert take(TurnResult).openings[0].auto

    # Turn 5: A plays for itself; nobody waits for a timer and its opening is its own.
    seen_by_a = a.drain()
    assert errors_of(seen_by_a) == []
    start_a = [m for m in seen_by_a if isinstance(m, TurnStart)][-1]
    start_b = take(TurnStart)
    assert start_a.turn == start_b.turn == 5
    a.commit(start_a.observation.legal_actions()[0], 1, 5)
    b.commit(start_b.observation.legal_actions()[0], 1, 5)
    a.expect(Commitments)
    take(Commitments)
    a.reveal()
    b.reveal()
    result = take(TurnResult)
    assert not result.openings[0].auto
    assert result.openings[0].action == start_a.observation.legal_actions()[0]
    assert errors_of(a.drain()) == []
    assert hub.stats.bot_takeovers == {("sushi-go", "missed"): 1}  # once, however many turns
    assert hub.stats.errors == {ErrorCode.ALREADY_DONE: 1}


def test_heartbeat_pings_an_idle_connection_then_drops_it() -> None:
    hub, clock = make_hub()
    peer = logged_in(hub, clock)
    peer.drain()
    clock.advance(14.9, step=14.9)
    assert peer.drain() == []
    clock.advance(0.1)
    assert [type(m) for m in peer.drain()] == [ServerPing]  # 15 s idle
    clock.advance(15, step=15)
    assert [type(m) for m in peer.drain()] == [ServerPing]
    clock.advance(14.9, step=14.9)
    assert not peer.transport.closed
    clock.advance(0.1)  # 45 s without a byte from the peer
    assert peer.transport.closed
    assert errors_of(peer.drain()) == [ErrorCode.TIMEOUT]
    assert peer.conn.id not in hub.conns


def test_answering_pings_keeps_a_connection_alive() -> None:
    hub, clock = make_hub()
    peer = logged_in(hub, clock)
    peer.drain()
    for _ in range(10):  # 150 s, answering every ping
        clock.advance(15)
        for message in peer.drain():
            if isinstance(message, ServerPing):
                peer.send(Pong(ref=peer.ref(), nonce=message.nonce))
    assert not peer.transport.closed
    assert peer.conn.id in hub.conns


def test_handshake_deadline_times_out_a_silent_connection() -> None:
    hub, clock = make_hub()
    peer = Peer(hub, clock)
    clock.advance(9.99)
    assert not peer.transport.closed
    clock.advance(0.01)
    assert peer.transport.closed
    assert errors_of(peer.drain()) == [ErrorCode.TIMEOUT]


def test_resume_window_expiry_hands_the_seat_to_a_bot() -> None:
    hub, clock = make_hub()
    a, b = three_seats(hub, clock, turn_seconds=0)
    a.drain()
    start = b.expect(TurnStart)
    token = a.token
    hub.lost(a.conn, clock.now)
    update = b.expect(TableUpdate)
    assert not update.table.seats[0].connected and not seat_is_bot(update, 0)
    clock.advance(119)
    b.drain()
    clock.advance(1)  # 120 s away: the session ends, a bot plays on
    update = b.expect(TableUpdate)
    assert seat_is_bot(update, 0)
    late = Peer(hub, clock)
    late.send(hello(late.ref()))
    late.expect(Welcome)
    late.send(Resume(ref=late.ref(), token=token, last_seq=a.proto.last_seq))
    error = late.expect(Error)
    assert error.code == ErrorCode.UNKNOWN_SESSION
    assert hub.stats.bot_takeovers == {("sushi-go", "left"): 1}
    assert hub.stats.resumes == 0
    # B and the bots finish the game.
    rng = random.Random(3)
    ended: GameEnded | None = None
    b.commit(rng.choice(start.observation.legal_actions()), start.round, start.turn)
    while ended is None:
        ended = b.play_turn(rng)
    check_ended(b, ended, GameOptions(players=3))


def test_resume_within_the_window_keeps_the_seat() -> None:
    hub, clock = make_hub()
    a, b = three_seats(hub, clock, turn_seconds=0)
    a.drain()
    hub.lost(a.conn, clock.now)
    clock.advance(119)
    back = Peer(hub, clock)
    back.send(hello(back.ref()))
    back.expect(Welcome)
    back.send(Resume(ref=back.ref(), token=a.token, last_seq=a.proto.last_seq))
    resumed = back.expect(Resumed)
    assert resumed.resume_token != a.token
    clock.advance(10)  # past the old window: nothing expires
    update = [m for m in b.drain() if isinstance(m, TableUpdate)][-1]
    assert update.table.seats[0].connected and not seat_is_bot(update, 0)
