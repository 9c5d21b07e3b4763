"""What one address, one player and everyone together may make the server hold: connections,
connections still logging in, a player's connected sessions, and the sessions kept for players
who are away. Sans-IO bookkeeping for the hub (`server.hub.core`), which asks before it admits.

The caps per address are set high (a NAT hides many players behind one address); what keeps a
single client small is per connection and per session: the handshake and frame deadlines, the
rate limits, a bounded replay log, and short lives for what it leaves behind (config.py).
"""

from __future__ import annotations

import contextlib
import itertools
import logging

from sushigo.protocol import Error, ErrorCode, ProtocolError, ServerConnection
from sushigo.server.config import HubConfig
from sushigo.server.errors import TableError

from .session import Bucket, Conn, Session, Transport

log = logging.getLogger("sushigo.server")


class Limits:
    """The counts behind the connection and session caps of `HubConfig`."""

    def __init__(self, config: HubConfig) -> None:
        self.config = config
        self.per_address: dict[str, int] = {}
        """Open connections per IP address."""
        self.unidentified: dict[str, int] = {}
        """Open connections per address that have not logged in or resumed."""
        self.online: dict[str, int] = {}
        """Connected sessions per player id."""
        self.away_idle: dict[Session, None] = {}
        """Sessions kept for resume whose player holds no seat, longest away first."""
        self.away_seated: dict[Session, None] = {}
        """Sessions kept for resume whose player holds a seat, longest away first."""
        self.idle_by_address: dict[str, dict[Session, None]] = {}
        """`away_idle` by the address each logged in from (or resumed from last)."""
        self.arrivals: dict[str, Bucket] = {}
        """The rate of new connections per address: a bucket for each address that connected
        lately, least recently first (an address whose bucket has filled up again is dropped,
        see `_arrived`)."""
        self.refused = 0
        """Connections refused since the last time it was logged."""
        self._logged = -60.0
        """When refused connections were last logged (at most once every 10 s)."""

    # -- connections ---------------------------------------------------------------------------

    def admit(self, address: str, connections: int, now: float) -> tuple[str, str] | None:
        """Why a new connection from `address` is refused, as (a short key for the metrics, the
        message for the client), or None: it is let in. `connections` are open now."""
        cfg = self.config
        if connections >= cfg.max_connections:
            return "full", f"the server is full ({connections} connections)"
        # Every attempt counts, refused or not: a client reconnecting in a loop is slowed down
        # whatever else refuses it.
        if cfg.connect_rate_per_address > 0 and not self._arrived(address, now):
            return "rate", (
                f"more than {cfg.connect_rate_per_address:g} new connections a second from your"
                " address (the server's --connect-rate-per-address): try again in a moment"
            )
        if self.per_address.get(address, 0) >= cfg.max_per_address:
            return "per_address", (
                f"{cfg.max_per_address} connections from your address already"
                " (the server's --max-per-address)"
            )
        if self.unidentified.get(address, 0) >= cfg.max_unidentified_per_address:
            return "unidentified", (
                f"{cfg.max_unidentified_per_address} connections from your address are still"
                " logging in (the server's --max-unidentified-per-address)"
            )
        return None

    def _arrived(self, address: str, now: float) -> bool:
        """Take a new connection from `address` out of its bucket (False: it is empty).

        Buckets are kept least recently used first, and one whose address has not connected
        for long enough to fill it again is the same as none: the oldest two such go at every
        arrival, so a scan of many addresses leaves no more behind than its last few seconds'
        worth."""
        cfg = self.config
        arrivals = self.arrivals
        bucket = arrivals.pop(address, None)
        if bucket is None:
            bucket = Bucket(cfg.connect_rate_per_address, cfg.connect_burst_per_address, now)
        arrivals[address] = bucket  # now the most recently used
        refill = cfg.connect_burst_per_address / cfg.connect_rate_per_address
        for _ in range(2):
            oldest = next(iter(arrivals.values()))
            if oldest is bucket or now - oldest.stamp < refill:
                break
            del arrivals[next(iter(arrivals))]
        return bucket.take(1, now)

    def refuse(
        self,
        transport: Transport,
        peer: str,
        why: str,
        now: float,
        code: ErrorCode = ErrorCode.LIMIT_REACHED,
    ) -> None:
        """Say why a connection is refused (LIMIT_REACHED, or BANNED for a banned address: its
        first and last frame) and close it. Logged at most once every 10 s, with a count: a
        flood must not flood the log."""
        with contextlib.suppress(ProtocolError):
            refusal = Error(code=code, message=why)
            transport.write(ServerConnection().send(refusal))
        transport.close()
        self.refused += 1
        if now - self._logged >= 10:
            since = min(now - self._logged, 10)
            log.warning(
                "refused %d connection(s) in %.0f s; the last from %s: %s",
                self.refused,
                since,
                peer,
                why,
            )
            self.refused = 0
            self._logged = now

    def opened(self, conn: Conn) -> None:
        """`conn` was admitted."""
        address = conn.address
        self.per_address[address] = self.per_address.get(address, 0) + 1
        self.unidentified[address] = self.unidentified.get(address, 0) + 1

    def identified(self, conn: Conn) -> None:
        """`conn` logged in or resumed: it no longer counts as logging in."""
        if not conn.identified:
            conn.identified = True
            _down(self.unidentified, conn.address)

    def closed(self, conn: Conn) -> None:
        """`conn` is gone."""
        _down(self.per_address, conn.address)
        if not conn.identified:
            _down(self.unidentified, conn.address)

    # -- players' sessions -------------------------------------------------------------------

    def may_log_in(self, player_id: str) -> None:
        """`TableError` LIMIT_REACHED when the player has as many sessions connected as allowed."""
        cap = self.config.sessions_per_player
        if self.online.get(player_id, 0) >= cap:
            raise TableError(
                ErrorCode.LIMIT_REACHED,
                f"this player is connected {cap} times already (the server's"
                " --sessions-per-player): close one, or resume it",
            )

    def connected(self, session: Session) -> None:
        """`session` is connected now (a login, or a resume of a session that was away)."""
        self.gone(session)
        self.online[session.player_id] = self.online.get(session.player_id, 0) + 1

    def disconnected(self, session: Session) -> list[Session]:
        """`session` lost its connection and is kept for resume. Returns the sessions to forget
        now to stay within the caps (see `_crowded`)."""
        _down(self.online, session.player_id)
        if session.table is not None and session.seat is not None:
            self.away_seated[session] = None
            return self._crowded(None)
        return self.unseated(session)

    def unseated(self, session: Session) -> list[Session]:
        """`session`, away, holds no seat (now): it counts as idle. The sessions to forget now
        to stay within the caps (see `_crowded`)."""
        self.away_seated.pop(session, None)
        self.away_idle[session] = None
        self.idle_by_address.setdefault(session.address, {})[session] = None
        return self._crowded(session.address)

    def _crowded(self, address: str | None) -> list[Session]:
        """The sessions past the caps: `address`'s idle ones away longest past
        `idle_away_per_address` (a flood of logins from one address keeps that many, however
        fast it comes; a player who holds no seat loses only a resume into the lobby), then
        past `max_away_sessions` the idle ones away longest, or the seated ones if none is
        idle."""
        cfg = self.config
        out: list[Session] = []
        if address is not None:
            idle = self.idle_by_address.get(address, {})
            out += list(idle)[: max(0, len(idle) - cfg.idle_away_per_address)]
        extra = self.away - len(out) - cfg.max_away_sessions
        if extra > 0:
            oldest = (s for s in itertools.chain(self.away_idle, self.away_seated) if s not in out)
            out += itertools.islice(oldest, extra)
        return out

    def gone(self, session: Session) -> None:
        """`session` ended (its resume window passed, or it was forgotten to make room), or is
        connected again."""
        self.away_seated.pop(session, None)
        if session not in self.away_idle:
            return
        del self.away_idle[session]
        idle = self.idle_by_address.get(session.address)
        if idle is not None:
            idle.pop(session, None)
            if not idle:
                del self.idle_by_address[session.address]

    @property
    def away(self) -> int:
        """Sessions kept for resume now."""
        return len(self.away_idle) + len(self.away_seated)


def _down(counts: dict[str, int], key: str) -> None:
    left = counts.get(key, 0) - 1
    if left > 0:
        counts[key] = left
    else:
        counts.pop(key, None)
