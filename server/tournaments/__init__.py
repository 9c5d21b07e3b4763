"""Tournaments: the desk that runs them, their pairings and standings, and how one is stored.
Reaching a tournament on another node is `server.routing`."""
