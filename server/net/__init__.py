"""The asyncio adapter: it owns the sockets (TCP, TLS), the event loop's one timer, the log's
format and the Prometheus endpoint, and feeds the sans-IO hub (`server.hub`). It decides nothing
about games, players or tables."""
