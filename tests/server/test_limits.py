"""Every resource a client can make the server hold is bounded (issue 21): each limit of
`HubConfig` on its own, then the flood and the slowloris of the issue on real sockets, each with a
game at another table finishing meanwhile. Time-outs are tested on the hub's injected clock, or on
real sockets by awaiting the server's close (with short time-outs configured), never by sleeping."""

from __future__ import annotations

import asyncio
import random

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from server_helpers import (
    Peer,
    card_settings,
    check_ended,
    hello,
    hub_game,
    logged_in,
    make_hub,
    raw_frame,
)
from socket_helpers import RawPeer, Running, background_game, errors_of, refusal, running_server

from sushigo import protocol
from sushigo.client.connection import ConnectError
from sushigo.engine import GameOptions
from sushigo.server.config import HubConfig
from sushigo.server.sessions.session import REPLAY_BYTES

# -- a frame's deadline: the slowloris -----------------------------------------------------------


def test_a_frame_trickled_in_a_byte_a_second_is_dropped_at_its_deadline() -> None:
    hub, clock = make_hub()
    game = hub_game(hub, clock)
    rng = random.Random(3)
    slow = logged_in(hub, clock, "slow", address="10.7.7.7")
    slow.send_bytes((16_000).to_bytes(4, "big"))  # a frame of 16,000 bytes is coming...
    seconds = 0
    while not slow.transport.closed:  # ...a byte a second: never silent for the dead-peer time
        game.play_turn(rng)
        clock.advance(1, step=1)
        seconds += 1
        if not slow.transport.closed:
            slow.send_bytes(b"\x00")
    assert seconds == hub.config.frame_seconds == 10
    assert errors_of(slow.drain()) == [protocol.ErrorCode.TIMEOUT]
    ended = None
    while ended is None:
        ended = game.play_turn(rng)
        clock.advance(5)
    check_ended(game, ended, GameOptions(players=2))


def test_frames_that_each_arrive_in_time_are_fine_however_long_it_all_takes() -> None:
    hub, clock = make_hub()
    peer = logged_in(hub, clock, "patient")
    clock.alive.append(peer)
    for nonce in range(6):  # six pings, each in two halves 6 s apart: 36 s in all
        frame = raw_frame(protocol.Ping(ref=peer.ref(), nonce=nonce))
        peer.send_bytes(frame[:3])
        clock.advance(6, step=1)
        peer.send_bytes(frame[3:])
        assert not peer.transport.closed
        assert peer.expect(protocol.ServerPong).nonce == nonce


async def test_slowloris_connections_are_dropped_and_never_lock_out_their_address() -> None:
    config = HubConfig(frame_seconds=0.5)
    async with running_server(config=config) as running:
        game = asyncio.create_task(background_game(running))
        attackers = []
        for i in range(40):  # more than the old cap of 16 per address, all from 127.0.0.1
            peer = await RawPeer.open(running)
            await peer.login(f"loris {i}")
            peer.send_raw((16_000).to_bytes(4, "big") + b"\x00")
            attackers.append(peer)
        # A neighbour behind the same address is let in and plays meanwhile.
        neighbour = await background_game(running, "neighbour")
        assert neighbour.ended.record
        for peer in attackers:
            assert errors_of(await peer.expect_closed()) == [protocol.ErrorCode.TIMEOUT]
        assert not running.hub.conns or all(
            c.frame_since is None for c in running.hub.conns.values()
        )
        await asyncio.wait_for(game, 20)


async def test_a_connection_that_never_logs_in_is_closed_at_the_handshake_deadline() -> None:
    async with running_server(config=HubConfig(handshake_seconds=0.3)) as running:
        peer = await RawPeer.open(running)
        peer.send(hello(peer.ref()))
        await peer.expect(protocol.Welcome)
        rest = await peer.expect_closed()
        assert errors_of(rest) == [protocol.ErrorCode.TIMEOUT]


# -- connections per address ----------------------------------------------------------------------


async def test_connections_still_logging_in_are_capped_per_address() -> None:
    async with running_server(config=HubConfig(max_unidentified_per_address=3)) as running:
        waiting = []
        for _ in range(3):
            peer = await RawPeer.open(running)
            peer.send(hello(peer.ref()))
            await peer.expect(protocol.Welcome)  # welcomed, not logged in
            waiting.append(peer)
        refused = await RawPeer.open(running)
        rest = await refused.expect_closed()
        assert errors_of(rest) == [protocol.ErrorCode.LIMIT_REACHED]
        assert "--max-unidentified-per-address" in rest[0].message  # type: ignore[attr-defined]
        waiting[0].send(protocol.LoginGuest(ref=9, name="finally"))
        await waiting[0].expect(protocol.LoggedIn)  # logged in: it counts no more
        admitted = await RawPeer.open(running)
        admitted.send(hello(admitted.ref()))
        await admitted.expect(protocol.Welcome)
        for peer in [*waiting, admitted]:
            peer.close()


async def test_the_cap_per_address_refuses_with_a_reason_the_client_shows() -> None:
    async with running_server(config=HubConfig(max_per_address=3)) as running:
        clients = [await running.client(f"house {i}") for i in range(3)]
        with pytest.raises(ConnectError) as refused:
            await running.client("house 3")
        assert "LIMIT_REACHED" in str(refused.value)
        assert "--max-per-address" in str(refused.value)
        for c in clients:
            await c.close()


def test_the_per_address_default_leaves_room_for_a_nat() -> None:
    config = HubConfig()
    assert config.max_per_address >= 256 and config.max_unidentified_per_address >= 32


# -- tables ---------------------------------------------------------------------------------------


async def test_a_player_may_keep_so_many_tables_open() -> None:
    async with running_server(config=HubConfig(tables_per_player=2)) as running:
        key = Ed25519PrivateKey.generate()
        clients = [await running.client(f"host {i}", key=key) for i in range(3)]
        await clients[0].create_table(card_settings(2))
        await clients[1].create_table(card_settings(2))
        refused = await refusal(clients[2].create_table(card_settings(2)))
        assert refused.code is protocol.ErrorCode.LIMIT_REACHED and "--tables-per-player" in str(
            refused
        )
        await clients[0].leave()  # the table closes (nobody at it): one may be made again
        await clients[2].create_table(card_settings(2))
        for c in clients:
            await c.close()


async def test_the_server_keeps_so_many_tables_in_all() -> None:
    async with running_server(config=HubConfig(max_tables=2)) as running:
        clients = [await running.client(f"maker {i}") for i in range(3)]
        for c in clients[:2]:
            await c.create_table(card_settings(2))
        assert (
            await refusal(clients[2].create_table(card_settings(2)))
        ).code is protocol.ErrorCode.LIMIT_REACHED
        joined = await clients[2].join_table(clients[0].table.table_id)  # type: ignore[union-attr]
        assert joined.seat == 1  # joining takes nothing more
        for c in clients:
            await c.close()


def test_a_table_nobody_is_connected_to_closes_after_the_abandon_time() -> None:
    hub, clock = make_hub()
    host = logged_in(hub, clock, "gone")
    table_id = host.create(card_settings(4)).table.table_id
    session = host.conn.session
    assert session is not None
    hub.lost(host.conn, clock.now)
    clock.advance(hub.config.abandon_seconds - 1, step=1)
    assert table_id in hub.tables
    clock.advance(1, step=1)
    assert table_id not in hub.tables
    assert session.table is None and session.token_hash in hub.sessions  # still resumable
    back = Peer(hub, clock)
    back.send(hello(back.ref()))
    back.expect(protocol.Welcome)
    back.send(protocol.Resume(ref=back.ref(), token=host.token, last_seq=host.proto.last_seq))
    resumed = back.expect(protocol.Resumed)
    assert resumed.replayed >= 1  # the table's closing, replayed
    assert hub.stats.resumes == 1
    left = back.expect(protocol.TableLeft)
    assert left.table_id == table_id and "nobody was connected" in left.reason


def test_a_table_is_kept_while_someone_is_connected_or_comes_back_in_time() -> None:
    hub, clock = make_hub()
    host = logged_in(hub, clock, "host")
    table_id = host.create(card_settings(3)).table.table_id
    watcher = logged_in(hub, clock, "watcher", address="10.0.0.9")
    watcher.send(protocol.Spectate(ref=watcher.ref(), table_id=table_id))
    clock.alive.append(watcher)
    hub.lost(host.conn, clock.now)
    clock.advance(hub.config.abandon_seconds * 3)
    assert table_id in hub.tables  # a spectator is connected
    hub.lost(watcher.conn, clock.now)
    clock.alive.clear()
    clock.advance(hub.config.abandon_seconds - 5)
    back = Peer(hub, clock)
    back.send(hello(back.ref()))
    back.expect(protocol.Welcome)
    back.send(protocol.Resume(ref=back.ref(), token=host.token, last_seq=host.proto.last_seq))
    back.expect(protocol.Resumed)
    clock.alive.append(back)
    clock.advance(hub.config.abandon_seconds * 3)
    assert table_id in hub.tables  # its host came back in time


def test_a_flood_of_deserted_tables_from_one_address_keeps_only_so_many() -> None:
    hub, clock = make_hub()
    cap = hub.config.deserted_per_address
    made = []
    for i in range(cap + 10):
        peer = logged_in(hub, clock, f"flood {i}", address="10.66.0.1")
        made.append(peer.create(card_settings(5)).table.table_id)
        hub.lost(peer.conn, clock.now)
    elsewhere = logged_in(hub, clock, "elsewhere", address="10.1.2.3")
    kept_elsewhere = elsewhere.create(card_settings(5)).table.table_id
    hub.lost(elsewhere.conn, clock.now)
    assert [t for t in made if t in hub.tables] == made[-cap:]  # the newest, the rest closed
    assert kept_elsewhere in hub.tables  # another address's table waits out its time
    # A table with someone connected is never one of them, however many an address has.
    live = []
    for i in range(cap + 5):
        peer = logged_in(hub, clock, f"live {i}", address="10.66.0.1")
        live.append(peer.create(card_settings(2)).table.table_id)
    assert all(t in hub.tables for t in live)


def test_a_finished_table_closes_once_nobody_is_connected() -> None:
    hub, clock = make_hub()
    host = hub_game(hub, clock)
    rng = random.Random(5)
    ended = None
    while ended is None:
        ended = host.play_turn(rng)
    table_id = host.table_id
    clock.alive.append(host)
    clock.advance(hub.config.abandon_seconds * 2)
    assert table_id in hub.tables  # its player is still there (another game may follow)
    clock.alive.clear()
    hub.lost(host.conn, clock.now)
    clock.advance(hub.config.abandon_seconds + 1)
    assert table_id not in hub.tables


def test_a_game_whose_players_all_left_is_finished_by_bots_then_closed() -> None:
    hub, clock = make_hub(HubConfig(resume_seconds=60))
    host = hub_game(hub, clock)
    table_id = host.table_id
    hub.lost(host.conn, clock.now)
    clock.advance(hub.config.abandon_seconds + 5)
    assert hub.tables[table_id].playing  # a game in progress goes on
    clock.advance(60)  # the session expires: a bot takes the seat and finishes the game
    assert len(hub.storage.list_records()) == 1
    clock.advance(hub.config.abandon_seconds + 1)
    assert table_id not in hub.tables


# -- list_tables: one page at a time, with the total ------------------------------------------------


async def test_list_tables_pages_and_filters_with_a_total(running: Running) -> None:
    for _ in range(130):
        running.hub.lobby.open_table(card_settings(5), None)
    for _ in range(7):
        running.hub.lobby.open_table(protocol.TableSettings(kind="sushi-roll", players=3), None)
    client = await running.client("browser")
    first = await client.table_page()
    assert len(first.tables) == protocol.MAX_PAGE and first.total == 137 and first.offset == 0
    newest = list(reversed(running.hub.tables))
    assert [t.table_id for t in first.tables] == newest[: protocol.MAX_PAGE]
    rest = await client.table_page(offset=protocol.MAX_PAGE)
    assert [t.table_id for t in rest.tables] == newest[protocol.MAX_PAGE :]
    rolls = await client.table_page("sushi-roll", limit=5)
    assert rolls.total == 7 and len(rolls.tables) == 5
    assert {t.settings.kind for t in rolls.tables} == {"sushi-roll"}
    await client.create_table(card_settings(2))
    await client.add_bot("random")
    client.start_game()
    playing = await client.table_page(status=protocol.TableStatus.PLAYING)
    assert playing.total == 1 and playing.tables[0].table_id == client.table.table_id  # type: ignore[union-attr]
    await client.close()


async def test_a_list_request_over_the_page_size_is_refused(running: Running) -> None:
    peer = await RawPeer.open(running)
    await peer.login("greedy")
    peer.send_raw(
        protocol.encode_frame(
            {"type": "list_tables", "ref": 5, "limit": 1000}, protocol.CLIENT_LIMITS
        )
    )
    error = await peer.expect_error(protocol.ErrorCode.OUT_OF_RANGE)
    assert error.ref == 5 and "limit" in error.message
    peer.close()


# -- sessions kept for resume ----------------------------------------------------------------------


def test_sessions_kept_away_are_capped_lobby_ones_first() -> None:
    hub, clock = make_hub(HubConfig(max_away_sessions=3))
    seated = logged_in(hub, clock, "seated")
    seated.create(card_settings(3))
    hub.lost(seated.conn, clock.now)
    idle = []
    for i in range(3):
        peer = logged_in(hub, clock, f"idle {i}")
        hub.lost(peer.conn, clock.now)
        idle.append(peer)
    assert hub.limits.away == 3

    def resumes(peer: Peer) -> bool:
        again = Peer(hub, clock)
        again.send(hello(again.ref()))
        again.expect(protocol.Welcome)
        again.send(protocol.Resume(ref=again.ref(), token=peer.token, last_seq=0))
        reply = again.next()
        while reply is not None and not isinstance(reply, protocol.Resumed):
            if getattr(reply, "code", None) == protocol.ErrorCode.UNKNOWN_SESSION:
                return False
            reply = again.next()
        return reply is not None

    assert not resumes(idle[0])  # away longest at no table: forgotten first
    assert resumes(seated)  # the seated player's session was kept
    assert resumes(idle[2])


def test_idle_sessions_kept_away_are_capped_per_address_seated_ones_are_not() -> None:
    hub, clock = make_hub(HubConfig(idle_away_per_address=5))
    seated = []
    for i in range(8):
        peer = logged_in(hub, clock, f"seated {i}", address="10.8.8.8")
        peer.create(card_settings(2))
        hub.lost(peer.conn, clock.now)
        seated.append(peer.conn.session)
    idle = []
    for i in range(9):
        peer = logged_in(hub, clock, f"idle {i}", address="10.8.8.8")
        hub.lost(peer.conn, clock.now)
        idle.append(peer.conn.session)
    other = logged_in(hub, clock, "elsewhere", address="10.9.9.1")
    hub.lost(other.conn, clock.now)
    kept = set(hub.sessions.values())
    assert all(s in kept for s in seated)  # a seat waits for its player
    assert [s in kept for s in idle] == [False] * 4 + [True] * 5  # the newest five
    assert other.conn.session in kept  # another address's are its own


def test_a_sessions_replay_log_is_bounded_and_dropped_in_the_lobby() -> None:
    hub, clock = make_hub(HubConfig(messages_per_second=10_000, message_burst=10_000))
    for _ in range(100):
        hub.lobby.open_table(card_settings(5), None)
    peer = logged_in(hub, clock, "lister")
    for _ in range(60):
        peer.send(protocol.ListTables(ref=peer.ref(), limit=protocol.MAX_PAGE))
    pages = [m for m in peer.drain() if isinstance(m, protocol.TableList)]
    assert len(pages) == 60 and all(len(p.tables) == protocol.MAX_PAGE for p in pages)
    session = peer.conn.session
    assert session is not None
    assert session.log_bytes <= REPLAY_BYTES
    assert session.log_bytes == sum(len(e[2]) for e in session.log)
    hub.lost(peer.conn, clock.now)
    assert session.log_bytes == 0 and not session.log  # the lobby's snapshot misses nothing


# -- the flood of the issue, scaled down, on real sockets -------------------------------------------


async def test_a_flood_of_tables_and_lists_from_one_address_holds_little(running: Running) -> None:
    game = asyncio.create_task(background_game(running))
    settings = protocol.TableSettings(kind="sushi-go", players=5)
    for i in range(120):  # connect, log in, make a table, go (the server closes: a bad frame)
        peer = await RawPeer.open(running)
        peer.send(hello(peer.ref()))
        peer.send_raw(raw_frame(protocol.LoginGuest(ref=2, name=f"flood {i}")))
        peer.send_raw(raw_frame(protocol.CreateTable(ref=3, settings=settings)))
        peer.send_raw(b"\x00\x00\x00\x01\xc1")
        rest = await peer.expect_closed()
        assert any(isinstance(m, protocol.TableJoined) for m in rest)
    hub = running.hub
    deserted = [t for t in hub.tables.values() if not t.playing]
    assert len(deserted) <= hub.config.deserted_per_address
    lists = b"".join(
        raw_frame(protocol.ListTables(ref=10 + i, limit=protocol.MAX_PAGE)) for i in range(60)
    )
    for i in range(12):  # connect, log in, 60 lists in one write, read until closed
        peer = await RawPeer.open(running)
        peer.send(hello(peer.ref()))
        peer.send_raw(raw_frame(protocol.LoginGuest(ref=2, name=f"lister {i}")) + lists)
        rest = await peer.expect_closed()
        pages = [m for m in rest if isinstance(m, protocol.TableList)]
        assert pages and all(len(p.tables) <= protocol.MAX_PAGE for p in pages)
        assert protocol.ErrorCode.RATE_LIMITED in errors_of(rest)  # 60 at once is over the burst
    away = [s for s in hub.sessions.values() if not s.attached]
    cfg = hub.config
    # What waits for a resume: the seats of the tables kept, and so many idle ones per address.
    assert len(away) <= cfg.idle_away_per_address + cfg.deserted_per_address
    listers = [s for s in away if s.name.startswith("lister")]
    assert len(listers) == 12 and all(s.log_bytes == 0 for s in listers)  # lobby: no replay
    assert sum(s.log_bytes for s in hub.sessions.values()) <= 40 * REPLAY_BYTES
    played = await asyncio.wait_for(game, 30)
    assert isinstance(played.ended, protocol.GameEnded)


def test_once_a_floods_time_has_passed_the_server_holds_nothing_of_it() -> None:
    hub, clock = make_hub(
        HubConfig(messages_per_second=10_000, message_burst=10_000, connect_burst_per_address=1e4)
    )
    for i in range(300):  # tables made and left, then long lists asked for and left
        peer = logged_in(hub, clock, f"flood {i}", address="10.66.0.1")
        peer.create(card_settings(5))
        if i % 5 == 0:
            for _ in range(20):
                peer.send(protocol.ListTables(ref=peer.ref(), limit=protocol.MAX_PAGE))
        peer.drain()
        hub.lost(peer.conn, clock.now)
    cfg = hub.config
    assert len(hub.sessions) == cfg.idle_away_per_address + cfg.deserted_per_address
    clock.advance(hub.config.resume_seconds + hub.config.abandon_seconds + 1)
    lobby, limits = hub.lobby, hub.limits
    held = {
        "sessions": len(hub.sessions),
        "tables": len(hub.tables),
        "timers": len(hub._timers),
        "names": len(hub.names),
        "away": limits.away,
        "online": len(limits.online),
        "per address": len(limits.per_address) + len(limits.unidentified),
        "tables by player": len(lobby._made),
        "deserted tables": len(lobby._deserted),
        "saved tables": sum(1 for _ in hub.storage.load_tables()),
    }
    assert held == dict.fromkeys(held, 0)


def test_tournaments_are_capped_per_address_and_forget_the_watchers_who_left() -> None:
    hub, clock = make_hub(HubConfig(tournaments_per_address=2, resume_seconds=10))
    maker = logged_in(hub, clock, "organiser", address="10.5.5.5")
    for name in ("cup one", "cup two", "cup three"):
        settings = protocol.TournamentSettings(name=name, kind="sushi-go", players=2)
        maker.send(protocol.CreateTournament(ref=maker.ref(), settings=settings))
    replies = maker.drain()
    assert [
        m.tournament.settings.name for m in replies if isinstance(m, protocol.TournamentUpdate)
    ] == [
        "cup one",
        "cup two",
    ]
    assert errors_of(replies) == [protocol.ErrorCode.LIMIT_REACHED]
    elsewhere = logged_in(hub, clock, "other organiser", address="10.5.5.6")
    settings = protocol.TournamentSettings(name="cup three", kind="sushi-go", players=2)
    elsewhere.send(protocol.CreateTournament(ref=elsewhere.ref(), settings=settings))
    assert elsewhere.expect(protocol.TournamentUpdate).tournament.settings.name == "cup three"
    watcher = logged_in(hub, clock, "watcher", address="10.5.5.7")
    watcher.send(protocol.WatchTournament(ref=watcher.ref(), name="cup one"))
    watcher.expect(protocol.TournamentUpdate)
    session = watcher.conn.session
    assert session in hub.desk.watchers["cup one"]
    hub.lost(watcher.conn, clock.now)
    clock.advance(11)  # its session ended
    assert session not in hub.desk.watchers["cup one"]
