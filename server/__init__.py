"""The game server: asyncio listener, lobby, tables, tournaments, storage, TLS and identity.

Its parts, top to bottom; each imports only from the parts below it (tests/test_layers.py):

- the commands, at this package's top: `cli` (``sushigo-server``), `options`, `runtime`, `replay`
  (``sushigo-replay``)
- `net`: the asyncio adapter (sockets, TLS, logs, Prometheus metrics)
- `cluster`: a node's state shared with the other nodes in PostgreSQL
- `hub`: the sans-IO core every input goes through
- `operations`: the admins' requests
- `routing`: a cluster's sans-IO routing (redirects, placement, the table list, tournaments)
- `lobby`: logins, resumes, tables and seats, finished games
- `tournaments`: the desk, a tournament's standings, and how it is stored
- `sessions`: players' sessions, names, limits, bans and mutes
- `tables`: the table driver and the games it plays
- `storage`: the storage contract and its SQLite and PostgreSQL backends
- the shared vocabulary, at this package's top: `errors`, `config`, `stats`, `keys`, `lookalike`
"""
