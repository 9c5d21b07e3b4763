"""A cluster's node addresses as a WebSocket client reaches them (docs/PROTOCOL.md section 1.1).

A browser can open only WebSockets: the `HOST:PORT` of a node's TCP listener is of no use to it.
So to a connection over WebSocket (`server.net.web`) every node address the server sends is that
node's *web* address instead (the `HOST:PORT` of its ``--web`` endpoint, whose WebSocket is at
``/ws``): `logged_in.nodes` and `resumed.nodes` list the live nodes that serve the web client,
and `redirect.address` names the web address of the node to go to. A node that serves no web
client cannot take a browser: a REDIRECT there becomes an ERROR (`NO_SUCH_TABLE`) saying so.

The messages are built once for everyone (the hub does not know the transport); the session of
a WebSocket connection rewrites these three kinds on their way out (`Session.send`), with the
hub's map of the nodes' addresses to their web addresses, which the adapter keeps up to date
(`Hub.web_nodes`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from sushigo.protocol import Error, ErrorCode, LoggedIn, Message, Redirect, Resumed

__all__ = ["ROUTED", "over_web"]

ROUTED = frozenset((LoggedIn, Resumed, Redirect))
"""The messages that carry node addresses."""


def over_web(message: Message, web: Mapping[str, str]) -> Message:
    """`message` as a client over WebSocket is sent it: its node addresses made web addresses
    (`web`: by node address)."""
    if isinstance(message, LoggedIn | Resumed):
        nodes = tuple(web[a] for a in message.nodes if a in web)
        return dataclasses.replace(message, nodes=nodes)
    if isinstance(message, Redirect):
        found = web.get(message.address)
        if found is None:
            return Error(
                ref=message.ref,
                code=ErrorCode.NO_SUCH_TABLE,
                message=f"{message.table_id!r} is on the node at {message.address}, which serves"
                " no web client: play it from the terminal client",
            )
        return dataclasses.replace(message, address=found)
    return message
