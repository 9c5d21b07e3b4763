"""The server's sans-IO core (`core.Hub`): connections, sessions, requests and timers, handed
the clock by the adapter. The lobby, tables and tournaments it drives live in their own parts;
no IO here."""
