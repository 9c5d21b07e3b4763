"""The lobby: logins, resumes, tables and seats, chat, players' finished games and their results.
Tournaments are `server.tournaments`; the table driver is `server.tables`."""
