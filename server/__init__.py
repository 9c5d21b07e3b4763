"""The game server: asyncio listener, lobby, tables, storage, TLS and identity."""
