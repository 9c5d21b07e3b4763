"""Protocol 2.2's finished games, served by the hub from its storage: a player's own games a page
at a time and their signed records; nobody else's; bad ids refused; a guest's games are its
session's."""

from __future__ import annotations

import random

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from server_helpers import Clock, Peer, card_settings, hello, make_hub, run_reads

from sushigo.protocol import (
    CLIENT_LIMITS,
    Error,
    ErrorCode,
    GameEnded,
    GameList,
    GameRecord,
    GameStarted,
    GetRecord,
    LeaveTable,
    MyGames,
    Resume,
    Welcome,
    encode_frame,
    verify_record,
    verify_signed_record,
)
from sushigo.protocol.identity import player_id_for_key
from sushigo.server.hub.core import Hub
from sushigo.server.lobby.history import GUEST_GAMES


def play_game(peer: Peer, seed: int) -> GameEnded:
    """A whole 2-seat game at the peer's own new table, against a server bot."""
    peer.create(card_settings(2, turn_seconds=60))
    peer.add_bot("random")
    peer.start()
    peer.seed()
    peer.expect(GameStarted)
    rng = random.Random(seed)
    ended = None
    while ended is None:
        ended = peer.play_turn(rng)
    return ended


def keyed(hub: Hub, clock: Clock, name: str) -> tuple[Peer, str]:
    peer = Peer(hub, clock, address=f"10.0.0.{len(name)}")
    key = Ed25519PrivateKey.generate()
    peer.login_key(key, name)
    return peer, player_id_for_key(key.public_key().public_bytes_raw())


def guest(hub: Hub, clock: Clock, name: str) -> Peer:
    peer = Peer(hub, clock, address=f"10.0.1.{len(name)}")
    peer.login(name)
    return peer


def settle(peer: Peer) -> None:
    """Run the database reads the requests asked for, as the adapter would in a worker thread,
    and hand their results back (`Hub.read`)."""
    run_reads(peer.hub, peer.clock.now)


def ask(peer: Peer, message: MyGames | GetRecord) -> GameList | GameRecord | Error:
    peer.drain()
    peer.send(message)
    settle(peer)
    reply = peer.next()
    assert isinstance(reply, GameList | GameRecord | Error), reply
    assert reply.ref == message.ref
    return reply


def test_a_player_gets_its_games_and_their_records_which_verify() -> None:
    hub, clock = make_hub()
    ann, ann_id = keyed(hub, clock, "ann")
    ended = play_game(ann, seed=1)
    listing = ask(ann, MyGames(ref=ann.ref()))
    assert isinstance(listing, GameList)
    assert not listing.more and not listing.guest and listing.offset == 0
    (game,) = listing.games
    assert game.kind == "sushi-go" and game.table_id == ann.table_id and game.seat == 0
    assert game.finished_ms == 1_700_000_000_000
    me, bot = game.players
    assert (me.seat, me.name, me.player_id) == (0, "ann", ann_id)
    assert bot.seat == 1 and bot.player_id is None and bot.name.endswith("-bot-1")
    assert (me.score, bot.score) == ended.totals and (me.place, bot.place) == ended.places
    reply = ask(ann, GetRecord(ref=ann.ref(), game_id=game.game_id))
    assert isinstance(reply, GameRecord) and reply.game == game
    # The very record GAME_OVER gave, signed by the key WELCOME named; it verifies.
    assert reply.record == ended.record and reply.record.server_key == hub.server_key
    assert verify_record(verify_signed_record(reply.record, hub.server_key)).ok


def test_nobody_gets_a_game_they_did_not_play_nor_learns_it_exists() -> None:
    hub, clock = make_hub()
    ann, _ = keyed(hub, clock, "ann")
    play_game(ann, seed=2)
    listing = ask(ann, MyGames(ref=ann.ref()))
    assert isinstance(listing, GameList)
    game_id = listing.games[0].game_id
    bob, _ = keyed(hub, clock, "bob")
    empty = ask(bob, MyGames(ref=bob.ref()))
    assert isinstance(empty, GameList) and empty.games == () and not empty.more
    theirs = ask(bob, GetRecord(ref=bob.ref(), game_id=game_id))
    unknown = ask(bob, GetRecord(ref=bob.ref(), game_id="f" * 32))
    assert isinstance(theirs, Error) and isinstance(unknown, Error)
    assert theirs.code == unknown.code == ErrorCode.NO_SUCH_TABLE
    assert theirs.message.replace(game_id, "?") == unknown.message.replace("f" * 32, "?")
    # A guest is nobody's player either.
    cy = guest(hub, clock, "cy")
    refused = ask(cy, GetRecord(ref=cy.ref(), game_id=game_id))
    assert isinstance(refused, Error) and refused.code == ErrorCode.NO_SUCH_TABLE
    assert not bob.transport.closed and not cy.transport.closed


@pytest.mark.parametrize(
    ("game_id", "code"),
    [
        ("", ErrorCode.OUT_OF_RANGE),
        ("x" * 65, ErrorCode.OUT_OF_RANGE),
        (7, ErrorCode.WRONG_TYPE),
        (None, ErrorCode.WRONG_TYPE),
        ("'; DROP TABLE records; --", ErrorCode.NO_SUCH_TABLE),
    ],
)
def test_bad_ids_are_refused_saying_why(game_id: object, code: ErrorCode) -> None:
    hub, clock = make_hub()
    ann, _ = keyed(hub, clock, "ann")
    ann.drain()
    frame = {"type": "get_record", "ref": 5, "game_id": game_id}
    ann.send_bytes(encode_frame(frame, CLIENT_LIMITS))
    settle(ann)
    (error,) = ann.drain()
    assert isinstance(error, Error) and error.code == code and error.ref == 5
    assert "game_id" in error.message or code is ErrorCode.NO_SUCH_TABLE
    assert not ann.transport.closed
    # The connection goes on; the database too.
    listing = ask(ann, MyGames(ref=ann.ref()))
    assert isinstance(listing, GameList)
    assert hub.storage.list_records() == []


@pytest.mark.parametrize("limit", [0, 51])
def test_a_page_size_out_of_range_is_refused(limit: int) -> None:
    hub, clock = make_hub()
    ann, _ = keyed(hub, clock, "ann")
    ann.drain()
    ann.send_bytes(encode_frame({"type": "my_games", "ref": 6, "limit": limit}, CLIENT_LIMITS))
    (error,) = ann.drain()
    assert isinstance(error, Error) and error.code == ErrorCode.OUT_OF_RANGE
    assert "my_games.limit" in error.message


def test_the_games_come_a_page_at_a_time_newest_first() -> None:
    hub, clock = make_hub()
    ann, _ = keyed(hub, clock, "ann")
    tables = []
    for seed in range(3):
        play_game(ann, seed)
        tables.append(ann.table_id)
        ann.send(LeaveTable(ref=ann.ref()))
        ann.drain()
    first = ask(ann, MyGames(ref=ann.ref(), limit=2))
    second = ask(ann, MyGames(ref=ann.ref(), offset=2, limit=2))
    assert isinstance(first, GameList) and isinstance(second, GameList)
    assert first.more and not second.more and second.offset == 2
    # All at the same wall-clock millisecond here: newest first is then by id, as stored.
    listed = [g.table_id for g in first.games + second.games]
    assert sorted(listed) == sorted(tables) and len(set(listed)) == 3
    beyond = ask(ann, MyGames(ref=ann.ref(), offset=3))
    assert isinstance(beyond, GameList) and beyond.games == () and not beyond.more


def test_a_guest_gets_the_games_of_its_session_only() -> None:
    hub, clock = make_hub()
    dee = guest(hub, clock, "dee")
    ended = play_game(dee, seed=4)
    listing = ask(dee, MyGames(ref=dee.ref()))
    assert isinstance(listing, GameList) and listing.guest
    (game,) = listing.games
    assert game.seat == 0 and game.players[0].player_id is None and game.players[0].name == "dee"
    reply = ask(dee, GetRecord(ref=dee.ref(), game_id=game.game_id))
    assert isinstance(reply, GameRecord) and reply.record == ended.record
    # Another guest (another session) has none of it.
    eve = guest(hub, clock, "eve")
    other = ask(eve, MyGames(ref=eve.ref()))
    assert isinstance(other, GameList) and other.games == () and other.guest
    refused = ask(eve, GetRecord(ref=eve.ref(), game_id=game.game_id))
    assert isinstance(refused, Error) and refused.code == ErrorCode.NO_SUCH_TABLE
    # The session resumed on a new connection keeps them; once it ends, they are forgotten.
    token = dee.token
    hub.lost(dee.conn, clock.now)
    back = Peer(hub, clock, address="10.0.1.3")
    back.send(hello(back.ref()))
    back.expect(Welcome)
    back.send(Resume(ref=back.ref(), token=token, last_seq=dee.proto.last_seq))
    back.drain()
    again = ask(back, MyGames(ref=back.ref()))
    assert isinstance(again, GameList) and [g.game_id for g in again.games] == [game.game_id]
    hub.lost(back.conn, clock.now)
    assert len(hub.history._guests) == 1
    clock.advance(hub.config.resume_seconds + 5)
    assert hub.history._guests == {}


def test_a_guest_keeps_its_latest_games_only() -> None:
    hub, _ = make_hub()
    history = hub.history
    history.finished("g-old", [("g:x", 0)])
    for n in range(GUEST_GAMES):
        history.finished(f"g-{n}", [("g:x", 1), ("k:someone", 0), (None, 2)])
    kept = history._guests["g:x"]
    assert len(kept) == GUEST_GAMES and kept[0] == ("g-0", 1) and "k:someone" not in history._guests


def test_a_database_that_cannot_be_read_is_said_and_play_goes_on() -> None:
    hub, clock = make_hub()
    ann, _ = keyed(hub, clock, "ann")
    play_game(ann, seed=5)
    hub.storage.close()  # every read of it now fails (StorageError), as a lost database's would
    for message in (MyGames(ref=ann.ref()), GetRecord(ref=ann.ref(), game_id="0" * 32)):
        reply = ask(ann, message)
        assert isinstance(reply, Error) and reply.code == ErrorCode.INTERNAL_ERROR
        assert reply.message == "your games cannot be read now: try again later"
    assert not ann.transport.closed


def test_the_reads_wait_for_the_adapter_and_nothing_is_sent_before() -> None:
    hub, clock = make_hub()
    ann, _ = keyed(hub, clock, "ann")
    ann.drain()
    ann.send(MyGames(ref=ann.ref()))
    assert ann.drain() == [] and len(hub.reads) == 1  # the event loop did not read
    settle(ann)
    (reply,) = ann.drain()
    assert isinstance(reply, GameList) and reply.games == ()
