"""A cluster's routing, sans-IO: redirects and their tickets, where a new table opens, every
node's table list, and tournaments reached across nodes. The database side of a cluster is
`server.cluster`."""
