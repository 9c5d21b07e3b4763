"""Sushi Roll turn timers and reconnects on the sans-IO hub with an injected clock (no sockets, no
sleeping): a silent mover gets a die taken for it, a bot takes the seat over after two misses and
hands it back when the player acts, and a mover who loses its connection mid-turn resumes (by
replay or from a snapshot) and carries on."""

from __future__ import annotations

import random
from collections.abc import Iterable

from roll_server_helpers import RollPeer, mover_of, play_out, resume, seated
from server_helpers import Clock, make_hub
from socket_helpers import errors_of

from sushigo.engine.games.sushi_roll import Reroll, RollGame, Take
from sushigo.protocol import (
    Acted,
    Message,
    Phase,
    Spectate,
    Spectating,
    TableUpdate,
    TurnStart,
)
from sushigo.server.hub.core import Hub
from sushigo.server.tables.steps import BOT_GRACE_SECONDS
from sushigo.server.tables.table import Table


def table_of(hub: Hub, peer: RollPeer) -> Table:
    table = hub.tables[peer.table_id]
    assert table.settings.kind == "sushi-roll"
    return table


def updates(messages: Iterable[object]) -> list[Acted]:
    return [m for m in messages if isinstance(m, Acted)]


def bot_flags(messages: Iterable[object], seat: int) -> list[bool]:
    return [m.table.seats[seat].bot for m in messages if isinstance(m, TableUpdate)]


def silent_mover(
    hub: Hub, clock: Clock, turn_seconds: int
) -> tuple[RollPeer, RollPeer, Table, RollGame]:
    """Two seats that answer pings at a started game: (the seat to move, which will not play; the
    other; their table; its game)."""
    a, b = seated(hub, clock, 2, turn_seconds=turn_seconds)
    clock.alive += [a, b]
    silent = mover_of([a, b])
    table = table_of(hub, a)
    assert isinstance(table.game, RollGame)
    return silent, b if silent is a else a, table, table.game


def test_silent_mover_timeout_then_bot_takeover_then_the_player_is_back() -> None:
    hub, clock = make_hub()
    silent, other, table, game = silent_mover(hub, clock, turn_seconds=10)
    assert silent.seat is not None
    rng = random.Random(6)

    def until_silent_moves() -> list[Message]:
        """The other seat plays until it is the silent seat's turn; what it saw on the way."""
        for _ in range(10):
            if game.to_move == silent.seat:
                return other.drain()
            other.play(rng)
        raise AssertionError("the silent seat's turn never came")

    # Two turns missed: each time the whole turn's time passes, then a die is taken for it.
    for miss in (1, 2):
        until_silent_moves()
        steps = len(table.steps)
        clock.advance(9.9)
        assert len(table.steps) == steps and updates(other.drain()) == []
        clock.advance(0.1)
        seen = other.drain()
        (auto,) = updates(seen)
        assert auto.seat == silent.seat and auto.auto and type(auto.action) is Take
        assert bot_flags(seen, silent.seat) == ([True] if miss == 2 else [])
        assert table.seating.seats[silent.seat].misses == miss

    # Third turn: a bot plays for it, after a grace in which the player could take the seat back.
    # Everyone is told so: the step's time is the grace, as a spectator arriving now would be.
    until_silent_moves()
    starts = [m for m in silent.drain() if isinstance(m, TurnStart)]
    assert starts and starts[-1].deadline_ms == BOT_GRACE_SECONDS * 1000
    assert table.step_message(None, clock.now).deadline_ms == BOT_GRACE_SECONDS * 1000
    steps = len(table.steps)
    clock.advance(BOT_GRACE_SECONDS - 0.1, step=0.1)
    assert len(table.steps) == steps
    clock.advance(0.1)
    played = updates(other.drain())
    assert played and all(u.auto and u.seat == silent.seat for u in played)
    assert type(played[-1].action) is Take and game.to_move != silent.seat

    # Fourth turn: the player acts within the grace; the seat is theirs again.
    until_silent_moves()
    silent.play(rng)
    seen = other.drain()
    mine = updates(seen)
    assert mine and not any(u.auto for u in mine) and type(mine[-1].action) is Take
    assert bot_flags(seen, silent.seat)[-1] is False
    seat = table.seating.seats[silent.seat]
    assert seat.misses == 0 and not seat.bot_control
    assert errors_of(silent.drain()) == []

    # Fifth turn, silent again: no grace any more, the full turn time, and a first miss.
    until_silent_moves()
    clock.advance(BOT_GRACE_SECONDS + 1)
    assert updates(other.drain()) == []
    clock.advance(10 - BOT_GRACE_SECONDS - 1)
    (auto,) = updates(other.drain())
    assert auto.auto and table.seating.seats[silent.seat].misses == 1

    play_out([silent, other], rng)
    record = other.witness.verify()
    assert silent.witness.verify() == record
    assert sum(s.openings[0].auto for s in record.steps) >= 4


def test_a_bot_plays_at_once_for_an_absent_player_and_a_resume_takes_the_seat_back() -> None:
    hub, clock = make_hub()
    silent, other, table, game = silent_mover(hub, clock, turn_seconds=5)
    assert silent.seat is not None
    rng = random.Random(9)
    for _ in range(2):  # two misses: the seat goes to a bot
        other.play(rng)
        assert game.to_move == silent.seat
        clock.advance(5)
    assert table.seating.seats[silent.seat].bot_control
    clock.alive.remove(silent)
    hub.lost(silent.conn, clock.now)  # and now the player is gone altogether
    clock.advance(BOT_GRACE_SECONDS)  # (a turn begun while it was still here has its grace)
    steps = len(table.steps)
    for _ in range(4):
        # Whenever the other seat has taken, the bot has already played the absent seat's turns.
        assert game.to_move == other.seat
        other.drain()
        other.act(Take(0))
    mine = [s for s in table.steps[steps:] if s.seats[0] == silent.seat]
    assert mine and all(s.openings[0].auto for s in mine)

    back, resumed = resume(hub, clock, silent, silent.proto.last_seq, address="10.0.0.7")
    assert resumed.replayed > 0 and resumed.snapshot is None
    seat = table.seating.seats[silent.seat]
    assert not seat.bot_control and seat.misses == 0
    assert bot_flags(other.drain(), silent.seat)[-1] is False
    clock.alive.append(back)
    play_out([back, other], rng)
    record = back.witness.verify()
    assert other.witness.verify() == record


def test_the_mover_reconnects_mid_turn_and_carries_on() -> None:
    hub, clock = make_hub()
    peers = seated(hub, clock, 3, turn_seconds=30)
    mover = mover_of(peers)
    mover.act(Reroll((0, 2)))
    rerolled = mover.expect(Acted)
    hub.lost(mover.conn, clock.now)
    clock.advance(10)

    back, resumed = resume(hub, clock, mover, mover.proto.last_seq)
    assert resumed.phase is Phase.MOVING
    assert (resumed.round, resumed.turn) == (rerolled.round, rerolled.turn)
    assert resumed.snapshot is None and resumed.replayed == 1  # the seat shown disconnected
    back.drain()
    back.act(Take(1))
    assert back.expect(Acted).action == Take(1)
    others = [p for p in peers if p is not mover]
    play_out([back, *others], random.Random(4))
    records = [p.witness.verify() for p in (back, *others)]
    assert records[0] == records[1] == records[2]
    assert not any(s.openings[0].auto for s in records[0].steps)


def test_a_mover_resuming_from_a_snapshot_gets_the_turn_again() -> None:
    hub, clock = make_hub()
    peers = seated(hub, clock, 2, turn_seconds=30)
    mover = mover_of(peers)
    assert mover.seat is not None
    mover.act(Reroll((1,)))
    rerolled = mover.expect(Acted)
    hub.lost(mover.conn, clock.now)
    clock.advance(12)

    # A last_seq the server has no log after: it cannot replay, so it sends a snapshot.
    back, resumed = resume(hub, clock, mover, 10**9)
    # The snapshot says it all: the seat is to move, with its observation and its turn's time left.
    assert resumed.phase is Phase.MOVING and resumed.replayed == 0
    assert (resumed.round, resumed.turn) == (rerolled.round, rerolled.turn)
    snapshot = resumed.snapshot
    assert snapshot is not None and snapshot.seat == mover.seat
    assert snapshot.observation == rerolled.observation
    assert snapshot.seats == (mover.seat,) and not snapshot.secret and snapshot.steps == 1
    assert len(snapshot.client_seeds) == 2 and snapshot.server_seed_hash is not None
    assert 17_000 <= snapshot.deadline_ms <= 18_000
    assert back.moving and not [m for m in back.drain() if isinstance(m, TurnStart | Acted)]
    back.act(Take(0))
    assert back.expect(Acted).action == Take(0)
    other = next(p for p in peers if p is not mover)
    play_out([back, other], random.Random(5))
    assert back.witness.verify() == other.witness.verify()


def test_a_spectator_resumes_by_replay_in_the_middle_of_a_turn() -> None:
    hub, clock = make_hub()
    peers = seated(hub, clock, 2, turn_seconds=30)
    watcher = RollPeer(hub, clock, address="10.0.0.5")
    watcher.login("watcher")
    watcher.send(Spectate(ref=watcher.ref(), table_id=peers[0].table_id))
    watcher.expect(Spectating)
    watcher.expect(TurnStart)
    hub.lost(watcher.conn, clock.now)
    mover = mover_of(peers)
    mover.act(Reroll((0,)))
    mover.act(Take(0))

    back, resumed = resume(hub, clock, watcher, watcher.proto.last_seq)
    assert resumed.phase is Phase.WATCHING and resumed.round == 1 and resumed.turn == 1
    seen = back.drain()
    assert [type(m).__name__ for m in seen if not isinstance(m, TableUpdate)] == [
        "Acted",
        "Acted",
        "TurnStart",
    ]
    assert errors_of(seen) == []


def test_a_seat_whose_connection_closed_with_messages_unread_resumes_from_a_snapshot() -> None:
    # The peer closes its side (EOF) before it has read the mover's re-roll; the take that makes
    # it the mover comes while it is away. The connection was closed, so that was not kept for a
    # replay: the resume is a snapshot, and the seat moves (a replay of the re-roll alone left
    # it waiting while the server waited for its move).
    hub, clock = make_hub()
    peers = seated(hub, clock, 2, turn_seconds=30)
    mover = mover_of(peers)
    (leaver,) = [p for p in peers if p is not mover]
    leaver.drain()
    seen = leaver.proto.last_seq
    mover.act(Reroll((0,)))
    hub.data(leaver.conn, b"", clock.now)  # its end of the stream, the re-roll's ACTED unread
    mover.act(Take(0))
    game = table_of(hub, mover).game
    assert isinstance(game, RollGame) and game.to_move == leaver.seat

    back, resumed = resume(hub, clock, leaver, seen)
    assert resumed.snapshot is not None
    back.drain()
    assert back.moving
    back.act(Take(0))
    assert back.expect(Acted).action == Take(0)
    play_out([back, mover], random.Random(7))
    # The game ends for both (the peer's record of the updates has the snapshot's gap).
    assert back.witness.over is not None and back.witness.over == mover.witness.over
    mover.witness.verify()
