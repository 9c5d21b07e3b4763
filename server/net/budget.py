"""The memory budget for bytes written to clients that have not taken them yet (sans-IO).

What the server sends goes to the kernel's socket buffer; what the kernel cannot take (the
client is not reading, or reads slowly) waits in the transport, in the server's memory. This
module bounds those waiting bytes three ways, so no flood of clients that do not read can grow
the server past a known size (docs/DEPLOY.md, "Limits"; PROTOCOL.md section 8):

- a connection holds at most `MAX_UNSENT` (past it, it is dropped at once);
- the connections of one IP address hold at most `HubConfig.unsent_per_address` together;
- all connections together hold at most `HubConfig.unsent_budget`.

Past an address's share, or past the whole budget, the *slowest readers* are dropped first: the
connections that have held unsent bytes the longest without the kernel taking them all (a client
that reads empties its buffer often, however slow its link; one that stopped reading holds its
bytes from the moment it stopped). Past the whole budget the address holding the most goes first,
so a flood from one address cannot make honest players elsewhere lose their connections.

The adapter tells the budget what each connection holds after every write (`held`) and when the
kernel took everything (`drained`); between the two a connection's count may be higher than what
it holds (the kernel took some), never lower, so the budget errs on the safe side, and before it
drops anyone it measures again (`Holder.unsent_now`).
"""

from __future__ import annotations

import logging
from typing import Protocol

log = logging.getLogger("sushigo.server")

MAX_UNSENT = 1024 * 1024
"""Bytes one connection may hold unsent before it is dropped: the largest server frame (a
game record, at most 260 KiB: PROTOCOL.md section 8) fits with room to spare."""
LOG_EVERY = 10.0
"""Seconds between two log lines about dropped connections (a flood must not flood the log)."""


class Holder(Protocol):
    """A connection as the budget sees it (`server.net.connection.Connection`)."""

    address: str
    unsent: int
    """Its unsent bytes as last counted (0: it holds none, and is not among the behind)."""

    def unsent_now(self) -> int:
        """Its unsent bytes now, measured."""

    def drop(self) -> None:
        """Close it at once, dropping what it holds (its `connection_lost` follows)."""


class Budget:
    """The counts behind the three bounds, and who goes when one is passed."""

    def __init__(self, per_address: int, total: int) -> None:
        self.per_address = per_address
        self.limit = total
        self.total = 0
        """Unsent bytes counted, every connection's."""
        self.by_address: dict[str, int] = {}
        self.behind: dict[str, dict[Holder, None]] = {}
        """Per address, its connections that hold unsent bytes, the one behind longest first."""
        self.dropped = 0
        """Connections dropped since the last log line."""
        self._why = ""
        self._logged = -LOG_EVERY

    def held(self, holder: Holder, size: int, now: float) -> None:
        """`holder` holds `size` unsent bytes after a write: drop whoever must go (`holder`
        itself past `MAX_UNSENT`; the slowest readers of its address past its share; the
        slowest of the address holding most past the whole budget)."""
        self._count(holder, size)
        if size > MAX_UNSENT:
            self._drop(holder, f"it does not read ({size} bytes unsent)", now)
        address = holder.address
        if self.by_address.get(address, 0) > self.per_address:
            self._trim(address, self.per_address, "its address's share", now)
        if self.total > self.limit:
            self._measure_all()
            while self.total > self.limit and self.by_address:
                fullest = max(self.by_address, key=self.by_address.__getitem__)
                self._trim(fullest, self.by_address[fullest] - 1, "the server's budget", now)

    def drained(self, holder: Holder) -> None:
        """The kernel took every byte `holder` held."""
        self._count(holder, 0)

    def gone(self, holder: Holder) -> None:
        """`holder` closed: what it held is no longer counted."""
        self._count(holder, 0)

    def _count(self, holder: Holder, size: int) -> None:
        old = holder.unsent
        if size == old:
            return
        holder.unsent = size
        address = holder.address
        self.total += size - old
        left = self.by_address.get(address, 0) + size - old
        behind = self.behind.setdefault(address, {})
        if size:
            behind.setdefault(holder, None)  # the first time it fell behind keeps its place
        else:
            behind.pop(holder, None)
        if left > 0:
            self.by_address[address] = left
        else:
            self.by_address.pop(address, None)
        if not behind:
            del self.behind[address]

    def _measure_all(self) -> None:
        for address in list(self.behind):
            for holder in list(self.behind.get(address, ())):
                self._count(holder, holder.unsent_now())

    def _trim(self, address: str, most: int, why: str, now: float) -> None:
        """Drop `address`'s slowest readers until it holds at most `most` bytes (measured)."""
        for holder in list(self.behind.get(address, ())):
            self._count(holder, holder.unsent_now())
        while self.by_address.get(address, 0) > most:
            slowest = next(iter(self.behind[address]))
            self._drop(slowest, f"a slow reader past {why}", now)

    def _drop(self, holder: Holder, why: str, now: float) -> None:
        self.gone(holder)
        holder.drop()
        self.dropped += 1
        self._why = f"{holder.address}: {why}"
        if now - self._logged >= LOG_EVERY:
            log.warning(
                "dropped %d connection(s) holding unsent bytes; the last %s",
                self.dropped,
                self._why,
            )
            self.dropped = 0
            self._logged = now
