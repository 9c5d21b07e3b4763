"""A tournament as it is stored (`Storage.save_tournament`), and back (`load`).

What is kept is what the desk needs to go on after a restart or on another node: the settings,
the host and the address it was made from, the status, every entrant with its results so far
(games, wins, points, places, its tournament rating), how many games were started and finished,
and which game is running at which table (who sits where). Not kept: the sessions (entrants come
back by resuming or logging in again as the same identity) and a random-format tournament's
generator (it is seeded afresh: its seatings were random anyway).

The blob is msgpack: a map with a version number, so a later change can read an older blob.
"""

from __future__ import annotations

from typing import Any, Final

import msgpack

from sushigo.protocol import TournamentSettings, TournamentStatus
from sushigo.protocol._codec import FieldError, codec

from .tournament import Entrant, Tournament

__all__ = ["dump", "load"]

VERSION: Final = 1


def dump(t: Tournament) -> bytes:
    """`t` as stored."""
    encode = codec(TournamentSettings)[0]
    state = {
        "v": VERSION,
        "settings": encode(t.settings),
        "host": t.host,
        "address": t.address,
        "status": str(t.status),
        "entrants": [
            [e.player_id, e.name, e.games, e.wins, e.points, e.places, e.mu, e.sigma]
            for e in t.entrants.values()
        ],
        "started": t.games_started,
        "done": t.games_done,
        "running": [[table_id, list(seating)] for table_id, seating in t.running.items()],
    }
    packed: bytes = msgpack.packb(state)
    return packed


def load(blob: bytes) -> Tournament:
    """The tournament stored as `blob` (ValueError saying why it cannot be read)."""
    try:
        state: Any = msgpack.unpackb(blob, strict_map_key=False)
        if not isinstance(state, dict) or state.get("v") != VERSION:
            raise ValueError("not a stored tournament of this version")
        settings = codec(TournamentSettings)[1](state["settings"])
        host = state["host"]
        t = Tournament(settings, host if isinstance(host, str) else None)
        t.address = str(state["address"])
        for pid, name, games, wins, points, places, mu, sigma in state["entrants"]:
            t.entrants[str(pid)] = Entrant(
                str(pid), str(name), int(games), float(wins), int(points), int(places),
                float(mu), float(sigma),
            )  # fmt: skip
        if TournamentStatus(state["status"]) is not TournamentStatus.REGISTERING:
            t.start()  # its groups, from the entrants in registration order
        t.status = TournamentStatus(state["status"])
        t.games_started = int(state["started"])
        t.games_done = int(state["done"])
        for table_id, seating in state["running"]:
            if any(pid not in t.entrants for pid in seating):
                raise ValueError(f"the game at table {table_id} seats someone not entered")
            t.running[str(table_id)] = tuple(str(pid) for pid in seating)
    except (KeyError, TypeError, ValueError, FieldError, msgpack.UnpackException) as exc:
        raise ValueError(f"cannot read a stored tournament: {exc}") from None
    return t
