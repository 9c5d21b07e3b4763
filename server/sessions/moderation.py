"""Bans and mutes, in memory: what the server checks on its hot paths without a database read.

The storage holds them (`Storage.save_sanction`); the server reads them once at start and keeps
this copy up to date as admins change them (`server.operations.admin`). Three questions are asked
often: is this address banned (every connection, before its first byte is read), is this identity
banned (every key login, and a resume from a stored token), is this player muted (every chat). Each
is a dict lookup or a few: an address is looked up once per prefix length that some ban uses, as the
network of that length around it, so a thousand banned ranges cost no more than one.

Targets are normalised once, at the edge (`ban_target`, `mute_target`): a player id as the server
makes them (``k:`` and 32 hex digits for a key, ``g:`` and 16 for a guest), an address or range in
`ipaddress`'s normal form (``10.1.2.3/8`` is ``10.0.0.0/8``, a lone address a /32 or /128). An
IPv4 client seen through an IPv6 socket (``::ffff:203.0.113.7``) is checked as its IPv4 address.

Expiry is checked against the wall clock the hub is given; a sanction that has run out simply
stops counting, and is dropped for good when the admins next list them.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Iterable

from sushigo.protocol import ErrorCode
from sushigo.server.errors import TableError
from sushigo.server.storage.contract import StoredSanction

BAN, MUTE = "ban", "mute"
"""The kinds of sanction (`StoredSanction.kind`)."""

_KEY_ID = re.compile(r"k:[0-9a-f]{32}")
_GUEST_ID = re.compile(r"g:[0-9a-f]{16}")

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def ban_target(text: str) -> str:
    """What a ban holds, normalised: a key's player id, or an address range. `TableError`
    OUT_OF_RANGE saying why for anything else (a guest's id lasts one session: its address is
    what to ban)."""
    text = text.strip()
    if _KEY_ID.fullmatch(text):
        return text
    if _GUEST_ID.fullmatch(text):
        raise TableError(
            ErrorCode.OUT_OF_RANGE,
            f"{text} is a guest's id, which lasts one session: ban its address instead (see"
            " its session's address), or kick it",
        )
    network = _network(text)
    if network is None:
        raise TableError(
            ErrorCode.OUT_OF_RANGE,
            f"{text!r} is neither a key's player id (k:...), an IP address nor a CIDR range",
        )
    return str(network)


def mute_target(text: str) -> str:
    """What a mute holds: a player id (a guest's holds while its session lasts). `TableError`
    OUT_OF_RANGE for anything else."""
    text = text.strip()
    if _KEY_ID.fullmatch(text) or _GUEST_ID.fullmatch(text):
        return text
    raise TableError(
        ErrorCode.OUT_OF_RANGE, f"{text!r} is not a player id (k:... or g:...): mute a player"
    )


def _network(text: str) -> Network | None:
    try:
        return ipaddress.ip_network(text, strict=False)
    except ValueError:
        return None


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """A peer's address as the checks see it (an IPv4-mapped IPv6 address as its IPv4 one)."""
    try:
        address = ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


class Moderation:
    """The bans and mutes in force, by what they hold."""

    def __init__(self, stored: Iterable[StoredSanction], wall_ms: Callable[[], int]) -> None:
        self.wall_ms = wall_ms
        """The wall clock (the hub's), for expiry."""
        self._players: dict[str, StoredSanction] = {}
        """Bans of identities, by player id."""
        self._ranges: dict[tuple[int, int], dict[Network, StoredSanction]] = {}
        """Bans of addresses, by (IP version, prefix length), then by network."""
        self._order: list[tuple[int, int]] = []
        """The keys of `_ranges`, the longest prefixes (the narrowest ranges) first."""
        self._mutes: dict[str, StoredSanction] = {}
        """Mutes, by player id."""
        for sanction in stored:
            self.add(sanction)

    # -- the checks ------------------------------------------------------------------------------

    def address_ban(self, address: str) -> StoredSanction | None:
        """The ban in force on `address` (the narrowest range first), or None."""
        if not self._ranges:
            return None
        ip = _address(address)
        if ip is None:
            return None
        for version, prefix in self._order:
            if version != ip.version:
                continue
            around = ipaddress.ip_network((ip, prefix), strict=False)
            sanction = self._ranges[version, prefix].get(around)
            if sanction is not None and self._live(sanction):
                return sanction
        return None

    def player_ban(self, player_id: str) -> StoredSanction | None:
        """The ban in force on this identity, or None."""
        sanction = self._players.get(player_id)
        return sanction if sanction is not None and self._live(sanction) else None

    def mute(self, player_id: str) -> StoredSanction | None:
        """The mute in force on this player, or None."""
        sanction = self._mutes.get(player_id)
        return sanction if sanction is not None and self._live(sanction) else None

    def covers(self, sanction: StoredSanction, player_id: str, address: str) -> bool:
        """`sanction` (a ban) holds a session of `player_id` from `address`."""
        if sanction.target.startswith(("k:", "g:")):
            return player_id == sanction.target
        network, ip = _network(sanction.target), _address(address)
        return network is not None and ip is not None and ip in network

    def _live(self, sanction: StoredSanction) -> bool:
        return sanction.expires_ms is None or sanction.expires_ms > self.wall_ms()

    # -- changes ---------------------------------------------------------------------------------

    def add(self, sanction: StoredSanction) -> None:
        """A sanction made (it replaces the one of the same kind and target)."""
        if sanction.kind == MUTE:
            self._mutes[sanction.target] = sanction
        elif sanction.target.startswith(("k:", "g:")):
            self._players[sanction.target] = sanction
        else:
            network = _network(sanction.target)
            if network is not None:
                key = (network.version, network.prefixlen)
                self._ranges.setdefault(key, {})[network] = sanction
                self._order = sorted(self._ranges, reverse=True)

    def remove(self, kind: str, target: str) -> StoredSanction | None:
        """Lift a sanction; the one lifted (None: there was none, or `target` is no range)."""
        if kind == MUTE:
            gone = self._mutes.pop(target, None)
        elif target.startswith(("k:", "g:")):
            gone = self._players.pop(target, None)
        else:
            network = _network(target)
            if network is None:
                return None
            key = (network.version, network.prefixlen)
            networks = self._ranges.get(key, {})
            gone = networks.pop(network, None)
            if not networks:
                self._ranges.pop(key, None)
                self._order = sorted(self._ranges, reverse=True)
        return gone

    def in_force(self) -> tuple[list[StoredSanction], list[StoredSanction]]:
        """(the sanctions in force, newest first; those that ran out, now dropped here: the
        caller deletes them from the storage)."""
        every = [*self._players.values(), *self._mutes.values()]
        every += [s for networks in self._ranges.values() for s in networks.values()]
        expired = [s for s in every if not self._live(s)]
        for sanction in expired:
            self.remove(sanction.kind, sanction.target)
        live = [s for s in every if self._live(s)]
        live.sort(key=lambda s: (s.created_ms, s.kind, s.target), reverse=True)
        return live, expired


def sanction_message(sanction: StoredSanction, now_ms: int) -> str:
    """What a sanctioned player is told: what, why, and for how long."""
    what = "banned from this server" if sanction.kind == BAN else "muted: your chat is not sent"
    why = f" ({sanction.reason})" if sanction.reason else ""
    return f"you are {what}{why}{_lasting(sanction.expires_ms, now_ms)}"


def _lasting(expires_ms: int | None, now_ms: int) -> str:
    if expires_ms is None:
        return " until an admin lifts it"
    left = max(0, expires_ms - now_ms) / 1000
    if left >= 60:  # to the minute: a ban made for an hour a moment ago has an hour left
        left = round(left / 60) * 60
    for unit, seconds in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if left >= seconds:
            count = round(left / seconds)
            return f" for {count} more {unit}{'s' if count != 1 else ''}"
    return " for a few more seconds"
