"""Redirect tickets (protocol 2.4, a cluster): a node hands a player on to the node that holds
the table the player asked for.

A ticket is msgpack ``[payload, signature]``: the payload ``[id, table_id, player_id, name,
guest]`` (`id`: 16 random bytes); for a table still to be made (`server.routing.placement`) the
name of the node that is to make it after these (empty for a tournament's); then ``true`` for a
ticket to a tournament's home node (`server.routing.tournaments`) or for a tournament's game
(``false`` for a quick match's); then, for a tournament's game placed on another node, its
intent (`Game`: the tournament, its home node, the table's settings and who sits where), or, for
a player moved to another node's quick match (`server.routing.matching`), the game and size it
waits for (`Quick`), or, on a ticket to a tournament's home node, ``true`` when the player is
the tournament's entrant. The signature is Ed25519's, by the server key every node of the cluster
shares, of a domain tag and the payload: any node can tell a ticket of the cluster from a forged
one without asking anyone. That it is used once and within its time is the database's to judge
(`server.cluster.node`): the issuing node records the id with an end of the database's clock,
and redeeming it is one conditional update.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

import msgpack
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from sushigo.protocol import TableSettings
from sushigo.protocol._codec import FieldError, codec

TAG = b"sushigo/ticket/v1"
"""Signed before the payload, so a ticket's signature can be nothing else's."""
_SETTINGS = codec(TableSettings)
"""A tournament game's table settings, in a ticket as on the wire (and checked as strictly)."""


@dataclass(frozen=True, slots=True)
class Game:
    """A tournament's game its home node placed on another node: what that node needs to make
    the table (its first entrant to arrive makes it) and seat each entrant in its place."""

    tournament: str
    home: str
    """The node that runs the tournament (and learns the game's result from its record)."""
    settings: TableSettings
    seating: tuple[str, ...]
    """The entrants' player ids, in seat order."""


@dataclass(frozen=True, slots=True)
class Quick:
    """A player waiting in a quick match, moved to another node's (`server.routing.matching`):
    the node seats it at the ticket's table, or, if that one filled or closed meanwhile, at
    another of the same game and size there (a new one if none waits)."""

    kind: str
    players: int


@dataclass(frozen=True, slots=True)
class Ticket:
    """What a ticket says: who, for which table."""

    ticket_id: bytes
    table_id: str
    player_id: str
    name: str
    guest: bool
    place: str = ""
    """For a new table: the node that is to make it (`table_id` is the id it takes). Empty: the
    table exists, where the ticket is brought."""
    tournament: bool = False
    """For a tournament's home node (`server.routing.tournaments`): `table_id` is the
    tournament's name, and the ticket is good where that tournament is run."""
    game: Game | None = None
    """For a tournament's game on another node (`place` names it, `tournament` is set,
    `table_id` is the table it is to make): what that table is. A node of the version before
    reads 7 fields at most, so it refuses such a ticket rather than take it for another kind."""
    quick: Quick | None = None
    """For a player moved to this node's quick match (`place`, when set, names the node that is
    to make the table `table_id`): seated here at once. 8 fields, like `game`'s (a node of the
    version before refuses it)."""
    entrant: bool = False
    """For a tournament's home node (`tournament` set, no `game`): the player is the
    tournament's entrant on the node that issued it, and is one where it is brought, even if its
    entry never reached the tournament's stored state there (it was taken by a node away past
    its lease, whose tournament another node had taken over: `server.routing.spread.let_go`).
    8 fields, like `game`'s (a node of the version before refuses it)."""


def issue(
    key: Ed25519PrivateKey,
    table_id: str,
    player_id: str,
    name: str,
    guest: bool,
    place: str = "",
    *,
    tournament: bool = False,
    game: Game | None = None,
    quick: Quick | None = None,
    entrant: bool = False,
) -> tuple[Ticket, bytes]:
    """A new ticket and its bytes, signed with `key` (`place`, `tournament`, `game`, `quick`,
    `entrant`: see `Ticket`)."""
    if game is not None and not (place and player_id in game.seating):
        raise ValueError("a tournament game's ticket names its node and one of its entrants")
    if quick is not None and (tournament or game is not None):
        raise ValueError("a quick match's ticket is not a tournament's")
    if entrant and not (tournament and game is None):
        raise ValueError("only a ticket to a tournament's home node names an entrant")
    tournament = tournament or game is not None
    ticket = Ticket(
        secrets.token_bytes(16),
        table_id,
        player_id,
        name,
        guest,
        place,
        tournament,
        game,
        quick,
        entrant,
    )
    fields: list[object] = [ticket.ticket_id, table_id, player_id, name, guest]
    if place or tournament or quick:  # a table ticket stays as it was, for nodes of old
        fields.append(place)
    if tournament or quick:  # a node of the version before refuses it (it reads 6 at most)
        fields.append(tournament)
    if game is not None:
        settings = _SETTINGS[0](game.settings)
        fields.append([game.tournament, game.home, settings, list(game.seating)])
    elif quick is not None:
        fields.append([quick.kind, quick.players])
    elif entrant:
        fields.append(True)
    payload: bytes = msgpack.packb(fields)
    return ticket, msgpack.packb([payload, key.sign(TAG + payload)])


def read(data: bytes, server_key: bytes) -> Ticket | None:
    """The ticket in `data` if the cluster's key signed it; None for anything else (forged,
    altered, another cluster's, not a ticket at all)."""
    try:
        outer: Any = msgpack.unpackb(data)
        payload, signature = outer
        Ed25519PublicKey.from_public_bytes(server_key).verify(signature, TAG + payload)
        fields = msgpack.unpackb(payload)
        ticket_id, table_id, player_id, name, guest, *rest = fields
    except (ValueError, TypeError, InvalidSignature, msgpack.UnpackException):
        return None
    if len(rest) > 3:
        return None
    place = rest[0] if rest else ""
    tournament = rest[1] if len(rest) >= 2 else False
    kinds = (bytes, str, str, str, bool, str, bool)
    values = (ticket_id, table_id, player_id, name, guest, place, tournament)
    if not all(isinstance(v, k) for v, k in zip(values, kinds, strict=True)):
        return None
    game = quick = None
    entrant = False
    if len(rest) == 3 and not tournament:
        quick = _quick(rest[2])
        if quick is None:
            return None
    elif len(rest) == 3 and rest[2] is True:
        entrant = True
    elif len(rest) == 3:
        game = _game(rest[2])
        if game is None or not (place and player_id in game.seating):
            return None
    return Ticket(
        ticket_id, table_id, player_id, name, guest, place, tournament, game, quick, entrant
    )


def _quick(raw: object) -> Quick | None:
    """A quick match's game and size as a ticket carries them; None if they are not."""
    if not isinstance(raw, list) or len(raw) != 2:
        return None
    kind, players = raw
    if not isinstance(kind, str) or type(players) is not int or not 1 <= players <= 8:
        return None
    return Quick(kind, players)


def _game(raw: object) -> Game | None:
    """A tournament game's intent as a ticket carries it; None if it is not one."""
    if not isinstance(raw, list) or len(raw) != 4:
        return None
    tournament, home, settings, seating = raw
    if not (isinstance(tournament, str) and isinstance(home, str) and isinstance(seating, list)):
        return None
    if not all(isinstance(pid, str) for pid in seating):
        return None
    try:
        decoded: TableSettings = _SETTINGS[1](settings)
    except (FieldError, ValueError, TypeError):
        return None
    if len(seating) != decoded.players or len(set(seating)) != len(seating):
        return None
    return Game(tournament, home, decoded, tuple(seating))
