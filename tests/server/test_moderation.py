"""Bans and mutes (protocol 2.3): stored, kept in memory, checked at connect, login, resume and
chat; a banned or muted player is told why and for how long; chat's own limits."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from admin_helpers import ADMIN_ID, ADMIN_KEY, START_MS, admin, admin_hub, ask, keyed, pid
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from server_helpers import FakeTransport, Peer, card_settings, hello, logged_in
from socket_helpers import RawPeer, running_server

from sushigo.client.connection import ConnectionLost, ServerError
from sushigo.protocol import (
    AdminBan,
    AdminDone,
    AdminMute,
    AdminSanctions,
    AdminSessions,
    AdminUnban,
    AdminUnmute,
    Chat,
    ChatMessage,
    ClientConnection,
    Error,
    ErrorCode,
    GameStarted,
    LoggedIn,
    Resume,
    SanctionKind,
    SanctionList,
    Welcome,
)
from sushigo.server.config import HubConfig
from sushigo.server.errors import TableError
from sushigo.server.sessions.moderation import Moderation, ban_target, mute_target, sanction_message
from sushigo.server.storage.contract import StoredSanction
from sushigo.server.storage.database import open_storage


def refused_at_connect(hub, address: str) -> Error | None:  # type: ignore[no-untyped-def]
    """The refusal a new connection from `address` gets (None: it was let in)."""
    transport = FakeTransport()
    conn = hub.open(transport, address, 5555, 0.0)
    if conn is not None:
        hub.lost(conn, 0.0)
        return None
    assert transport.closed
    proto = ClientConnection()
    proto.receive_data(bytes(transport.buffer))
    error = proto.next_event()
    assert isinstance(error, Error)
    return error


def say(peer: Peer, text: str) -> ChatMessage | Error:
    """Chat, and what came of it: our own line as everyone got it, or the refusal."""
    peer.drain()
    peer.send(Chat(ref=peer.ref(), text=text))
    for message in peer.drain():
        if isinstance(message, ChatMessage | Error):
            return message
    raise AssertionError("no answer to a chat")


# -- targets ---------------------------------------------------------------------------------------


def test_targets_are_checked_and_normalised() -> None:
    key_id = "k:" + "ab" * 16
    assert ban_target(f" {key_id} ") == key_id
    assert ban_target("10.1.2.3/8") == "10.0.0.0/8"
    assert ban_target("203.0.113.7") == "203.0.113.7/32"
    assert ban_target("2001:DB8::1/32") == "2001:db8::/32"
    for bad in ("g:0123456789abcdef", "k:short", "nonsense", "10.0.0.0/33", ""):
        with pytest.raises(TableError) as refused:
            ban_target(bad)
        assert refused.value.code == ErrorCode.OUT_OF_RANGE
    with pytest.raises(TableError, match="ban its address"):
        ban_target("g:" + "0" * 16)
    assert mute_target("g:0123456789abcdef") == "g:0123456789abcdef"
    with pytest.raises(TableError):
        mute_target("10.0.0.0/8")


def test_the_narrowest_range_and_mapped_addresses_and_expiry() -> None:
    now = [START_MS]
    wide = StoredSanction("ban", "10.0.0.0/8", "wide", ADMIN_ID, 1, None)
    narrow = StoredSanction("ban", "10.9.0.0/16", "narrow", ADMIN_ID, 2, START_MS + 60_000)
    six = StoredSanction("ban", "2001:db8::/32", "six", ADMIN_ID, 3, None)
    moderation = Moderation([wide, narrow, six], lambda: now[0])
    assert moderation.address_ban("10.9.1.1") == narrow
    assert moderation.address_ban("::ffff:10.9.1.1") == narrow  # IPv4 seen through IPv6
    assert moderation.address_ban("10.8.1.1") == wide
    assert moderation.address_ban("2001:db8:ffff::1") == six
    assert moderation.address_ban("2001:db9::1") is None
    assert moderation.address_ban("11.0.0.1") is None
    assert moderation.address_ban("not an address") is None
    now[0] += 60_000
    assert moderation.address_ban("10.9.1.1") == wide  # the narrow one ran out
    live, expired = moderation.in_force()
    assert expired == [narrow] and live == [six, wide]
    assert moderation.remove("ban", "10.0.0.0/8") == wide
    assert moderation.remove("ban", "10.0.0.0/8") is None
    assert moderation.address_ban("10.9.1.1") is None
    assert (
        sanction_message(six, 0) == "you are banned from this server (six) until an admin lifts it"
    )
    mute = StoredSanction("mute", "k:x", "", ADMIN_ID, 1, 2 * 3600 * 1000)
    assert sanction_message(mute, 0) == "you are muted: your chat is not sent for 2 more hours"


# -- bans ------------------------------------------------------------------------------------------


def test_a_banned_identity_is_told_at_once_refused_at_login_and_let_back_in_once_lifted() -> None:
    hub, clock, _ = admin_hub()
    root = admin(hub, clock)
    bob, bob_key = keyed(hub, clock, "bob", "198.51.100.4")
    bob.create(card_settings(2))
    other, _ = keyed(hub, clock, "cat", "198.51.100.4")
    done = ask(root, AdminBan(target=pid(bob_key), reason="cheating", seconds=3600))
    assert isinstance(done, AdminDone) and done.count == 1
    told = bob.expect(Error)
    assert told.code == ErrorCode.BANNED and "cheating" in told.message
    assert "1 more hour" in told.message and bob.transport.closed
    assert not other.transport.closed  # the same address, another identity: untouched
    again = Peer(hub, clock, address="198.51.100.4")
    refusal = again.login_key(bob_key, "bob", expect=Error)
    assert refusal.code == ErrorCode.BANNED and "cheating" in refusal.message
    assert again.transport.closed and refusal.ref == 2
    assert ask(root, AdminUnban(target=pid(bob_key))).count == 1
    Peer(hub, clock, address="198.51.100.4").login_key(bob_key, "bob")
    missing = ask(root, AdminUnban(target=pid(bob_key)))
    assert isinstance(missing, Error) and missing.code == ErrorCode.NO_SUCH_TABLE


def test_an_address_range_is_refused_at_connect_ipv4_and_ipv6_until_it_expires() -> None:
    hub, clock, wall = admin_hub()
    root = admin(hub, clock)
    inside = logged_in(hub, clock, "ann", address="203.0.113.50")
    six = logged_in(hub, clock, "bob", address="2001:db8::1")
    assert ask(root, AdminBan(target="203.0.113.0/24", reason="flood", seconds=60)).count == 1
    assert ask(root, AdminBan(target="2001:db8::/32")).count == 1
    assert inside.expect(Error).code == ErrorCode.BANNED and inside.transport.closed
    assert six.expect(Error).code == ErrorCode.BANNED and six.transport.closed
    refusal = refused_at_connect(hub, "203.0.113.9")
    assert refusal is not None and refusal.code == ErrorCode.BANNED and "flood" in refusal.message
    assert refused_at_connect(hub, "::ffff:203.0.113.9") is not None
    assert refused_at_connect(hub, "2001:db8:1::2") is not None
    assert refused_at_connect(hub, "203.0.114.9") is None
    wall.ms += 60_000  # the IPv4 ban ran out
    assert refused_at_connect(hub, "203.0.113.9") is None
    listed = ask(root, AdminSanctions())
    assert isinstance(listed, SanctionList) and [s.target for s in listed.sanctions] == [
        "2001:db8::/32"
    ]
    assert listed.sanctions[0].by == ADMIN_ID and listed.sanctions[0].expires_ms is None
    bad = ask(root, AdminBan(target="g:0123456789abcdef"))
    assert bad.code == ErrorCode.OUT_OF_RANGE
    assert ask(root, AdminBan(target=ADMIN_ID)).code == ErrorCode.NOT_ALLOWED


def test_a_range_ban_spares_the_admin_s_own_session() -> None:
    hub, clock, _ = admin_hub()
    root = admin(hub, clock, address="192.0.2.1")
    assert ask(root, AdminBan(target="192.0.2.0/24")).count == 0
    assert not root.transport.closed
    assert refused_at_connect(hub, "192.0.2.1") is not None


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_bans_and_mutes_outlast_a_restart(
    tmp_path: Path, backend: str, request: pytest.FixtureRequest
) -> None:
    db = str(tmp_path / "server.db") if backend == "sqlite" else request.getfixturevalue("pg_url")
    hub, clock, wall = admin_hub(open_storage(db, write_behind=True))
    root = admin(hub, clock)
    player, key = keyed(hub, clock, "dan", "10.3.0.1")
    player.create(card_settings(2))
    player.add_bot("random")
    player.start()
    player.seed()
    player.expect(GameStarted)
    token = player.token
    hub.storage.flush(wait=True)
    hub.shutdown()
    hub.storage.close()

    # A restarted server holds the seat's token: a ban made now must void it too.
    hub, clock, _ = admin_hub(open_storage(db, write_behind=True), wall=wall)
    hub.restore(clock.now)
    root = admin(hub, clock)
    ask(root, AdminBan(target="10.9.0.0/16"))
    ask(root, AdminBan(target=pid(key), reason="gone"))
    ask(root, AdminMute(target="k:" + "cd" * 16))
    hub.storage.flush(wait=True)
    hub.storage.close()

    hub, clock, _ = admin_hub(open_storage(db), wall=wall)
    hub.restore(clock.now)
    assert refused_at_connect(hub, "10.9.8.7") is not None
    back = Peer(hub, clock, address="10.3.0.1")
    back.send(hello(back.ref()))
    back.expect(Welcome)
    back.send(Resume(ref=back.ref(), token=token, last_seq=0))
    assert back.expect(Error).code == ErrorCode.UNKNOWN_SESSION  # the token leads nowhere now
    assert Peer(hub, clock).login_key(key, "dan", expect=Error).code == ErrorCode.BANNED
    assert hub.moderation.mute("k:" + "cd" * 16) is not None


# -- mutes and chat ----------------------------------------------------------------------------------


def test_a_muted_player_s_chat_is_refused_saying_why_and_others_chat_on() -> None:
    hub, clock, _ = admin_hub()
    root = admin(hub, clock)
    ann = logged_in(hub, clock, "ann")
    bob = logged_in(hub, clock, "bob")
    ann_id = ann.conn.session.player_id
    assert ask(root, AdminMute(target=ann_id, reason="spam", seconds=600)).count == 1
    sessions = ask(root, AdminSessions()).sessions
    assert [s.muted for s in sessions if s.name == "ann"] == [True]
    refusal = say(ann, "buy now")
    assert refusal.code == ErrorCode.MUTED and "spam" in refusal.message
    assert "10 more minutes" in refusal.message and not ann.transport.closed
    assert not [m for m in bob.drain() if isinstance(m, ChatMessage) and m.text == "buy now"]
    bob.send(Chat(ref=bob.ref(), text="hello"))
    assert ann.expect(ChatMessage).text == "hello"
    listed = ask(root, AdminSanctions()).sanctions
    assert [(s.kind, s.target, s.reason) for s in listed] == [(SanctionKind.MUTE, ann_id, "spam")]
    assert ask(root, AdminUnmute(target=ann_id)).count == 1
    bob.drain()
    ann.send(Chat(ref=ann.ref(), text="sorry"))
    assert bob.expect(ChatMessage).text == "sorry"
    assert [e.action for e in hub.storage.audit_log()] == ["unmute", "mute"]


def test_chat_length_is_the_server_s_to_bound() -> None:
    hub, clock, _ = admin_hub(config=HubConfig(chat_max_chars=10))
    ann = logged_in(hub, clock, "ann")
    refusal = say(ann, "x" * 11)
    assert refusal.code == ErrorCode.OUT_OF_RANGE and "10 characters" in refusal.message
    ann.send(Chat(ref=ann.ref(), text=" " + "x" * 10 + " "))  # counted once trimmed
    assert ann.expect(ChatMessage).text == "x" * 10


def test_chat_is_rate_limited_per_connection() -> None:
    hub, clock, _ = admin_hub()
    ann = logged_in(hub, clock, "ann")
    burst = int(HubConfig().chat_burst)
    answers = [say(ann, f"m{n}") for n in range(burst + 1)]
    assert [type(a).__name__ for a in answers] == ["ChatMessage"] * burst + ["Error"]
    assert answers[-1].code == ErrorCode.RATE_LIMITED
    clock.advance(1.0, step=1.0)
    assert isinstance(say(ann, "later"), ChatMessage)


def test_unknown_key_players_can_be_muted_before_they_come() -> None:
    hub, clock, _ = admin_hub()
    root = admin(hub, clock)
    key = Ed25519PrivateKey.generate()
    assert ask(root, AdminMute(target=pid(key))).count == 0
    late = Peer(hub, clock)
    assert isinstance(late.login_key(key, "eve"), LoggedIn)
    assert say(late, "hi").code == ErrorCode.MUTED


# -- over real sockets -------------------------------------------------------------------------------


async def test_over_real_sockets_banned_addresses_and_identities_are_told_and_closed() -> None:
    admin_raw = ADMIN_KEY.public_key().public_bytes_raw()
    async with running_server(admins=[admin_raw]) as running:
        root = await running.client("root", key=ADMIN_KEY)
        victim_key = Ed25519PrivateKey.generate()
        victim = await running.client("vic", key=victim_key)
        reply = await root.request(lambda ref: AdminBan(ref=ref, target="127.0.0.2", reason="x"))
        assert isinstance(reply, AdminDone) and reply.count == 0
        reader, writer = await asyncio.open_connection(
            running.host, running.port, local_addr=("127.0.0.2", 0)
        )
        refused = RawPeer(reader, writer)
        error = await refused.expect(Error)
        assert error.code == ErrorCode.BANNED and "(x)" in error.message
        assert await refused.expect_closed() == []
        refused.close()
        reply = await root.request(
            lambda ref: AdminBan(ref=ref, target=pid(victim_key), reason="cheat")
        )
        assert reply.count == 1
        with pytest.raises(ConnectionLost):
            while True:
                await victim.next_event(5)
        assert victim.refusal is not None and victim.refusal.code == ErrorCode.BANNED
        with pytest.raises(ServerError) as again:
            await running.client("vic", key=victim_key)
        assert again.value.code is ErrorCode.BANNED and "cheat" in again.value.error.message
        await victim.close()
        await root.close()
