"""Helpers for the admin tests: a hub with an admin key and a wall clock moved by hand, the admin
logged in, and requests answered (the database reads they ask for run at once)."""

from __future__ import annotations

import dataclasses
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from server_helpers import Clock, Peer, run_reads

from sushigo import protocol
from sushigo.protocol.identity import player_id_for_key
from sushigo.server.config import HubConfig
from sushigo.server.hub.core import Hub
from sushigo.server.storage.contract import Storage
from sushigo.server.storage.sqlite.storage import SqliteStorage

ADMIN_KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
ADMIN_ID = player_id_for_key(ADMIN_KEY.public_key().public_bytes_raw())
START_MS = 1_700_000_000_000


class Wall:
    """The hub's wall clock, moved by hand."""

    def __init__(self) -> None:
        self.ms = START_MS

    def __call__(self) -> int:
        return self.ms


def admin_hub(
    storage: Storage | None = None, config: HubConfig | None = None, wall: Wall | None = None
) -> tuple[Hub, Clock, Wall]:
    """A hub whose one admin is `ADMIN_KEY`."""
    wall = wall or Wall()
    hub = Hub(
        storage=storage or SqliteStorage(":memory:"),
        key=Ed25519PrivateKey.generate(),
        wall_ms=wall,
        config=config,
        admins=[ADMIN_KEY.public_key().public_bytes_raw()],
    )
    return hub, Clock(hub), wall


def admin(hub: Hub, clock: Clock, address: str = "192.0.2.1") -> Peer:
    """The admin, logged in."""
    peer = Peer(hub, clock, address=address)
    peer.login_key(ADMIN_KEY, "root")
    return peer


def keyed(hub: Hub, clock: Clock, name: str, address: str) -> tuple[Peer, Ed25519PrivateKey]:
    """A player with a key of its own, logged in."""
    peer = Peer(hub, clock, address=address)
    key = Ed25519PrivateKey.generate()
    peer.login_key(key, name)
    return peer, key


def pid(key: Ed25519PrivateKey) -> str:
    return player_id_for_key(key.public_key().public_bytes_raw())


def ask(peer: Peer, request: protocol.ClientMessage) -> Any:
    """Send `request` (with a fresh ref) and return the answer that repeats its ref (skipping
    anything else that comes first)."""
    message = dataclasses.replace(request, ref=peer.ref())
    peer.send(message)
    run_reads(peer.hub, peer.clock.now)
    seen: list[str] = []
    while (got := peer.next()) is not None:
        if getattr(got, "ref", None) == message.ref:
            return got
        seen.append(got.TYPE)
    raise AssertionError(f"no answer to {message.TYPE}; got {seen}")


def every_admin_request() -> list[protocol.ClientMessage]:
    """One of each admin request."""
    requests: list[protocol.ClientMessage] = [
        protocol.AdminSessions(),
        protocol.AdminNodes(),
        protocol.AdminShow(table_id="t1"),
        protocol.AdminKick(target="s1"),
        protocol.AdminBan(target="10.0.0.0/8"),
        protocol.AdminUnban(target="10.0.0.0/8"),
        protocol.AdminMute(target="g:0123456789abcdef"),
        protocol.AdminUnmute(target="g:0123456789abcdef"),
        protocol.AdminSanctions(),
        protocol.AdminClose(table_id="t1"),
        protocol.AdminAnnounce(text="hello"),
        protocol.AdminDrain(),
        protocol.AdminAudit(),
    ]
    assert {type(r) for r in requests} == set(protocol.ADMIN_REQUESTS)
    return requests


def types(messages: list[protocol.Message]) -> list[str]:
    return [m.TYPE for m in messages]
