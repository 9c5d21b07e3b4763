"""Names and identities (issue 21, the second attack): names are PRECIS nicknames in one script,
unique among the connected after NFKC and case folding (NAME_TAKEN); one player (one key, however
many connections and names) holds one seat per table; a player's connections are capped."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from server_helpers import Peer, card_settings, hello, logged_in, make_hub, raw_frame
from socket_helpers import RawPeer, Running, abort, dropped, refusal, running_server

from sushigo.client.connection import Client
from sushigo.protocol import (
    Error,
    ErrorCode,
    LoggedIn,
    LoginGuest,
    TableJoined,
    Welcome,
)
from sushigo.server.config import HubConfig
from sushigo.server.errors import TableError
from sushigo.server.sessions.names import clean_name, name_key


@pytest.fixture
async def running() -> AsyncIterator[Running]:
    async with running_server(config=HubConfig(sessions_per_player=3)) as r:
        yield r


# -- what a name may be ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "shown"),
    [
        ("alice", "alice"),
        ("  Alice   Smith ", "Alice Smith"),  # trimmed, one space between words
        ("ａｄｍｉｎ", "admin"),  # full-width letters are the plain ones (NFKC)
        ("ﬁsh", "fish"),  # a ligature is its letters
        ("Ærøskøbing", "Ærøskøbing"),
        ("Алиса", "Алиса"),  # one script, Cyrillic: fine
        ("東京 tokyo", "東京 tokyo"),  # Han with Latin: how Japanese is written
        ("山田さん", "山田さん"),
        ("player_2", "player_2"),
    ],
)
def test_allowed_names_are_shown_in_their_nfkc_form(typed: str, shown: str) -> None:
    assert clean_name(typed) == shown


@pytest.mark.parametrize(
    ("typed", "why"),
    [
        ("pаypal", "mixes CYRILLIC, LATIN"),  # a Cyrillic а among Latin letters
        ("Αdmin", "mixes GREEK, LATIN"),  # a Greek capital alpha
        ("ali\u200bce", "U+200B"),  # zero-width space
        ("alice\u202e", "U+202E"),  # right-to-left override
        ("bo\u00adb", "U+00AD"),  # soft hyphen
        ("x\u2060y", "U+2060"),  # word joiner
        ("tab\there", "U+0009"),
        ("   ", "visible character"),
        ("\u200b", "U+200B"),
        ("ﬃ" * 12, "at most 24 characters"),  # 12 typed, 36 once normalised
    ],
)
def test_confusable_and_invisible_names_are_refused_saying_why(typed: str, why: str) -> None:
    with pytest.raises(TableError) as refused:
        clean_name(typed)
    assert refused.value.code is ErrorCode.INVALID_NAME
    assert why in refused.value.message


def test_names_compare_after_nfkc_and_case_folding() -> None:
    keys = {name_key(clean_name(n)) for n in ("Alice", "ALICE", "ａｌｉｃｅ", "alice")}
    assert keys == {"alice"}
    assert name_key(clean_name("Straße")) == name_key(clean_name("STRASSE"))
    assert name_key(clean_name("bob")) != name_key(clean_name("bób"))


# -- NAME_TAKEN among the connected ---------------------------------------------------------------


async def login_error(running: Running, name: str) -> Error:
    peer = await RawPeer.open(running)
    peer.send(hello(peer.ref()))
    await peer.expect(Welcome)
    peer.send(LoginGuest(ref=7, name=name))
    error = await peer.expect(Error)
    assert error.ref == 7
    peer.close()
    return error


async def test_a_connected_guests_name_is_taken_in_every_form(running: Running) -> None:
    alice = await running.client("Alice")
    for form in ("Alice", "alice", "ALICE", "ａｌｉｃｅ", " alice "):
        error = await login_error(running, form)
        assert error.code == ErrorCode.NAME_TAKEN, form
        assert "is taken by another player" in error.message
    error = await login_error(running, "аlice")  # Cyrillic а: refused as a look-alike
    assert error.code == ErrorCode.INVALID_NAME
    await alice.close()


def test_a_name_is_free_again_when_its_player_quits_from_the_lobby() -> None:
    hub, clock = make_hub()
    first = logged_in(hub, clock, "carol")
    hub.lost(first.conn, clock.now)  # its session waits for a resume, but it holds no seat
    again = Peer(hub, clock)
    reply = again.login("Carol")
    assert reply.name == "Carol" and reply.player_id != first.conn.session.player_id  # type: ignore[union-attr]


async def test_a_seated_player_who_is_away_keeps_the_name_its_seat_shows(
    running: Running,
) -> None:
    dave = await running.client("dave")
    await dave.create_table(card_settings(2))
    abort(dave)
    await dropped(dave)
    assert (await login_error(running, "Dave")).code == ErrorCode.NAME_TAKEN
    back = await dave.resume()  # the seat and the name are still theirs
    assert back.seat == 0
    await dave.close()


def test_a_name_held_by_an_away_seat_is_released_when_the_session_ends() -> None:
    hub, clock = make_hub(HubConfig(resume_seconds=60, abandon_seconds=600))
    erin = logged_in(hub, clock, "erin")
    erin.create(card_settings(3))
    hub.lost(erin.conn, clock.now)
    assert hub.names.holder("ERIN") == erin.conn.session.player_id  # type: ignore[union-attr]
    clock.advance(61)
    assert hub.names.holder("erin") is None
    other = Peer(hub, clock, address="10.0.0.2")
    assert other.login("Erin").name == "Erin"


# -- one player, one seat ------------------------------------------------------------------------


async def test_one_key_on_two_connections_gets_one_seat_per_table(running: Running) -> None:
    key = Ed25519PrivateKey.generate()
    one = await running.client("keyholder", key=key)
    two = await running.client("other name", key=key)  # the same player, another name
    assert one.player_id == two.player_id
    joined = await one.create_table(card_settings(2))
    refused = await refusal(two.join_table(joined.table.table_id))
    assert refused.code is ErrorCode.NOT_ALLOWED and "one seat per player" in str(refused)
    table = running.hub.tables[joined.table.table_id]
    assert [s.player_id for s in table.seating.seats] == [one.player_id, None]
    # A stranger may still take the seat, and the game records two players.
    stranger = await running.client("stranger")
    await stranger.join_table(joined.table.table_id)
    await one.close()
    await two.close()
    await stranger.close()


async def test_quick_match_never_seats_a_player_twice_at_one_table(running: Running) -> None:
    key = Ed25519PrivateKey.generate()
    one = await running.client("quick one", key=key)
    two = await running.client("quick two", key=key)
    first = await one.quick_match(2, "sushi-go")
    second = await two.quick_match(2, "sushi-go")
    assert first.table.table_id != second.table.table_id  # a table of its own, not a game alone
    third = await running.client("someone else")
    joined = await third.quick_match(2, "sushi-go")
    assert joined.table.table_id == first.table.table_id
    for c in (one, two, third):
        await c.close()


async def test_a_player_has_at_most_so_many_connections(running: Running) -> None:
    key = Ed25519PrivateKey.generate()
    clients = [await running.client(f"many {i}", key=key) for i in range(3)]
    refused = await refusal(running.client("many 3", key=key))
    assert refused.code is ErrorCode.LIMIT_REACHED and "--sessions-per-player" in str(refused)
    for c in clients:
        await c.close()


def test_a_players_session_that_is_away_does_not_count_as_connected() -> None:
    hub, clock = make_hub(HubConfig(sessions_per_player=1))
    key = Ed25519PrivateKey.generate()
    first = Peer(hub, clock)
    first.login_key(key, "kim")
    second = Peer(hub, clock)
    assert second.login_key(key, "kim", expect=Error).code == ErrorCode.LIMIT_REACHED
    hub.lost(first.conn, clock.now)
    third = Peer(hub, clock)
    assert third.login_key(key, "kim").name == "kim"


@pytest.mark.parametrize(
    ("holder", "tried", "then"), [("frank", "FRANK", "frank 2"), ("coco", "сосо", "cocoa")]
)
async def test_a_guest_login_refused_for_its_name_may_try_another(
    running: Running, holder: str, tried: str, then: str
) -> None:
    taken = await running.client(holder)
    peer = await RawPeer.open(running)
    peer.send(hello(peer.ref()))
    await peer.expect(Welcome)
    peer.send(LoginGuest(ref=3, name=tried))  # the same name, or one that looks like it
    assert (await peer.expect_error(ErrorCode.NAME_TAKEN)).ref == 3
    peer.send(LoginGuest(ref=4, name=then))
    assert (await peer.expect(LoggedIn)).name == then
    peer.close()
    await taken.close()


async def test_client_connect_says_why_a_name_is_refused(running: Running) -> None:
    refused = await refusal(
        Client.connect(running.host, running.port, name="gr\u200bace", timeout=5)
    )
    assert refused.code is ErrorCode.INVALID_NAME and "U+200B" in str(refused)


async def test_joined_is_answered_with_the_seat(running: Running) -> None:
    host = await running.client("hosting")
    joined = await host.create_table(card_settings(2))
    assert isinstance(joined, TableJoined) and joined.seat == 0
    await host.close()


# -- look-alikes (issue 29): Unicode's confusable skeleton ---------------------------------------


@pytest.mark.parametrize(
    ("online", "imitation"),
    [
        ("admin", "admın"),  # U+0131, a dotless i
        ("admin2", "admı\u0307n2"),  # a dotless i given its dot back: U+0131 U+0307
        ("coco", "сосо"),  # every letter Cyrillic: one script, so not refused as mixed
        ("coco", "c0c0"),  # digits for letters
        ("mary", "rnary"),
        ("Admin", "ADMİN"),
    ],
)
def test_a_look_alike_of_a_connected_players_name_is_taken(online: str, imitation: str) -> None:
    hub, clock = make_hub()
    Peer(hub, clock).login(online)
    second = Peer(hub, clock, address="10.0.0.2")
    second.send(hello(second.ref()))
    second.expect(Welcome)
    second.send(LoginGuest(ref=5, name=imitation))
    refused = second.expect(Error)
    assert (refused.code, refused.ref) == (ErrorCode.NAME_TAKEN, 5)
    assert "looks like" in refused.message
    assert name_key(clean_name(imitation)) == name_key(online)


@pytest.mark.parametrize("other", ["alice", "bob", "yuki", "jose", "player_2"])
def test_names_that_only_differ_stay_apart(other: str) -> None:
    different = {"alice": "alicia", "bob": "rob", "yuki": "yüki", "jose": "josé"}
    assert name_key(other) != name_key(different.get(other, "player_3"))


def test_a_look_alike_of_a_registered_players_name_is_taken_while_it_is_away() -> None:
    hub, clock = make_hub()
    key = Ed25519PrivateKey.generate()
    owner = Peer(hub, clock)
    owner.login_key(key, "admin")
    hub.lost(owner.conn, clock.now)
    clock.advance(hub.config.resume_seconds + 1, step=30)  # its session is gone: not online
    assert not hub.sessions
    for name in ("admin", "ADMIN", "admın"):
        guest = Peer(hub, clock, address="10.0.0.2")
        guest.send(hello(guest.ref()))
        guest.expect(Welcome)
        guest.send(LoginGuest(ref=6, name=name))
        refused = guest.expect(Error)
        assert refused.code == ErrorCode.NAME_TAKEN and "registered" in refused.message
    back = Peer(hub, clock, address="10.0.0.3")
    assert back.login_key(key, "admın").name == "admın"  # its own name, or a look-alike of it
    assert Peer(hub, clock, address="10.0.0.4").login("someone else").name == "someone else"


def test_a_login_waits_for_the_registered_names_off_the_event_loop() -> None:
    hub, clock = make_hub()
    conn_peer = Peer(hub, clock)
    conn_peer.send_bytes(conn_peer.proto.send(hello(conn_peer.ref())))
    conn_peer.expect(Welcome)
    hub.data(conn_peer.conn, conn_peer.proto.send(LoginGuest(ref=7, name="patient")), clock.now)
    assert conn_peer.drain() == [] and len(hub.reads) == 1  # the loop did not read
    # What comes meanwhile waits for the login (a client may send it right behind its login).
    hub.data(conn_peer.conn, raw_frame(LoginGuest(ref=8, name="twice")), clock.now)
    assert conn_peer.drain() == [] and len(hub.reads) == 1
    run = hub.reads.pop()
    hub.read_done(run, run.job(), clock.now)
    assert conn_peer.expect(LoggedIn).name == "patient"
    late = conn_peer.expect(Error)  # logged in by then: a second login is out of phase
    assert (late.code, late.ref) == (ErrorCode.OUT_OF_PHASE, 8)
