"""The server's limits and timeouts, in one place (defaults: docs/PROTOCOL.md section 8)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class HubConfig:
    """Limits and timeouts (defaults: docs/PROTOCOL.md section 8)."""

    server_name: str = "sushigo"
    max_connections: int = 10_000
    max_per_address: int = 16
    handshake_seconds: float = 10.0
    heartbeat_seconds: float = 15.0
    dead_after_seconds: float = 45.0
    resume_seconds: float = 120.0
    messages_per_second: float = 20.0
    message_burst: float = 50.0
    bytes_per_second: float = 65_536.0
    chat_per_second: float = 1.0
    chat_burst: float = 5.0
    strikes_before_close: int = 10
    quick_turn_seconds: int = 60
    """Turn time of tables made by quick match."""
    token_lifetime_ms: int = 24 * 3600 * 1000
    """How long a stored reconnect token stays valid across server restarts."""
