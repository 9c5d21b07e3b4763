"""The admin requests on the hub (protocol 2.3, section 2.8): who may send them, what an admin
sees (never a hidden card), kicking, closing a table (a game in progress kept as aborted),
announcing, draining, and the audit log."""

from __future__ import annotations

import dataclasses
import random

import msgpack
from admin_helpers import (
    ADMIN_ID,
    admin,
    admin_hub,
    ask,
    every_admin_request,
    keyed,
    pid,
    types,
)
from server_helpers import Peer, card_settings, hello, logged_in, raw_frame

from sushigo.engine import Game, GameOptions
from sushigo.protocol import (
    CARD_WIRE,
    AdminAnnounce,
    AdminAudit,
    AdminClose,
    AdminDone,
    AdminDrain,
    AdminKick,
    AdminNodes,
    AdminSessions,
    AdminShow,
    Announcement,
    AuditList,
    ChatMessage,
    CreateTable,
    Error,
    ErrorCode,
    GameStarted,
    LoggedIn,
    LoginGuest,
    NodeList,
    QuickMatch,
    Resume,
    SessionList,
    TableLeft,
    TableView,
    TurnStart,
    Version,
    Welcome,
    verify_record,
    verify_signed_record,
)
from sushigo.protocol.records import SignedRecord


def test_every_admin_request_from_anyone_else_is_not_allowed_and_changes_nothing() -> None:
    hub, clock, _ = admin_hub()
    guest = logged_in(hub, clock, "ann", address="10.0.0.1")
    player, _ = keyed(hub, clock, "bob", "10.0.0.2")
    table = guest.create(card_settings(2)).table.table_id
    for peer in (guest, player):
        for request in every_admin_request():
            if isinstance(request, AdminShow | AdminClose):
                request = dataclasses.replace(request, table_id=table)
            if isinstance(request, AdminKick):
                request = dataclasses.replace(request, target=guest.conn.session.player_id)
            answer = ask(peer, request)
            assert isinstance(answer, Error), request.TYPE
            assert answer.code == ErrorCode.NOT_ALLOWED, request.TYPE
            assert "--admin-key" in answer.message
    # Nothing happened: the table is there, nobody was kicked, banned, muted or told anything.
    assert table in hub.tables and not guest.transport.closed and not player.transport.closed
    assert not hub.draining
    assert hub.moderation.in_force() == ([], [])
    assert not [m for m in guest.drain() + player.drain() if isinstance(m, Announcement)]
    assert hub.storage.audit_log() == []


def test_an_admin_request_before_login_is_out_of_phase() -> None:
    hub, clock, _ = admin_hub()
    peer = Peer(hub, clock)
    peer.send(hello(peer.ref()))
    peer.expect(Welcome)
    peer.send_bytes(raw_frame(AdminSessions(ref=5)))
    error = peer.expect(Error)
    assert (error.code, error.ref) == (ErrorCode.OUT_OF_PHASE, 5)


def test_sessions_and_nodes() -> None:
    hub, clock, _ = admin_hub()
    root = admin(hub, clock)
    ann = logged_in(hub, clock, "ann", address="2001:db8::7")
    ann.create(card_settings(2))
    bob, bob_key = keyed(hub, clock, "bob", "203.0.113.9")
    listed = ask(root, AdminSessions())
    assert isinstance(listed, SessionList) and listed.total == 3
    by_name = {s.name: s for s in listed.sessions}
    assert by_name["root"].admin and by_name["root"].player_id == ADMIN_ID
    assert by_name["ann"].guest and by_name["ann"].address == "2001:db8::7"
    assert by_name["ann"].table_id == ann.table_id and by_name["ann"].seat == 0
    assert by_name["bob"].player_id == pid(bob_key) and not by_name["bob"].admin
    assert [s.session_id for s in listed.sessions] == sorted(
        (s.session_id for s in listed.sessions), key=lambda s: int(s[1:])
    )
    page = ask(root, AdminSessions(offset=1, limit=1))
    assert page.sessions == listed.sessions[1:2] and page.total == 3
    bob.transport.close()
    hub.lost(bob.conn, clock.now)
    away = ask(root, AdminSessions())
    assert [s.connected for s in away.sessions if s.name == "bob"] == [False]
    other = admin(hub, clock)  # a second admin connection (a sushigo-admin command), gone
    other.transport.close()
    hub.lost(other.conn, clock.now)
    assert ask(root, AdminSessions()).total == 3  # an admin in the lobby leaves no session
    nodes = ask(root, AdminNodes())
    assert isinstance(nodes, NodeList)
    (node,) = nodes.nodes
    assert node.here and node.name == "sushigo" and not node.draining
    assert (node.sessions, node.tables, node.playing) == (3, 1, 0)


def _game_with_bots(hub, clock):  # type: ignore[no-untyped-def]
    """A 3-seat game, one scripted player and two bots, at its first step."""
    player = logged_in(hub, clock, "ann", address="10.1.1.1")
    player.create(card_settings(3, turn_seconds=60))
    player.add_bot("random")
    player.add_bot("random")
    player.start()
    player.seed()
    player.expect(GameStarted)
    start = player.expect(TurnStart)
    return player, start


def test_an_admin_sees_what_a_spectator_sees_and_never_a_hidden_card_or_pick() -> None:
    hub, clock, _ = admin_hub()
    root = admin(hub, clock)
    player, start = _game_with_bots(hub, clock)
    table = hub.tables[player.table_id]
    hidden = [o.nonce for o in table.secret.openings if o is not None and o.nonce]
    assert len(hidden) == 2  # the bots have committed: their picks are the table's secret
    views = []
    for step in range(2):  # committing, then revealing (the player has committed too)
        root.transport.buffer.clear()
        root.drain()
        root.send(AdminShow(ref=root.ref(), table_id=player.table_id))
        frame = bytes(root.transport.buffer)
        view = root.expect(TableView)
        views.append(view)
        assert all(nonce not in frame for nonce in hidden)
        for seat in range(3):
            hand = table.game.observation(seat).hand
            assert msgpack.packb([c.name.lower() for c in hand]) not in frame
        assert view.observation is not None
        shown = CARD_WIRE.codec("observation")[1](msgpack.unpackb(view.observation))
        assert shown == table.game.observation(None) and shown.hand == () and shown.seat is None
        assert (view.round, view.turn, view.acting) == (start.round, start.turn, (0, 1, 2))
        assert [s.name for s in view.sessions] == ["ann"] and view.sessions[0].seat == 0
        if step == 0:
            player.commit(start.observation.legal_actions()[0], start.round, start.turn)
    assert [v.phase for v in views] == ["committing", "revealing"]
    assert views[0].deadline_ms == 60_000
    assert views[0].table == table.info()
    open_table = ask(root, AdminShow(table_id=player.table_id))
    assert open_table.steps == 0
    missing = ask(root, AdminShow(table_id="nope"))
    assert isinstance(missing, Error) and missing.code == ErrorCode.NO_SUCH_TABLE


def test_kick_ends_the_session_its_seat_goes_to_a_bot_and_its_token_is_void() -> None:
    hub, clock, _ = admin_hub()
    root = admin(hub, clock)
    player, _ = _game_with_bots(hub, clock)
    table = hub.tables[player.table_id]
    session = player.conn.session
    assert session is not None
    done = ask(root, AdminKick(target=f"s{session.serial}", reason="be nice"))
    assert isinstance(done, AdminDone) and done.count == 1
    error = player.expect(Error)
    assert error.code == ErrorCode.KICKED and "be nice" in error.message
    assert player.transport.closed and session not in hub.sessions.values()
    assert table.seating.seats[0].bot is not None  # a bot plays the seat for the rest of the game
    again = Peer(hub, clock, address="10.1.1.1")
    again.send(hello(again.ref()))
    again.expect(Welcome)
    again.send(Resume(ref=again.ref(), token=player.token, last_seq=1))
    assert again.expect(Error).code == ErrorCode.UNKNOWN_SESSION
    again.send(LoginGuest(ref=again.ref(), name="ann"))  # a kick is no ban
    again.expect(LoggedIn)
    nobody = ask(root, AdminKick(target="s99999"))
    assert isinstance(nobody, Error) and nobody.code == ErrorCode.NO_SUCH_TABLE


def test_kick_by_player_id_ends_every_session_of_the_player() -> None:
    hub, clock, _ = admin_hub()
    root = admin(hub, clock)
    one, key = keyed(hub, clock, "cat", "10.2.0.1")
    two = Peer(hub, clock, address="10.2.0.2")
    two.login_key(key, "cat2")
    done = ask(root, AdminKick(target=pid(key)))
    assert done.count == 2 and one.transport.closed and two.transport.closed


def test_closing_an_open_table_sends_its_people_to_the_lobby() -> None:
    hub, clock, _ = admin_hub()
    root = admin(hub, clock)
    ann = logged_in(hub, clock, "ann")
    ann.create(card_settings(2))
    done = ask(root, AdminClose(table_id=ann.table_id, reason="cleanup"))
    assert isinstance(done, AdminDone) and done.count == 1
    left = ann.expect(TableLeft)
    assert "an admin closed it: cleanup" in left.reason and left.ref is None
    assert ann.table_id not in hub.tables
    assert hub.storage.aborted_games() == []  # no game: nothing to keep


def test_closing_a_table_mid_game_keeps_the_record_so_far_as_aborted() -> None:
    hub, clock, _ = admin_hub()
    root = admin(hub, clock)
    player, start = _game_with_bots(hub, clock)
    rng = random.Random(3)
    player.commit(rng.choice(start.observation.legal_actions()), start.round, start.turn)
    player.play_turn(rng)  # reveals: the first step is over
    second = player.expect(TurnStart)
    player.commit(rng.choice(second.observation.legal_actions()), second.round, second.turn)
    table = hub.tables[player.table_id]
    assert len(table.steps) == 1
    done = ask(root, AdminClose(table_id=player.table_id, reason="cheating"))
    assert isinstance(done, AdminDone) and "aborted" in done.message
    assert "cheating" in player.expect(TableLeft).reason
    hub.storage.flush(wait=True)
    (aborted,) = hub.storage.aborted_games()
    assert aborted.reason == "an admin closed it: cheating" and aborted.table_id == table.table_id
    assert hub.storage.list_records() == []  # no finished game, nobody rated
    assert [r.name for r in aborted.players] == ["ann", "random-bot-1", "random-bot-2"]
    record = verify_signed_record(
        SignedRecord(record=aborted.record, signature=aborted.signature, server_key=hub.server_key),
        hub.server_key,
    )
    assert len(record.steps) == 1  # the step under way is not in it: its picks stay secret
    report = verify_record(record)
    assert report.problems == ("the record ends before the game does",)
    game = Game(GameOptions(players=3), record.game_seed())
    game.apply([o.action for o in record.steps[0].openings])
    assert tuple(r.score for r in aborted.players) == game.scores()[:3]
    assert aborted.game_id == aborted.signature[:16].hex()
    assert hub.storage.load_tables() == []
    assert [e.action for e in hub.storage.audit_log()] == ["close"]


def test_announcements_reach_everyone_and_older_clients_as_chat() -> None:
    hub, clock, _ = admin_hub()
    root = admin(hub, clock)
    new = logged_in(hub, clock, "ann")
    new.create(card_settings(2))
    old = Peer(hub, clock)
    old.send(dataclasses.replace(hello(old.ref()), version=Version(2, 2)))
    old.expect(Welcome)
    old.send(LoginGuest(ref=old.ref(), name="bob"))
    old.expect(LoggedIn)
    done = ask(root, AdminAnnounce(text="restart at noon\x07"))
    assert isinstance(done, AdminDone) and done.count == 3
    assert new.expect(Announcement) == Announcement(text="restart at noon", by="root")
    chat = old.expect(ChatMessage)
    assert (chat.player_id, chat.name, chat.text) == ("server", "server", "restart at noon")
    assert ask(root, AdminAnnounce(text="\x07")).code == ErrorCode.OUT_OF_RANGE


def test_a_draining_server_starts_no_table_or_game_and_lets_its_games_finish() -> None:
    hub, clock, _ = admin_hub()
    root = admin(hub, clock)
    player, start = _game_with_bots(hub, clock)
    waiting = logged_in(hub, clock, "bob")
    waiting.create(card_settings(2))
    waiting.add_bot("random")
    done = ask(root, AdminDrain())
    assert isinstance(done, AdminDone) and done.count == 1 and hub.draining
    assert ask(root, AdminNodes()).nodes[0].draining
    newcomer = logged_in(hub, clock, "cat")
    for request in (QuickMatch(kind="sushi-go", players=2), CreateTable(settings=card_settings(2))):
        refusal = ask(newcomer, request)
        assert refusal.code == ErrorCode.NOT_ALLOWED and "draining" in refusal.message
    waiting.start()
    assert waiting.expect(Error).code == ErrorCode.NOT_ALLOWED
    rng = random.Random(1)
    player.commit(rng.choice(start.observation.legal_actions()), start.round, start.turn)
    ended = None
    while ended is None:
        ended = player.play_turn(rng)
    assert ended.record is not None  # the game in play finished
    wrong = ask(root, AdminDrain(node="elsewhere"))
    assert wrong.code == ErrorCode.NO_SUCH_TABLE
    assert ask(root, AdminDrain(drain=False)).count == 0 and not hub.draining
    waiting.start()
    assert [m for m in waiting.drain() if isinstance(m, Error)] == []


def test_every_action_is_in_the_audit_log_newest_first() -> None:
    hub, clock, wall = admin_hub()
    root = admin(hub, clock)
    ann = logged_in(hub, clock, "ann")
    for request in (
        AdminAnnounce(text="hi"),
        AdminDrain(),
        AdminDrain(drain=False),
        AdminKick(target=ann.conn.session.player_id, reason="bye"),
    ):
        wall.ms += 1000
        assert isinstance(ask(root, request), AdminDone)
    log = ask(root, AdminAudit(limit=3))
    assert isinstance(log, AuditList) and log.more
    assert [e.action for e in log.entries] == ["kick", "undrain", "drain"]
    assert all(e.admin == ADMIN_ID for e in log.entries)
    assert log.entries[0].detail.startswith("bye") and log.entries[0].at_ms == wall.ms
    rest = ask(root, AdminAudit(offset=3))
    assert [(e.action, e.detail) for e in rest.entries] == [("announce", "hi")] and not rest.more
    hub.storage.close()  # the database cannot be read: said, nothing else
    broken = ask(root, AdminAudit())
    assert isinstance(broken, Error) and broken.code == ErrorCode.INTERNAL_ERROR


def test_an_admin_at_a_table_or_in_a_game_is_still_an_admin() -> None:
    hub, clock, _ = admin_hub()
    root = admin(hub, clock)
    root.create(card_settings(2))  # admin requests are allowed in every logged-in phase
    root.add_bot("random")
    root.start()
    root.seed()
    assert isinstance(ask(root, AdminSessions()), SessionList)
    assert types([m for m in root.drain() if isinstance(m, Error)]) == []
