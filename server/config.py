"""The server's limits and timeouts, in one place (docs/DEPLOY.md, "Limits", lists each with its
flag and default; docs/PROTOCOL.md section 8 states the protocol's).

Every resource a client can make the server hold is bounded here, and each bound has a flag of
`sushigo-server` (`server.cli`). The bounds are per session, per player and per table first, with
short time-outs, so that one address can host many honest players: a household or a campus behind
one NAT shares one address, and the per-address caps are set high enough for that (see
docs/DEPLOY.md, "Limits", for how to set them behind a large NAT).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class HubConfig:
    """Limits and timeouts (defaults: docs/PROTOCOL.md section 8)."""

    server_name: str = "sushigo"
    max_connections: int = 10_000
    """Connections open at once, in all."""
    max_per_address: int = 256
    """Connections open at once from one IP address (the whole of a NAT's players)."""
    max_unidentified_per_address: int = 32
    """Connections from one address that have not logged in yet (an honest client is there for
    milliseconds; the handshake deadline ends the rest)."""
    connect_rate_per_address: float = 0.0
    """New connections a second from one address, sustained (a client that reconnects in a
    loop, or a scan, is refused past it); 0, the default, sets no such limit: a flood from one
    address would use up the rate of every honest player behind it (a NAT), and the other bounds
    already keep what a flood costs small (issue 21's flood: scripts/bench_flood.py)."""
    connect_burst_per_address: float = 256.0
    """New connections from one address at once: as many as `max_per_address`, so all of a
    NAT's players may come back together after a restart."""
    handshake_seconds: float = 10.0
    """From connecting to LOGGED_IN or RESUMED: HELLO and the login both within this."""
    frame_seconds: float = 10.0
    """From a frame's first byte to its last: a frame that trickles in slower is TIMEOUT."""
    heartbeat_seconds: float = 15.0
    dead_after_seconds: float = 45.0
    resume_seconds: float = 120.0
    """How long a disconnected player's session is kept for RESUME."""
    max_away_sessions: int = 10_000
    """Disconnected sessions kept for RESUME at once; past it the ones away longest go first,
    those at no table before any seated player's."""
    idle_away_per_address: int = 64
    """Sessions kept for resume of players from one address who hold no seat (in the lobby, or
    watching); past it the one away longest goes (its player loses a resume into the lobby)."""
    sessions_per_player: int = 4
    """Sessions of one player (one key) connected at once."""
    tables_per_player: int = 2
    """Tables one player made that are still open (a session sits at one table at a time; a
    table closes when everyone has left, or nobody has been connected to it for a while)."""
    deserted_per_address: int = 16
    """Tables made from one address that nobody is connected to, waiting out `abandon_seconds`:
    past it the oldest close at once. (No cap counts an address's tables with players at them:
    one NAT may host any number of honest players.)"""
    max_tables: int = 10_000
    """Tables open at once, in all (tournament tables included)."""
    tournaments_per_address: int = 8
    """Tournaments registering or running that players from one address created."""
    abandon_seconds: float = 30.0
    """A table with no game in progress closes when none of its players and spectators has been
    connected for this long (a game in progress goes on: bots take over its seats)."""
    messages_per_second: float = 20.0
    message_burst: float = 50.0
    bytes_per_second: float = 65_536.0
    chat_per_second: float = 1.0
    chat_burst: float = 5.0
    chat_max_chars: int = 500
    """The longest chat message, in characters (the protocol's own limit is 500)."""
    strikes_before_close: int = 10
    unsent_budget: int = 128 * 1024 * 1024
    """Bytes the server holds for clients that have not taken them yet, all together (past it
    the slowest readers of the address holding most are dropped: `server.net.budget`). Each
    connection holds at most 1 MiB of them."""
    unsent_per_address: int = 16 * 1024 * 1024
    """...and the connections of one IP address together (past it, its slowest readers are
    dropped): a flood from one address cannot use up what the others need."""
    quick_turn_seconds: int = 60
    """Turn time of tables made by quick match."""
    token_lifetime_ms: int = 24 * 3600 * 1000
    """How long a stored reconnect token stays valid across server restarts."""
