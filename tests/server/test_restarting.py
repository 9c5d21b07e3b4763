"""A stopping server's last words (`Hub.shutdown`): RESTARTING to a logged-in client that speaks
2.4, then SHUTTING_DOWN to everyone, which is all an older client or one not yet logged in gets."""

from __future__ import annotations

from server_helpers import Peer, make_hub

from sushigo.protocol import (
    PROTOCOL_NAME,
    Error,
    ErrorCode,
    Hello,
    LoginGuest,
    Restarting,
    Version,
    Welcome,
)


def test_restarting_then_shutting_down_by_version() -> None:
    hub, clock = make_hub()
    new = Peer(hub, clock, "10.0.0.1")
    new.login("new")
    old = Peer(hub, clock, "10.0.0.2")
    old.send(Hello(ref=old.ref(), protocol=PROTOCOL_NAME, version=Version(2, 3)))
    assert old.expect(Welcome).version == Version(2, 3)
    old.send(LoginGuest(ref=old.ref(), name="old"))
    anonymous = Peer(hub, clock, "10.0.0.3")
    anonymous.send(Hello(ref=anonymous.ref(), protocol=PROTOCOL_NAME, version=Version(2, 4)))
    anonymous.expect(Welcome)
    for peer in (new, old, anonymous):
        peer.drain()

    hub.shutdown(retry_ms=250)

    said = new.drain()
    assert [type(m) for m in said] == [Restarting, Error]
    restarting, error = said
    assert isinstance(restarting, Restarting) and restarting.retry_ms == 250
    assert isinstance(error, Error) and error.error_code is ErrorCode.SHUTTING_DOWN
    for peer in (old, anonymous):
        [only] = peer.drain()
        assert isinstance(only, Error) and only.error_code is ErrorCode.SHUTTING_DOWN
    assert all(peer.transport.closed for peer in (new, old, anonymous))
    assert not hub.conns
