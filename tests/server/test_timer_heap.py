"""A table keeps one timer in the hub's heap, however many turns it plays before it fires: turns
played quickly leave no trail of spent timers (which the garbage collector would have to walk),
and a deadline that moved later still fires exactly when it is due."""

from __future__ import annotations

import random

from server_helpers import Peer, hub_game, make_hub

from sushigo.protocol import Commitments, TurnResult, TurnStart


def table_timers(peer: Peer) -> int:
    return sum(1 for _, _, kind, _ in peer.hub._timers if kind == "table")


def test_fast_turns_leave_one_table_timer() -> None:
    hub, clock = make_hub()
    host = hub_game(hub, clock, players=3)  # a 60-second turn timer
    rng = random.Random(3)
    for _ in range(12):  # twelve turns within a second: each moves the deadline twice
        assert host.play_turn(rng) is None
        assert table_timers(host) == 1
        clock.now += 0.05
    assert table_timers(host) == 1


def test_a_deadline_that_moved_later_fires_when_due() -> None:
    hub, clock = make_hub()
    host = hub_game(hub, clock, players=2)
    clock.alive.append(host)  # answers pings while time passes
    start = host.expect(TurnStart)
    began = clock.now
    clock.advance(30, step=1)
    host.commit(start.observation.legal_actions()[0], start.round, start.turn)
    host.expect(Commitments)  # the bot committed at once: the reveal has 60 s from now
    clock.advance(55, step=1)  # past the first phase's timer (began + 60): nothing happens
    assert not any(isinstance(m, TurnResult) for m in host.drain())
    assert table_timers(host) == 1
    clock.advance(10, step=1)  # past began + 90: the silent seat is auto-picked
    result = host.expect(TurnResult)
    assert result.openings[host.seat or 0].auto
    assert began + 90 <= clock.now <= began + 96
