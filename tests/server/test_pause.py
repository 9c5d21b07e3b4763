"""A player alone with bots who lets two turns pass: the game pauses for them (no timer, nothing
played for them) instead of being played to its end in a second, and goes on when they act. Where
another person plays, or a tournament waits, a bot plays the away seat as before (test_timers.py,
test_roll_timers.py). On the sans-IO hub with an injected clock: no sockets, no sleeping."""

from __future__ import annotations

import random

from roll_server_helpers import RollPeer, roll_settings
from server_helpers import (
    Clock,
    Peer,
    hello,
    logged_in,
    make_hub,
    table_with_bots,
    three_seats,
    two_player_cup,
)
from socket_helpers import errors_of

from sushigo.engine.games.sushi_roll import Take
from sushigo.protocol import (
    Acted,
    GameStarting,
    LeaveTable,
    Message,
    Resume,
    Resumed,
    Seed,
    Spectate,
    Spectating,
    TableSettings,
    TableStatus,
    TableUpdate,
    TurnResult,
    TurnStart,
    Welcome,
    new_seed,
)
from sushigo.server.hub.core import Hub
from sushigo.server.tables.table import MISSES_BEFORE_BOT, Table


def _updates(messages: list[Message]) -> list[TableUpdate]:
    return [m for m in messages if isinstance(m, TableUpdate)]


def _alone_with_bots(hub: Hub, clock: Clock, turn_seconds: int = 10) -> tuple[Peer, Table]:
    """One player and two random bots at a Sushi Go! table, at the first turn."""
    settings = TableSettings(kind="sushi-go", players=3, turn_seconds=turn_seconds)
    ann = table_with_bots(hub, clock, "ann", settings, "random", "random")
    ann.seed()
    clock.alive.append(ann)  # connected all along: it answers pings, it just does not play
    return ann, hub.tables[ann.table_id]


def test_a_player_alone_with_bots_who_misses_two_turns_pauses_the_game() -> None:
    hub, clock = make_hub()
    ann, table = _alone_with_bots(hub, clock)
    seen = ann.drain()
    for turn in range(1, MISSES_BEFORE_BOT + 1):
        start = next(m for m in seen if isinstance(m, TurnStart))
        assert (start.turn, start.deadline_ms) == (turn, 10_000)
        clock.advance(10)
        seen = ann.drain()
        result = next(m for m in seen if isinstance(m, TurnResult))
        assert result.openings[0].auto  # the timer picked for her
    (update,) = _updates(seen)
    seat = update.table.seats[0]
    assert seat.away and not seat.bot, "away, and no bot plays for her: the game is paused"
    (start,) = [m for m in seen if isinstance(m, TurnStart)]
    assert (start.turn, start.deadline_ms) == (3, 0), "the paused turn has no timer"
    assert table.paused

    # An hour passes: nothing is played.
    steps = len(table.steps)
    clock.advance(3600)
    assert len(table.steps) == steps and ann.drain() == []
    assert hub.stats.bot_takeovers == {}

    # She plays: her own pick, the game goes on with its timer again, and she is no longer away.
    action = start.observation.legal_actions()[0]
    ann.commit(action, 1, 3)
    seen = ann.drain()
    ann.reveal()
    seen += ann.drain()
    assert errors_of(seen) == []
    assert not _updates(seen)[0].table.seats[0].away
    result = next(m for m in seen if isinstance(m, TurnResult))
    assert not result.openings[0].auto and result.openings[0].action == action
    assert next(m for m in seen if isinstance(m, TurnStart)).deadline_ms == 10_000
    assert not table.paused

    # Silent again: two more misses pause it again (a miss is counted afresh once she played).
    for _ in range(MISSES_BEFORE_BOT):
        clock.advance(10)
    assert table.paused and not table.seating.seats[0].bot_control
    assert [m.deadline_ms for m in ann.drain() if isinstance(m, TurnStart)][-1] == 0


def test_a_resume_does_not_end_the_pause_a_move_does() -> None:
    hub, clock = make_hub()
    ann, table = _alone_with_bots(hub, clock, turn_seconds=5)
    clock.advance(5 * MISSES_BEFORE_BOT)
    assert table.paused
    start = [m for m in ann.drain() if isinstance(m, TurnStart)][-1]
    clock.alive.remove(ann)
    hub.lost(ann.conn, clock.now)
    back = Peer(hub, clock)
    back.send(hello(back.ref()))
    back.expect(Welcome)
    back.send(Resume(ref=back.ref(), token=ann.token, last_seq=ann.proto.last_seq))
    resumed = back.expect(Resumed)
    back.table_id, back.seat = ann.table_id, 0
    clock.alive.append(back)
    assert table.paused, "coming back is not playing: the game still waits for her move"
    snapshot_deadline = resumed.snapshot.deadline_ms if resumed.snapshot is not None else 0
    assert snapshot_deadline == 0
    steps = len(table.steps)
    clock.advance(600)
    assert len(table.steps) == steps
    back.commit(start.observation.legal_actions()[0], start.round, start.turn)
    back.drain()
    back.reveal()
    assert len(table.steps) == steps + 1 and not table.paused


def test_a_sushi_roll_player_alone_with_a_bot_pauses_the_game_on_their_turn() -> None:
    hub, clock = make_hub()
    ann = RollPeer(hub, clock)
    ann.login("ann")
    ann.create(roll_settings(2, turn_seconds=10))
    ann.add_bot("random")
    ann.start()
    ann.expect(GameStarting)
    ann.send(Seed(ref=ann.ref(), seed=new_seed()))
    clock.alive.append(ann)
    table = hub.tables[ann.table_id]
    for _ in range(MISSES_BEFORE_BOT):  # her whole turn's time passes, twice: a die is taken
        ann.drain()
        assert ann.moving
        clock.advance(10)
        hers = [step for step in table.steps if step.seats == (ann.seat,)]
        assert hers[-1].openings[0].auto
    seen = ann.drain()
    assert ann.moving and table.paused
    assert [m.deadline_ms for m in seen if isinstance(m, TurnStart)][-1] == 0
    assert _updates(seen)[-1].table.seats[ann.seat or 0].away
    steps = len(table.steps)
    clock.advance(3600)
    assert len(table.steps) == steps and ann.drain() == []

    # A re-roll of hers: the turn's timer starts now; her take ends the turn, and the bot's
    # turn and hers come as ever.
    ann.act(Take(0))
    seen = ann.drain()
    assert errors_of(seen) == []
    mine = [m for m in seen if isinstance(m, Acted) and m.seat == ann.seat]
    assert mine and not mine[0].auto and not table.paused
    assert not _updates(seen)[-1].table.seats[ann.seat or 0].away
    starts = [m for m in seen if isinstance(m, TurnStart)]
    assert starts and starts[-1].deadline_ms == 10_000


def test_at_a_table_of_people_the_away_seat_gets_a_bot_and_pauses_when_alone() -> None:
    """Two players and a bot: the one who idles gets a bot (the other plays on without waiting);
    once the other leaves the game, the away player is alone with bots and the game pauses."""
    hub, clock = make_hub()
    ann, bob = three_seats(hub, clock, turn_seconds=10)
    table = hub.tables[ann.table_id]
    rng = random.Random(4)
    for turn in range(1, MISSES_BEFORE_BOT + 1):
        start = bob.expect(TurnStart)
        bob.commit(rng.choice(start.observation.legal_actions()), 1, turn)
        clock.advance(10)
        bob.reveal()
        bob.expect(TurnResult)
    assert table.seating.seats[0].bot_control and table.seating.seats[0].away and not table.paused
    bob.drain()
    bob.send(LeaveTable(ref=bob.ref()))
    assert table.paused and not table.seating.seats[0].bot_control
    update = _updates(ann.drain())[-1]
    assert update.table.seats[0].away and not update.table.seats[0].bot
    assert update.table.seats[1].bot  # bob's seat: a bot for the rest of the game


def test_a_spectator_sees_the_pause() -> None:
    hub, clock = make_hub()
    ann, _ = _alone_with_bots(hub, clock)
    clock.advance(10 * MISSES_BEFORE_BOT)
    watcher = logged_in(hub, clock, "watcher")
    watcher.send(Spectate(ref=watcher.ref(), table_id=ann.table_id))
    spectating = watcher.expect(Spectating)
    assert spectating.table.seats[0].away and not spectating.table.seats[0].bot
    assert watcher.expect(TurnStart).deadline_ms == 0


def test_a_tournaments_table_never_pauses_bots_play_its_away_players() -> None:
    """Both entrants of a tournament's game idle: its schedule does not wait for them, so bots
    play their seats (and the game ends) instead of the game pausing."""
    hub, clock = make_hub()
    _, _, table_id = two_player_cup(hub, clock)
    table = hub.tables[table_id]
    for _ in range(60):  # the seeds' deadline, two missed turns each, then bots play it out
        clock.advance(1, step=1)
        assert not table.paused
        if table.status is TableStatus.FINISHED or table_id not in hub.tables:
            break
    assert hub.stats.bot_takeovers == {("sushi-go", "missed"): 2}
    clock.advance(120, step=1)
    assert table_id not in hub.tables  # played out and closed
