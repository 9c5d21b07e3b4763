"""Sushi Go!'s wire: how its actions, observations and events travel (`wire.CARD_WIRE`).

As every game's folder in the protocol, it exposes ``WIRE`` and ``LEGACY_RECORDS`` (`protocol.games`).
"""

from .wire import CARD_WIRE as WIRE
from .wire import read_v1_record

LEGACY_RECORDS = {"sushigo-fair-record": read_v1_record}
"""The readers of its records signed by a protocol 1.0 server, by format name."""

__all__ = ["LEGACY_RECORDS", "WIRE"]
