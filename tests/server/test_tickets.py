"""Redirect tickets (server/routing/tickets.py): what each kind carries, and that one altered,
forged or of another kind's shape is not read as a ticket."""

from __future__ import annotations

import msgpack
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from sushigo.protocol import TableSettings
from sushigo.server.keys import public_key_bytes
from sushigo.server.routing import tickets

KEY = Ed25519PrivateKey.generate()
PUBLIC = public_key_bytes(KEY)


def test_each_kind_of_ticket_reads_back_as_issued() -> None:
    for place, tournament in (("", False), ("b", False), ("", True)):
        ticket, data = tickets.issue(
            KEY, "cup", "k:ann", "ann", False, place, tournament=tournament
        )
        assert tickets.read(data, PUBLIC) == ticket
        assert (ticket.place, ticket.tournament) == (place, tournament)


def test_a_table_ticket_keeps_its_older_shape() -> None:
    """Nodes of the version before read a table's ticket (5 fields) and a new table's (6); a
    tournament's has 7, which they refuse rather than take for a table's."""
    for place, tournament, size in (("", False, 5), ("b", False, 6), ("", True, 7)):
        _, data = tickets.issue(KEY, "t1", "k:ann", "ann", False, place, tournament=tournament)
        payload, _ = msgpack.unpackb(data)
        assert len(msgpack.unpackb(payload)) == size


def test_a_home_ticket_says_whether_it_brings_an_entrant() -> None:
    """A ticket to a tournament's home node for its entrant has 8 fields (a node of the version
    before refuses it); only such a ticket may say so."""
    ticket, data = tickets.issue(KEY, "cup", "k:ann", "ann", False, tournament=True, entrant=True)
    assert tickets.read(data, PUBLIC) == ticket
    assert ticket.entrant and ticket.tournament and ticket.game is None
    payload, _ = msgpack.unpackb(data)
    assert len(msgpack.unpackb(payload)) == 8
    plain, _ = tickets.issue(KEY, "cup", "k:ann", "ann", False, tournament=True)
    assert not plain.entrant
    with pytest.raises(ValueError):
        tickets.issue(KEY, "t1", "k:ann", "ann", False, entrant=True)
    with pytest.raises(ValueError):
        tickets.issue(KEY, "t1", "k:ann", "ann", False, "b", game=GAME, entrant=True)
    fields = [b"i" * 16, "cup", "k:ann", "ann", False, "", False, True]  # not a tournament's
    payload = msgpack.packb(fields)
    signed = msgpack.packb([payload, KEY.sign(tickets.TAG + payload)])
    assert tickets.read(signed, PUBLIC) is None


def test_forged_or_misshapen_tickets_are_not_read() -> None:
    _, data = tickets.issue(KEY, "cup", "k:ann", "ann", False, tournament=True)
    forged = bytearray(data)
    forged[-1] ^= 1
    assert tickets.read(bytes(forged), PUBLIC) is None
    other = Ed25519PrivateKey.generate()
    _, theirs = tickets.issue(other, "cup", "k:ann", "ann", False, tournament=True)
    assert tickets.read(theirs, PUBLIC) is None
    for fields in (
        [b"i" * 16, "cup", "k:ann", "ann", False, "", "yes"],  # the tournament flag not a bool
        [b"i" * 16, "cup", "k:ann", "ann", False, "", True, "more"],  # too long
    ):
        payload = msgpack.packb(fields)
        signed = msgpack.packb([payload, KEY.sign(tickets.TAG + payload)])
        assert tickets.read(signed, PUBLIC) is None


GAME = tickets.Game(
    "cup", "a", TableSettings(kind="sushi-go", players=2, turn_seconds=30), ("k:ann", "k:bob")
)


def test_a_tournament_games_ticket_carries_its_intent() -> None:
    """A tournament's game placed on node b: the ticket says which table b is to make (its
    settings, who sits where, the tournament and its home node), and has 8 fields, which a node
    of the version before (7 at most) refuses."""
    ticket, data = tickets.issue(KEY, "t9", "k:bob", "bob", False, "b", game=GAME)
    assert tickets.read(data, PUBLIC) == ticket
    assert ticket.tournament and ticket.place == "b" and ticket.game == GAME
    payload, _ = msgpack.unpackb(data)
    assert len(msgpack.unpackb(payload)) == 8


def test_a_tournament_games_ticket_is_for_one_of_its_entrants_on_one_node() -> None:
    with pytest.raises(ValueError):
        tickets.issue(KEY, "t9", "k:eve", "eve", False, "b", game=GAME)
    with pytest.raises(ValueError):
        tickets.issue(KEY, "t9", "k:ann", "ann", False, "", game=GAME)


def test_misshapen_intents_are_not_read() -> None:
    _, data = tickets.issue(KEY, "t9", "k:ann", "ann", False, "b", game=GAME)
    payload, _ = msgpack.unpackb(data)
    good = msgpack.unpackb(payload)[7]  # as issued; each case below spoils one part
    for intent in (
        good[:3],  # short
        [*good[:3], ["k:ann"]],  # fewer entrants than seats
        [*good[:3], ["k:ann", "k:ann"]],  # one entrant twice
        [*good[:3], ["k:bob", "k:cat"]],  # the ticket's player is not seated
        [good[0], good[1], "settings", good[3]],  # settings not settings
        [good[0], 7, good[2], good[3]],  # the home not a name
    ):
        fields = [b"i" * 16, "t9", "k:ann", "ann", False, "b", True, intent]
        signed_payload = msgpack.packb(fields)
        signed = msgpack.packb([signed_payload, KEY.sign(tickets.TAG + signed_payload)])
        assert tickets.read(signed, PUBLIC) is None, intent
    for place, tournament in (("", True), ("b", False)):  # only with a node, as a tournament's
        fields = [b"i" * 16, "t9", "k:ann", "ann", False, place, tournament, good]
        signed_payload = msgpack.packb(fields)
        signed = msgpack.packb([signed_payload, KEY.sign(tickets.TAG + signed_payload)])
        assert tickets.read(signed, PUBLIC) is None
