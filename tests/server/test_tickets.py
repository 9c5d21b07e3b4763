"""Redirect tickets (server/tickets.py): what each kind carries, and that one altered, forged or
of another kind's shape is not read as a ticket."""

from __future__ import annotations

import msgpack
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from sushigo.server import tickets
from sushigo.server.keys import public_key_bytes

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
