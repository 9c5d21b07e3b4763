"""Hostile clients, each its own test: each gets the documented result (docs/PROTOCOL.md
sections 1, 4, 5 and 8), and a game at another table of the same server completes meanwhile."""

from __future__ import annotations

import asyncio
import logging
import random
import socket
from collections.abc import AsyncIterator

import pytest
from server_helpers import Peer, check_ended, hello, hub_game, logged_in, make_hub, raw_frame
from socket_helpers import (
    RawPeer,
    Running,
    abort,
    background_game,
    dropped,
    errors_of,
    running_server,
)

from sushigo import protocol
from sushigo.engine import Action, Card, GameOptions
from sushigo.protocol.versions import CURRENT_VERSION
from sushigo.server.config import HubConfig
from sushigo.server.net import budget


async def with_bystanders(running: Running) -> asyncio.Task[object]:
    """A game at another table, started before the hostile client acts."""
    return asyncio.create_task(background_game(running))


async def bystanders_finished(task: asyncio.Task[object]) -> None:
    played = await asyncio.wait_for(task, 20)
    assert played is not None


@pytest.fixture
async def bystanders(running: Running) -> AsyncIterator[None]:
    """A game at another table of `running`, started before the test's hostile client acts: it
    must finish whatever that client does."""
    game = await with_bystanders(running)
    yield
    await bystanders_finished(game)


# -- framing -----------------------------------------------------------------------------------


@pytest.mark.usefixtures("bystanders")
async def test_garbage_bytes_get_malformed_frame_then_close(running: Running) -> None:
    peer = await RawPeer.open(running)
    peer.send_raw(b"\x00\x00\x00\x04\xc1\xc1\xc1\xc1")  # 0xc1: never valid msgpack
    rest = await peer.expect_closed()
    assert errors_of(rest) == [protocol.ErrorCode.MALFORMED_FRAME]


@pytest.mark.usefixtures("bystanders")
async def test_huge_declared_length_refused_before_the_body(running: Running) -> None:
    peer = await RawPeer.open(running)
    peer.send_raw(b"\xff\xff\xff\xff")  # 4 GiB announced; not one body byte sent
    rest = await peer.expect_closed()
    assert errors_of(rest) == [protocol.ErrorCode.FRAME_TOO_LARGE]


async def test_a_frame_just_over_the_limit_is_too_large(running: Running) -> None:
    peer = await RawPeer.open(running)
    peer.send_raw((16384 + 1).to_bytes(4, "big"))
    assert errors_of(await peer.expect_closed()) == [protocol.ErrorCode.FRAME_TOO_LARGE]


@pytest.mark.usefixtures("bystanders")
async def test_slow_sender_trickling_bytes_one_at_a_time_still_works(running: Running) -> None:
    peer = await RawPeer.open(running)
    for byte in peer.proto.send(hello(peer.ref())):
        peer.send_raw(bytes([byte]))
        await peer.writer.drain()
    await peer.expect(protocol.Welcome)
    for byte in peer.proto.send(protocol.LoginGuest(ref=peer.ref(), name="trickle")):
        peer.send_raw(bytes([byte]))
        await peer.writer.drain()
    logged_in = await peer.expect(protocol.LoggedIn)
    assert logged_in.name == "trickle"
    peer.close()


def test_sender_stopping_mid_frame_is_dropped_at_the_frame_deadline() -> None:
    hub, clock = make_hub()
    game = hub_game(hub, clock)
    rng = random.Random(1)
    stalled = logged_in(hub, clock, "staller", address="10.6.6.6")
    frame = raw_frame(protocol.Ping(ref=9, nonce=1))
    stalled.send_bytes(frame[:5])  # the header and one byte of the body, then nothing
    game.play_turn(rng)
    clock.advance(9.9, step=0.1)
    assert not stalled.transport.closed
    clock.advance(0.2, step=0.1)
    assert stalled.transport.closed, "dropped when the frame was not whole 10 s after it began"
    assert errors_of(stalled.drain()) == [protocol.ErrorCode.TIMEOUT]
    assert stalled.conn.id not in hub.conns
    ended = None
    while ended is None:
        ended = game.play_turn(rng)
        clock.advance(5)
    assert not game.transport.closed
    check_ended(game, ended, GameOptions(players=2))


# -- handshake ---------------------------------------------------------------------------------


def test_no_hello_times_out_at_the_handshake_deadline() -> None:
    hub, clock = make_hub()
    game = hub_game(hub, clock)
    rng = random.Random(2)
    silent = Peer(hub, clock, address="10.6.6.7")
    game.play_turn(rng)
    clock.advance(9.9)
    assert not silent.transport.closed
    game.play_turn(rng)
    clock.advance(0.2)
    assert silent.transport.closed
    assert errors_of(silent.drain()) == [protocol.ErrorCode.TIMEOUT]
    ended = None
    while ended is None:
        ended = game.play_turn(rng)
    check_ended(game, ended, GameOptions(players=2))


def test_hello_but_no_login_times_out_too() -> None:
    hub, clock = make_hub()
    peer = Peer(hub, clock)
    peer.send(hello())
    peer.expect(protocol.Welcome)
    clock.advance(10)
    assert peer.transport.closed
    assert errors_of(peer.drain()) == [protocol.ErrorCode.TIMEOUT]


async def test_anything_but_hello_first_is_fatal(running: Running) -> None:
    peer = await RawPeer.open(running)
    peer.send_raw(raw_frame(protocol.LoginGuest(ref=1, name="rude")))
    assert errors_of(await peer.expect_closed()) == [protocol.ErrorCode.HANDSHAKE_REQUIRED]


@pytest.mark.usefixtures("bystanders")
async def test_wrong_version_is_refused_with_the_supported_ones(running: Running) -> None:
    peer = await RawPeer.open(running)
    peer.send(
        protocol.Hello(ref=1, protocol="sushigo", version=protocol.Version(major=99, minor=0))
    )
    error = await peer.expect_error(protocol.ErrorCode.UNSUPPORTED_VERSION)
    assert error.ref == 1
    assert CURRENT_VERSION in error.supported_versions
    assert await peer.expect_closed() == []


async def test_wrong_protocol_name_is_refused(running: Running) -> None:
    peer = await RawPeer.open(running)
    peer.send(protocol.Hello(ref=1, protocol="http", version=protocol.Version(major=1, minor=0)))
    await peer.expect_error(protocol.ErrorCode.WRONG_PROTOCOL)
    assert await peer.expect_closed() == []


# -- phases and the game -------------------------------------------------------------------------


@pytest.mark.usefixtures("bystanders")
async def test_message_out_of_phase_is_refused_and_the_connection_goes_on(
    running: Running,
) -> None:
    peer = await RawPeer.open(running)
    await peer.login("outoforder")
    peer.send_raw(raw_frame(protocol.StartGame(ref=41)))  # in the lobby: not at a table
    peer.send_raw(raw_frame(protocol.Seed(ref=42, seed=protocol.new_seed())))
    first = await peer.expect_error(protocol.ErrorCode.OUT_OF_PHASE)
    second = await peer.expect_error(protocol.ErrorCode.OUT_OF_PHASE)
    assert (first.ref, second.ref) == (41, 42)
    peer.send(protocol.Ping(ref=peer.ref(), nonce=5))
    assert (await peer.expect(protocol.ServerPong)).nonce == 5  # still connected
    peer.close()


async def seated_pair(
    running: Running,
) -> tuple[RawPeer, RawPeer, protocol.TurnStart, protocol.TurnStart]:
    """Two scripted players at a 2-seat table, at the first turn."""
    a, b = await RawPeer.open(running), await RawPeer.open(running)
    await a.login("alice")
    await b.login("bob")
    await a.create(protocol.TableSettings(kind="sushi-go", players=2, turn_seconds=60))
    b.send(protocol.JoinTable(ref=b.ref(), table_id=a.table_id))
    joined = await b.expect(protocol.TableJoined)
    b.table_id, b.seat = a.table_id, joined.seat
    a.send(protocol.StartGame(ref=a.ref()))
    for p in (a, b):
        await p.expect(protocol.GameStarting)
        p.send(protocol.Seed(ref=p.ref(), seed=protocol.new_seed()))
    for p in (a, b):
        await p.expect(protocol.GameStarted)
    return a, b, await a.expect(protocol.TurnStart), await b.expect(protocol.TurnStart)


async def seated_with_bot(running: Running) -> tuple[RawPeer, protocol.TurnStart]:
    """One scripted player and a server bot, at the first turn."""
    peer = await RawPeer.open(running)
    await peer.login("mallory")
    await peer.create(protocol.TableSettings(kind="sushi-go", players=2, turn_seconds=60))
    peer.send(protocol.AddBot(ref=peer.ref(), strategy="random"))
    peer.send(protocol.StartGame(ref=peer.ref()))
    await peer.expect(protocol.GameStarting)
    peer.send(protocol.Seed(ref=peer.ref(), seed=protocol.new_seed()))
    return peer, await peer.expect(protocol.TurnStart)


@pytest.mark.usefixtures("bystanders")
async def test_card_not_in_hand_is_an_illegal_action(running: Running) -> None:
    peer, start = await seated_with_bot(running)
    hand = set(start.observation.hand)
    missing = next(card for card in Card if card not in hand and card is not Card.SOY_SAUCE)
    action, nonce = Action(missing), protocol.new_nonce()
    peer.send(
        protocol.Commit(
            ref=peer.ref(),
            round=1,
            turn=1,
            commitment=peer.commitment(action, start, nonce),
        )
    )
    await peer.expect(protocol.Commitments)
    peer.send(protocol.Reveal(ref=77, round=1, turn=1, action=action, nonce=nonce))
    # the table goes on
    got = await peer.collect(protocol.Error, protocol.TurnResult, protocol.TurnStart)
    error, result = got[protocol.Error], got[protocol.TurnResult]
    assert isinstance(error, protocol.Error) and isinstance(result, protocol.TurnResult)
    assert (error.code, error.ref) == (protocol.ErrorCode.ILLEGAL_ACTION, 77)
    assert result.openings[0].auto and result.openings[0].action.first in hand
    assert not result.openings[1].auto  # the bot's own pick
    peer.close()


@pytest.mark.usefixtures("bystanders")
async def test_reveal_that_does_not_match_is_a_commitment_mismatch(running: Running) -> None:
    peer, start = await seated_with_bot(running)
    action, nonce = start.observation.legal_actions()[0], protocol.new_nonce()
    peer.send(
        protocol.Commit(
            ref=peer.ref(), round=1, turn=1, commitment=peer.commitment(action, start, nonce)
        )
    )
    await peer.expect(protocol.Commitments)
    # wrong nonce
    peer.send(protocol.Reveal(ref=78, round=1, turn=1, action=action, nonce=protocol.new_nonce()))
    got = await peer.collect(protocol.Error, protocol.TurnResult, protocol.TurnStart)
    error, result = got[protocol.Error], got[protocol.TurnResult]
    assert isinstance(error, protocol.Error) and isinstance(result, protocol.TurnResult)
    assert (error.code, error.ref) == (protocol.ErrorCode.COMMITMENT_MISMATCH, 78)
    assert result.openings[0].auto and result.openings[0].nonce is None
    peer.close()


@pytest.mark.usefixtures("bystanders")
async def test_reveal_before_everyone_committed_is_out_of_phase(running: Running) -> None:
    a, b, start_a, start_b = await seated_pair(running)
    action_a, nonce_a = start_a.observation.legal_actions()[0], protocol.new_nonce()
    a.send(
        protocol.Commit(
            ref=a.ref(), round=1, turn=1, commitment=a.commitment(action_a, start_a, nonce_a)
        )
    )
    a.send_raw(raw_frame(protocol.Reveal(ref=90, round=1, turn=1, action=action_a, nonce=nonce_a)))
    error = await a.expect_error(protocol.ErrorCode.OUT_OF_PHASE)
    assert error.ref == 90
    # The early reveal changed nothing: the turn completes normally.
    action_b, nonce_b = start_b.observation.legal_actions()[0], protocol.new_nonce()
    b.send(
        protocol.Commit(
            ref=b.ref(), round=1, turn=1, commitment=b.commitment(action_b, start_b, nonce_b)
        )
    )
    for p, action, nonce in ((a, action_a, nonce_a), (b, action_b, nonce_b)):
        await p.expect(protocol.Commitments)
        p.send(protocol.Reveal(ref=p.ref(), round=1, turn=1, action=action, nonce=nonce))
    result = await a.expect(protocol.TurnResult)
    assert [o.auto for o in result.openings] == [False, False]
    assert result.openings[0].action == action_a
    a.close()
    b.close()


@pytest.mark.usefixtures("bystanders")
async def test_copied_commitment_is_a_fairness_violation(running: Running) -> None:
    a, b, start_a, _ = await seated_pair(running)
    action, nonce = start_a.observation.legal_actions()[0], protocol.new_nonce()
    commitment = a.commitment(action, start_a, nonce)
    a.send(protocol.Commit(ref=a.ref(), round=1, turn=1, commitment=commitment))
    a.send(protocol.Ping(ref=a.ref()))
    await a.expect(protocol.ServerPong)  # the server has A's commitment
    b.send(protocol.Commit(ref=55, round=1, turn=1, commitment=commitment))
    error = await b.expect_error(protocol.ErrorCode.FAIRNESS_VIOLATION)
    assert error.ref == 55
    shown = await a.expect(protocol.Commitments)
    assert shown.commitments == (commitment, None)  # B's copy is not shown; B is auto-picked
    a.send(protocol.Reveal(ref=a.ref(), round=1, turn=1, action=action, nonce=nonce))
    result = await a.expect(protocol.TurnResult)
    assert not result.openings[0].auto and result.openings[1].auto
    a.close()
    b.close()


# -- sessions ------------------------------------------------------------------------------------


@pytest.mark.usefixtures("bystanders")
async def test_another_seats_token_is_an_unknown_session(running: Running) -> None:
    victim = await running.client("victim")
    old_token = victim.token
    # The victim's token rotates when it resumes: the old one is now worthless.
    abort(victim)
    await dropped(victim)
    await victim.resume()
    assert victim.token != old_token
    thief = await RawPeer.open(running)
    thief.send(hello(thief.ref()))
    await thief.expect(protocol.Welcome)
    thief.send(protocol.Resume(ref=61, token=old_token, last_seq=0))
    error = await thief.expect_error(protocol.ErrorCode.UNKNOWN_SESSION)
    assert error.ref == 61
    thief.send(protocol.Resume(ref=62, token=bytes(32), last_seq=0))  # a made-up one
    assert (await thief.expect_error(protocol.ErrorCode.UNKNOWN_SESSION)).ref == 62
    thief.send(protocol.LoginGuest(ref=63, name="thief"))  # not fatal: the thief may still log in
    assert (await thief.expect(protocol.LoggedIn)).player_id != victim.player_id
    victim.send(protocol.Ping(ref=victim.proto.next_ref()))  # the victim is unaffected
    assert isinstance(await victim.wait_for(protocol.ServerPong, 5), protocol.ServerPong)
    thief.close()
    await victim.close()


# -- volume --------------------------------------------------------------------------------------


@pytest.mark.usefixtures("bystanders")
async def test_flood_past_the_rate_limit_is_refused_then_closed(running: Running) -> None:
    peer = await RawPeer.open(running)
    await peer.login("flooder")
    burst = b"".join(peer.proto.send(protocol.Ping(ref=peer.ref(), nonce=i)) for i in range(200))
    peer.send_raw(burst)
    rest = await peer.expect_closed()
    pongs = [m for m in rest if isinstance(m, protocol.ServerPong)]
    limited = [m for m in rest if isinstance(m, protocol.Error)]
    assert 45 <= len(pongs) < 100, "the burst (50, less the login) passes, then the limit bites"
    assert limited and all(e.code == protocol.ErrorCode.RATE_LIMITED for e in limited)
    assert len(limited) == running.hub.config.strikes_before_close
    assert len(pongs) + len(limited) < 200, "closed before the flood was served"


async def test_client_that_never_reads_is_dropped(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="sushigo.server")
    # A rate limit loose enough to ask for more than the unsent-bytes bound in one burst (each
    # answer is one page of tables: some 40 KB).
    loose = HubConfig(messages_per_second=10_000, message_burst=10_000)
    async with running_server(config=loose) as running:
        for _ in range(200):
            running.hub.lobby.open_table(protocol.TableSettings(kind="sushi-go", players=5), None)
        game = await with_bystanders(running)
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.setblocking(False)
        await asyncio.get_running_loop().sock_connect(sock, (running.host, running.port))
        reader, writer = await asyncio.open_connection(sock=sock)
        peer = RawPeer(reader, writer)
        peer.send(hello(peer.ref()))
        await peer.expect(protocol.Welcome)
        peer.send(protocol.LoginGuest(ref=peer.ref(), name="deaf"))
        await peer.expect(protocol.LoggedIn)
        here = "{}:{}".format(*writer.get_extra_info("sockname")[:2])
        assert any(c.peer == here for c in running.hub.conns.values())
        # ~300 x 40 KB asked for in one write, so the server reads them at once (sent one by
        # one, a loaded machine's server may read them in parts, and refuse the later parts as
        # asked again before the earlier answers were read); never read.
        peer.send_raw(
            b"".join(
                peer.proto.send(protocol.ListTables(ref=peer.ref(), limit=100)) for _ in range(300)
            )
        )
        await writer.drain()
        # Now read: a dropped connection ends (reset or EOF) with far less than was asked for.
        received = 0
        with pytest.raises(ConnectionError):
            while True:
                data = await asyncio.wait_for(reader.read(1 << 20), 5)
                if not data:
                    raise ConnectionResetError
                received += len(data)
        assert "does not read" in caplog.text
        assert not any(c.peer == here for c in running.hub.conns.values())
        assert received < 300 * 37_000
        assert budget.MAX_UNSENT == 1024 * 1024
        writer.close()
        await bystanders_finished(game)
