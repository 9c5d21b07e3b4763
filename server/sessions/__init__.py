"""Players' sessions and what bounds them: a session and its messages, names, the limits on
what a client may make the server hold, and bans and mutes in memory (stored by
`server.storage`)."""
