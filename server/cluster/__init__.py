"""A cluster's node: what it shares with the other nodes in PostgreSQL (membership, leases,
tables taken over, the lobby's and tournaments' shared lists, the database's wall clock). The
decisions of routing between nodes are sans-IO, in `server.routing`."""
