"""Sushi Roll tables on the sans-IO hub: the lobby (create, list, join, spectate, bots, quick
match, tournaments), whole games with server bots and a spectator checked from the client side,
and hostile moves, each refused with its documented error while the game goes on."""

from __future__ import annotations

import dataclasses
import random

import pytest
from roll_server_helpers import RollPeer, mover_of, play_out, roll_settings, seated
from server_helpers import logged_in, make_hub, raw_frame, table_with_bots
from socket_helpers import errors_of

from sushigo import protocol
from sushigo.engine.games.sushi_roll import Reroll, RollAction, Swap, Take
from sushigo.server.errors import TableError

# -- the lobby ----------------------------------------------------------------------------------


def test_roll_tables_are_created_listed_joined_and_watched() -> None:
    hub, clock = make_hub()
    host = RollPeer(hub, clock)
    host.login("host")
    roll_ids = []
    for players in (2, 3, 4, 5):
        other = logged_in(hub, clock, f"maker{players}")
        joined = other.create(roll_settings(players))
        assert joined.table.settings.kind == "sushi-roll"
        assert len(joined.table.seats) == players
        roll_ids.append(joined.table.table_id)
    card = logged_in(hub, clock, "card")
    card_id = card.create(protocol.TableSettings(kind="sushi-go", players=3)).table.table_id

    host.send(protocol.ListTables(ref=host.ref(), kind="sushi-roll"))
    listed = host.expect(protocol.TableList)
    assert sorted(t.table_id for t in listed.tables) == sorted(roll_ids)
    host.send(protocol.ListTables(ref=host.ref(), kind="sushi-go"))
    assert [t.table_id for t in host.expect(protocol.TableList).tables] == [card_id]
    host.send(protocol.ListTables(ref=host.ref()))
    assert len(host.expect(protocol.TableList).tables) == 5

    host.send(protocol.JoinTable(ref=host.ref(), table_id=roll_ids[0]))
    joined = host.joined(host.expect(protocol.TableJoined))
    assert joined.seat == 1 and joined.table.settings.kind == "sushi-roll"
    watcher = logged_in(hub, clock, "watcher")
    watcher.send(protocol.Spectate(ref=watcher.ref(), table_id=roll_ids[1]))
    assert watcher.expect(protocol.Spectating).table.settings.kind == "sushi-roll"


@pytest.mark.parametrize(
    "variant",
    ["pass_both_ways", "dummy", "soy_sauce"],
)
def test_card_variants_on_a_roll_table_are_bad_settings(variant: str) -> None:
    hub, clock = make_hub()
    peer = logged_in(hub, clock, "variant")
    settings = protocol.TableSettings(kind="sushi-roll", players=2, variants=(variant,))
    peer.send(protocol.CreateTable(ref=peer.ref(), settings=settings))
    (error,) = [m for m in peer.drain() if isinstance(m, protocol.Error)]
    assert error.code == protocol.ErrorCode.BAD_SETTINGS
    assert f"no variant {variant!r}" in error.message
    assert not hub.tables


def test_roll_bots_are_the_builtin_names_only() -> None:
    hub, clock = make_hub()
    peer = RollPeer(hub, clock)
    peer.login("host")
    peer.create(roll_settings(5))
    for name in ("random", "greedy", "heuristic"):
        peer.add_bot(name)
    for name in (
        "nonsense",
        "bots/_simple.py:RandomStrategy",
        "bots.roll:RollRandomStrategy",
    ):
        peer.send(protocol.AddBot(ref=peer.ref(), strategy=name))
    peer.add_bot("default")
    errors = [m for m in peer.drain() if isinstance(m, protocol.Error)]
    assert [e.code for e in errors] == [protocol.ErrorCode.UNKNOWN_BOT] * 3
    assert "heuristic" in errors[0].message
    table = hub.tables[peer.table_id]
    seats = table.seating.seats
    assert table.settings.kind == "sushi-roll"
    assert [s.bot for s in seats] == [None, "random", "greedy", "heuristic", "default"]
    assert all(
        type(s.strategy).__module__ == "sushigo.bots.games.sushi_roll._strategies"
        for s in seats[1:]
    )
    peer.add_bot("random")
    assert errors_of(peer.drain()) == [protocol.ErrorCode.TABLE_FULL]


def test_quick_match_fills_a_roll_table_and_the_game_starts() -> None:
    hub, clock = make_hub()
    card = logged_in(hub, clock, "card")
    card.send(protocol.QuickMatch(ref=card.ref(), kind="sushi-go", players=2))
    card.expect(protocol.TableJoined)
    peers = [RollPeer(hub, clock, address=f"10.0.2.{i}") for i in range(2)]
    for i, peer in enumerate(peers):
        peer.login(f"quick{i}")
        peer.send(protocol.QuickMatch(ref=peer.ref(), kind="sushi-roll", players=2))
        joined = peer.joined(peer.expect(protocol.TableJoined))
        assert joined.table.settings.kind == "sushi-roll"
    assert peers[0].table_id == peers[1].table_id != card.table_id
    play_out(peers, random.Random(3))
    for peer in peers:
        peer.witness.verify()
    assert hub.tables[peers[0].table_id].status is protocol.TableStatus.FINISHED


def test_a_roll_tournament_runs_its_games() -> None:
    hub, clock = make_hub()
    peers = [RollPeer(hub, clock, address=f"10.0.3.{i}") for i in range(3)]
    for i, peer in enumerate(peers):
        peer.login(f"entrant{i}")
    settings = protocol.TournamentSettings(
        name="dice cup", kind="sushi-roll", players=2, games=3, turn_seconds=30
    )
    peers[0].send(protocol.CreateTournament(ref=peers[0].ref(), settings=settings))
    for peer in peers:
        peer.send(protocol.RegisterTournament(ref=peer.ref(), name="dice cup"))
    peers[0].send(protocol.StartTournament(ref=peers[0].ref(), name="dice cup"))
    rng = random.Random(5)
    for _ in range(200):
        for peer in peers:
            peer.play(rng)
        if hub.desk.tournaments["dice cup"].games_done == 3:
            break
    for peer in peers:
        peer.play(rng)  # read what is left (the last game's end)
    tournament = hub.desk.tournaments["dice cup"]
    assert tournament.games_done == 3
    for peer in peers:
        for seen in [*peer.games, peer.witness]:
            seen.verify()
    assert sum(len(p.games) + 1 for p in peers) == 6
    assert sum(e.games for e in tournament.entrants.values()) == 6
    records = hub.storage.list_records()
    assert len(records) == 3 and {r.kind for r in records} == {"sushi-roll"}
    bad = protocol.TournamentSettings(name="bad", kind="sushi-roll", players=2, variants=("dummy",))
    peers[0].send(protocol.CreateTournament(ref=peers[0].ref(), settings=bad))
    assert protocol.ErrorCode.BAD_SETTINGS in errors_of(peers[0].drain())


# -- whole games ---------------------------------------------------------------------------------


def test_players_bots_and_a_spectator_see_the_same_checked_game() -> None:
    hub, clock = make_hub()
    a, b = RollPeer(hub, clock), RollPeer(hub, clock, address="10.0.0.2")
    a.login("ann")
    b.login("bob")
    a.create(roll_settings(4))
    b.send(protocol.JoinTable(ref=b.ref(), table_id=a.table_id))
    b.joined(b.expect(protocol.TableJoined))
    a.add_bot("heuristic")
    a.add_bot("greedy")
    watcher = RollPeer(hub, clock, address="10.0.0.3")
    watcher.login("watcher")
    watcher.send(protocol.Spectate(ref=watcher.ref(), table_id=a.table_id))
    watcher.expect(protocol.Spectating)
    a.start()
    play_out([a, b, watcher], random.Random(8))

    records = [p.witness.verify() for p in (a, b, watcher)]
    assert records[0] == records[1] == records[2]
    record = records[0]
    assert {s.seats[0] for s in record.steps} == {0, 1, 2, 3}
    assert not any(o.auto for s in record.steps for o in s.openings), "bots are players"
    # Nothing in Sushi Roll is private: every view is the spectators' but for its seat field.
    assert [t.observation.seat for t in watcher.witness.turns] == [None] * len(
        watcher.witness.turns
    )
    for seen in (a.witness, b.witness):
        assert len(seen.turns) == len(watcher.witness.turns)
        for mine, public in zip(seen.turns, watcher.witness.turns, strict=True):
            assert dataclasses.replace(mine.observation, seat=None) == public.observation
            assert (mine.round, mine.turn, mine.seats) == (public.round, public.turn, public.seats)
    stored = hub.storage.list_records()
    assert len(stored) == 1 and stored[0].kind == "sushi-roll"
    assert [r.score for r in stored[0].players] == list(record.scores)
    assert hub.tables[a.table_id].status is protocol.TableStatus.FINISHED


def test_a_spectator_arriving_mid_turn_gets_the_turn_first() -> None:
    hub, clock = make_hub()
    a, b = seated(hub, clock, 2)
    mover = mover_of([a, b])
    mover.act(Reroll((0, 1)))
    watcher = RollPeer(hub, clock, address="10.0.0.9")
    watcher.login("late")
    watcher.send(protocol.Spectate(ref=watcher.ref(), table_id=a.table_id))
    watcher.expect(protocol.Spectating)
    turn = watcher.expect(protocol.TurnStart)
    assert turn.observation.seat is None
    assert turn.observation == dataclasses.replace(
        mover.expect(protocol.Acted).observation, seat=None
    )
    mover.act(Take(0))
    update = watcher.expect(protocol.Acted)
    assert update.action == Take(0) and watcher.witness.errors == []


def test_a_player_leaving_mid_game_is_replaced_by_a_bot() -> None:
    hub, clock = make_hub()
    a, b, c = seated(hub, clock, 3)
    rng = random.Random(2)
    for _ in range(5):
        for p in (a, b, c):
            p.play(rng)
    leaver = c
    leaver.send(protocol.LeaveTable(ref=leaver.ref()))
    leaver.drain()
    play_out([a, b], rng)
    record = a.witness.verify()
    assert b.witness.verify() == record
    table = hub.tables[a.table_id]
    assert table.seating.seats[leaver.seat or 0].bot == "default"


# -- hostile moves --------------------------------------------------------------------------------


def test_wrong_seat_wrong_turn_and_illegal_actions_are_refused_and_change_nothing() -> None:
    hub, clock = make_hub()
    peers = seated(hub, clock, 3)
    mover = mover_of(peers)
    waiting = next(p for p in peers if p is not mover)
    assert mover.seat is not None and mover.last is not None
    round_, cycle = mover.last.round, mover.last.cycle

    # Not this seat's turn: OUT_OF_PHASE (its connection is in roll_waiting).
    waiting.act_raw(protocol.Act(ref=7, round=round_, turn=cycle, action=Take(0)))
    assert errors_of(waiting.drain()) == [protocol.ErrorCode.OUT_OF_PHASE]
    # The mover, naming another cycle or round: WRONG_TURN.
    mover.act_raw(protocol.Act(ref=8, round=round_, turn=cycle + 1, action=Take(0)))
    mover.act_raw(protocol.Act(ref=9, round=round_ + 1, turn=cycle, action=Take(0)))
    # Card-game messages on a roll table: OUT_OF_PHASE.
    mover.act_raw(protocol.Commit(ref=10, round=1, turn=1, commitment=bytes(32)))
    mover.act_raw(protocol.Seed(ref=11, seed=protocol.new_seed()))
    belt = len(mover.last.players[mover.seat].belt)
    other = (mover.seat + 1) % 3
    illegal: list[RollAction] = [
        Take(belt),  # no die there
        Reroll((1, 0)),  # not increasing
        Reroll((0, belt)),  # off the belt
        Swap(0, mover.seat, 0),  # with its own belt
        Swap(0, other, 7),  # no die there on the other belt
    ]
    for action in illegal:
        mover.act(action)
    got = mover.drain()
    codes = errors_of(got)
    assert codes == [protocol.ErrorCode.WRONG_TURN] * 2 + [protocol.ErrorCode.OUT_OF_PHASE] * 2 + [
        protocol.ErrorCode.ILLEGAL_ACTION
    ] * len(illegal)
    assert not [m for m in got if isinstance(m, protocol.Acted)], "nothing changed"
    messages = [m.message for m in got if isinstance(m, protocol.Error)]
    assert "no die at position" in messages[4] and "strictly increasing" in messages[5]
    # Spend every menu token, then one re-roll too many.
    for _ in range(3):
        mover.act(Reroll((0,)))
    mover.act(Reroll((0,)))
    got = mover.drain()
    assert sum(isinstance(m, protocol.Acted) for m in got) == 3
    assert errors_of(got) == [protocol.ErrorCode.ILLEGAL_ACTION]
    last = got[-1]
    assert isinstance(last, protocol.Error) and "no menu token" in last.message
    # The seat may still take, and the game goes on to its end for everyone.
    mover.act(Take(0))
    play_out(peers, random.Random(1))
    records = [p.witness.verify() for p in peers]
    assert records[0] == records[1] == records[2]


def test_roll_action_on_a_card_table_is_out_of_phase() -> None:
    hub, clock = make_hub()
    card = table_with_bots(
        hub, clock, "card", protocol.TableSettings(kind="sushi-go", players=2), "random"
    )
    card.seed()
    card.expect(protocol.TurnStart)
    # The seat is committing, not roll_moving.
    card.send_bytes(
        raw_frame(protocol.Act(ref=3, round=1, turn=1, action=Take(0)), protocol.ROLL_WIRE)
    )
    assert errors_of(card.drain()) == [protocol.ErrorCode.OUT_OF_PHASE]
    # The card table's own check, should a roll action ever reach it.
    table = hub.tables[card.table_id]
    session = card.conn.session
    assert session is not None
    with pytest.raises(TableError) as info:
        hub.lobby.handle(
            card.conn, session, protocol.Act(ref=4, round=1, turn=1, action=Take(0)), 0
        )
    assert info.value.code is protocol.ErrorCode.OUT_OF_PHASE
    assert table.settings.kind != "sushi-roll"


def test_the_roll_tables_own_checks() -> None:
    """Defence in depth: what the protocol's phase check already stops, the table refuses too."""
    hub, clock = make_hub()
    peers = seated(hub, clock, 2)
    mover = mover_of(peers)
    table = hub.tables[mover.table_id]
    assert table.settings.kind == "sushi-roll" and table.game is not None
    other = 1 - (mover.seat or 0)
    game = table.game
    cases = [
        ((other, game.round, game.cycle, Take(0)), protocol.ErrorCode.OUT_OF_PHASE),
        ((mover.seat, game.round, game.cycle + 1, Take(0)), protocol.ErrorCode.WRONG_TURN),
        ((mover.seat, game.round, game.cycle, Take(9)), protocol.ErrorCode.ILLEGAL_ACTION),
    ]
    for (seat, round_, cycle, action), code in cases:
        with pytest.raises(TableError) as info:
            table.open.act(seat or 0, round_, cycle, action, clock.now)
        assert info.value.code is code
    with pytest.raises(TableError) as info:
        table.seed(0, protocol.new_seed(), clock.now)
    assert info.value.code is protocol.ErrorCode.OUT_OF_PHASE
    assert table.steps == []


def test_a_mover_flooding_illegal_actions_is_rate_limited_then_closed() -> None:
    hub, clock = make_hub()
    peers = seated(hub, clock, 2)
    mover = mover_of(peers)
    assert mover.seat is not None
    for _ in range(80):
        mover.act(Swap(0, mover.seat, 0))  # with its own belt: illegal
    codes = errors_of(mover.drain())
    # the burst (less the lobby's share)
    assert codes[:40] == [protocol.ErrorCode.ILLEGAL_ACTION] * 40
    assert protocol.ErrorCode.RATE_LIMITED in codes
    assert mover.transport.closed


def test_another_tables_game_finishes_while_one_is_attacked() -> None:
    hub, clock = make_hub()
    attacked = seated(hub, clock, 2)
    bystanders = seated(hub, clock, 3)
    rng = random.Random(12)
    attacker = mover_of(attacked)
    assert attacker.seat is not None
    assert attacker.last is not None
    here = (attacker.last.round, attacker.last.cycle)
    for step in range(40):
        attacker.act_raw(protocol.Act(ref=1, round=here[0], turn=here[1], action=Swap(0, 0, 0)))
        attacker.act_raw(protocol.Commit(ref=2, round=1, turn=1, commitment=bytes(32)))
        for peer in bystanders:
            peer.play(rng)
        if step % 10 == 0:
            attacker.drain()
    play_out(bystanders, rng)
    records = [p.witness.verify() for p in bystanders]
    assert records[0] == records[1] == records[2]
    codes = set(errors_of(attacker.drain()))
    assert codes <= {
        protocol.ErrorCode.ILLEGAL_ACTION,
        protocol.ErrorCode.OUT_OF_PHASE,
        protocol.ErrorCode.RATE_LIMITED,
    }
